package models

import (
	"fmt"
	"time"

	"gorm.io/gorm"
)

// The table as version 24 created it. Frozen: never edit.

type browserSessionV24 struct {
	ID         int64     `gorm:"primaryKey"`
	UserID     int64     `gorm:"not null;index"`
	User       *userV1   `gorm:"foreignKey:UserID;constraint:OnDelete:CASCADE"`
	TokenHash  string    `gorm:"size:64;not null;uniqueIndex:uq_browser_sessions_token_hash"`
	Browser    string    `gorm:"size:40;not null;default:''"`
	OS         string    `gorm:"size:40;not null;default:''"`
	CreatedAt  time.Time `gorm:"not null"`
	LastSeenAt time.Time `gorm:"not null"`
}

func (browserSessionV24) TableName() string { return "browser_sessions" }

// migrationV24BrowserSessions gives each browser's login its own row (the
// hash of the random token in its cookie), so one browser's logout ends
// that browser's session on the server. Existing cookies upgrade to a row
// on their next request.
var migrationV24BrowserSessions = Migration{
	Version: 24,
	Name:    "browser_sessions",
	Up: func(tx *gorm.DB) error {
		if err := tx.Migrator().CreateTable(&browserSessionV24{}); err != nil {
			return fmt.Errorf("create browser_sessions: %w", err)
		}
		return nil
	},
}
