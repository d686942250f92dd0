package models

import (
	"fmt"
	"time"

	"gorm.io/gorm"
)

// The table as version 25 created it. Frozen: never edit.

type narratorV25 struct {
	GrantID          int64          `gorm:"primaryKey;autoIncrement:false"`
	Grant            *aiGrantV25Ref `gorm:"foreignKey:GrantID;constraint:OnDelete:CASCADE"`
	ModelUserID      *int64         `gorm:"index"`
	ModelUser        *userV1        `gorm:"foreignKey:ModelUserID;constraint:OnDelete:SET NULL"`
	Paused           bool           `gorm:"not null;default:false"`
	DebounceMS       int            `gorm:"not null;default:4000"`
	MaxToolCalls     int            `gorm:"not null;default:8"`
	HandledSeq       int64          `gorm:"not null;default:0"`
	ActNow           bool           `gorm:"not null;default:false"`
	WindowDeadline   *time.Time
	StepToken        string `gorm:"size:40;not null;default:''"`
	StepHeartbeat    *time.Time
	State            string    `gorm:"size:16;not null;default:'idle'"`
	LastError        string    `gorm:"size:64;not null;default:''"`
	Steps            int64     `gorm:"not null;default:0"`
	PromptTokens     int64     `gorm:"not null;default:0"`
	CompletionTokens int64     `gorm:"not null;default:0"`
	LastStepTokens   int64     `gorm:"not null;default:0"`
	UpdatedAt        time.Time `gorm:"not null"`
}

func (narratorV25) TableName() string { return "narrators" }

// aiGrantV25Ref names the grants table for the foreign key only.
type aiGrantV25Ref struct {
	ID int64 `gorm:"primaryKey"`
}

func (aiGrantV25Ref) TableName() string { return "ai_controller_grants" }

// migrationV25Narrators adds the server's own narrator at a seat: one row
// per narrator grant with its controls, its step claim and its costs.
var migrationV25Narrators = Migration{
	Version: 25,
	Name:    "narrators",
	Up: func(tx *gorm.DB) error {
		if err := tx.Migrator().CreateTable(&narratorV25{}); err != nil {
			return fmt.Errorf("create narrators: %w", err)
		}
		return nil
	},
}
