package models

import (
	"fmt"

	"gorm.io/gorm"
)

// The columns as version 32 added them. Frozen: never edit.

type sessionV32 struct {
	RecapStatus string `gorm:"size:8;not null;default:'none'"`
	RecapText   string `gorm:"type:text;not null;default:''"`
}

func (sessionV32) TableName() string { return "sessions" }

type campaignV32 struct {
	RecapStyle string `gorm:"size:8;not null;default:'brief'"`
}

func (campaignV32) TableName() string { return "campaigns" }

// migrationV32Recaps adds the "Previously on…" recap that opens a session
// and the campaign's choice of its length.
var migrationV32Recaps = Migration{
	Version: 32,
	Name:    "recaps",
	Up: func(tx *gorm.DB) error {
		for _, c := range []struct {
			model any
			field string
		}{{&sessionV32{}, "RecapStatus"}, {&sessionV32{}, "RecapText"}, {&campaignV32{}, "RecapStyle"}} {
			if err := tx.Migrator().AddColumn(c.model, c.field); err != nil {
				return fmt.Errorf("add %s: %w", c.field, err)
			}
		}
		return nil
	},
}
