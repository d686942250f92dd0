package models

import (
	"fmt"

	"gorm.io/gorm"
)

// The column as version 19 added it. Frozen: never edit.

type characterV19 struct {
	InitiativeAdvantage bool `gorm:"not null;default:false"`
}

func (characterV19) TableName() string { return "characters" }

// migrationV19InitiativeAdvantage lets a sheet say it rolls initiative
// with advantage (a class or feat feature); existing characters do not.
var migrationV19InitiativeAdvantage = Migration{
	Version: 19,
	Name:    "initiative_advantage",
	Up: func(tx *gorm.DB) error {
		if err := tx.Migrator().AddColumn(&characterV19{}, "InitiativeAdvantage"); err != nil {
			return fmt.Errorf("add characters.initiative_advantage: %w", err)
		}
		return nil
	},
}
