package models

import (
	"context"
	"time"
)

// IdleGuest reports whether u is a guest (a user without an account) not
// seen since before. Accounts are never idle guests.
func IdleGuest(u *User, before time.Time) bool {
	seen := u.CreatedAt
	if u.LastSeenAt != nil {
		seen = *u.LastSeenAt
	}
	return u.Email == nil && seen.Before(before)
}

// FindIdleGuestIDs returns up to limit guests with an id above afterID not
// seen since before, in id order. The sweep deletes each through the one
// deletion rule, which checks IdleGuest again under the row's lock.
func (s *Store) FindIdleGuestIDs(ctx context.Context, before time.Time, afterID int64, limit int) ([]int64, error) {
	var ids []int64
	err := s.db.WithContext(ctx).Model(&User{}).Where("id > ? AND email IS NULL AND COALESCE(last_seen_at, created_at) < ?", afterID, before).
		Order("id").Limit(limit).Pluck("id", &ids).Error
	return ids, translate(err, "idle guests")
}

// TableCounts counts the rows of every table of the current schema, for
// tests that prove a deletion took exactly what it should.
func (s *Store) TableCounts(ctx context.Context) (map[string]int64, error) {
	out := map[string]int64{}
	for _, m := range currentModels {
		stmt := s.db.Model(m).Statement
		if err := stmt.Parse(m); err != nil {
			return nil, err
		}
		var n int64
		if err := s.db.WithContext(ctx).Model(m).Count(&n).Error; err != nil {
			return nil, translate(err, stmt.Schema.Table)
		}
		out[stmt.Schema.Table] = n
	}
	return out, nil
}
