package models

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/mattn/go-sqlite3"
)

// Backups. A SQLite database is copied with SQLite's online backup API
// from a connection of its own: one read transaction, so the copy is one
// consistent moment of the database while the server goes on writing (in
// WAL mode a reader blocks no writer). A PostgreSQL database is dumped by
// pg_dump (custom format) and restored by pg_restore in one transaction.
// Either way the file is written beside its final name and renamed when
// whole, so a failed backup never leaves a file that looks like one.

// ErrRestoreTargetNotEmpty: a restore goes into an empty database only.
var ErrRestoreTargetNotEmpty = errors.New("the database to restore into is not empty")

// Backup writes a consistent copy of the database to path, which must not
// exist yet.
func (s *Store) Backup(ctx context.Context, path string) error {
	if _, err := os.Stat(path); err == nil {
		return fmt.Errorf("%s already exists", path)
	}
	partial := path + ".partial"
	_ = os.Remove(partial)
	var err error
	if s.dialect == SQLite {
		err = s.backupSQLite(ctx, partial)
	} else {
		err = pgDump(ctx, s.pgURL, partial)
	}
	if err == nil {
		err = syncFile(partial)
	}
	if err == nil {
		err = os.Rename(partial, path)
	}
	if err != nil {
		_ = os.Remove(partial)
		return err
	}
	return nil
}

// backupSQLite copies the database page by page into a new file in one
// step (one read transaction), then checks the copy.
func (s *Store) backupSQLite(ctx context.Context, path string) error {
	sqlDB, err := s.db.DB()
	if err != nil {
		return err
	}
	src, err := sqlDB.Conn(ctx)
	if err != nil {
		return err
	}
	defer src.Close()
	destDB, err := sql.Open("sqlite3", "file:"+path)
	if err != nil {
		return err
	}
	defer destDB.Close()
	dest, err := destDB.Conn(ctx)
	if err != nil {
		return err
	}
	defer dest.Close()
	err = dest.Raw(func(destConn any) error {
		return src.Raw(func(srcConn any) error {
			b, err := destConn.(*sqlite3.SQLiteConn).Backup("main", srcConn.(*sqlite3.SQLiteConn), "main")
			if err != nil {
				return err
			}
			if _, err := b.Step(-1); err != nil {
				b.Finish()
				return fmt.Errorf("copy the database: %w", err)
			}
			return b.Finish()
		})
	})
	if err != nil {
		return err
	}
	return checkSQLite(ctx, dest)
}

// checkSQLite runs SQLite's integrity check on conn.
func checkSQLite(ctx context.Context, conn *sql.Conn) error {
	var result string
	if err := conn.QueryRowContext(ctx, "PRAGMA integrity_check").Scan(&result); err != nil {
		return err
	}
	if result != "ok" {
		return fmt.Errorf("the copy fails SQLite's integrity check: %s", result)
	}
	return nil
}

// RestoreSQLite puts the SQLite backup at from in place as the database
// file to, which must not exist: the backup is checked first (integrity,
// a schema this build knows), copied beside to and renamed. The caller
// migrates it as a server start does.
func RestoreSQLite(ctx context.Context, from, to string) error {
	if _, err := os.Stat(to); err == nil {
		return fmt.Errorf("%w: %s exists", ErrRestoreTargetNotEmpty, to)
	}
	db, err := sql.Open("sqlite3", "file:"+from+"?mode=ro")
	if err != nil {
		return err
	}
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if err := checkSQLite(ctx, conn); err != nil {
		return fmt.Errorf("%s is not a sound SQLite database: %w", from, err)
	}
	var version int
	if err := conn.QueryRowContext(ctx, "SELECT MAX(version) FROM schema_version").Scan(&version); err != nil {
		return fmt.Errorf("%s is not an Adventure Table backup (no schema version): %w", from, err)
	}
	if latest := LatestVersion(); version > latest {
		return fmt.Errorf("%s is at schema version %d, newer than this build's %d", from, version, latest)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o700); err != nil {
		return err
	}
	partial := to + ".partial"
	if err := copyFile(from, partial); err != nil {
		_ = os.Remove(partial)
		return err
	}
	return os.Rename(partial, to)
}

// RestorePostgres loads the pg_dump backup at from into the empty
// database of databaseURL with pg_restore, in one transaction: a failed
// restore leaves the database empty.
func RestorePostgres(ctx context.Context, databaseURL, from string) error {
	s, err := Open(ctx, Config{DatabaseURL: databaseURL})
	if err != nil {
		return err
	}
	empty := !s.db.Migrator().HasTable(&schemaVersionRow{})
	s.Close()
	if !empty {
		return fmt.Errorf("%w: it has a schema_version table", ErrRestoreTargetNotEmpty)
	}
	conn, _ := libpqURL(databaseURL)
	out, err := exec.CommandContext(ctx, "pg_restore", "--no-owner", "--no-privileges", "--exit-on-error", "--single-transaction",
		"--dbname", conn, from).CombinedOutput()
	if err != nil {
		return fmt.Errorf("pg_restore: %v: %s", err, redactOutput(string(out), databaseURL))
	}
	return nil
}

// pgDump writes databaseURL's database (its search_path schema only, when
// the URL names one) to path in pg_dump's custom format.
func pgDump(ctx context.Context, databaseURL, path string) error {
	conn, schema := libpqURL(databaseURL)
	args := []string{"--format=custom", "--no-owner", "--no-privileges", "--file", path}
	if schema != "" {
		args = append(args, "--schema", schema)
	}
	out, err := exec.CommandContext(ctx, "pg_dump", append(args, "--dbname", conn)...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("pg_dump: %v: %s", err, redactOutput(string(out), databaseURL))
	}
	return nil
}

// libpqURL is databaseURL as libpq's tools (pg_dump, pg_restore) take
// it: only the parameters libpq knows are kept (pgx also takes a server's
// run-time settings, which libpq refuses); search_path, the schema the
// server's tables live in, is returned apart.
func libpqURL(databaseURL string) (conn, schema string) {
	u, err := url.Parse(databaseURL)
	if err != nil {
		return databaseURL, ""
	}
	q := u.Query()
	schema = q.Get("search_path")
	for name := range q {
		if !libpqParams[name] {
			q.Del(name)
		}
	}
	u.RawQuery = q.Encode()
	return u.String(), schema
}

// libpqParams are the connection parameters libpq accepts in a URL.
var libpqParams = map[string]bool{"host": true, "hostaddr": true, "port": true, "dbname": true, "user": true,
	"password": true, "passfile": true, "channel_binding": true, "connect_timeout": true, "client_encoding": true,
	"options": true, "application_name": true, "sslmode": true, "sslcert": true, "sslkey": true, "sslpassword": true,
	"sslrootcert": true, "sslcrl": true, "sslcompression": true, "sslsni": true, "requirepeer": true,
	"ssl_min_protocol_version": true, "ssl_max_protocol_version": true, "gssencmode": true, "krbsrvname": true,
	"service": true, "target_session_attrs": true, "load_balance_hosts": true}

// redactOutput keeps a tool's message and drops the URL's password.
func redactOutput(out, databaseURL string) string {
	out = strings.TrimSpace(out)
	if u, err := url.Parse(databaseURL); err == nil {
		if pw, ok := u.User.Password(); ok && pw != "" {
			out = strings.ReplaceAll(out, pw, "xxxxx")
		}
	}
	return out
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Sync(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// syncFile flushes a written file to the disk.
func syncFile(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// RowCounts says how many rows the main tables hold ("3 users, 2 rooms,
// …"): what a restore prints as its check that the copy reads.
func (s *Store) RowCounts(ctx context.Context) (string, error) {
	var parts []string
	for _, t := range []struct{ what, table string }{{"users", "users"}, {"rooms", "rooms"}, {"sessions", "sessions"},
		{"table events", "session_events"}, {"adventures", "adventures"}, {"story nodes", "actions"}} {
		var n int64
		if err := s.db.WithContext(ctx).Table(t.table).Count(&n).Error; err != nil {
			return "", err
		}
		parts = append(parts, fmt.Sprintf("%d %s", n, t.what))
	}
	return strings.Join(parts, ", "), nil
}
