package models

import (
	"fmt"

	"gorm.io/gorm"
)

// The column as version 21 added it. Frozen: never edit.

type damageDefensesV21 struct {
	Resistances     []string `json:"resistances"`
	Immunities      []string `json:"immunities"`
	Vulnerabilities []string `json:"vulnerabilities"`
}

type characterV21 struct {
	Defenses damageDefensesV21 `gorm:"serializer:json;type:text;not null;default:'{}'"`
}

func (characterV21) TableName() string { return "characters" }

// migrationV21DamageDefenses stores a character's damage resistances,
// immunities and vulnerabilities; existing characters have none.
var migrationV21DamageDefenses = Migration{
	Version: 21,
	Name:    "damage_defenses",
	Up: func(tx *gorm.DB) error {
		if err := tx.Migrator().AddColumn(&characterV21{}, "Defenses"); err != nil {
			return fmt.Errorf("add characters.defenses: %w", err)
		}
		return nil
	},
}
