package models

import (
	"time"

	"gorm.io/gorm"
)

// userV1 is the users table as version 1 created it. Frozen: never edit.
type userV1 struct {
	ID          int64     `gorm:"primaryKey"`
	DisplayName string    `gorm:"size:80;not null"`
	CreatedAt   time.Time `gorm:"not null"`
}

func (userV1) TableName() string { return "users" }

var migrationV1CreateUsers = Migration{
	Version: 1,
	Name:    "create_users",
	Up: func(tx *gorm.DB) error {
		return tx.Migrator().CreateTable(&userV1{})
	},
}
