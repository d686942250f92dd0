// Package models is the storage layer: GORM models, dialect setup (SQLite by
// default, PostgreSQL by URL) and the versioned migrations. Only this package
// sees *gorm.DB; everything above calls Store methods.
package models

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"gorm.io/driver/postgres"
	"gorm.io/driver/sqlite"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"github.com/adventure-table/adventure-table/models/apperr"
)

// Dialect names the database engine behind a Store.
type Dialect string

// The supported dialects.
const (
	SQLite   Dialect = "sqlite"
	Postgres Dialect = "postgres"
)

// Config says which database to open.
type Config struct {
	// DatabaseURL is a postgres:// or postgresql:// URL; empty means SQLite.
	DatabaseURL string
	// SQLitePath is the SQLite file used when DatabaseURL is empty.
	SQLitePath string
	// MaxOpenConns bounds the connection pool; 0 means 16 on PostgreSQL
	// and 8 on SQLite.
	MaxOpenConns int
}

// Store is the handle every query hangs off. Inside Tx it is bound to the
// transaction.
type Store struct {
	db      *gorm.DB
	dialect Dialect
	// location describes the database for humans without secrets.
	location string
	// pgURL is kept for the LISTEN connection; it may hold a password and
	// is never printed.
	pgURL string
	// authority counts authority-changing commits (authority.go).
	authority authorityState
	// writer, on SQLite, is the one write lock as a Go semaphore: every
	// transaction takes SQLite's write lock at BEGIN anyway, and queueing
	// here wakes the next writer the moment the last one commits, where
	// SQLite's busy handler would sleep in growing steps (up to 100 ms)
	// and retry. nil on PostgreSQL, whose writers do not exclude each other.
	writer chan struct{}
}

// Open opens (and for SQLite creates) the database. It does not migrate; call
// Migrate for that.
func Open(ctx context.Context, cfg Config) (*Store, error) {
	gcfg := &gorm.Config{
		// Translate driver errors into gorm.ErrDuplicatedKey and friends so
		// translate can turn them into stable codes.
		TranslateError: true,
		Logger:         logger.Discard,
		NowFunc:        func() time.Time { return time.Now().UTC() },
	}
	var (
		dialector gorm.Dialector
		s         = &Store{authority: authorityState{clock: newAuthorityClock()}}
	)
	switch {
	case cfg.DatabaseURL == "":
		if cfg.SQLitePath == "" {
			return nil, errors.New("open database: no SQLite path and no database URL")
		}
		if err := os.MkdirAll(filepath.Dir(cfg.SQLitePath), 0o700); err != nil {
			return nil, fmt.Errorf("create data dir: %w", err)
		}
		dialector = sqlite.Open(sqliteDSN(cfg.SQLitePath))
		s.dialect, s.location = SQLite, cfg.SQLitePath
		s.writer = make(chan struct{}, 1)
	case strings.HasPrefix(cfg.DatabaseURL, "postgres://"), strings.HasPrefix(cfg.DatabaseURL, "postgresql://"):
		dialector = postgres.Open(cfg.DatabaseURL)
		s.dialect, s.location, s.pgURL = Postgres, RedactURL(cfg.DatabaseURL), cfg.DatabaseURL
	default:
		return nil, errors.New("open database: the URL must start with postgres:// or postgresql://")
	}
	db, err := gorm.Open(dialector, gcfg)
	if err != nil {
		return nil, fmt.Errorf("open %s database: %w", s.dialect, err)
	}
	s.db = db
	if err := registerQueryCounter(db); err != nil {
		return nil, err
	}
	if err := registerUnavailable(db); err != nil {
		return nil, err
	}
	sqlDB, err := db.DB()
	if err != nil {
		return nil, fmt.Errorf("open %s database: %w", s.dialect, err)
	}
	sqlDB.SetConnMaxIdleTime(5 * time.Minute)
	// A bounded pool: a burst of requests (a thousand long polls waking at
	// once) queues for a connection instead of opening one each, which
	// PostgreSQL would refuse past max_connections and SQLite would only
	// slow down.
	maxOpen := cfg.MaxOpenConns
	if maxOpen == 0 {
		maxOpen = 16
		if s.dialect == SQLite {
			maxOpen = 8
		}
	}
	sqlDB.SetMaxOpenConns(maxOpen)
	sqlDB.SetMaxIdleConns(maxOpen)
	if err := s.Ping(ctx); err != nil {
		sqlDB.Close()
		return nil, err
	}
	return s, nil
}

// sqliteDSN is the connection string every SQLite connection is opened with.
//   - WAL lets readers run while one writer commits.
//   - synchronous=FULL fsyncs the WAL at every commit, so a committed write
//     survives power loss (NORMAL may lose the last transactions).
//   - foreign keys are off by default in SQLite, per connection.
//   - _txlock=immediate makes every BEGIN a BEGIN IMMEDIATE: the write lock
//     is taken at BEGIN, where the busy timeout applies. A deferred BEGIN
//     that reads and then writes fails at once with SQLITE_BUSY instead of
//     waiting, whatever the timeout.
func sqliteDSN(path string) string {
	q := url.Values{}
	q.Set("_journal_mode", "WAL")
	q.Set("_synchronous", "FULL")
	q.Set("_foreign_keys", "on")
	q.Set("_busy_timeout", "15000")
	q.Set("_txlock", "immediate")
	return "file:" + path + "?" + q.Encode()
}

// RedactURL removes the password from a database URL so it can be printed.
func RedactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparseable database URL)"
	}
	if u.User != nil {
		if _, has := u.User.Password(); has {
			u.User = url.UserPassword(u.User.Username(), "xxxxx")
		}
	}
	return u.String()
}

// Close closes the database.
func (s *Store) Close() error {
	sqlDB, err := s.db.DB()
	if err != nil {
		return err
	}
	return sqlDB.Close()
}

// Dialect reports the database engine.
func (s *Store) Dialect() Dialect { return s.dialect }

// Location describes the database for logs and banners, without secrets.
func (s *Store) Location() string { return s.location }

// Ping checks that the database answers. Returns database_unavailable if not.
func (s *Store) Ping(ctx context.Context) error {
	sqlDB, err := s.db.DB()
	if err == nil {
		err = sqlDB.PingContext(ctx)
	}
	if err != nil {
		if apperr.IsCanceled(err) {
			return err
		}
		return apperr.Wrap(err, apperr.DatabaseUnavailable, "The database is not reachable.")
	}
	return nil
}

// Tx runs fn in one transaction: it commits when fn returns nil and rolls
// back otherwise. On SQLite the write lock is taken at BEGIN.
func (s *Store) Tx(ctx context.Context, fn func(tx *Store) error) error {
	// A transaction inside a transaction (a savepoint) already holds it.
	if s.writer != nil && s.authority.pending == nil {
		select {
		case s.writer <- struct{}{}:
			defer func() { <-s.writer }()
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	// Beginning or committing may be what meets a lost connection.
	changed := false
	outermost := s.authority.pending == nil
	err := Unavailable(s.db.WithContext(ctx).Transaction(func(gtx *gorm.DB) error {
		tx := &Store{db: gtx, dialect: s.dialect, location: s.location, pgURL: s.pgURL,
			authority: authorityState{clock: s.authority.clock, pending: &changed}}
		if err := fn(tx); err != nil {
			return err
		}
		if changed && outermost {
			return tx.notifyAuthority(ctx)
		}
		return nil
	}))
	if changed && err == nil {
		if outermost {
			s.authority.clock.n.Add(1) // the notification went with the commit
		} else {
			s.authorityChanged(ctx) // the enclosing transaction commits it
		}
	}
	return err
}

// translate turns storage errors into application errors where the storage
// layer knows what happened; anything else is returned wrapped as is.
func translate(err error, what string) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, gorm.ErrRecordNotFound):
		return apperr.Wrap(err, apperr.NotFound, "The %s does not exist.", what)
	case errors.Is(err, gorm.ErrDuplicatedKey):
		return apperr.Wrap(err, apperr.Conflict, "The %s already exists.", what)
	default:
		return fmt.Errorf("%s: %w", what, err)
	}
}

// clauseExpr is a raw SQL expression for an UPDATE value.
func clauseExpr(sql string) any { return gorm.Expr(sql) }

// errRecordNotFound lets a query that found no row to update say not_found.
var errRecordNotFound = gorm.ErrRecordNotFound

// PoolInUse reports how many database connections are checked out now.
func (s *Store) PoolInUse() int {
	sqlDB, err := s.db.DB()
	if err != nil {
		return 0
	}
	return sqlDB.Stats().InUse
}
