package models

import (
	"context"
	"time"

	"gorm.io/gorm/clause"
)

// Grant statuses and roles.
const (
	GrantActive  = "active"
	GrantRevoked = "revoked"
)

// AIControllerGrant lets an external AI agent control one seat. Generation
// is the seat's controller epoch when the grant was minted and never
// changes: the grant is current only while the seat points at it with that
// same epoch.
type AIControllerGrant struct {
	ID            int64         `gorm:"primaryKey"`
	PublicID      string        `gorm:"size:32;not null;uniqueIndex"`
	SecretHash    string        `gorm:"size:64;not null"`
	DisplayPrefix string        `gorm:"size:32;not null"`
	RoomID        int64         `gorm:"not null;index"`
	Room          *Room         `gorm:"foreignKey:RoomID;constraint:OnDelete:CASCADE"`
	CampaignID    int64         `gorm:"not null;index"`
	Campaign      *Campaign     `gorm:"foreignKey:CampaignID;constraint:OnDelete:CASCADE"`
	SeatID        int64         `gorm:"not null;index"`
	Seat          *CampaignSeat `gorm:"foreignKey:SeatID;constraint:OnDelete:CASCADE"`
	Role          string        `gorm:"size:16;not null;check:ck_ai_controller_grants_role,role IN ('dm','player')"`
	// SessionID is set from the start for a player handoff, and bound at
	// start for a pre-session DM grant; it never changes after that.
	SessionID                    *int64   `gorm:"index;check:ck_ai_controller_grants_scope,(session_id IS NOT NULL AND pre_session_expires_at IS NULL) OR (session_id IS NULL AND pre_session_expires_at IS NOT NULL) OR (bound_at IS NOT NULL)"`
	Session                      *Session `gorm:"foreignKey:SessionID;constraint:OnDelete:CASCADE"`
	Generation                   int64    `gorm:"not null"`
	Status                       string   `gorm:"size:16;not null;check:ck_ai_controller_grants_status,status IN ('active','revoked')"`
	PreSessionExpiresAt          *time.Time
	HandoffReturnAccessSessionID *int64             `gorm:"index"`
	HandoffReturnAccessSession   *RoomAccessSession `gorm:"foreignKey:HandoffReturnAccessSessionID;constraint:OnDelete:SET NULL"`
	TemporaryInstruction         string             `gorm:"type:text;not null;default:''"`
	CreatedAt                    time.Time          `gorm:"not null"`
	BoundAt                      *time.Time
	RevokedAt                    *time.Time
	RevokeReason                 string `gorm:"size:48;not null;default:''"`
	LastSeenAt                   *time.Time
}

// CreateGrant inserts a grant.
func (s *Store) CreateGrant(ctx context.Context, g *AIControllerGrant) error {
	return translate(s.db.WithContext(ctx).Omit(clause.Associations).Create(g).Error, "AI grant")
}

// FindGrantByPublicID returns a grant by the public part of its token.
func (s *Store) FindGrantByPublicID(ctx context.Context, publicID string) (*AIControllerGrant, error) {
	var g AIControllerGrant
	return &g, translate(s.db.WithContext(ctx).Where("public_id = ?", publicID).First(&g).Error, "AI grant")
}

// FindGrantByID returns a grant; forUpdate locks it.
func (s *Store) FindGrantByID(ctx context.Context, id int64, forUpdate bool) (*AIControllerGrant, error) {
	var g AIControllerGrant
	return &g, translate(lockIf(s.db.WithContext(ctx), forUpdate).First(&g, id).Error, "AI grant")
}

// revokeGrantsWhere revokes the active grants matching the query, with a
// reason, and drops their temporary instructions.
func (s *Store) revokeGrantsWhere(ctx context.Context, reason string, at time.Time, query string, args ...any) error {
	err := s.db.WithContext(ctx).Model(&AIControllerGrant{}).Where("status = ?", GrantActive).Where(query, args...).
		Updates(map[string]any{"status": GrantRevoked, "revoked_at": at, "revoke_reason": reason, "temporary_instruction": ""}).Error
	if err == nil {
		s.authorityChanged(ctx)
	}
	return translate(err, "AI grants")
}

// RevokeGrant revokes one grant and drops its temporary instruction.
func (s *Store) RevokeGrant(ctx context.Context, id int64, reason string, at time.Time) error {
	return s.revokeGrantsWhere(ctx, reason, at, "id = ?", id)
}

// RevokeSessionGrants revokes every active grant bound to a session.
func (s *Store) RevokeSessionGrants(ctx context.Context, sessionID int64, reason string, at time.Time) error {
	return s.revokeGrantsWhere(ctx, reason, at, "session_id = ?", sessionID)
}

// RevokeUnboundCampaignGrants revokes the campaign's pre-session grants.
func (s *Store) RevokeUnboundCampaignGrants(ctx context.Context, campaignID int64, reason string, at time.Time) error {
	return s.revokeGrantsWhere(ctx, reason, at, "campaign_id = ? AND session_id IS NULL", campaignID)
}

// BindGrant binds a pre-session grant to the session it starts.
func (s *Store) BindGrant(ctx context.Context, id, sessionID int64, at time.Time) error {
	err := s.db.WithContext(ctx).Model(&AIControllerGrant{}).Where("id = ? AND session_id IS NULL", id).
		Updates(map[string]any{"session_id": sessionID, "bound_at": at}).Error
	if err == nil {
		s.authorityChanged(ctx)
	}
	return translate(err, "AI grant")
}

// TouchGrant records that the grant's agent was seen (presence).
func (s *Store) TouchGrant(ctx context.Context, id int64, at time.Time) error {
	return translate(s.db.WithContext(ctx).Model(&AIControllerGrant{}).Where("id = ?", id).Update("last_seen_at", at).Error, "AI grant")
}

// FindGrantsByIDs returns the grants with the given ids in one query.
func (s *Store) FindGrantsByIDs(ctx context.Context, ids []int64) ([]AIControllerGrant, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	var out []AIControllerGrant
	return out, translate(s.db.WithContext(ctx).Omit("secret_hash", "temporary_instruction").Where("id IN ?", ids).Find(&out).Error, "AI grants")
}
