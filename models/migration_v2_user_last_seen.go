package models

import (
	"fmt"
	"time"

	"gorm.io/gorm"
)

// userV2 is the users table as version 2 leaves it. Frozen: never edit.
type userV2 struct {
	ID          int64      `gorm:"primaryKey"`
	DisplayName string     `gorm:"size:80;not null"`
	CreatedAt   time.Time  `gorm:"not null"`
	LastSeenAt  *time.Time `gorm:"index"`
}

func (userV2) TableName() string { return "users" }

// migrationV2UserLastSeen adds users.last_seen_at (indexed, for the idle
// guest sweep) and backfills it from created_at, so no existing user looks
// idle since the beginning of time.
var migrationV2UserLastSeen = Migration{
	Version: 2,
	Name:    "user_last_seen",
	Up: func(tx *gorm.DB) error {
		if err := tx.Migrator().AddColumn(&userV2{}, "LastSeenAt"); err != nil {
			return fmt.Errorf("add users.last_seen_at: %w", err)
		}
		if err := tx.Migrator().CreateIndex(&userV2{}, "LastSeenAt"); err != nil {
			return fmt.Errorf("index users.last_seen_at: %w", err)
		}
		return tx.Exec("UPDATE users SET last_seen_at = created_at WHERE last_seen_at IS NULL").Error
	},
}
