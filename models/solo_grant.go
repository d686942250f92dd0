package models

import (
	"context"
	"time"

	"gorm.io/gorm/clause"
)

// SoloGrant lets an AI agent, over MCP, play one adventure or work on one
// scenario of its owner's: exactly one of AdventureID and ScenarioID is
// set. The token's secret is kept only as a hash; a grant is usable while
// active and before ExpiresAt.
type SoloGrant struct {
	ID            int64      `gorm:"primaryKey"`
	PublicID      string     `gorm:"size:32;not null;uniqueIndex"`
	SecretHash    string     `gorm:"size:64;not null"`
	DisplayPrefix string     `gorm:"size:32;not null"`
	UserID        int64      `gorm:"not null;index"`
	User          *User      `gorm:"foreignKey:UserID;constraint:OnDelete:CASCADE"`
	AdventureID   *int64     `gorm:"index;check:ck_solo_grants_scope,(adventure_id IS NULL) <> (scenario_id IS NULL)"`
	Adventure     *Adventure `gorm:"foreignKey:AdventureID;constraint:OnDelete:CASCADE"`
	ScenarioID    *int64     `gorm:"index"`
	Scenario      *Scenario  `gorm:"foreignKey:ScenarioID;constraint:OnDelete:CASCADE"`
	Label         string     `gorm:"size:80;not null;default:''"`
	Status        string     `gorm:"size:16;not null;check:ck_solo_grants_status,status IN ('active','revoked')"`
	ExpiresAt     time.Time  `gorm:"not null"`
	CreatedAt     time.Time  `gorm:"not null"`
	RevokedAt     *time.Time
	LastSeenAt    *time.Time
}

// CreateSoloGrant inserts a solo grant.
func (s *Store) CreateSoloGrant(ctx context.Context, g *SoloGrant) error {
	return translate(s.db.WithContext(ctx).Omit(clause.Associations).Create(g).Error, "solo grant")
}

// FindSoloGrantByPublicID returns a solo grant by the public part of its
// token.
func (s *Store) FindSoloGrantByPublicID(ctx context.Context, publicID string) (*SoloGrant, error) {
	var g SoloGrant
	return &g, translate(s.db.WithContext(ctx).Where("public_id = ?", publicID).First(&g).Error, "solo grant")
}

// SoloGrantScope names what solo grants are listed for: one adventure or
// one scenario of a user.
type SoloGrantScope struct {
	UserID      int64
	AdventureID int64
	ScenarioID  int64
}

// ListSoloGrants returns the grants of one adventure or scenario, newest
// first, without their secret hashes.
func (s *Store) ListSoloGrants(ctx context.Context, q SoloGrantScope) ([]SoloGrant, error) {
	db := s.db.WithContext(ctx).Omit("secret_hash").Where("user_id = ?", q.UserID)
	if q.AdventureID != 0 {
		db = db.Where("adventure_id = ?", q.AdventureID)
	} else {
		db = db.Where("scenario_id = ?", q.ScenarioID)
	}
	var out []SoloGrant
	return out, translate(db.Order("id DESC").Find(&out).Error, "solo grants")
}

// RevokeSoloGrant revokes a user's grant; it reports whether a grant of
// theirs was found (revoking one already revoked changes nothing).
func (s *Store) RevokeSoloGrant(ctx context.Context, userID, id int64, at time.Time) (*SoloGrant, error) {
	var g SoloGrant
	if err := s.db.WithContext(ctx).Omit("secret_hash").Where("id = ? AND user_id = ?", id, userID).First(&g).Error; err != nil {
		return nil, translate(err, "solo grant")
	}
	if g.Status == GrantRevoked {
		return &g, nil
	}
	err := s.db.WithContext(ctx).Model(&SoloGrant{}).Where("id = ? AND status = ?", id, GrantActive).
		Updates(map[string]any{"status": GrantRevoked, "revoked_at": at}).Error
	g.Status, g.RevokedAt = GrantRevoked, &at
	return &g, translate(err, "solo grant")
}

// TouchSoloGrant records when a solo grant was last used.
func (s *Store) TouchSoloGrant(ctx context.Context, id int64, at time.Time) error {
	return translate(s.db.WithContext(ctx).Model(&SoloGrant{}).Where("id = ?", id).Update("last_seen_at", at).Error, "solo grant")
}
