package models

import (
	"context"
	"fmt"
	"time"

	"gorm.io/gorm"
)

// Migration is one versioned schema step. Steps are append-only: once a
// version has shipped it is never edited, only followed by a new one. A step
// declares frozen copies of the structs it touches, never the live models,
// so that later model changes cannot change what an old step does.
type Migration struct {
	Version int
	Name    string
	Up      func(tx *gorm.DB) error
}

// migrations is the ordered history of the schema.
var migrations = []Migration{
	migrationV1CreateUsers,
	migrationV2UserLastSeen,
	migrationV3TableGround,
	migrationV4LiveTable,
	migrationV5Rolls,
	migrationV6AIGrants,
	migrationV7Solo,
	migrationV8Memory,
	migrationV9Accounts,
	migrationV10Cascade,
	migrationV11Chat,
	migrationV12StoppedTake,
	migrationV13LoreInPlay,
	migrationV14TurnStop,
	migrationV15Sheet,
	migrationV16SheetExtras,
	migrationV17Encounters,
	migrationV18SaveRequests,
	migrationV19InitiativeAdvantage,
	migrationV20RollWhat,
	migrationV21DamageDefenses,
	migrationV22ReleaseMembers,
	migrationV23CardRules,
	migrationV24BrowserSessions,
	migrationV25Narrators,
	migrationV26DCCommitment,
	migrationV27NarratorDraft,
	migrationV28NarratorSteps,
	migrationV29CampaignWorld,
	migrationV30CampaignMemory,
	migrationV31Journal,
	migrationV32Recaps,
	migrationV33Analytics,
	migrationV34AnalyticsVisitorIndex,
	migrationV35RateLimits,
	migrationV36SoloGrants,
	migrationV37SnapshotChain,
}

// currentModels is the schema as it is now: a fresh database is created from
// these and stamped with LatestVersion. The schema-parity test proves that
// replaying migrations gives the same schema.
var currentModels = []any{
	&User{},
	&Room{},
	&RoomAccessSession{},
	&Campaign{},
	&Character{},
	&CampaignSeat{},
	&Session{},
	&SessionParticipant{},
	&ActiveCharacterSessionLease{},
	&SessionTableRuntime{},
	&SessionEvent{},
	&SessionMessage{},
	&RoomStageAsset{},
	&SessionStageState{},
	&RollGroup{},
	&RollRequest{},
	&RollResult{},
	&ActionWindow{},
	&PendingAction{},
	&AIControllerGrant{},
	&ProviderSetting{},
	&Scenario{},
	&ScenarioCard{},
	&Adventure{},
	&AdventureCard{},
	&Branch{},
	&Action{},
	&ScriptConsoleEntry{},
	&Memory{},
	&MemoryJob{},
	&LoginFailure{},
	&DemoUsage{},
	&Encounter{},
	&BrowserSession{},
	&Narrator{},
	&NarratorStep{},
	&CampaignWorld{},
	&CampaignMemory{},
	&CampaignMemoryJob{},
	&JournalEntry{},
	&AnalyticsHit{},
	&AnalyticsVisitorDay{},
	&RateLimitState{},
	&SoloGrant{},
}

// schemaVersionRow records each applied version; the current version is the
// highest. Its shape is part of every schema, so it never changes.
type schemaVersionRow struct {
	Version   int       `gorm:"primaryKey;autoIncrement:false"`
	Name      string    `gorm:"size:120;not null"`
	AppliedAt time.Time `gorm:"not null"`
}

func (schemaVersionRow) TableName() string { return "schema_version" }

// migrationLockKey serialises migrations across server processes on
// PostgreSQL (SQLite's BEGIN IMMEDIATE already does).
const migrationLockKey = 7_311_402_201

// LatestVersion is the schema version this binary writes.
func LatestVersion() int { return migrations[len(migrations)-1].Version }

// MigrateReport says what Migrate did.
type MigrateReport struct {
	From    int   // version before; 0 for an empty database
	To      int   // version after
	Fresh   bool  // created from the current models in one step
	Applied []int // versions applied one by one
}

// Migrate brings the database to LatestVersion: an empty database is created
// from the current models and stamped; an existing one runs every step above
// its version, each in its own transaction.
func (s *Store) Migrate(ctx context.Context) (MigrateReport, error) {
	return s.migrateTo(ctx, LatestVersion(), true)
}

// MigrateTo replays the versioned steps up to version, even on an empty
// database. Operators use Migrate; this exists so the parity test can build
// an old schema and upgrade it.
func (s *Store) MigrateTo(ctx context.Context, version int) (MigrateReport, error) {
	return s.migrateTo(ctx, version, false)
}

func (s *Store) migrateTo(ctx context.Context, target int, freshFromModels bool) (MigrateReport, error) {
	if target < 1 || target > LatestVersion() {
		return MigrateReport{}, fmt.Errorf("migrate: version %d is not between 1 and %d", target, LatestVersion())
	}
	from, err := s.SchemaVersion(ctx)
	if err != nil {
		return MigrateReport{}, err
	}
	rep := MigrateReport{From: from, To: from}
	if from > LatestVersion() {
		return rep, fmt.Errorf("migrate: the database is at schema version %d, newer than this binary's %d; run a newer build", from, LatestVersion())
	}
	if from == 0 && freshFromModels {
		created, err := s.createFresh(ctx)
		if err != nil {
			return rep, err
		}
		if created {
			rep.Fresh, rep.To = true, LatestVersion()
			return rep, nil
		}
		// Another process created it meanwhile: fall through to the steps.
	}
	for _, m := range migrations {
		if m.Version > target {
			break
		}
		applied, err := s.applyStep(ctx, m)
		if err != nil {
			return rep, err
		}
		if applied {
			rep.Applied = append(rep.Applied, m.Version)
		}
	}
	rep.To, err = s.SchemaVersion(ctx)
	return rep, err
}

// lockForMigration takes the cross-process migration lock inside tx and
// returns the version stored in the database at that moment.
func (s *Store) lockForMigration(tx *gorm.DB) (int, error) {
	if s.dialect == Postgres {
		if err := tx.Exec("SELECT pg_advisory_xact_lock(?)", migrationLockKey).Error; err != nil {
			return 0, fmt.Errorf("take migration lock: %w", err)
		}
	}
	return readVersion(tx)
}

// createFresh creates every current table and stamps LatestVersion, in one
// transaction. It reports false when the database turned out not to be empty.
func (s *Store) createFresh(ctx context.Context) (bool, error) {
	created := false
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		v, err := s.lockForMigration(tx)
		if err != nil || v != 0 {
			return err
		}
		if err := refuseForeignTables(tx); err != nil {
			return err
		}
		if err := tx.Migrator().CreateTable(&schemaVersionRow{}); err != nil {
			return fmt.Errorf("create schema_version: %w", err)
		}
		if err := tx.Migrator().CreateTable(currentModels...); err != nil {
			return fmt.Errorf("create tables: %w", err)
		}
		last := migrations[len(migrations)-1]
		created = true
		return tx.Create(&schemaVersionRow{Version: last.Version, Name: last.Name, AppliedAt: time.Now().UTC()}).Error
	})
	if err != nil {
		return false, fmt.Errorf("migrate: create fresh schema: %w", err)
	}
	return created, nil
}

// applyStep runs one step in its own transaction unless it is already applied.
func (s *Store) applyStep(ctx context.Context, m Migration) (bool, error) {
	applied := false
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		v, err := s.lockForMigration(tx)
		if err != nil || v >= m.Version {
			return err
		}
		if v != m.Version-1 {
			return fmt.Errorf("database is at version %d, expected %d", v, m.Version-1)
		}
		if v == 0 {
			if err := refuseForeignTables(tx); err != nil {
				return err
			}
			if err := tx.Migrator().CreateTable(&schemaVersionRow{}); err != nil {
				return fmt.Errorf("create schema_version: %w", err)
			}
		}
		if err := m.Up(tx); err != nil {
			return err
		}
		applied = true
		return tx.Create(&schemaVersionRow{Version: m.Version, Name: m.Name, AppliedAt: time.Now().UTC()}).Error
	})
	if err != nil {
		return false, fmt.Errorf("migrate: version %d (%s): %w", m.Version, m.Name, err)
	}
	return applied, nil
}

// refuseForeignTables stops a migration into a database that already holds
// our tables without a schema_version record: guessing its version could
// destroy data. It lists the tables once rather than asking for each model
// (on PostgreSQL every question is a query of information_schema).
func refuseForeignTables(tx *gorm.DB) error {
	tables, err := tx.Migrator().GetTables()
	if err != nil {
		return fmt.Errorf("list tables: %w", err)
	}
	present := make(map[string]bool, len(tables))
	for _, name := range tables {
		present[name] = true
	}
	for _, m := range currentModels {
		stmt := &gorm.Statement{DB: tx}
		if err := stmt.Parse(m); err != nil {
			return fmt.Errorf("parse model %T: %w", m, err)
		}
		if present[stmt.Schema.Table] {
			return fmt.Errorf("the database has Adventure Table tables but no schema_version record; refusing to guess its version")
		}
	}
	return nil
}

// SchemaVersion returns the database's schema version, 0 when it is empty.
func (s *Store) SchemaVersion(ctx context.Context) (int, error) {
	return readVersion(s.db.WithContext(ctx))
}

func readVersion(db *gorm.DB) (int, error) {
	if !db.Migrator().HasTable(&schemaVersionRow{}) {
		return 0, nil
	}
	var v *int
	if err := db.Model(&schemaVersionRow{}).Select("MAX(version)").Scan(&v).Error; err != nil {
		return 0, fmt.Errorf("read schema version: %w", err)
	}
	if v == nil {
		return 0, nil
	}
	return *v, nil
}
