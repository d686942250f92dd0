package models

import (
	"fmt"

	"gorm.io/gorm"
)

// The roll_requests column as version 900 added it. Frozen: never edit.
// (900 is a placeholder version: the lead renumbers it at merge.)

type rollRequestV900 struct {
	DCSalt string `gorm:"column:dc_salt;size:32;not null;default:''"`
}

func (rollRequestV900) TableName() string { return "roll_requests" }

// migrationV900DCCommitment stores with each check request the random salt
// of its secret DC's commitment (players see the commitment while the DC is
// secret; the DC and salt are revealed when the check resolves). Existing
// requests get none (empty): they show no commitment.
var migrationV900DCCommitment = Migration{
	Version: 900,
	Name:    "dc_commitment",
	Up: func(tx *gorm.DB) error {
		if err := tx.Migrator().AddColumn(&rollRequestV900{}, "DCSalt"); err != nil {
			return fmt.Errorf("add roll_requests.dc_salt: %w", err)
		}
		return nil
	},
}
