package models

import (
	"fmt"
	"time"

	"gorm.io/gorm"
)

// The chat columns as version 11 added them. Frozen: never edit.

type sessionMessageV11 struct {
	AuthorAccessSessionID *int64
	AuthorGrantID         *int64
	RollResultIDs         []int64 `gorm:"serializer:json;type:text;not null;default:'[]'"`
	EditedAt              *time.Time
	DeletedAt             *time.Time
	DeletedBySeatID       *int64
}

type roomAccessSessionV11 struct {
	LastSeenAt        *time.Time
	LastSeenSessionID *int64
}

func (sessionMessageV11) TableName() string    { return "session_messages" }
func (roomAccessSessionV11) TableName() string { return "room_access_sessions" }

// migrationV11Chat lets a message be edited and deleted by its author
// (who posted it, and when it was edited or deleted and by whom), carry
// its inline rolls, and lets a room access session record presence.
var migrationV11Chat = Migration{
	Version: 11,
	Name:    "chat",
	Up: func(tx *gorm.DB) error {
		for _, field := range []string{"AuthorAccessSessionID", "AuthorGrantID", "RollResultIDs", "EditedAt", "DeletedAt", "DeletedBySeatID"} {
			if err := tx.Migrator().AddColumn(&sessionMessageV11{}, field); err != nil {
				return fmt.Errorf("add session_messages.%s: %w", field, err)
			}
		}
		for _, field := range []string{"LastSeenAt", "LastSeenSessionID"} {
			if err := tx.Migrator().AddColumn(&roomAccessSessionV11{}, field); err != nil {
				return fmt.Errorf("add room_access_sessions.%s: %w", field, err)
			}
		}
		return nil
	},
}
