package models

import (
	"fmt"
	"time"

	"gorm.io/gorm"
)

// The memory bank as version 8 created it. Frozen: never edit.

type memoryV8 struct {
	ID               int64        `gorm:"primaryKey"`
	AdventureID      int64        `gorm:"not null;index"`
	Adventure        *adventureV7 `gorm:"foreignKey:AdventureID;constraint:OnDelete:CASCADE"`
	BranchID         int64        `gorm:"not null;index:ix_memories_anchor,priority:1"`
	Branch           *branchV7    `gorm:"foreignKey:BranchID;constraint:OnDelete:CASCADE"`
	Depth            int          `gorm:"not null;index:ix_memories_anchor,priority:2"`
	FromDepth        int          `gorm:"not null"`
	Kind             string       `gorm:"size:16;not null;check:ck_memories_kind,kind IN ('block','note','summary')"`
	Text             string       `gorm:"type:text;not null"`
	Pinned           bool         `gorm:"not null;default:false"`
	Forgotten        bool         `gorm:"not null;default:false"`
	Stale            bool         `gorm:"not null;default:false"`
	Uses             int          `gorm:"not null;default:0"`
	LastUsedAt       *time.Time   `gorm:""`
	LastUsedActionID *int64       `gorm:""`
	Embedding        []byte       `gorm:""`
	EmbeddingModel   string       `gorm:"size:200;not null;default:''"`
	CreatedAt        time.Time    `gorm:"not null"`
	UpdatedAt        time.Time    `gorm:"not null"`
}

type memoryJobV8 struct {
	AdventureID  int64        `gorm:"primaryKey;autoIncrement:false"`
	Adventure    *adventureV7 `gorm:"foreignKey:AdventureID;constraint:OnDelete:CASCADE"`
	DueAt        *time.Time   `gorm:"index"`
	ClaimedBy    string       `gorm:"size:40;not null;default:''"`
	ClaimedAt    *time.Time   `gorm:""`
	ClaimedUntil *time.Time   `gorm:""`
	Runs         int          `gorm:"not null;default:0"`
	LastError    string       `gorm:"type:text;not null;default:''"`
	LastRunAt    *time.Time   `gorm:""`
}

type providerSettingV8 struct {
	UserID         int64  `gorm:"primaryKey;autoIncrement:false"`
	EmbeddingModel string `gorm:"size:200;not null;default:''"`
	MemoryTopK     int    `gorm:"not null;default:5"`
	MemoryCapacity int    `gorm:"not null;default:200"`
}

type actionV8 struct {
	ID              int64 `gorm:"primaryKey"`
	SnapshotExpired bool  `gorm:"not null;default:false"`
}

type adventureCardV8 struct {
	ID             int64  `gorm:"primaryKey"`
	OriginActionID *int64 `gorm:"index"`
}

func (memoryV8) TableName() string          { return "memories" }
func (memoryJobV8) TableName() string       { return "memory_jobs" }
func (providerSettingV8) TableName() string { return "provider_settings" }
func (actionV8) TableName() string          { return "actions" }
func (adventureCardV8) TableName() string   { return "adventure_cards" }

// migrationV8Memory adds the memory bank and its job rows, the user's
// memory settings, expired prompt snapshots and per-line story cards.
var migrationV8Memory = Migration{
	Version: 8,
	Name:    "memory",
	Up: func(tx *gorm.DB) error {
		if err := tx.Migrator().CreateTable(&memoryV8{}, &memoryJobV8{}); err != nil {
			return fmt.Errorf("create memories: %w", err)
		}
		for _, c := range []struct {
			model any
			field string
		}{
			{&providerSettingV8{}, "EmbeddingModel"}, {&providerSettingV8{}, "MemoryTopK"}, {&providerSettingV8{}, "MemoryCapacity"},
			{&actionV8{}, "SnapshotExpired"}, {&adventureCardV8{}, "OriginActionID"},
		} {
			if err := tx.Migrator().AddColumn(c.model, c.field); err != nil {
				return fmt.Errorf("add %s: %w", c.field, err)
			}
		}
		if err := tx.Migrator().CreateIndex(&adventureCardV8{}, "OriginActionID"); err != nil {
			return fmt.Errorf("index adventure_cards.origin_action_id: %w", err)
		}
		return nil
	},
}
