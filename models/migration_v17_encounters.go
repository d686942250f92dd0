package models

import (
	"fmt"
	"time"

	"gorm.io/gorm"
)

// The table as version 17 created it. Frozen: never edit.

type encounterV17 struct {
	ID        int64      `gorm:"primaryKey"`
	SessionID int64      `gorm:"not null;index"`
	Session   *sessionV3 `gorm:"foreignKey:SessionID;constraint:OnDelete:CASCADE"`
	Status    string     `gorm:"size:16;not null;check:ck_encounters_status,status IN ('running','ended')"`
	State     string     `gorm:"type:text;not null"`
	CreatedAt time.Time  `gorm:"not null"`
	UpdatedAt time.Time  `gorm:"not null"`
	EndedAt   *time.Time `gorm:""`
}

func (encounterV17) TableName() string { return "encounters" }

// migrationV17Encounters stores a session's fights: the rules' state of
// each encounter, running or ended (the events record every change).
var migrationV17Encounters = Migration{
	Version: 17,
	Name:    "encounters",
	Up: func(tx *gorm.DB) error {
		if err := tx.Migrator().CreateTable(&encounterV17{}); err != nil {
			return fmt.Errorf("create encounters: %w", err)
		}
		return nil
	},
}
