package models

import (
	"fmt"
	"time"

	"gorm.io/gorm"
)

// The table as version 900 created it. Frozen: never edit.

type campaignV900Ref struct {
	ID int64 `gorm:"primaryKey"`
}

func (campaignV900Ref) TableName() string { return "campaigns" }

type campaignWorldV900 struct {
	CampaignID     int64            `gorm:"primaryKey;autoIncrement:false"`
	Campaign       *campaignV900Ref `gorm:"foreignKey:CampaignID;constraint:OnDelete:CASCADE"`
	Premise        string           `gorm:"type:text;not null;default:''"`
	PlotEssentials string           `gorm:"type:text;not null;default:''"`
	NPCs           string           `gorm:"column:npcs;type:text;not null;default:'[]'"`
	UpdatedAt      time.Time        `gorm:"not null"`
}

func (campaignWorldV900) TableName() string { return "campaign_worlds" }

// migrationV900CampaignWorld keeps a campaign's world: its premise (the
// table's), plot essentials and NPCs (the DM's).
var migrationV900CampaignWorld = Migration{
	Version: 900,
	Name:    "campaign_world",
	Up: func(tx *gorm.DB) error {
		if err := tx.Migrator().CreateTable(&campaignWorldV900{}); err != nil {
			return fmt.Errorf("create campaign_worlds: %w", err)
		}
		return nil
	},
}
