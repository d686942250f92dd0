package models

import (
	"context"
	"time"

	"gorm.io/gorm"

	"github.com/adventure-table/adventure-table/models/apperr"
)

// BrowserSession is one browser's login (or guest visit): the browser's
// cookie carries a random token, and this row holds only its SHA-256, so
// a copy of the database holds no working cookie. Ending the row ends
// that browser's session and nothing else; deleting the user deletes its
// rows.
type BrowserSession struct {
	ID        int64  `gorm:"primaryKey"`
	UserID    int64  `gorm:"not null;index"`
	User      *User  `gorm:"foreignKey:UserID;constraint:OnDelete:CASCADE"`
	TokenHash string `gorm:"size:64;not null;uniqueIndex:uq_browser_sessions_token_hash"`
	// Browser and OS are the family of the User-Agent the session began
	// in ("Chrome", "Android"), "" when unknown; never the header itself.
	Browser   string    `gorm:"size:40;not null;default:''"`
	OS        string    `gorm:"size:40;not null;default:''"`
	CreatedAt time.Time `gorm:"not null"`
	// LastSeenAt is written at most every few minutes, not per request.
	LastSeenAt time.Time `gorm:"not null"`
}

// CreateBrowserSession inserts row and fills its ID.
func (s *Store) CreateBrowserSession(ctx context.Context, row *BrowserSession) error {
	return translate(s.db.WithContext(ctx).Create(row).Error, "browser session")
}

// FindBrowserSession returns the session whose token hashes to tokenHash,
// or not_found.
func (s *Store) FindBrowserSession(ctx context.Context, tokenHash string) (*BrowserSession, error) {
	var row BrowserSession
	if err := s.db.WithContext(ctx).Where("token_hash = ?", tokenHash).First(&row).Error; err != nil {
		return nil, translate(err, "browser session")
	}
	return &row, nil
}

// TouchBrowserSession records that the session was used at now.
func (s *Store) TouchBrowserSession(ctx context.Context, id int64, now time.Time) error {
	err := s.db.WithContext(ctx).Model(&BrowserSession{}).Where("id = ?", id).Update("last_seen_at", now).Error
	return translate(err, "browser session")
}

// ListBrowserSessions returns userID's sessions, the most recently seen
// first.
func (s *Store) ListBrowserSessions(ctx context.Context, userID int64) ([]BrowserSession, error) {
	var rows []BrowserSession
	err := s.db.WithContext(ctx).Where("user_id = ?", userID).Order("last_seen_at DESC, id DESC").Find(&rows).Error
	return rows, translate(err, "browser sessions")
}

// DeleteBrowserSession ends userID's session id. Returns not_found when
// userID has no such session (someone else's id included).
func (s *Store) DeleteBrowserSession(ctx context.Context, userID, id int64) error {
	return s.deletedOne(ctx, s.db.WithContext(ctx).Where("id = ? AND user_id = ?", id, userID).Delete(&BrowserSession{}),
		"browser session", "You have no such session.")
}

// EndBrowserSessions ends every browser session of userID: it deletes
// their rows and bumps the user's session version, which ends the legacy
// cookies (v1, v2) no request has upgraded to a row yet.
func (s *Store) EndBrowserSessions(ctx context.Context, userID int64) error {
	return s.Tx(ctx, func(tx *Store) error { return tx.endBrowserSessions(ctx, userID) })
}

func (s *Store) endBrowserSessions(ctx context.Context, userID int64) error {
	if err := s.db.WithContext(ctx).Where("user_id = ?", userID).Delete(&BrowserSession{}).Error; err != nil {
		return translate(err, "browser sessions")
	}
	res := s.db.WithContext(ctx).Model(&User{}).Where("id = ?", userID).Update("session_version", gorm.Expr("session_version + 1"))
	if res.Error != nil {
		return translate(res.Error, "user")
	}
	if res.RowsAffected == 0 {
		return apperr.E(apperr.NotFound, "The user does not exist.")
	}
	s.authorityChanged(ctx)
	return nil
}

// UpgradeLegacySession turns a legacy cookie (v1 or v2) naming userID at
// sessionVersion into the session row: if the user is still at that
// version (and, with guestOnly, still a guest) it bumps the version, so
// the legacy value upgrades once, and inserts row. It reports false when
// the cookie no longer stands; the caller then looks for the row a
// concurrent request of the same browser made.
func (s *Store) UpgradeLegacySession(ctx context.Context, userID int64, sessionVersion int, guestOnly bool, row *BrowserSession) (bool, error) {
	upgraded := false
	err := s.Tx(ctx, func(tx *Store) error {
		q := tx.db.WithContext(ctx).Model(&User{}).Where("id = ? AND session_version = ?", userID, sessionVersion)
		if guestOnly {
			q = q.Where("email IS NULL")
		}
		res := q.Update("session_version", gorm.Expr("session_version + 1"))
		if res.Error != nil || res.RowsAffected == 0 {
			return translate(res.Error, "user")
		}
		row.UserID = userID
		if err := tx.CreateBrowserSession(ctx, row); err != nil {
			return err
		}
		// No authority change: the legacy value and its row name the same
		// session, so no cached answer about it turns false.
		upgraded = true
		return nil
	})
	return upgraded, err
}
