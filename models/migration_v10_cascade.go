package models

import (
	"fmt"
	"strings"

	"gorm.io/gorm"
)

// migrationV10Cascade turns every ON DELETE RESTRICT foreign key into ON
// DELETE CASCADE, so deleting a user (an account deleted by its owner, an
// idle guest swept past its retention) is one DELETE that takes everything
// the user owns with it, rooms and their sessions included, without the
// application loading any of it.
//
// PostgreSQL alters each constraint in place. SQLite cannot alter a
// constraint; its documented procedure for a change that does not touch
// the stored data (a foreign key's action) is to rewrite the table's
// CREATE statement in sqlite_schema under writable_schema and bump the
// schema version, inside the migration's transaction.
var migrationV10Cascade = Migration{
	Version: 10,
	Name:    "cascade",
	Up: func(tx *gorm.DB) error {
		if tx.Dialector.Name() == "postgres" {
			return cascadePostgres(tx)
		}
		return cascadeSQLite(tx)
	},
}

func cascadePostgres(tx *gorm.DB) error {
	var fks []struct {
		Table, Name, Def string
	}
	err := tx.Raw(`SELECT c.conrelid::regclass::text AS "table", c.conname AS name, pg_get_constraintdef(c.oid) AS def
		FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace
		WHERE c.contype = 'f' AND c.confdeltype = 'r' AND n.nspname = current_schema()`).Scan(&fks).Error
	if err != nil {
		return fmt.Errorf("list restricting foreign keys: %w", err)
	}
	for _, fk := range fks {
		def := strings.Replace(fk.Def, "ON DELETE RESTRICT", "ON DELETE CASCADE", 1)
		if def == fk.Def {
			return fmt.Errorf("foreign key %s on %s: unexpected definition %q", fk.Name, fk.Table, fk.Def)
		}
		stmt := fmt.Sprintf(`ALTER TABLE %s DROP CONSTRAINT %q, ADD CONSTRAINT %q %s`, fk.Table, fk.Name, fk.Name, def)
		if err := tx.Exec(stmt).Error; err != nil {
			return fmt.Errorf("cascade %s on %s: %w", fk.Name, fk.Table, err)
		}
	}
	return nil
}

func cascadeSQLite(tx *gorm.DB) error {
	var version int
	if err := tx.Raw("PRAGMA schema_version").Scan(&version).Error; err != nil {
		return fmt.Errorf("read schema version: %w", err)
	}
	steps := []string{
		"PRAGMA writable_schema = ON",
		"UPDATE sqlite_schema SET sql = replace(sql, 'ON DELETE RESTRICT', 'ON DELETE CASCADE') WHERE type = 'table' AND sql LIKE '%ON DELETE RESTRICT%'",
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
		return fmt.Errorf("integrity check after cascading: %v", problems)
	}
	return nil
}
