package models

import (
	"fmt"

	"gorm.io/gorm"
)

// The roll_requests columns as version 26 added them. Frozen: never edit.

type rollRequestV26 struct {
	DCSalt     string `gorm:"column:dc_salt;size:32;not null;default:''"`
	DCRevealed bool   `gorm:"column:dc_revealed;not null;default:false"`
}

func (rollRequestV26) TableName() string { return "roll_requests" }

// migrationV26DCCommitment stores with each check request the random salt
// of its secret DC's commitment (players see the commitment while the DC is
// secret) and whether the DC and salt were revealed (when its group's last
// check was settled). Existing requests get no salt: they show no
// commitment, and reveal nothing.
var migrationV26DCCommitment = Migration{
	Version: 26,
	Name:    "dc_commitment",
	Up: func(tx *gorm.DB) error {
		for _, field := range []string{"DCSalt", "DCRevealed"} {
			if err := tx.Migrator().AddColumn(&rollRequestV26{}, field); err != nil {
				return fmt.Errorf("add roll_requests.%s: %w", field, err)
			}
		}
		return nil
	},
}
