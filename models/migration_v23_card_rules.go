package models

import (
	"fmt"

	"gorm.io/gorm"
)

// The columns as version 23 added them. Frozen: never edit.

type scenarioCardV23 struct {
	SecondaryKeys string `gorm:"type:text;not null;default:'[]'"`
	Logic         string `gorm:"size:16;not null;default:''"`
	Constant      bool   `gorm:"not null;default:false"`
	Priority      int    `gorm:"not null;default:0"`
}

func (scenarioCardV23) TableName() string { return "scenario_cards" }

type adventureCardV23 struct {
	SecondaryKeys string `gorm:"type:text;not null;default:'[]'"`
	Logic         string `gorm:"size:16;not null;default:''"`
	Constant      bool   `gorm:"not null;default:false"`
	Priority      int    `gorm:"not null;default:0"`
}

func (adventureCardV23) TableName() string { return "adventure_cards" }

// migrationV23CardRules gives story cards what lorebooks carry: secondary
// keys and their logic, a constant flag and a priority. Existing cards get
// none, and/any, not constant, priority 0: they fire as before.
var migrationV23CardRules = Migration{
	Version: 23,
	Name:    "card_rules",
	Up: func(tx *gorm.DB) error {
		for _, m := range []any{&scenarioCardV23{}, &adventureCardV23{}} {
			for _, field := range []string{"SecondaryKeys", "Logic", "Constant", "Priority"} {
				if err := tx.Migrator().AddColumn(m, field); err != nil {
					return fmt.Errorf("add %s card column %s: %w", m.(interface{ TableName() string }).TableName(), field, err)
				}
			}
		}
		return nil
	},
}
