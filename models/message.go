package models

import (
	"context"
	"strconv"
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
	// The author's identity at posting (schema v11): the access session of
	// a human or the grant of an AI. Editing checks it, not the seat alone.
	AuthorAccessSessionID *int64
	AuthorGrantID         *int64
	// RollResultIDs are the inline [[...]] rolls, in the text's order.
	RollResultIDs   []int64 `gorm:"serializer:json;type:text;not null;default:'[]'"`
	EditedAt        *time.Time
	DeletedAt       *time.Time
	DeletedBySeatID *int64
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

// FindMessage returns a message; forUpdate locks it.
func (s *Store) FindMessage(ctx context.Context, id int64, forUpdate bool) (*SessionMessage, error) {
	var m SessionMessage
	return &m, translate(lockIf(s.db.WithContext(ctx), forUpdate).First(&m, id).Error, "message")
}

// EditMessage replaces a message's text.
func (s *Store) EditMessage(ctx context.Context, id int64, text string, at time.Time) error {
	err := s.db.WithContext(ctx).Model(&SessionMessage{}).Where("id = ? AND deleted_at IS NULL", id).
		Updates(map[string]any{"text": text, "edited_at": at}).Error
	return translate(err, "message")
}

// DeleteMessage blanks a message's text and keeps a tombstone: when and by
// which seat.
func (s *Store) DeleteMessage(ctx context.Context, id, bySeatID int64, at time.Time) error {
	err := s.db.WithContext(ctx).Model(&SessionMessage{}).Where("id = ? AND deleted_at IS NULL", id).
		Updates(map[string]any{"text": "", "deleted_at": at, "deleted_by_seat_id": bySeatID}).Error
	return translate(err, "message")
}

// FindMessageEvents returns the message.posted and message.edited events
// of a message (from its posting seq on), to scrub a deleted text.
func (s *Store) FindMessageEvents(ctx context.Context, sessionID, fromSeq, messageID int64) ([]SessionEvent, error) {
	var out []SessionEvent
	id := strconv.FormatInt(messageID, 10)
	err := s.db.WithContext(ctx).Where("session_id = ? AND seq >= ? AND kind IN ? AND (payload LIKE ? OR payload LIKE ?)",
		sessionID, fromSeq, []string{"message.posted", "message.edited"}, `%"message_id":`+id+`,%`, `%"message_id":`+id+`}%`).
		Order("seq").Find(&out).Error
	return out, translate(err, "events")
}

// SetEventPayload rewrites an event's payload (only to scrub a deleted
// message's text).
func (s *Store) SetEventPayload(ctx context.Context, id int64, payload string) error {
	return translate(s.db.WithContext(ctx).Model(&SessionEvent{}).Where("id = ?", id).Update("payload", payload).Error, "event")
}
