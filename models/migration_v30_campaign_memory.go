package models

import (
	"fmt"
	"time"

	"gorm.io/gorm"
)

// The tables as version 30 created them. Frozen: never edit.

type campaignV30Ref struct {
	ID int64 `gorm:"primaryKey"`
}

func (campaignV30Ref) TableName() string { return "campaigns" }

type sessionV30Ref struct {
	ID int64 `gorm:"primaryKey"`
}

func (sessionV30Ref) TableName() string { return "sessions" }

type campaignMemoryV30 struct {
	ID             int64           `gorm:"primaryKey"`
	CampaignID     int64           `gorm:"not null;index"`
	Campaign       *campaignV30Ref `gorm:"foreignKey:CampaignID;constraint:OnDelete:CASCADE"`
	SessionID      int64           `gorm:"not null;uniqueIndex:uq_campaign_memories_block,priority:1"`
	Session        *sessionV30Ref  `gorm:"foreignKey:SessionID;constraint:OnDelete:CASCADE"`
	Audience       string          `gorm:"size:8;not null;check:ck_campaign_memories_audience,audience IN ('table','seats','dm')"`
	SeatIDs        []int64         `gorm:"serializer:json;type:text;not null"`
	AudienceKey    string          `gorm:"size:200;not null;uniqueIndex:uq_campaign_memories_block,priority:2"`
	Kind           string          `gorm:"size:8;not null;check:ck_campaign_memories_kind,kind IN ('block','note')"`
	FromSeq        int64           `gorm:"not null"`
	ToSeq          int64           `gorm:"not null;uniqueIndex:uq_campaign_memories_block,priority:3"`
	Text           string          `gorm:"type:text;not null"`
	Embedding      []byte          `gorm:""`
	EmbeddingModel string          `gorm:"size:200;not null;default:''"`
	CreatedAt      time.Time       `gorm:"not null"`
	UpdatedAt      time.Time       `gorm:"not null"`
}

func (campaignMemoryV30) TableName() string { return "campaign_memories" }

type campaignMemoryJobV30 struct {
	CampaignID   int64           `gorm:"primaryKey;autoIncrement:false"`
	Campaign     *campaignV30Ref `gorm:"foreignKey:CampaignID;constraint:OnDelete:CASCADE"`
	DueAt        *time.Time      `gorm:"index"`
	ClaimedBy    string          `gorm:"size:40;not null;default:''"`
	ClaimedAt    *time.Time      `gorm:""`
	ClaimedUntil *time.Time      `gorm:""`
	Runs         int             `gorm:"not null;default:0"`
	LastError    string          `gorm:"type:text;not null;default:''"`
	LastRunAt    *time.Time      `gorm:""`
}

func (campaignMemoryJobV30) TableName() string { return "campaign_memory_jobs" }

// migrationV30CampaignMemory adds a campaign's memory bank over its
// session events, by audience, and its durable job row.
var migrationV30CampaignMemory = Migration{
	Version: 30,
	Name:    "campaign_memory",
	Up: func(tx *gorm.DB) error {
		for _, m := range []any{&campaignMemoryV30{}, &campaignMemoryJobV30{}} {
			if err := tx.Migrator().CreateTable(m); err != nil {
				return fmt.Errorf("create %T: %w", m, err)
			}
		}
		return nil
	},
}
