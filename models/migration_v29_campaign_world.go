package models

import (
	"fmt"
	"time"

	"gorm.io/gorm"
)

// The table as version 29 created it. Frozen: never edit.

type campaignV29Ref struct {
	ID int64 `gorm:"primaryKey"`
}

func (campaignV29Ref) TableName() string { return "campaigns" }

type campaignWorldV29 struct {
	CampaignID     int64           `gorm:"primaryKey;autoIncrement:false"`
	Campaign       *campaignV29Ref `gorm:"foreignKey:CampaignID;constraint:OnDelete:CASCADE"`
	Premise        string          `gorm:"type:text;not null;default:''"`
	PlotEssentials string          `gorm:"type:text;not null;default:''"`
	NPCs           string          `gorm:"column:npcs;type:text;not null;default:'[]'"`
	UpdatedAt      time.Time       `gorm:"not null"`
}

func (campaignWorldV29) TableName() string { return "campaign_worlds" }

// migrationV29CampaignWorld keeps a campaign's world: its premise (the
// table's), plot essentials and NPCs (the DM's).
var migrationV29CampaignWorld = Migration{
	Version: 29,
	Name:    "campaign_world",
	Up: func(tx *gorm.DB) error {
		if err := tx.Migrator().CreateTable(&campaignWorldV29{}); err != nil {
			return fmt.Errorf("create campaign_worlds: %w", err)
		}
		return nil
	},
}
