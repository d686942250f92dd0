package models

import (
	"context"
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// Session statuses: lobby -> active -> ended | abandoned (a lobby can also
// be abandoned).
const (
	SessionLobby     = "lobby"
	SessionActive    = "active"
	SessionEnded     = "ended"
	SessionAbandoned = "abandoned"
)

// Session is one sitting of a campaign. Starting it snapshots the DM
// controller's identity; the snapshot is history, the seat stays the
// current authority.
type Session struct {
	ID         int64         `gorm:"primaryKey"`
	RoomID     int64         `gorm:"not null;index"`
	Room       *Room         `gorm:"foreignKey:RoomID;constraint:OnDelete:CASCADE"`
	CampaignID int64         `gorm:"not null;index;uniqueIndex:uq_sessions_one_open,where:status <> 'ended' AND status <> 'abandoned'"`
	Campaign   *Campaign     `gorm:"foreignKey:CampaignID;constraint:OnDelete:CASCADE"`
	DMSeatID   int64         `gorm:"column:dm_seat_id;not null"`
	DMSeat     *CampaignSeat `gorm:"foreignKey:DMSeatID;constraint:OnDelete:CASCADE"`
	Status     string        `gorm:"size:16;not null;check:ck_sessions_status,status IN ('lobby','active','ended','abandoned')"`
	// The DM controller snapshot taken at start (kind none while in lobby).
	DMControllerKind            string    `gorm:"column:dm_controller_kind;size:16;not null;check:ck_sessions_dm_controller_binding,(dm_controller_kind = 'none' AND dm_controller_access_session_id IS NULL AND dm_controller_ai_grant_id IS NULL AND dm_controller_generation IS NULL) OR (dm_controller_kind = 'human' AND dm_controller_access_session_id IS NOT NULL AND dm_controller_ai_grant_id IS NULL AND dm_controller_generation IS NULL) OR (dm_controller_kind = 'ai' AND dm_controller_access_session_id IS NULL AND dm_controller_ai_grant_id IS NOT NULL AND dm_controller_generation IS NOT NULL)"`
	DMControllerAccessSessionID *int64    `gorm:"column:dm_controller_access_session_id"`
	DMControllerAIGrantID       *int64    `gorm:"column:dm_controller_ai_grant_id"`
	DMControllerGeneration      *int64    `gorm:"column:dm_controller_generation"`
	CreatedAt                   time.Time `gorm:"not null"`
	StartedAt                   *time.Time
	EndedAt                     *time.Time
	// The "Previously on…" recap that opens the session (issue 31): none,
	// drafting (the memory job is writing it), draft (the DM may edit it),
	// posted (a public event holds the text) or skipped; gameplay writes only
	// these values (a CHECK would make SQLite rebuild the table to add it).
	RecapStatus string `gorm:"size:8;not null;default:'none'"`
	RecapText   string `gorm:"type:text;not null;default:''"`
}

// Recap statuses of a session.
const (
	RecapNone     = "none"
	RecapDrafting = "drafting"
	RecapDraft    = "draft"
	RecapPosted   = "posted"
	RecapSkipped  = "skipped"
)

// SessionParticipant is a player seat taking part in a session, with the
// controller and character it joined with.
type SessionParticipant struct {
	ID                              int64         `gorm:"primaryKey"`
	SessionID                       int64         `gorm:"not null;uniqueIndex:uq_session_participants_session_seat,priority:1"`
	Session                         *Session      `gorm:"foreignKey:SessionID;constraint:OnDelete:CASCADE"`
	SeatID                          int64         `gorm:"not null;uniqueIndex:uq_session_participants_session_seat,priority:2;index"`
	Seat                            *CampaignSeat `gorm:"foreignKey:SeatID;constraint:OnDelete:CASCADE"`
	CharacterID                     *int64        `gorm:"index"`
	Character                       *Character    `gorm:"foreignKey:CharacterID;constraint:OnDelete:SET NULL"`
	ControllerKindAtJoin            string        `gorm:"size:16;not null;check:ck_session_participants_controller_binding,(controller_kind_at_join = 'none' AND controller_access_session_id_at_join IS NULL AND controller_ai_grant_id_at_join IS NULL AND controller_generation_at_join IS NULL) OR (controller_kind_at_join = 'human' AND controller_access_session_id_at_join IS NOT NULL AND controller_ai_grant_id_at_join IS NULL AND controller_generation_at_join IS NULL) OR (controller_kind_at_join = 'ai' AND controller_access_session_id_at_join IS NULL AND controller_ai_grant_id_at_join IS NOT NULL AND controller_generation_at_join IS NOT NULL)"`
	ControllerAccessSessionIDAtJoin *int64        `gorm:"column:controller_access_session_id_at_join"`
	ControllerAIGrantIDAtJoin       *int64        `gorm:"column:controller_ai_grant_id_at_join"`
	ControllerGenerationAtJoin      *int64        `gorm:"column:controller_generation_at_join"`
	LateJoin                        bool          `gorm:"not null;default:false"`
	JoinedAt                        time.Time     `gorm:"not null"`
}

// ActiveCharacterSessionLease says a character is in an active session; the
// primary key on character_id makes a second lease impossible.
type ActiveCharacterSessionLease struct {
	CharacterID int64      `gorm:"primaryKey;autoIncrement:false"`
	Character   *Character `gorm:"foreignKey:CharacterID;constraint:OnDelete:CASCADE"`
	SessionID   int64      `gorm:"not null;index"`
	Session     *Session   `gorm:"foreignKey:SessionID;constraint:OnDelete:CASCADE"`
	CreatedAt   time.Time  `gorm:"not null"`
}

// ErrLeaseTaken is returned by CreateLease when the character already holds one.
var ErrLeaseTaken = errors.New("character already leased to an active session")

// CreateSession inserts a session; a second open one for the campaign is a conflict.
func (s *Store) CreateSession(ctx context.Context, se *Session) error {
	return translate(s.db.WithContext(ctx).Omit(clause.Associations).Create(se).Error, "open session")
}

// FindSessionByID returns a session, or not_found; forUpdate locks it.
func (s *Store) FindSessionByID(ctx context.Context, id int64, forUpdate bool) (*Session, error) {
	var se Session
	return &se, translate(lockIf(s.db.WithContext(ctx), forUpdate).First(&se, id).Error, "session")
}

// FindSessionWithPlace returns a session with its campaign and room, read
// in one statement; forUpdate locks the session's row only.
func (s *Store) FindSessionWithPlace(ctx context.Context, id int64, forUpdate bool) (*Session, *Campaign, *Room, error) {
	var se Session
	q := s.db.WithContext(ctx).Joins("Campaign").Joins("Room")
	if forUpdate {
		q = q.Clauses(clause.Locking{Strength: "UPDATE", Table: clause.Table{Name: "sessions"}})
	}
	if err := translate(q.First(&se, id).Error, "session"); err != nil {
		return nil, nil, nil, err
	}
	campaign, room := se.Campaign, se.Room
	// Handed back apart: a session saved later must not carry them along.
	se.Campaign, se.Room = nil, nil
	if campaign == nil || room == nil {
		return nil, nil, nil, fmt.Errorf("session %d: its campaign or room is missing", id)
	}
	return &se, campaign, room, nil
}

// FindOpenSessions returns the lobby or active sessions of the given campaigns.
func (s *Store) FindOpenSessions(ctx context.Context, campaignIDs []int64) ([]Session, error) {
	if len(campaignIDs) == 0 {
		return nil, nil
	}
	var out []Session
	err := s.db.WithContext(ctx).Where("campaign_id IN ? AND status IN ?", campaignIDs, []string{SessionLobby, SessionActive}).Find(&out).Error
	return out, translate(err, "sessions")
}

// SessionUpdate holds the fields of a session to change.
type SessionUpdate struct {
	Status                      *string
	DMControllerKind            *string
	DMControllerAccessSessionID *int64
	DMControllerAIGrantID       *int64
	DMControllerGeneration      *int64
	StartedAt                   *time.Time
	EndedAt                     *time.Time
	RecapStatus                 *string
	RecapText                   *string
}

// UpdateSession changes the given fields.
func (s *Store) UpdateSession(ctx context.Context, id int64, u SessionUpdate) error {
	m := map[string]any{}
	if u.Status != nil {
		m["status"] = *u.Status
	}
	if u.DMControllerKind != nil {
		m["dm_controller_kind"] = *u.DMControllerKind
		m["dm_controller_access_session_id"] = u.DMControllerAccessSessionID
		m["dm_controller_ai_grant_id"] = u.DMControllerAIGrantID
		m["dm_controller_generation"] = u.DMControllerGeneration
	}
	if u.StartedAt != nil {
		m["started_at"] = *u.StartedAt
	}
	if u.EndedAt != nil {
		m["ended_at"] = *u.EndedAt
	}
	if u.RecapStatus != nil {
		m["recap_status"] = *u.RecapStatus
	}
	if u.RecapText != nil {
		m["recap_text"] = *u.RecapText
	}
	err := s.db.WithContext(ctx).Model(&Session{}).Where("id = ?", id).Updates(m).Error
	if err == nil {
		s.authorityChanged(ctx)
	}
	return translate(err, "session")
}

// CreateParticipant inserts a participant; the same seat twice is a conflict.
func (s *Store) CreateParticipant(ctx context.Context, p *SessionParticipant) error {
	err := s.db.WithContext(ctx).Omit(clause.Associations).Create(p).Error
	if err == nil {
		s.authorityChanged(ctx)
	}
	return translate(err, "participant")
}

// FindParticipants returns a session's participants in join order.
func (s *Store) FindParticipants(ctx context.Context, sessionID int64) ([]SessionParticipant, error) {
	var out []SessionParticipant
	return out, translate(s.db.WithContext(ctx).Where("session_id = ?", sessionID).Order("id").Find(&out).Error, "participants")
}

// CreateLease leases a character to a session. Returns ErrLeaseTaken
// (wrapped) when the character is already leased.
func (s *Store) CreateLease(ctx context.Context, l *ActiveCharacterSessionLease) error {
	err := s.db.WithContext(ctx).Omit(clause.Associations).Create(l).Error
	if errors.Is(err, gorm.ErrDuplicatedKey) {
		return ErrLeaseTaken
	}
	return translate(err, "lease")
}

// FindLease returns the lease of a character, or not_found.
func (s *Store) FindLease(ctx context.Context, characterID int64) (*ActiveCharacterSessionLease, error) {
	var l ActiveCharacterSessionLease
	return &l, translate(s.db.WithContext(ctx).First(&l, "character_id = ?", characterID).Error, "lease")
}

// DeleteLeasesOfSession releases every lease a session holds.
func (s *Store) DeleteLeasesOfSession(ctx context.Context, sessionID int64) error {
	return translate(s.db.WithContext(ctx).Where("session_id = ?", sessionID).Delete(&ActiveCharacterSessionLease{}).Error, "leases")
}

// FindSessionsOfCampaign returns a campaign's sessions, oldest first.
func (s *Store) FindSessionsOfCampaign(ctx context.Context, campaignID int64) ([]Session, error) {
	var out []Session
	err := s.db.WithContext(ctx).Where("campaign_id = ?", campaignID).Order("id").Find(&out).Error
	return out, translate(err, "sessions")
}
