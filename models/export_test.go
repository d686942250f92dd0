package models

import "context"

// InsertRawForTest runs a raw statement; tests use it to seed old shapes.
func (s *Store) InsertRawForTest(ctx context.Context, sql string, args ...any) error {
	return s.db.WithContext(ctx).Exec(sql, args...).Error
}
