package models

import (
	"fmt"
	"time"

	"gorm.io/gorm"
)

// The table as version 28 created it. Frozen: never edit.

type narratorStepV28 struct {
	ID               int64          `gorm:"primaryKey"`
	GrantID          int64          `gorm:"not null;index:ix_narrator_steps_grant,priority:1"`
	Grant            *aiGrantV25Ref `gorm:"foreignKey:GrantID;constraint:OnDelete:CASCADE"`
	CreatedAt        time.Time      `gorm:"not null"`
	PromptTokens     int64          `gorm:"not null;default:0"`
	CompletionTokens int64          `gorm:"not null;default:0"`
	ToolCalls        int            `gorm:"not null;default:0"`
	Outcome          string         `gorm:"size:64;not null;default:''"`
	Record           string         `gorm:"type:text;not null"`
}

func (narratorStepV28) TableName() string { return "narrator_steps" }

// migrationV28NarratorSteps keeps the record of a narrator's recent steps
// (its prompt's sections, the exact messages and tool calls) for the
// people who direct it: the table's Insights, as solo turns have.
var migrationV28NarratorSteps = Migration{
	Version: 28,
	Name:    "narrator_steps",
	Up: func(tx *gorm.DB) error {
		if err := tx.Migrator().CreateTable(&narratorStepV28{}); err != nil {
			return fmt.Errorf("create narrator_steps: %w", err)
		}
		return nil
	},
}
