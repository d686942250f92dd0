package models_test

import (
	"testing"

	"github.com/adventure-table/adventure-table/models"
)

// TestMigrationV16KeepsCharacters seeds a character in the version-15
// shape and checks that version 16 gives it empty attack, spell and
// inventory lists (not null) and no notes, then stores and reads them.
func TestMigrationV16KeepsCharacters(t *testing.T) {
	s, c := migratedCharacter(t, 15, `INSERT INTO characters (owner_user_id, name, level, str, dex, con, int, wis, cha,
		skill_proficiencies, skill_expertise, hp_max, hp_current, hp_temp, conditions, resources, biography, roleplay_guidance,
		character_class, created_at, updated_at)
		VALUES (1, 'Old Hero', 3, 16, 14, 12, 8, 13, 15, '[]', '[]', 20, 20, 0, '[]', '[{"name":"slot:1","current":2,"max":2}]', '', '', 'Fighter', ?, ?)`)
	if c.Attacks == nil || len(c.Attacks) != 0 || c.Spells == nil || len(c.Spells) != 0 || c.Inventory == nil || len(c.Inventory) != 0 || c.Notes != "" {
		t.Fatalf("got attacks %#v, spells %#v, inventory %#v, notes %q; want empty lists and no notes", c.Attacks, c.Spells, c.Inventory, c.Notes)
	}
	if c.Class != "Fighter" || len(c.Resources) != 1 {
		t.Fatalf("got class %q, resources %v; want the v15 fields kept", c.Class, c.Resources)
	}
	c.Attacks = []models.Attack{{Name: "Longsword", Ability: "str", Proficient: true, Bonus: 1, Damage: "1d8", DamageType: "slashing", AddModifier: true}}
	c.Spells = []models.Spell{{Name: "Shield", Level: 1, Prepared: true, Notes: "reaction"}}
	c.Inventory = []models.InventoryItem{{Name: "Rope (50 ft)", Quantity: 1}}
	c.Notes = "Owes the guild 10 gp."
	wantSavedAsIs(t, s, c)
}
