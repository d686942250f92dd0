package models_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/adventure-table/adventure-table/models"
	"github.com/adventure-table/adventure-table/models/modelstest"
)

// migratedCharacter opens an empty database at version from, stores user 1
// ("Old Player") and the character row insert (in that version's shape,
// its two placeholders the created and updated times), migrates to the
// latest version and reads character 1 back.
func migratedCharacter(t *testing.T, from int, insert string) (*models.Store, *models.Character) {
	t.Helper()
	ctx := context.Background()
	s := modelstest.MustOpenEmpty(t)
	if _, err := s.MigrateTo(ctx, from); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := s.InsertRawForTest(ctx, "INSERT INTO users (display_name, created_at, last_seen_at) VALUES (?, ?, ?)", "Old Player", now, now); err != nil {
		t.Fatal(err)
	}
	if err := s.InsertRawForTest(ctx, insert, now, now); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	c, err := s.FindCharacterByID(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	return s, c
}

// wantSavedAsIs: the migrated store saves c and reads it back unchanged.
func wantSavedAsIs(t *testing.T, s *models.Store, c *models.Character) {
	t.Helper()
	ctx := context.Background()
	if err := s.SaveCharacter(ctx, c); err != nil {
		t.Fatal(err)
	}
	got, err := s.FindCharacterByID(ctx, c.ID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(*c, *got, cmpopts.EquateApproxTime(time.Second)); diff != "" {
		t.Fatalf("saved character differs (-want +got):\n%s", diff)
	}
}

func TestMigrateFreshStampsLatest(t *testing.T) {
	ctx := context.Background()
	s := modelstest.MustOpenEmpty(t)
	rep, err := s.Migrate(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Fresh || rep.From != 0 || rep.To != models.LatestVersion() {
		t.Fatalf("got report %+v, want fresh 0 -> %d", rep, models.LatestVersion())
	}
	v, err := s.SchemaVersion(ctx)
	if err != nil || v != models.LatestVersion() {
		t.Fatalf("got version %d (%v), want %d", v, err, models.LatestVersion())
	}
	// A second run is a no-op.
	rep, err = s.Migrate(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Fresh || len(rep.Applied) != 0 || rep.To != models.LatestVersion() {
		t.Fatalf("second run: got %+v, want nothing applied", rep)
	}
}

// TestSchemaParity builds the oldest schema, upgrades it step by step and
// compares it with a schema created fresh from the models: tables, columns,
// types, nullability, defaults, indexes and constraints must all agree.
func TestSchemaParity(t *testing.T) {
	ctx := context.Background()
	old := modelstest.MustOpenEmpty(t)
	if _, err := old.MigrateTo(ctx, 1); err != nil {
		t.Fatalf("build version 1: %v", err)
	}
	if v, _ := old.SchemaVersion(ctx); v != 1 {
		t.Fatalf("got version %d after MigrateTo(1), want 1", v)
	}
	rep, err := old.Migrate(ctx)
	if err != nil {
		t.Fatalf("upgrade: %v", err)
	}
	// Every step after 1, in order (a branch's step may be numbered past a
	// gap until the lead renumbers it).
	ascending := len(rep.Applied) > 0 && rep.Applied[0] == 2 && rep.Applied[len(rep.Applied)-1] == models.LatestVersion()
	for i := 1; i < len(rep.Applied); i++ {
		ascending = ascending && rep.Applied[i] > rep.Applied[i-1]
	}
	if rep.Fresh || rep.From != 1 || rep.To != models.LatestVersion() || !ascending {
		t.Fatalf("got report %+v, want steps 2..%d applied", rep, models.LatestVersion())
	}
	fresh := modelstest.MustOpen(t)

	got, err := old.DescribeSchema(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want, err := fresh.DescribeSchema(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(want.Tables) < 2 {
		t.Fatalf("fresh schema has tables %v, want users and schema_version at least", want.TableNames())
	}
	if _, ok := want.Tables["users"].Indexes["idx_users_last_seen_at"]; !ok {
		t.Fatalf("fresh schema lacks idx_users_last_seen_at: %+v", want.Tables["users"])
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("upgraded schema differs from fresh schema (-fresh +upgraded):\n%s", diff)
	}
}

// TestMigrationV2BackfillsLastSeen seeds a user in the version-1 shape and
// checks that version 2 gives it a last_seen_at equal to its creation time.
func TestMigrationV2BackfillsLastSeen(t *testing.T) {
	ctx := context.Background()
	s := modelstest.MustOpenEmpty(t)
	if _, err := s.MigrateTo(ctx, 1); err != nil {
		t.Fatal(err)
	}
	created := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := s.InsertRawForTest(ctx, "INSERT INTO users (display_name, created_at) VALUES (?, ?)", "Old Guest", created); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	u, err := s.FindUserByID(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if u.LastSeenAt == nil || !u.LastSeenAt.Equal(created) {
		t.Fatalf("got last_seen_at %v, want %v", u.LastSeenAt, created)
	}
}

func TestMigrateRefusesNewerDatabase(t *testing.T) {
	ctx := context.Background()
	s := modelstest.MustOpen(t)
	if err := s.InsertRawForTest(ctx, "INSERT INTO schema_version (version, name, applied_at) VALUES (?, ?, ?)", 999, "from_the_future", time.Now()); err != nil {
		t.Fatal(err)
	}
	_, err := s.Migrate(ctx)
	if err == nil || !strings.Contains(err.Error(), "newer than this binary") {
		t.Fatalf("got %v, want a refusal naming the newer version", err)
	}
}

func TestMigrateRefusesUnversionedTables(t *testing.T) {
	ctx := context.Background()
	s := modelstest.MustOpenEmpty(t)
	if err := s.InsertRawForTest(ctx, "CREATE TABLE users (id integer primary key)"); err != nil {
		t.Fatal(err)
	}
	_, err := s.Migrate(ctx)
	if err == nil || !strings.Contains(err.Error(), "no schema_version") {
		t.Fatalf("got %v, want a refusal to guess the version", err)
	}
}

// TestMigrationV15KeepsCharacters seeds a character in the version-14
// shape and checks that version 15 keeps it and gives it the new sheet
// fields as "not given": no class text, no save proficiencies (an empty
// list, not null), no armor, speed and hit die 0.
func TestMigrationV15KeepsCharacters(t *testing.T) {
	s, c := migratedCharacter(t, 14, `INSERT INTO characters (owner_user_id, name, level, str, dex, con, int, wis, cha,
		skill_proficiencies, skill_expertise, hp_max, hp_current, hp_temp, conditions, resources, biography, roleplay_guidance, created_at, updated_at)
		VALUES (1, 'Old Hero', 3, 10, 14, 12, 8, 13, 15, '["stealth"]', '[]', 20, 20, 0, '[]', '[]', '', '', ?, ?)`)
	want := models.Character{ID: 1, OwnerUserID: 1, Name: "Old Hero", Level: 3, Str: 10, Dex: 14, Con: 12, Int: 8, Wis: 13, Cha: 15,
		SkillProficiencies: []string{"stealth"}, SkillExpertise: []string{}, HPMax: 20, HPCurrent: 20, Conditions: []string{},
		Resources: []models.Resource{}, SaveProficiencies: []string{}, CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt,
		// Later versions' lists read as empty, never null.
		Attacks: []models.Attack{}, Spells: []models.Spell{}, Inventory: []models.InventoryItem{}}
	if diff := cmp.Diff(want, *c); diff != "" {
		t.Fatalf("migrated character differs (-want +got):\n%s", diff)
	}
	// The new fields are stored and read back.
	c.Class, c.Species, c.Background, c.SaveProficiencies = "Rogue", "Halfling", "Urchin", []string{"dex", "int"}
	c.Armor, c.Shield, c.Unarmored, c.ArmorBonus, c.Speed, c.HitDie = "leather", true, "mage_armor", 1, 25, 8
	wantSavedAsIs(t, s, c)
}
