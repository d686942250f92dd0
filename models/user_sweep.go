package models

import (
	"context"
	"time"
)

// SweepIdleGuests deletes the guests (users without an account) not seen
// since before, in one DELETE: the foreign keys cascade all the way down
// (rooms and their sessions, characters, grants, adventures and their
// memories), so nothing is loaded to delete it. Accounts are never swept.
func (s *Store) SweepIdleGuests(ctx context.Context, before time.Time) (int64, error) {
	res := s.db.WithContext(ctx).Where("email IS NULL AND COALESCE(last_seen_at, created_at) < ?", before).Delete(&User{})
	if res.Error == nil && res.RowsAffected > 0 {
		s.authorityChanged(ctx)
	}
	return res.RowsAffected, translate(res.Error, "idle guests")
}

// TableCounts counts the rows of every table of the current schema, for
// tests that prove a cascade took exactly what it should.
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
