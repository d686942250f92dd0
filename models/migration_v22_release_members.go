package models

import (
	"fmt"
	"regexp"
	"strings"

	"gorm.io/gorm"
)

// releasedForeignKeys are the foreign keys from a person's rows into other
// people's rooms, with what deleting that person now does to the row that
// points at them (it was ON DELETE CASCADE, which took the room owner's
// seat, and with the DM seat every session of the campaign). Frozen: never
// edit. A seat's controller (campaign_seats.controller_access_session_id)
// keeps cascading: its check ties the kind to the id, so the database
// cannot empty it alone; gameplay releases the seat first, and
// Store.DeleteUser refuses a user who still holds one.
var releasedForeignKeys = []struct{ table, column, onDelete string }{
	// The seat stays, without the deleted person's character.
	{"campaign_seats", "character_id", "SET NULL"},
	// A session's history keeps its participant, without the character.
	{"session_participants", "character_id", "SET NULL"},
	// A handoff grant (revoked by the release) stays as history.
	{"ai_controller_grants", "handoff_return_access_session_id", "SET NULL"},
	// An image a member put on the room's stage stays the room's.
	{"room_stage_assets", "created_by_access_session_id", "SET NULL"},
}

// migrationV22ReleaseMembers makes deleting a person take only what they
// own: the foreign keys above stop cascading. PostgreSQL alters each
// constraint in place; SQLite rewrites the table's CREATE statement under
// writable_schema, the documented way to change a foreign key's action
// (see migration v10).
var migrationV22ReleaseMembers = Migration{
	Version: 22,
	Name:    "release_members",
	Up: func(tx *gorm.DB) error {
		if tx.Dialector.Name() == "postgres" {
			return releaseMembersPostgres(tx)
		}
		return releaseMembersSQLite(tx)
	},
}

func releaseMembersPostgres(tx *gorm.DB) error {
	for _, fk := range releasedForeignKeys {
		var found []struct{ Name, Def string }
		err := tx.Raw(`SELECT con.conname AS name, pg_get_constraintdef(con.oid) AS def
			FROM pg_constraint con
			JOIN pg_class c ON c.oid = con.conrelid
			JOIN pg_namespace n ON n.oid = c.relnamespace
			JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = con.conkey[1]
			WHERE con.contype = 'f' AND n.nspname = current_schema() AND c.relname = ? AND a.attname = ?`, fk.table, fk.column).Scan(&found).Error
		if err != nil {
			return fmt.Errorf("find the foreign key of %s.%s: %w", fk.table, fk.column, err)
		}
		if len(found) != 1 {
			return fmt.Errorf("%s.%s: %d foreign keys, want 1", fk.table, fk.column, len(found))
		}
		def := strings.Replace(found[0].Def, " ON DELETE CASCADE", " ON DELETE "+fk.onDelete, 1)
		if def == found[0].Def {
			return fmt.Errorf("foreign key %s on %s: unexpected definition %q", found[0].Name, fk.table, found[0].Def)
		}
		stmt := fmt.Sprintf(`ALTER TABLE %q DROP CONSTRAINT %q, ADD CONSTRAINT %q %s`, fk.table, found[0].Name, found[0].Name, def)
		if err := tx.Exec(stmt).Error; err != nil {
			return fmt.Errorf("release %s.%s: %w", fk.table, fk.column, err)
		}
	}
	return nil
}

func releaseMembersSQLite(tx *gorm.DB) error {
	var version int
	if err := tx.Raw("PRAGMA schema_version").Scan(&version).Error; err != nil {
		return fmt.Errorf("read schema version: %w", err)
	}
	if err := tx.Exec("PRAGMA writable_schema = ON").Error; err != nil {
		return err
	}
	for _, fk := range releasedForeignKeys {
		var sql string
		if err := tx.Raw("SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ?", fk.table).Scan(&sql).Error; err != nil {
			return fmt.Errorf("read %s: %w", fk.table, err)
		}
		re := regexp.MustCompile("(FOREIGN KEY \\([`\"]?" + fk.column + "[`\"]?\\) REFERENCES [^)]*\\)) ON DELETE CASCADE")
		if len(re.FindAllStringIndex(sql, -1)) != 1 {
			return fmt.Errorf("%s.%s: no single cascading foreign key in %q", fk.table, fk.column, sql)
		}
		sql = re.ReplaceAllString(sql, "$1 ON DELETE "+fk.onDelete)
		if err := tx.Exec("UPDATE sqlite_schema SET sql = ? WHERE type = 'table' AND name = ?", sql, fk.table).Error; err != nil {
			return fmt.Errorf("rewrite %s: %w", fk.table, err)
		}
	}
	for _, s := range []string{fmt.Sprintf("PRAGMA schema_version = %d", version+1), "PRAGMA writable_schema = OFF"} {
		if err := tx.Exec(s).Error; err != nil {
			return fmt.Errorf("%s: %w", s, err)
		}
	}
	var problems []string
	if err := tx.Raw("PRAGMA integrity_check").Scan(&problems).Error; err != nil {
		return fmt.Errorf("integrity check: %w", err)
	}
	if len(problems) != 1 || problems[0] != "ok" {
		return fmt.Errorf("integrity check after releasing members: %v", problems)
	}
	return nil
}
