package models

import (
	"time"

	"gorm.io/gorm"
)

// The table ground as version 3 created it. Frozen: never edit; a later
// change to these tables is a new version.

type userV3 = userV2

type roomV3 struct {
	ID               int64   `gorm:"primaryKey"`
	OwnerUserID      int64   `gorm:"not null;index"`
	Owner            *userV3 `gorm:"foreignKey:OwnerUserID;constraint:OnDelete:RESTRICT"`
	Name             string  `gorm:"size:80;not null"`
	InviteCode       string  `gorm:"size:64;not null;uniqueIndex"`
	AllowSelfClaim   bool    `gorm:"not null;default:false"`
	ActiveCampaignID *int64
	CreatedAt        time.Time `gorm:"not null"`
}

type roomAccessSessionV3 struct {
	ID        int64     `gorm:"primaryKey"`
	RoomID    int64     `gorm:"not null;uniqueIndex:uq_room_access_sessions_room_user,priority:1"`
	Room      *roomV3   `gorm:"foreignKey:RoomID;constraint:OnDelete:RESTRICT"`
	UserID    int64     `gorm:"not null;uniqueIndex:uq_room_access_sessions_room_user,priority:2;index"`
	User      *userV3   `gorm:"foreignKey:UserID;constraint:OnDelete:RESTRICT"`
	Authority string    `gorm:"size:16;not null;check:ck_room_access_sessions_authority,authority IN ('owner','dm','member')"`
	Status    string    `gorm:"size:16;not null;check:ck_room_access_sessions_status,status IN ('active','revoked')"`
	CreatedAt time.Time `gorm:"not null"`
	RevokedAt *time.Time
}

type campaignV3 struct {
	ID        int64     `gorm:"primaryKey"`
	RoomID    int64     `gorm:"not null;index"`
	Room      *roomV3   `gorm:"foreignKey:RoomID;constraint:OnDelete:RESTRICT"`
	Name      string    `gorm:"size:80;not null"`
	Status    string    `gorm:"size:16;not null;check:ck_campaigns_status,status IN ('active','completed','archived')"`
	CreatedAt time.Time `gorm:"not null"`
}

type campaignSeatV3 struct {
	ID                        int64                `gorm:"primaryKey"`
	CampaignID                int64                `gorm:"not null;index;uniqueIndex:uq_campaign_seats_one_dm,where:role = 'dm'"`
	Campaign                  *campaignV3          `gorm:"foreignKey:CampaignID;constraint:OnDelete:RESTRICT"`
	Role                      string               `gorm:"size:16;not null;check:ck_campaign_seats_role,role IN ('dm','player')"`
	Label                     string               `gorm:"size:80;not null"`
	ControllerKind            string               `gorm:"size:16;not null;check:ck_campaign_seats_controller_binding,(controller_kind = 'none' AND controller_access_session_id IS NULL AND ai_controller_grant_id IS NULL) OR (controller_kind = 'human' AND controller_access_session_id IS NOT NULL AND ai_controller_grant_id IS NULL) OR (controller_kind = 'ai' AND controller_access_session_id IS NULL AND ai_controller_grant_id IS NOT NULL)"`
	ControllerAccessSessionID *int64               `gorm:"index"`
	ControllerAccessSession   *roomAccessSessionV3 `gorm:"foreignKey:ControllerAccessSessionID;constraint:OnDelete:RESTRICT"`
	AIControllerGrantID       *int64               `gorm:"column:ai_controller_grant_id"`
	ControllerEpoch           int64                `gorm:"not null;default:0;check:ck_campaign_seats_controller_epoch,controller_epoch >= 0"`
	CharacterID               *int64               `gorm:"index"`
	Character                 *characterV3         `gorm:"foreignKey:CharacterID;constraint:OnDelete:RESTRICT"`
	CreatedAt                 time.Time            `gorm:"not null"`
}

type characterV3 struct {
	ID                 int64        `gorm:"primaryKey"`
	OwnerUserID        int64        `gorm:"not null;index"`
	Owner              *userV3      `gorm:"foreignKey:OwnerUserID;constraint:OnDelete:RESTRICT"`
	Name               string       `gorm:"size:80;not null"`
	Level              int          `gorm:"not null;check:ck_characters_level,level BETWEEN 1 AND 20"`
	Str                int          `gorm:"not null;check:ck_characters_str,str BETWEEN 1 AND 30"`
	Dex                int          `gorm:"not null;check:ck_characters_dex,dex BETWEEN 1 AND 30"`
	Con                int          `gorm:"not null;check:ck_characters_con,con BETWEEN 1 AND 30"`
	Int                int          `gorm:"not null;check:ck_characters_int,int BETWEEN 1 AND 30"`
	Wis                int          `gorm:"not null;check:ck_characters_wis,wis BETWEEN 1 AND 30"`
	Cha                int          `gorm:"not null;check:ck_characters_cha,cha BETWEEN 1 AND 30"`
	SkillProficiencies []string     `gorm:"serializer:json;type:text;not null"`
	SkillExpertise     []string     `gorm:"serializer:json;type:text;not null"`
	HPMax              int          `gorm:"column:hp_max;not null;check:ck_characters_hp_max,hp_max >= 0"`
	HPCurrent          int          `gorm:"column:hp_current;not null;check:ck_characters_hp_current,hp_current >= 0 AND hp_current <= hp_max"`
	HPTemp             int          `gorm:"column:hp_temp;not null;check:ck_characters_hp_temp,hp_temp >= 0"`
	Conditions         []string     `gorm:"serializer:json;type:text;not null"`
	Resources          []resourceV3 `gorm:"serializer:json;type:text;not null"`
	Biography          string       `gorm:"type:text;not null"`
	RoleplayGuidance   string       `gorm:"type:text;not null"`
	CreatedAt          time.Time    `gorm:"not null"`
	UpdatedAt          time.Time    `gorm:"not null"`
}

type resourceV3 struct {
	Name    string `json:"name"`
	Current int    `json:"current"`
	Max     int    `json:"max"`
}

type sessionV3 struct {
	ID                          int64           `gorm:"primaryKey"`
	RoomID                      int64           `gorm:"not null;index"`
	Room                        *roomV3         `gorm:"foreignKey:RoomID;constraint:OnDelete:RESTRICT"`
	CampaignID                  int64           `gorm:"not null;index;uniqueIndex:uq_sessions_one_open,where:status <> 'ended' AND status <> 'abandoned'"`
	Campaign                    *campaignV3     `gorm:"foreignKey:CampaignID;constraint:OnDelete:RESTRICT"`
	DMSeatID                    int64           `gorm:"column:dm_seat_id;not null"`
	DMSeat                      *campaignSeatV3 `gorm:"foreignKey:DMSeatID;constraint:OnDelete:RESTRICT"`
	Status                      string          `gorm:"size:16;not null;check:ck_sessions_status,status IN ('lobby','active','ended','abandoned')"`
	DMControllerKind            string          `gorm:"column:dm_controller_kind;size:16;not null;check:ck_sessions_dm_controller_binding,(dm_controller_kind = 'none' AND dm_controller_access_session_id IS NULL AND dm_controller_ai_grant_id IS NULL AND dm_controller_generation IS NULL) OR (dm_controller_kind = 'human' AND dm_controller_access_session_id IS NOT NULL AND dm_controller_ai_grant_id IS NULL AND dm_controller_generation IS NULL) OR (dm_controller_kind = 'ai' AND dm_controller_access_session_id IS NULL AND dm_controller_ai_grant_id IS NOT NULL AND dm_controller_generation IS NOT NULL)"`
	DMControllerAccessSessionID *int64          `gorm:"column:dm_controller_access_session_id"`
	DMControllerAIGrantID       *int64          `gorm:"column:dm_controller_ai_grant_id"`
	DMControllerGeneration      *int64          `gorm:"column:dm_controller_generation"`
	CreatedAt                   time.Time       `gorm:"not null"`
	StartedAt                   *time.Time
	EndedAt                     *time.Time
}

type sessionParticipantV3 struct {
	ID                              int64           `gorm:"primaryKey"`
	SessionID                       int64           `gorm:"not null;uniqueIndex:uq_session_participants_session_seat,priority:1"`
	Session                         *sessionV3      `gorm:"foreignKey:SessionID;constraint:OnDelete:RESTRICT"`
	SeatID                          int64           `gorm:"not null;uniqueIndex:uq_session_participants_session_seat,priority:2;index"`
	Seat                            *campaignSeatV3 `gorm:"foreignKey:SeatID;constraint:OnDelete:RESTRICT"`
	CharacterID                     *int64          `gorm:"index"`
	Character                       *characterV3    `gorm:"foreignKey:CharacterID;constraint:OnDelete:RESTRICT"`
	ControllerKindAtJoin            string          `gorm:"size:16;not null;check:ck_session_participants_controller_binding,(controller_kind_at_join = 'none' AND controller_access_session_id_at_join IS NULL AND controller_ai_grant_id_at_join IS NULL AND controller_generation_at_join IS NULL) OR (controller_kind_at_join = 'human' AND controller_access_session_id_at_join IS NOT NULL AND controller_ai_grant_id_at_join IS NULL AND controller_generation_at_join IS NULL) OR (controller_kind_at_join = 'ai' AND controller_access_session_id_at_join IS NULL AND controller_ai_grant_id_at_join IS NOT NULL AND controller_generation_at_join IS NOT NULL)"`
	ControllerAccessSessionIDAtJoin *int64          `gorm:"column:controller_access_session_id_at_join"`
	ControllerAIGrantIDAtJoin       *int64          `gorm:"column:controller_ai_grant_id_at_join"`
	ControllerGenerationAtJoin      *int64          `gorm:"column:controller_generation_at_join"`
	LateJoin                        bool            `gorm:"not null;default:false"`
	JoinedAt                        time.Time       `gorm:"not null"`
}

type activeCharacterSessionLeaseV3 struct {
	CharacterID int64        `gorm:"primaryKey;autoIncrement:false"`
	Character   *characterV3 `gorm:"foreignKey:CharacterID;constraint:OnDelete:RESTRICT"`
	SessionID   int64        `gorm:"not null;index"`
	Session     *sessionV3   `gorm:"foreignKey:SessionID;constraint:OnDelete:RESTRICT"`
	CreatedAt   time.Time    `gorm:"not null"`
}

func (roomV3) TableName() string                        { return "rooms" }
func (roomAccessSessionV3) TableName() string           { return "room_access_sessions" }
func (campaignV3) TableName() string                    { return "campaigns" }
func (campaignSeatV3) TableName() string                { return "campaign_seats" }
func (characterV3) TableName() string                   { return "characters" }
func (sessionV3) TableName() string                     { return "sessions" }
func (sessionParticipantV3) TableName() string          { return "session_participants" }
func (activeCharacterSessionLeaseV3) TableName() string { return "active_character_session_leases" }

var migrationV3TableGround = Migration{
	Version: 3,
	Name:    "table_ground",
	Up: func(tx *gorm.DB) error {
		return tx.Migrator().CreateTable(&roomV3{}, &roomAccessSessionV3{}, &campaignV3{}, &characterV3{},
			&campaignSeatV3{}, &sessionV3{}, &sessionParticipantV3{}, &activeCharacterSessionLeaseV3{})
	},
}
