package models

import (
	"context"
	"path/filepath"
	"testing"
)

// TestSQLitePragmasOnEveryConnection checks durability and integrity
// settings on several pooled connections, not just the first.
func TestSQLitePragmasOnEveryConnection(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, Config{SQLitePath: filepath.Join(t.TempDir(), "p.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	sqlDB, _ := s.db.DB()
	for i := range 4 {
		conn, err := sqlDB.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		var journal string
		var sync, fk, busy int
		row := conn.QueryRowContext(ctx, "SELECT (SELECT journal_mode FROM pragma_journal_mode), (SELECT synchronous FROM pragma_synchronous), (SELECT foreign_keys FROM pragma_foreign_keys), (SELECT timeout FROM pragma_busy_timeout)")
		if err := row.Scan(&journal, &sync, &fk, &busy); err != nil {
			t.Fatal(err)
		}
		if journal != "wal" || sync != 2 || fk != 1 || busy < 1000 {
			t.Errorf("conn %d: journal=%s synchronous=%d foreign_keys=%d busy_timeout=%d; want wal, 2 (FULL), 1, >=1000", i, journal, sync, fk, busy)
		}
	}
}
