package models

import (
	"time"

	"gorm.io/gorm"
)

// Rolls, checks and pending actions as version 5 created them. Frozen: never edit.

type rollGroupV5 struct {
	ID                int64      `gorm:"primaryKey"`
	SessionID         int64      `gorm:"not null;index"`
	Session           *sessionV3 `gorm:"foreignKey:SessionID;constraint:OnDelete:RESTRICT"`
	Label             string     `gorm:"size:120;not null"`
	RequestedBySeatID int64      `gorm:"not null"`
	CreatedAt         time.Time  `gorm:"not null"`
}

type rollRequestV5 struct {
	ID                int64        `gorm:"primaryKey"`
	SessionID         int64        `gorm:"not null;index"`
	Session           *sessionV3   `gorm:"foreignKey:SessionID;constraint:OnDelete:RESTRICT"`
	RollGroupID       *int64       `gorm:"index"`
	RollGroup         *rollGroupV5 `gorm:"foreignKey:RollGroupID;constraint:OnDelete:RESTRICT"`
	TargetSeatID      int64        `gorm:"not null;index"`
	TargetCharacterID *int64
	RequestType       string    `gorm:"size:16;not null;check:ck_roll_requests_type,request_type IN ('ability','skill')"`
	AbilityRef        string    `gorm:"size:8;not null"`
	SkillRef          string    `gorm:"size:32;not null;default:''"`
	DC                *int      `gorm:"column:dc"`
	ModifierMode      string    `gorm:"size:16;not null;check:ck_roll_requests_mode,modifier_mode IN ('normal','advantage','disadvantage')"`
	FlatAdjustment    int       `gorm:"not null;default:0"`
	RevealOutcome     bool      `gorm:"not null;default:false"`
	Visibility        string    `gorm:"size:16;not null"`
	Status            string    `gorm:"size:16;not null;check:ck_roll_requests_status,status IN ('pending','resolved','cancelled')"`
	RequestedBySeatID int64     `gorm:"not null"`
	CreatedAt         time.Time `gorm:"not null"`
	ResolvedAt        *time.Time
	Version           int64 `gorm:"not null;default:0"`
}

type rollResultV5 struct {
	ID                 int64          `gorm:"primaryKey"`
	RollRequestID      *int64         `gorm:"uniqueIndex:uq_roll_results_request,where:roll_request_id IS NOT NULL"`
	RollRequest        *rollRequestV5 `gorm:"foreignKey:RollRequestID;constraint:OnDelete:RESTRICT"`
	SessionID          int64          `gorm:"not null;index;uniqueIndex:uq_roll_results_idempotency,priority:1,where:idempotency_key IS NOT NULL"`
	Session            *sessionV3     `gorm:"foreignKey:SessionID;constraint:OnDelete:RESTRICT"`
	ActingSeatID       int64          `gorm:"not null"`
	SubjectSeatID      *int64
	SubjectCharacterID *int64
	ExecutionMode      string `gorm:"size:16;not null;check:ck_roll_results_execution_mode,execution_mode IN ('self','dm_proxy')"`
	Source             string `gorm:"size:16;not null;check:ck_roll_results_source,source IN ('server','physical','quick')"`
	Formula            string `gorm:"size:240;not null"`
	RawDice            []int  `gorm:"serializer:json;type:text;not null"`
	KeptDice           []int  `gorm:"serializer:json;type:text;not null"`
	Audit              string `gorm:"type:text;not null"`
	BaseModifier       int    `gorm:"not null"`
	FlatAdjustment     int    `gorm:"not null"`
	Total              int    `gorm:"not null"`
	Success            *bool
	Visibility         string    `gorm:"size:16;not null"`
	IdempotencyKey     *string   `gorm:"size:120;uniqueIndex:uq_roll_results_idempotency,priority:2"`
	CreatedAt          time.Time `gorm:"not null"`
}

type actionWindowV5 struct {
	ID             int64      `gorm:"primaryKey"`
	SessionID      int64      `gorm:"not null;index"`
	Session        *sessionV3 `gorm:"foreignKey:SessionID;constraint:OnDelete:RESTRICT"`
	Prompt         string     `gorm:"type:text;not null"`
	Status         string     `gorm:"size:16;not null;check:ck_action_windows_status,status IN ('open','closed')"`
	OpenedBySeatID int64      `gorm:"not null"`
	CreatedAt      time.Time  `gorm:"not null"`
	ClosedAt       *time.Time
}

type pendingActionV5 struct {
	ID                 int64      `gorm:"primaryKey"`
	SessionID          int64      `gorm:"not null;index"`
	Session            *sessionV3 `gorm:"foreignKey:SessionID;constraint:OnDelete:RESTRICT"`
	ActingSeatID       int64      `gorm:"not null"`
	SubjectSeatID      int64      `gorm:"not null"`
	SubjectCharacterID *int64
	ExecutionMode      string          `gorm:"size:16;not null;check:ck_pending_actions_execution_mode,execution_mode IN ('self','dm_proxy')"`
	Text               string          `gorm:"type:text;not null"`
	Intent             string          `gorm:"size:16;not null;default:''"`
	Status             string          `gorm:"size:24;not null;check:ck_pending_actions_status,status IN ('pending','processing','waiting_for_roll','resolved','cancelled')"`
	RollRequestID      *int64          `gorm:"index"`
	RollRequest        *rollRequestV5  `gorm:"foreignKey:RollRequestID;constraint:OnDelete:RESTRICT"`
	WindowID           *int64          `gorm:"index"`
	Window             *actionWindowV5 `gorm:"foreignKey:WindowID;constraint:OnDelete:RESTRICT"`
	Version            int64           `gorm:"not null;default:0"`
	CreatedAt          time.Time       `gorm:"not null"`
	UpdatedAt          time.Time       `gorm:"not null"`
}

func (rollGroupV5) TableName() string     { return "roll_groups" }
func (rollRequestV5) TableName() string   { return "roll_requests" }
func (rollResultV5) TableName() string    { return "roll_results" }
func (actionWindowV5) TableName() string  { return "action_windows" }
func (pendingActionV5) TableName() string { return "pending_actions" }

var migrationV5Rolls = Migration{
	Version: 5,
	Name:    "rolls",
	Up: func(tx *gorm.DB) error {
		return tx.Migrator().CreateTable(&rollGroupV5{}, &rollRequestV5{}, &rollResultV5{}, &actionWindowV5{}, &pendingActionV5{})
	},
}
