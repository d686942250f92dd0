package models

import (
	"fmt"

	"gorm.io/gorm"
)

// The character columns as version 16 added them. Frozen: never edit.

type characterV16 struct {
	Attacks   []json16 `gorm:"serializer:json;type:text;not null;default:'[]'"`
	Spells    []json16 `gorm:"serializer:json;type:text;not null;default:'[]'"`
	Inventory []json16 `gorm:"serializer:json;type:text;not null;default:'[]'"`
	Notes     string   `gorm:"type:text;not null;default:''"`
}

// json16 stands for the list entries: the step only adds the text
// columns, whatever the entries hold.
type json16 struct{}

func (characterV16) TableName() string { return "characters" }

// migrationV16SheetExtras stores the rest of a character sheet: attacks,
// spells and inventory as JSON lists, and free notes. Existing characters
// get empty lists and no notes.
var migrationV16SheetExtras = Migration{
	Version: 16,
	Name:    "sheet_extras",
	Up: func(tx *gorm.DB) error {
		for _, field := range []string{"Attacks", "Spells", "Inventory", "Notes"} {
			if err := tx.Migrator().AddColumn(&characterV16{}, field); err != nil {
				return fmt.Errorf("add characters.%s: %w", field, err)
			}
		}
		return nil
	},
}
