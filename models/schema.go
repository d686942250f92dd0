package models

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// Schema is a dialect-level description of the tables in the database, used
// to prove that upgrading an old database gives the same schema as creating
// a fresh one.
type Schema struct {
	Tables map[string]TableSchema
}

// TableSchema describes one table. Column order is not compared: SQLite
// appends added columns, which is harmless.
type TableSchema struct {
	Columns     map[string]string // name -> "type null|not null default <expr> [pk]"
	Indexes     map[string]string // name -> "unique? (col, col)" or its definition
	Constraints map[string]string // name -> definition (checks, foreign keys, uniques)
}

// DescribeSchema reads the live schema of the database.
func (s *Store) DescribeSchema(ctx context.Context) (Schema, error) {
	if s.dialect == Postgres {
		return s.describePostgres(ctx)
	}
	return s.describeSQLite(ctx)
}

var sqliteCheck = regexp.MustCompile("(?i)CONSTRAINT\\s+[`\"]?(\\w+)[`\"]?\\s+CHECK\\s*(\\((?:[^()]|\\([^()]*\\))*\\))")

func (s *Store) describeSQLite(ctx context.Context) (Schema, error) {
	db := s.db.WithContext(ctx)
	var tables []struct{ Name, SQL string }
	if err := db.Raw(`SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`).Scan(&tables).Error; err != nil {
		return Schema{}, fmt.Errorf("list tables: %w", err)
	}
	out := Schema{Tables: map[string]TableSchema{}}
	for _, t := range tables {
		ts := TableSchema{Columns: map[string]string{}, Indexes: map[string]string{}, Constraints: map[string]string{}}
		var cols []struct {
			Name      string
			Type      string
			NotNull   int     `gorm:"column:notnull"`
			DfltValue *string `gorm:"column:dflt_value"`
			PK        int     `gorm:"column:pk"`
		}
		if err := db.Raw(`SELECT name, type, "notnull", dflt_value, pk FROM pragma_table_info(?)`, t.Name).Scan(&cols).Error; err != nil {
			return Schema{}, fmt.Errorf("columns of %s: %w", t.Name, err)
		}
		for _, c := range cols {
			ts.Columns[c.Name] = describeColumn(strings.ToLower(c.Type), c.NotNull == 1, c.DfltValue, c.PK > 0)
		}
		var idx []struct {
			Name   string
			Unique int
			Origin string
		}
		if err := db.Raw(`SELECT name, "unique", origin FROM pragma_index_list(?)`, t.Name).Scan(&idx).Error; err != nil {
			return Schema{}, fmt.Errorf("indexes of %s: %w", t.Name, err)
		}
		for _, i := range idx {
			var icols []string
			if err := db.Raw(`SELECT name FROM pragma_index_info(?) ORDER BY seqno`, i.Name).Scan(&icols).Error; err != nil {
				return Schema{}, fmt.Errorf("index %s: %w", i.Name, err)
			}
			def := "(" + strings.Join(icols, ", ") + ")"
			if i.Unique == 1 {
				def = "unique " + def
			}
			var idxSQL *string
			if err := db.Raw(`SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?`, i.Name).Scan(&idxSQL).Error; err != nil {
				return Schema{}, fmt.Errorf("index %s: %w", i.Name, err)
			}
			if idxSQL != nil {
				if _, where, ok := strings.Cut(*idxSQL, " WHERE "); ok {
					def += " where " + normalizeSpace(where)
				}
			}
			name := i.Name
			if i.Origin != "c" { // auto-named index behind a UNIQUE or PK constraint
				name = i.Origin + ":" + strings.Join(icols, ",")
			}
			ts.Indexes[name] = def
		}
		var fks []struct {
			ID       int
			Seq      int
			Table    string
			From     string
			To       string
			OnUpdate string `gorm:"column:on_update"`
			OnDelete string `gorm:"column:on_delete"`
		}
		if err := db.Raw(`SELECT id, seq, "table", "from", "to", on_update, on_delete FROM pragma_foreign_key_list(?)`, t.Name).Scan(&fks).Error; err != nil {
			return Schema{}, fmt.Errorf("foreign keys of %s: %w", t.Name, err)
		}
		for _, fk := range fks {
			ts.Constraints["fk:"+fk.From] = fmt.Sprintf("REFERENCES %s(%s) ON UPDATE %s ON DELETE %s", fk.Table, fk.To, fk.OnUpdate, fk.OnDelete)
		}
		for _, m := range sqliteCheck.FindAllStringSubmatch(t.SQL, -1) {
			ts.Constraints[m[1]] = "CHECK " + normalizeSpace(m[2])
		}
		out.Tables[t.Name] = ts
	}
	return out, nil
}

func (s *Store) describePostgres(ctx context.Context) (Schema, error) {
	db := s.db.WithContext(ctx)
	var cols []struct {
		TableName     string
		ColumnName    string
		DataType      string
		IsNullable    string
		ColumnDefault *string
		CharMaxLength *int `gorm:"column:character_maximum_length"`
	}
	if err := db.Raw(`SELECT table_name, column_name, data_type, is_nullable, column_default, character_maximum_length
		FROM information_schema.columns WHERE table_schema = current_schema()`).Scan(&cols).Error; err != nil {
		return Schema{}, fmt.Errorf("list columns: %w", err)
	}
	out := Schema{Tables: map[string]TableSchema{}}
	table := func(name string) TableSchema {
		ts, ok := out.Tables[name]
		if !ok {
			ts = TableSchema{Columns: map[string]string{}, Indexes: map[string]string{}, Constraints: map[string]string{}}
			out.Tables[name] = ts
		}
		return ts
	}
	for _, c := range cols {
		typ := c.DataType
		if c.CharMaxLength != nil {
			typ = fmt.Sprintf("%s(%d)", typ, *c.CharMaxLength)
		}
		table(c.TableName).Columns[c.ColumnName] = describeColumn(typ, c.IsNullable == "NO", c.ColumnDefault, false)
	}
	var idx []struct{ Tablename, Indexname, Indexdef string }
	if err := db.Raw(`SELECT tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema()`).Scan(&idx).Error; err != nil {
		return Schema{}, fmt.Errorf("list indexes: %w", err)
	}
	for _, i := range idx {
		// indexdef names the schema; strip it so two schemas compare equal.
		def := strings.ReplaceAll(i.Indexdef, currentSchemaPrefix(i.Indexdef, i.Tablename), "")
		table(i.Tablename).Indexes[i.Indexname] = def
	}
	var cons []struct{ TableName, Conname, Def string }
	if err := db.Raw(`SELECT c.relname AS table_name, con.conname, pg_get_constraintdef(con.oid) AS def
		FROM pg_constraint con JOIN pg_class c ON c.oid = con.conrelid JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = current_schema()`).Scan(&cons).Error; err != nil {
		return Schema{}, fmt.Errorf("list constraints: %w", err)
	}
	for _, c := range cons {
		table(c.TableName).Constraints[c.Conname] = c.Def
	}
	return out, nil
}

// currentSchemaPrefix finds the "schema." qualifier in an index definition.
func currentSchemaPrefix(def, table string) string {
	i := strings.Index(def, " ON ")
	if i < 0 {
		return ""
	}
	rest := def[i+4:]
	rest = strings.TrimPrefix(rest, "ONLY ")
	if j := strings.Index(rest, "."+table); j > 0 {
		return rest[:j+1]
	}
	return ""
}

func describeColumn(typ string, notNull bool, dflt *string, pk bool) string {
	parts := []string{typ}
	if notNull {
		parts = append(parts, "not null")
	} else {
		parts = append(parts, "null")
	}
	if dflt != nil {
		parts = append(parts, "default "+*dflt)
	}
	if pk {
		parts = append(parts, "pk")
	}
	return strings.Join(parts, " ")
}

func normalizeSpace(s string) string { return strings.Join(strings.Fields(s), " ") }

// TableNames lists the tables of a schema, sorted.
func (sc Schema) TableNames() []string {
	names := make([]string, 0, len(sc.Tables))
	for n := range sc.Tables {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// DumpText returns every row of every table as text. Tests use it to prove
// a secret was never written anywhere; it reads whole tables, so never call
// it on a live server.
func (s *Store) DumpText(ctx context.Context) (string, error) {
	sc, err := s.DescribeSchema(ctx)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, table := range sc.TableNames() {
		var rows []map[string]any
		if err := s.db.WithContext(ctx).Table(table).Find(&rows).Error; err != nil {
			return "", fmt.Errorf("dump %s: %w", table, err)
		}
		for _, r := range rows {
			fmt.Fprintf(&b, "%s %v\n", table, r)
		}
	}
	return b.String(), nil
}
