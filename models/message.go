package models

import (
	"context"
	"time"

	"gorm.io/gorm/clause"
)

// Message kinds.
const (
	MessageDialogue  = "character_dialogue"
	MessageNarration = "narration"
	MessageAction    = "action"
	MessageOOC       = "ooc"
	MessageWhisperDM = "whisper_dm"
)

// SessionMessage is a chat line of a session. It is written in the same
// transaction as the event that announces it.
type SessionMessage struct {
	ID                 int64     `gorm:"primaryKey"`
	SessionID          int64     `gorm:"not null;index"`
	Session            *Session  `gorm:"foreignKey:SessionID;constraint:OnDelete:CASCADE"`
	EventSeq           int64     `gorm:"not null"`
	ActingSeatID       *int64    `gorm:"index"`
	SubjectSeatID      *int64    `gorm:"index"`
	SubjectCharacterID *int64    `gorm:"index"`
	ExecutionMode      string    `gorm:"size:16;not null;check:ck_session_messages_execution_mode,execution_mode IN ('self','dm_proxy','system')"`
	Kind               string    `gorm:"size:32;not null;check:ck_session_messages_kind,kind IN ('character_dialogue','narration','action','ooc','whisper_dm')"`
	Intent             string    `gorm:"size:16;not null;default:''"`
	Text               string    `gorm:"type:text;not null"`
	Visibility         string    `gorm:"size:16;not null"`
	RecipientSeatIDs   []int64   `gorm:"serializer:json;type:text;not null"`
	CreatedAt          time.Time `gorm:"not null"`
}

// CreateMessage inserts a message.
func (s *Store) CreateMessage(ctx context.Context, m *SessionMessage) error {
	return translate(s.db.WithContext(ctx).Omit(clause.Associations).Create(m).Error, "message")
}

// CountMessages counts a session's messages.
func (s *Store) CountMessages(ctx context.Context, sessionID int64) (int64, error) {
	var n int64
	err := s.db.WithContext(ctx).Model(&SessionMessage{}).Where("session_id = ?", sessionID).Count(&n).Error
	return n, translate(err, "messages")
}
