package models

import (
	"time"

	"gorm.io/gorm"
)

// AI controller grants as version 6 created them. Frozen: never edit.

type aiControllerGrantV6 struct {
	ID                           int64           `gorm:"primaryKey"`
	PublicID                     string          `gorm:"size:32;not null;uniqueIndex"`
	SecretHash                   string          `gorm:"size:64;not null"`
	DisplayPrefix                string          `gorm:"size:32;not null"`
	RoomID                       int64           `gorm:"not null;index"`
	Room                         *roomV3         `gorm:"foreignKey:RoomID;constraint:OnDelete:RESTRICT"`
	CampaignID                   int64           `gorm:"not null;index"`
	Campaign                     *campaignV3     `gorm:"foreignKey:CampaignID;constraint:OnDelete:RESTRICT"`
	SeatID                       int64           `gorm:"not null;index"`
	Seat                         *campaignSeatV3 `gorm:"foreignKey:SeatID;constraint:OnDelete:RESTRICT"`
	Role                         string          `gorm:"size:16;not null;check:ck_ai_controller_grants_role,role IN ('dm','player')"`
	SessionID                    *int64          `gorm:"index;check:ck_ai_controller_grants_scope,(session_id IS NOT NULL AND pre_session_expires_at IS NULL) OR (session_id IS NULL AND pre_session_expires_at IS NOT NULL) OR (bound_at IS NOT NULL)"`
	Session                      *sessionV3      `gorm:"foreignKey:SessionID;constraint:OnDelete:RESTRICT"`
	Generation                   int64           `gorm:"not null"`
	Status                       string          `gorm:"size:16;not null;check:ck_ai_controller_grants_status,status IN ('active','revoked')"`
	PreSessionExpiresAt          *time.Time
	HandoffReturnAccessSessionID *int64               `gorm:"index"`
	HandoffReturnAccessSession   *roomAccessSessionV3 `gorm:"foreignKey:HandoffReturnAccessSessionID;constraint:OnDelete:RESTRICT"`
	TemporaryInstruction         string               `gorm:"type:text;not null;default:''"`
	CreatedAt                    time.Time            `gorm:"not null"`
	BoundAt                      *time.Time
	RevokedAt                    *time.Time
	RevokeReason                 string `gorm:"size:48;not null;default:''"`
	LastSeenAt                   *time.Time
}

func (aiControllerGrantV6) TableName() string { return "ai_controller_grants" }

var migrationV6AIGrants = Migration{
	Version: 6,
	Name:    "ai_grants",
	Up: func(tx *gorm.DB) error {
		return tx.Migrator().CreateTable(&aiControllerGrantV6{})
	},
}
