package models

import (
	"fmt"

	"gorm.io/gorm"
)

// The narrators column as version 27 added it. Frozen: never edit.

type narratorV27 struct {
	Draft string `gorm:"type:text;not null;default:''"`
}

func (narratorV27) TableName() string { return "narrators" }

// migrationV27NarratorDraft adds the narration a narrator's step is writing
// (streamed into the table's feed while the model writes it; "" between
// steps). It lives in the row, not in one process's memory, so a browser
// served by another process behind the same PostgreSQL sees it too.
var migrationV27NarratorDraft = Migration{
	Version: 27,
	Name:    "narrator_draft",
	Up: func(tx *gorm.DB) error {
		if err := tx.Migrator().AddColumn(&narratorV27{}, "Draft"); err != nil {
			return fmt.Errorf("add narrators.draft: %w", err)
		}
		return nil
	},
}
