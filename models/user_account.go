package models

import (
	"context"
	"errors"
	"time"

	"gorm.io/gorm"

	"github.com/adventure-table/adventure-table/models/apperr"
)

// FindUserByEmail returns the account with email (already normalised:
// trimmed, lower-cased), or not_found. Guests have no email and are never
// found here.
func (s *Store) FindUserByEmail(ctx context.Context, email string) (*User, error) {
	var u User
	if err := s.db.WithContext(ctx).Where("email = ?", email).First(&u).Error; err != nil {
		return nil, translate(err, "account")
	}
	return &u, nil
}

// RegisterUser turns the guest id into an account in place: it sets the
// email, the password hash and the registration time, in one UPDATE that
// only matches a guest, and ends every browser session of the guest (so a
// cookie copied before registering stops working; the caller starts the
// registering browser's new one). Returns the updated row; email_taken
// when another account has the email, conflict when id is an account
// already, not_found when id does not exist.
func (s *Store) RegisterUser(ctx context.Context, id int64, email, passwordHash string, now time.Time) (*User, error) {
	var out *User
	err := s.Tx(ctx, func(tx *Store) error {
		res := tx.db.WithContext(ctx).Model(&User{}).Where("id = ? AND email IS NULL", id).Updates(map[string]any{
			"email": email, "password_hash": passwordHash, "registered_at": now,
		})
		if errors.Is(res.Error, gorm.ErrDuplicatedKey) {
			return apperr.Wrap(res.Error, apperr.EmailTaken, "An account with this email already exists.").WithField("email", "already registered")
		}
		if res.Error != nil {
			return translate(res.Error, "user")
		}
		u, err := tx.FindUserByID(ctx, id)
		if err != nil {
			return err
		}
		if res.RowsAffected == 0 {
			return apperr.E(apperr.Conflict, "You are already signed in to an account; log out to register another.")
		}
		out = u
		return tx.endBrowserSessions(ctx, id)
	})
	return out, err
}

// SetPasswordHash stores a new password hash for id. With endSessions it
// also ends every browser session of id (a password change; the caller
// starts the changing browser's new one); a rehash after login does not.
// Returns the updated row.
func (s *Store) SetPasswordHash(ctx context.Context, id int64, passwordHash string, endSessions bool) (*User, error) {
	var out *User
	err := s.Tx(ctx, func(tx *Store) error {
		res := tx.db.WithContext(ctx).Model(&User{}).Where("id = ?", id).Update("password_hash", passwordHash)
		if res.Error != nil {
			return translate(res.Error, "user")
		}
		if res.RowsAffected == 0 {
			return apperr.E(apperr.NotFound, "The user does not exist.")
		}
		if endSessions {
			if err := tx.endBrowserSessions(ctx, id); err != nil {
				return err
			}
		}
		u, err := tx.FindUserByID(ctx, id)
		out = u
		return err
	})
	return out, err
}

// LoginFailureWindow returns key's failure window if it began at or after
// since (the zero LoginFailure when none), so a refusal can say when the
// window ends.
func (s *Store) LoginFailureWindow(ctx context.Context, key string, since time.Time) (LoginFailure, error) {
	var f LoginFailure
	err := s.db.WithContext(ctx).Where("key = ? AND window_start >= ?", key, since).Limit(1).Find(&f).Error
	return f, translate(err, "login failures")
}
