package models

import (
	"fmt"
	"strings"

	"gorm.io/gorm"
)

// The request types before and after version 18. Frozen: never edit.
const (
	requestTypesV5  = "request_type IN ('ability','skill')"
	requestTypesV18 = "request_type IN ('ability','skill','save')"
)

// migrationV18SaveRequests lets a check request ask for a saving throw:
// roll_requests.request_type may now also be 'save'. Every stored row is
// still valid, so the constraint is only widened.
//
// PostgreSQL replaces the constraint in place. SQLite cannot alter a
// constraint; as in version 10 its CREATE statement is rewritten in
// sqlite_schema under writable_schema with the schema version bumped,
// inside the migration's transaction.
var migrationV18SaveRequests = Migration{
	Version: 18,
	Name:    "save_requests",
	Up: func(tx *gorm.DB) error {
		if tx.Dialector.Name() == "postgres" {
			err := tx.Exec(`ALTER TABLE roll_requests DROP CONSTRAINT ck_roll_requests_type, ADD CONSTRAINT ck_roll_requests_type CHECK (` + requestTypesV18 + `)`).Error
			if err != nil {
				return fmt.Errorf("widen ck_roll_requests_type: %w", err)
			}
			return nil
		}
		var sql string
		if err := tx.Raw(`SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = 'roll_requests'`).Scan(&sql).Error; err != nil {
			return fmt.Errorf("read roll_requests: %w", err)
		}
		if strings.Count(sql, requestTypesV5) != 1 {
			return fmt.Errorf("roll_requests: unexpected definition %q", sql)
		}
		var version int
		if err := tx.Raw("PRAGMA schema_version").Scan(&version).Error; err != nil {
			return fmt.Errorf("read schema version: %w", err)
		}
		steps := []string{
			"PRAGMA writable_schema = ON",
			fmt.Sprintf("UPDATE sqlite_schema SET sql = replace(sql, %s, %s) WHERE type = 'table' AND name = 'roll_requests'",
				sqliteQuote(requestTypesV5), sqliteQuote(requestTypesV18)),
			fmt.Sprintf("PRAGMA schema_version = %d", version+1),
			"PRAGMA writable_schema = OFF",
		}
		for _, s := range steps {
			if err := tx.Exec(s).Error; err != nil {
				return fmt.Errorf("%s: %w", s, err)
			}
		}
		var problems []string
		if err := tx.Raw("PRAGMA integrity_check").Scan(&problems).Error; err != nil {
			return fmt.Errorf("integrity check: %w", err)
		}
		if len(problems) != 1 || problems[0] != "ok" {
			return fmt.Errorf("integrity check after widening: %v", problems)
		}
		return nil
	},
}

// sqliteQuote writes s as an SQL string literal.
func sqliteQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
