package models

import (
	"fmt"

	"gorm.io/gorm"
)

// The column as version 14 added it. Frozen: never edit.

type adventureV14 struct {
	TurnStop string `gorm:"size:40;not null;default:''"`
}

func (adventureV14) TableName() string { return "adventures" }

// migrationV14TurnStop lets a Stop reach a turn streaming in another server
// process: adventures.turn_stop holds the claim token a Stop was asked for.
var migrationV14TurnStop = Migration{
	Version: 14,
	Name:    "turn_stop",
	Up: func(tx *gorm.DB) error {
		if err := tx.Migrator().AddColumn(&adventureV14{}, "TurnStop"); err != nil {
			return fmt.Errorf("add adventures.turn_stop: %w", err)
		}
		return nil
	},
}
