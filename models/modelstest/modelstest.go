// Package modelstest opens real databases for tests: a SQLite file in the
// test's temp dir, or a fresh schema on the PostgreSQL named by
// AT_TEST_POSTGRES_DSN when AT_TEST_DB=postgres. Every test gets its own
// database and leaves nothing behind.
package modelstest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"github.com/adventure-table/adventure-table/models"
)

// Dialect returns the dialect the tests run on, from AT_TEST_DB (default sqlite).
func Dialect() models.Dialect {
	if os.Getenv("AT_TEST_DB") == string(models.Postgres) {
		return models.Postgres
	}
	return models.SQLite
}

// MustOpen opens a fresh, migrated database.
func MustOpen(tb testing.TB) *models.Store {
	tb.Helper()
	s := MustOpenEmpty(tb)
	if _, err := s.Migrate(context.Background()); err != nil {
		tb.Fatalf("migrate: %v", err)
	}
	return s
}

// MustOpenEmpty opens a fresh database with no tables.
func MustOpenEmpty(tb testing.TB) *models.Store {
	tb.Helper()
	s, err := models.Open(context.Background(), Config(tb))
	if err != nil {
		tb.Fatalf("open test database: %v", err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

// Config returns the configuration of a fresh, empty test database; the
// database is removed when the test ends.
func Config(tb testing.TB) models.Config {
	tb.Helper()
	if Dialect() == models.SQLite {
		return models.Config{SQLitePath: filepath.Join(tb.TempDir(), "test.db")}
	}
	return models.Config{DatabaseURL: newPostgresSchema(tb)}
}

// vacuumCatalogOnce: the first test of a process to use PostgreSQL cleans
// the system catalog of the schemas dropped before it.
var vacuumCatalogOnce sync.Once

// vacuumCatalog vacuums the catalog tables a test schema's tables and
// columns live in. Every test creates and drops a schema of some thirty
// tables, leaving their catalog rows dead; where autovacuum is off (as on
// CI's machine) they pile up run after run, and every catalog read of every
// later test pays for them: after a morning of runs, creating and migrating
// a test schema took 530 ms, and 300 ms once the catalog was clean.
// Vacuuming needs the catalogs' owner; without it PostgreSQL skips them
// with a warning and nothing fails.
func vacuumCatalog(admin *gorm.DB) {
	_ = admin.Exec("VACUUM pg_catalog.pg_class, pg_catalog.pg_attribute, pg_catalog.pg_attrdef, pg_catalog.pg_type, " +
		"pg_catalog.pg_depend, pg_catalog.pg_index, pg_catalog.pg_constraint, pg_catalog.pg_namespace, pg_catalog.pg_sequence").Error
}

// newPostgresSchema creates a schema with a random name and returns a URL
// whose search_path points at it (with synchronous_commit off); the schema
// is dropped at cleanup.
func newPostgresSchema(tb testing.TB) string {
	tb.Helper()
	dsn := os.Getenv("AT_TEST_POSTGRES_DSN")
	if dsn == "" {
		tb.Fatal("AT_TEST_DB=postgres but AT_TEST_POSTGRES_DSN is not set")
	}
	admin, err := gorm.Open(postgres.Open(dsn), &gorm.Config{Logger: logger.Discard})
	if err != nil {
		tb.Fatalf("connect to PostgreSQL at AT_TEST_POSTGRES_DSN: %v", err)
	}
	sqlDB, _ := admin.DB()
	vacuumCatalogOnce.Do(func() { vacuumCatalog(admin) })
	var b [6]byte
	rand.Read(b[:])
	schema := "at_test_" + hex.EncodeToString(b[:])
	if err := admin.Exec("CREATE SCHEMA " + schema).Error; err != nil {
		sqlDB.Close()
		tb.Fatalf("create test schema: %v", err)
	}
	tb.Cleanup(func() {
		// Registered before the store's Close, so it runs after it.
		if err := admin.Exec("DROP SCHEMA " + schema + " CASCADE").Error; err != nil {
			tb.Errorf("drop test schema %s: %v", schema, err)
		}
		sqlDB.Close()
	})
	u, err := url.Parse(dsn)
	if err != nil {
		tb.Fatalf("parse AT_TEST_POSTGRES_DSN: %v", err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	// A test's commits need not survive a crash of the test server: each
	// returns before its WAL reaches the disk (what another connection
	// sees, and when, is unchanged). This saves an fsync per commit, the
	// slowest part of the PostgreSQL suites on a shared disk.
	q.Set("synchronous_commit", "off")
	u.RawQuery = q.Encode()
	return u.String()
}
