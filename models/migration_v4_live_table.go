package models

import (
	"time"

	"gorm.io/gorm"
)

// The live table's tables as version 4 created them. Frozen: never edit.

type sessionTableRuntimeV4 struct {
	SessionID    int64      `gorm:"primaryKey;autoIncrement:false"`
	Session      *sessionV3 `gorm:"foreignKey:SessionID;constraint:OnDelete:RESTRICT"`
	Revision     int64      `gorm:"not null;default:0"`
	LastEventSeq int64      `gorm:"not null;default:0"`
	CreatedAt    time.Time  `gorm:"not null"`
	UpdatedAt    time.Time  `gorm:"not null"`
}

type sessionEventV4 struct {
	ID                 int64      `gorm:"primaryKey"`
	SessionID          int64      `gorm:"not null;uniqueIndex:uq_session_events_seq,priority:1;uniqueIndex:uq_session_events_idempotency,priority:1,where:idempotency_key IS NOT NULL"`
	Session            *sessionV3 `gorm:"foreignKey:SessionID;constraint:OnDelete:RESTRICT"`
	Seq                int64      `gorm:"not null;uniqueIndex:uq_session_events_seq,priority:2"`
	Kind               string     `gorm:"size:48;not null"`
	ActingSeatID       *int64     `gorm:"index"`
	SubjectSeatID      *int64     `gorm:"index"`
	SubjectCharacterID *int64     `gorm:"index"`
	ExecutionMode      string     `gorm:"size:16;not null;check:ck_session_events_execution_mode,execution_mode IN ('self','dm_proxy','system')"`
	Visibility         string     `gorm:"size:16;not null;check:ck_session_events_visibility,visibility IN ('public','dm_only','actor_and_dm','seat_private')"`
	RecipientSeatIDs   []int64    `gorm:"serializer:json;type:text;not null"`
	PayloadVersion     int        `gorm:"not null"`
	Payload            string     `gorm:"type:text;not null"`
	IdempotencyKey     *string    `gorm:"size:120;uniqueIndex:uq_session_events_idempotency,priority:2"`
	CreatedAt          time.Time  `gorm:"not null"`
}

type sessionMessageV4 struct {
	ID                 int64      `gorm:"primaryKey"`
	SessionID          int64      `gorm:"not null;index"`
	Session            *sessionV3 `gorm:"foreignKey:SessionID;constraint:OnDelete:RESTRICT"`
	EventSeq           int64      `gorm:"not null"`
	ActingSeatID       *int64     `gorm:"index"`
	SubjectSeatID      *int64     `gorm:"index"`
	SubjectCharacterID *int64     `gorm:"index"`
	ExecutionMode      string     `gorm:"size:16;not null;check:ck_session_messages_execution_mode,execution_mode IN ('self','dm_proxy','system')"`
	Kind               string     `gorm:"size:32;not null;check:ck_session_messages_kind,kind IN ('character_dialogue','narration','action','ooc','whisper_dm')"`
	Intent             string     `gorm:"size:16;not null;default:''"`
	Text               string     `gorm:"type:text;not null"`
	Visibility         string     `gorm:"size:16;not null"`
	RecipientSeatIDs   []int64    `gorm:"serializer:json;type:text;not null"`
	CreatedAt          time.Time  `gorm:"not null"`
}

type roomStageAssetV4 struct {
	ID                     int64                `gorm:"primaryKey"`
	RoomID                 int64                `gorm:"not null;index"`
	Room                   *roomV3              `gorm:"foreignKey:RoomID;constraint:OnDelete:RESTRICT"`
	MimeType               string               `gorm:"size:32;not null;check:ck_room_stage_assets_mime,mime_type IN ('image/png','image/jpeg','image/webp')"`
	ByteSize               int64                `gorm:"not null"`
	Width                  int                  `gorm:"not null"`
	Height                 int                  `gorm:"not null"`
	SHA256                 string               `gorm:"column:sha256;size:64;not null"`
	Content                []byte               `gorm:"not null"`
	CreatedByAccessSession *int64               `gorm:"column:created_by_access_session_id"`
	CreatedBy              *roomAccessSessionV3 `gorm:"foreignKey:CreatedByAccessSession;constraint:OnDelete:RESTRICT"`
	CreatedAt              time.Time            `gorm:"not null"`
}

type sessionStageStateV4 struct {
	SessionID       int64             `gorm:"primaryKey;autoIncrement:false"`
	Session         *sessionV3        `gorm:"foreignKey:SessionID;constraint:OnDelete:RESTRICT"`
	Text            string            `gorm:"type:text;not null"`
	ImageAssetID    *int64            `gorm:"index"`
	ImageAsset      *roomStageAssetV4 `gorm:"foreignKey:ImageAssetID;constraint:OnDelete:RESTRICT"`
	Revision        int64             `gorm:"not null;default:0"`
	UpdatedBySeatID *int64
	UpdatedAt       time.Time `gorm:"not null"`
}

func (sessionTableRuntimeV4) TableName() string { return "session_table_runtime" }
func (sessionEventV4) TableName() string        { return "session_events" }
func (sessionMessageV4) TableName() string      { return "session_messages" }
func (roomStageAssetV4) TableName() string      { return "room_stage_assets" }
func (sessionStageStateV4) TableName() string   { return "session_stage_state" }

// migrationV4LiveTable adds events, messages and the stage, and gives every
// existing session its runtime row and empty stage.
var migrationV4LiveTable = Migration{
	Version: 4,
	Name:    "live_table",
	Up: func(tx *gorm.DB) error {
		if err := tx.Migrator().CreateTable(&sessionTableRuntimeV4{}, &sessionEventV4{}, &sessionMessageV4{},
			&roomStageAssetV4{}, &sessionStageStateV4{}); err != nil {
			return err
		}
		if err := tx.Exec("INSERT INTO session_table_runtime (session_id, revision, last_event_seq, created_at, updated_at) SELECT id, 0, 0, created_at, created_at FROM sessions").Error; err != nil {
			return err
		}
		return tx.Exec("INSERT INTO session_stage_state (session_id, text, revision, updated_at) SELECT id, '', 0, created_at FROM sessions").Error
	},
}
