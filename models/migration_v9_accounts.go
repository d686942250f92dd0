package models

import (
	"fmt"
	"time"

	"gorm.io/gorm"
)

// Accounts as version 9 created them. Frozen: never edit.

type userV9 struct {
	ID             int64      `gorm:"primaryKey"`
	Email          *string    `gorm:"size:254;uniqueIndex:uq_users_email"`
	PasswordHash   string     `gorm:"size:255;not null;default:''"`
	SessionVersion int        `gorm:"not null;default:0"`
	RegisteredAt   *time.Time `gorm:""`
}

type loginFailureV9 struct {
	Key         string    `gorm:"primaryKey;size:200"`
	WindowStart time.Time `gorm:"not null;index"`
	Failures    int       `gorm:"not null"`
}

type demoUsageV9 struct {
	UserID int64   `gorm:"primaryKey;autoIncrement:false"`
	User   *userV1 `gorm:"foreignKey:UserID;constraint:OnDelete:CASCADE"`
	Day    string  `gorm:"primaryKey;size:10"`
	Tokens int64   `gorm:"not null;default:0"`
}

func (userV9) TableName() string         { return "users" }
func (loginFailureV9) TableName() string { return "login_failures" }
func (demoUsageV9) TableName() string    { return "demo_usage" }

// migrationV9Accounts lets a guest become an account in place (email,
// password hash, the session version that logout and password changes
// bump), persists failed logins for the per-account throttle, and counts
// the demo narrator's tokens per user and day.
var migrationV9Accounts = Migration{
	Version: 9,
	Name:    "accounts",
	Up: func(tx *gorm.DB) error {
		for _, field := range []string{"Email", "PasswordHash", "SessionVersion", "RegisteredAt"} {
			if err := tx.Migrator().AddColumn(&userV9{}, field); err != nil {
				return fmt.Errorf("add users.%s: %w", field, err)
			}
		}
		if err := tx.Migrator().CreateIndex(&userV9{}, "uq_users_email"); err != nil {
			return fmt.Errorf("index users.email: %w", err)
		}
		return tx.Migrator().CreateTable(&loginFailureV9{}, &demoUsageV9{})
	},
}
