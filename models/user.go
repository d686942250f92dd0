package models

import (
	"context"
	"crypto/rand"
	"fmt"
	"regexp"
	"time"
)

// User is a person using the server: in local mode the one implicit user,
// in hosted mode a guest or a registered account.
type User struct {
	ID          int64     `gorm:"primaryKey"`
	DisplayName string    `gorm:"size:80;not null"`
	CreatedAt   time.Time `gorm:"not null"`
	// LastSeenAt drives the retention sweep of idle guests (added in schema v2).
	LastSeenAt *time.Time `gorm:"index"`
	// Email and PasswordHash make a guest an account, on the same row (v9);
	// Email is stored lower-cased. A guest has neither.
	Email        *string `gorm:"size:254;uniqueIndex:uq_users_email"`
	PasswordHash string  `gorm:"size:255;not null;default:''"`
	// SessionVersion was signed into the legacy browser cookies (v1, v2);
	// a legacy cookie at the current version upgrades once to a
	// BrowserSession row, and ending every session bumps it. Only those
	// cookies need it: remove it once none can remain (they live 400 days).
	SessionVersion int        `gorm:"not null;default:0"`
	RegisteredAt   *time.Time `gorm:""`
}

// NewGuest returns a new guest's row, named with GuestName and seen at now
// (not yet inserted).
func NewGuest(now time.Time) *User {
	var b [2]byte
	rand.Read(b[:])
	return &User{DisplayName: GuestName(int(b[0])<<8 | int(b[1])), CreatedAt: now, LastSeenAt: &now}
}

// GuestName is the display name the server gives a new guest: "Guest"
// and n as four digits ("Guest 0421").
func GuestName(n int) string { return fmt.Sprintf("Guest %04d", n%10000) }

var guestName = regexp.MustCompile(`^Guest ([0-9]{4})$`)

// GuestNumber is the four digits of a name GuestName made; ok is false for
// a name the person chose.
func GuestNumber(name string) (number string, ok bool) {
	if m := guestName.FindStringSubmatch(name); m != nil {
		return m[1], true
	}
	return "", false
}

// CreateUser inserts u and fills its ID.
func (s *Store) CreateUser(ctx context.Context, u *User) error {
	return translate(s.db.WithContext(ctx).Create(u).Error, "user")
}

// FindUserByID returns the user with id, or not_found.
func (s *Store) FindUserByID(ctx context.Context, id int64) (*User, error) {
	var u User
	if err := s.db.WithContext(ctx).First(&u, id).Error; err != nil {
		return nil, translate(err, "user")
	}
	return &u, nil
}

// LockUser returns a user with its row locked until the transaction ends
// (PostgreSQL; SQLite's write transaction holds the whole database).
func (s *Store) LockUser(ctx context.Context, id int64) (*User, error) {
	var u User
	if err := lockIf(s.db.WithContext(ctx), true).First(&u, id).Error; err != nil {
		return nil, translate(err, "user")
	}
	return &u, nil
}

// CountUsers returns the number of users.
func (s *Store) CountUsers(ctx context.Context) (int64, error) {
	var n int64
	err := s.db.WithContext(ctx).Model(&User{}).Count(&n).Error
	return n, translate(err, "user count")
}

// UpdateUser changes a user's display name and/or last-seen time.
func (s *Store) UpdateUser(ctx context.Context, id int64, displayName *string, lastSeen *time.Time) error {
	m := map[string]any{}
	if displayName != nil {
		m["display_name"] = *displayName
	}
	if lastSeen != nil {
		m["last_seen_at"] = *lastSeen
	}
	if len(m) == 0 {
		return nil
	}
	err := s.db.WithContext(ctx).Model(&User{}).Where("id = ?", id).Updates(m).Error
	if err == nil && displayName != nil {
		// A new name is not authority, but cached sessions show it.
		s.authorityChanged(ctx)
	}
	return translate(err, "user")
}
