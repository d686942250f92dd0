package models

import (
	"fmt"

	"gorm.io/gorm"
)

// The character columns as version 15 added them. Frozen: never edit.

type characterV15 struct {
	CharacterClass    string   `gorm:"column:character_class;size:80;not null;default:''"`
	Species           string   `gorm:"size:80;not null;default:''"`
	Background        string   `gorm:"size:80;not null;default:''"`
	SaveProficiencies []string `gorm:"serializer:json;type:text;not null;default:'[]'"`
	Armor             string   `gorm:"size:40;not null;default:''"`
	Shield            bool     `gorm:"not null;default:false"`
	Unarmored         string   `gorm:"size:40;not null;default:''"`
	ArmorBonus        int      `gorm:"not null;default:0"`
	Speed             int      `gorm:"not null;default:0"`
	HitDie            int      `gorm:"not null;default:0"`
}

func (characterV15) TableName() string { return "characters" }

// migrationV15Sheet stores the rest of a 5e sheet's inputs on a character:
// class, species and background as text, saving throw proficiencies, armor
// (body armor key, shield, unarmored formula, flat bonus), speed and hit
// die. Existing characters get none of them (empty, 0), which the sheet
// rules read as "not given".
var migrationV15Sheet = Migration{
	Version: 15,
	Name:    "sheet",
	Up: func(tx *gorm.DB) error {
		for _, field := range []string{"CharacterClass", "Species", "Background", "SaveProficiencies", "Armor", "Shield", "Unarmored", "ArmorBonus", "Speed", "HitDie"} {
			if err := tx.Migrator().AddColumn(&characterV15{}, field); err != nil {
				return fmt.Errorf("add characters.%s: %w", field, err)
			}
		}
		return nil
	},
}
