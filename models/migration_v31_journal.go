package models

import (
	"fmt"
	"time"

	"gorm.io/gorm"
)

// The table as version 31 created it. Frozen: never edit.

type seatV31Ref struct {
	ID int64 `gorm:"primaryKey"`
}

func (seatV31Ref) TableName() string { return "campaign_seats" }

type journalEntryV31 struct {
	ID              int64           `gorm:"primaryKey"`
	CampaignID      int64           `gorm:"not null;index"`
	Campaign        *campaignV30Ref `gorm:"foreignKey:CampaignID;constraint:OnDelete:CASCADE"`
	Kind            string          `gorm:"size:8;not null;check:ck_journal_entries_kind,kind IN ('npc','place','item','quest','clue','note')"`
	Title           string          `gorm:"size:120;not null"`
	Text            string          `gorm:"type:text;not null"`
	Audience        string          `gorm:"size:8;not null;check:ck_journal_entries_audience,audience IN ('table','seats','dm')"`
	SeatIDs         []int64         `gorm:"serializer:json;type:text;not null"`
	AuthorSeatID    *int64          `gorm:"index"`
	AuthorSeat      *seatV31Ref     `gorm:"foreignKey:AuthorSeatID;constraint:OnDelete:SET NULL"`
	SourceSessionID *int64          `gorm:"index"`
	SourceSession   *sessionV30Ref  `gorm:"foreignKey:SourceSessionID;constraint:OnDelete:SET NULL"`
	SourceSeq       *int64          `gorm:""`
	Confirmed       bool            `gorm:"not null;default:false"`
	CreatedAt       time.Time       `gorm:"not null"`
	UpdatedAt       time.Time       `gorm:"not null"`
}

func (journalEntryV31) TableName() string { return "journal_entries" }

// migrationV31Journal adds the journal a campaign's table keeps.
var migrationV31Journal = Migration{
	Version: 31,
	Name:    "journal",
	Up: func(tx *gorm.DB) error {
		if err := tx.Migrator().CreateTable(&journalEntryV31{}); err != nil {
			return fmt.Errorf("create journal_entries: %w", err)
		}
		return nil
	},
}
