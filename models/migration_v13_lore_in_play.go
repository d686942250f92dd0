package models

import (
	"fmt"

	"gorm.io/gorm"
)

// The columns as version 13 added them. Frozen: never edit.

type adventureCardV13 struct {
	Disabled bool `gorm:"not null;default:false"`
}

func (adventureCardV13) TableName() string { return "adventure_cards" }

type providerSettingV13 struct {
	ReasoningEffort string `gorm:"size:16;not null;default:''"`
}

func (providerSettingV13) TableName() string { return "provider_settings" }

// migrationV13LoreInPlay lets the player set a story card aside during play
// (adventure_cards.disabled) and ask a reasoning model for an effort
// (provider_settings.reasoning_effort, "" sends none).
var migrationV13LoreInPlay = Migration{
	Version: 13,
	Name:    "lore_in_play",
	Up: func(tx *gorm.DB) error {
		if err := tx.Migrator().AddColumn(&adventureCardV13{}, "Disabled"); err != nil {
			return fmt.Errorf("add adventure_cards.disabled: %w", err)
		}
		if err := tx.Migrator().AddColumn(&providerSettingV13{}, "ReasoningEffort"); err != nil {
			return fmt.Errorf("add provider_settings.reasoning_effort: %w", err)
		}
		return nil
	},
}
