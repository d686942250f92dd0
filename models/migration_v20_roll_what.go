package models

import (
	"fmt"

	"gorm.io/gorm"
)

// The roll_results columns as version 20 added them. Frozen: never edit.

type rollResultV20 struct {
	CheckKey   string `gorm:"size:32;not null;default:''"`
	AttackName string `gorm:"size:80;not null;default:''"`
	AttackRoll string `gorm:"size:8;not null;default:''"`
	DamageType string `gorm:"size:16;not null;default:''"`
}

func (rollResultV20) TableName() string { return "roll_results" }

// migrationV20RollWhat stores on a roll result what a quick roll of the
// sheet rolled: a check's key, or an attack's name, its roll (to_hit or
// damage) and damage type, so the roll history names it ("Longsword: to
// hit") as the feed does. Existing results get none (empty), which reads
// as plain dice.
var migrationV20RollWhat = Migration{
	Version: 20,
	Name:    "roll_what",
	Up: func(tx *gorm.DB) error {
		for _, field := range []string{"CheckKey", "AttackName", "AttackRoll", "DamageType"} {
			if err := tx.Migrator().AddColumn(&rollResultV20{}, field); err != nil {
				return fmt.Errorf("add roll_results.%s: %w", field, err)
			}
		}
		return nil
	},
}
