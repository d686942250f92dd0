package models

import (
	"fmt"
	"time"

	"gorm.io/gorm"
)

// The table as version 36 created it. Frozen: never edit.
type soloGrantV36 struct {
	ID            int64         `gorm:"primaryKey"`
	PublicID      string        `gorm:"size:32;not null;uniqueIndex"`
	SecretHash    string        `gorm:"size:64;not null"`
	DisplayPrefix string        `gorm:"size:32;not null"`
	UserID        int64         `gorm:"not null;index"`
	User          *userV1       `gorm:"foreignKey:UserID;constraint:OnDelete:CASCADE"`
	AdventureID   *int64        `gorm:"index;check:ck_solo_grants_scope,(adventure_id IS NULL) <> (scenario_id IS NULL)"`
	Adventure     *adventureV36 `gorm:"foreignKey:AdventureID;constraint:OnDelete:CASCADE"`
	ScenarioID    *int64        `gorm:"index"`
	Scenario      *scenarioV36  `gorm:"foreignKey:ScenarioID;constraint:OnDelete:CASCADE"`
	Label         string        `gorm:"size:80;not null;default:''"`
	Status        string        `gorm:"size:16;not null;check:ck_solo_grants_status,status IN ('active','revoked')"`
	ExpiresAt     time.Time     `gorm:"not null"`
	CreatedAt     time.Time     `gorm:"not null"`
	RevokedAt     *time.Time
	LastSeenAt    *time.Time
}

func (soloGrantV36) TableName() string { return "solo_grants" }

// adventureV36 and scenarioV36 name their tables for the foreign keys only.
type adventureV36 struct {
	ID int64 `gorm:"primaryKey"`
}

func (adventureV36) TableName() string { return "adventures" }

type scenarioV36 struct {
	ID int64 `gorm:"primaryKey"`
}

func (scenarioV36) TableName() string { return "scenarios" }

// migrationV36SoloGrants adds the tokens with which an agent plays one
// adventure or works on one scenario over MCP (SoloGrant).
var migrationV36SoloGrants = Migration{
	Version: 36,
	Name:    "solo_grants",
	Up: func(tx *gorm.DB) error {
		if err := tx.Migrator().CreateTable(&soloGrantV36{}); err != nil {
			return fmt.Errorf("create solo_grants: %w", err)
		}
		return nil
	},
}
