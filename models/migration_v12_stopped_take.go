package models

import (
	"fmt"

	"gorm.io/gorm"
)

// The column as version 12 added it. Frozen: never edit.

type actionV12 struct {
	Stopped bool `gorm:"not null;default:false"`
}

func (actionV12) TableName() string { return "actions" }

// migrationV12StoppedTake marks a narration the player stopped mid-stream:
// its partial text is kept as a take, flagged so the story says so.
var migrationV12StoppedTake = Migration{
	Version: 12,
	Name:    "stopped_take",
	Up: func(tx *gorm.DB) error {
		if err := tx.Migrator().AddColumn(&actionV12{}, "Stopped"); err != nil {
			return fmt.Errorf("add actions.stopped: %w", err)
		}
		return nil
	},
}
