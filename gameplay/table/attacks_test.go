package table_test

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/adventure-table/adventure-table/gameplay/sheet"
	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/gameplay/table/tabletest"
	"github.com/adventure-table/adventure-table/models"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// TestCharacterSheetLists: attacks, spells, inventory and notes are
// stored as given (names trimmed, damage types lower-cased) and each
// attack's to-hit and damage are derived from the stored sheet.
func TestCharacterSheetLists(t *testing.T) {
	t.Parallel()
	svc, store := newService(t)
	c := tabletest.NewUser(t, svc, "Player")
	in := tabletest.Character("Brakka")
	// Level 5 (+3), Str 16 (+3), Dex 14 (+2), Cha 8 (−1).
	in.Level, in.Abilities = 5, table.Abilities{Str: 16, Dex: 14, Con: 12, Int: 10, Wis: 10, Cha: 8}
	in.Attacks = []table.AttackView{
		{Name: " Longsword ", Ability: "str", Proficient: true, Bonus: 1, Damage: "1d8", DamageType: "Slashing", AddModifier: true},
		{Name: "Light crossbow", Ability: "dex", Damage: "1d8", DamageType: "piercing", AddModifier: true},
		{Name: "Vicious mockery", Ability: "cha", Proficient: true, Damage: "1d4", DamageType: "psychic"},
	}
	in.Spells = []table.SpellView{{Name: "Vicious mockery", Level: 0, Prepared: true, Notes: "Wis save"}, {Name: "Cure wounds", Level: 1}}
	in.Resources = append(in.Resources, table.ResourceView{Name: "slot:1", Current: 2, Max: 2})
	in.Inventory = []table.ItemView{{Name: "Rope (50 ft)", Quantity: 1}, {Name: "Torch", Quantity: 10, Notes: "1 hour each"}}
	in.Notes = "Owes the guild 10 gp.\nHates boats."
	v, err := svc.CreateCharacter(ctx, c, in)
	tabletest.Must(t, err)
	want := []sheet.AttackDerived{
		{Name: "Longsword", ToHit: 3 + 3 + 1, Damage: "1d8+3", DamageModifier: 3, DamageType: "slashing"},
		{Name: "Light crossbow", ToHit: 2, Damage: "1d8+2", DamageModifier: 2, DamageType: "piercing"},
		{Name: "Vicious mockery", ToHit: -1 + 3, Damage: "1d4", DamageType: "psychic"},
	}
	if diff := cmp.Diff(want, v.Derived.Attacks); diff != "" {
		t.Fatalf("derived attacks (-want +got):\n%s", diff)
	}
	row, err := store.FindCharacterByID(ctx, v.ID)
	tabletest.Must(t, err)
	if row.Attacks[0].Name != "Longsword" || row.Attacks[0].DamageType != "slashing" || len(row.Spells) != 2 || row.Inventory[1].Quantity != 10 || row.Notes != in.Notes {
		t.Fatalf("stored row %+v", row)
	}
	again, err := svc.GetCharacter(ctx, c, v.ID)
	tabletest.Must(t, err)
	if diff := cmp.Diff(v.Attacks, again.Attacks); diff != "" || len(again.Spells) != 2 || len(again.Inventory) != 2 || again.Notes != in.Notes {
		t.Fatalf("read back differs (-create +get):\n%s %+v", diff, again)
	}
	// An edit that drops the lists stores them empty, never null.
	in.Attacks, in.Spells, in.Inventory, in.Notes = nil, nil, nil, ""
	v, err = svc.UpdateCharacter(ctx, c, v.ID, in)
	tabletest.Must(t, err)
	if v.Attacks == nil || len(v.Attacks) != 0 || v.Spells == nil || v.Inventory == nil || v.Derived.Attacks == nil || len(v.Derived.Attacks) != 0 {
		t.Fatalf("after clearing: %+v", v)
	}
}

// TestCharacterSheetListValidation: each bad entry is character_invalid
// naming its field, like the rest of the sheet.
func TestCharacterSheetListValidation(t *testing.T) {
	t.Parallel()
	svc, _ := newService(t)
	c := tabletest.NewUser(t, svc, "Player")
	sword := table.AttackView{Name: "Sword", Ability: "str", Damage: "1d8", DamageType: "slashing"}
	many := func(n int) []table.AttackView {
		out := make([]table.AttackView, n)
		for i := range out {
			out[i] = sword
		}
		return out
	}
	long := func(n int) string { return string(make([]rune, n)) }
	wantSheetsRefused(t, svc, c, 0, []badSheet{
		{"ErrAttackName", func(in *table.CharacterInput) { a := sword; a.Name = "  "; in.Attacks = []table.AttackView{a} }, "attacks.0.name"},
		{"ErrAttackAbility", func(in *table.CharacterInput) { a := sword; a.Ability = "luck"; in.Attacks = []table.AttackView{a} }, "attacks.0.ability"},
		{"ErrAttackBonus", func(in *table.CharacterInput) { a := sword; a.Bonus = 21; in.Attacks = []table.AttackView{sword, a} }, "attacks.1.bonus"},
		{"ErrAttackDamage", func(in *table.CharacterInput) { a := sword; a.Damage = "1d"; in.Attacks = []table.AttackView{a} }, "attacks.0.damage"},
		{"ErrAttackNoDamage", func(in *table.CharacterInput) { a := sword; a.Damage = ""; in.Attacks = []table.AttackView{a} }, "attacks.0.damage"},
		{"ErrAttackLongDamage", func(in *table.CharacterInput) {
			a := sword
			a.Damage = "1d8+1d8+1d8+1d8+1d8+1d8+1d8+1d8+1d8+1d8+1"
			in.Attacks = []table.AttackView{a}
		}, "attacks.0.damage"},
		{"ErrAttackDamageType", func(in *table.CharacterInput) { a := sword; a.DamageType = "holy"; in.Attacks = []table.AttackView{a} }, "attacks.0.damage_type"},
		{"ErrTooManyAttacks", func(in *table.CharacterInput) { in.Attacks = many(51) }, "attacks"},
		{"ErrSpellLevel", func(in *table.CharacterInput) { in.Spells = []table.SpellView{{Name: "Wish", Level: 10}} }, "spells.0.level"},
		{"ErrSpellName", func(in *table.CharacterInput) { in.Spells = []table.SpellView{{Name: long(81)}} }, "spells.0.name"},
		{"ErrSpellNotes", func(in *table.CharacterInput) { in.Spells = []table.SpellView{{Name: "Light", Notes: long(201)}} }, "spells.0.notes"},
		{"ErrTooManySpells", func(in *table.CharacterInput) { in.Spells = make([]table.SpellView, 201) }, "spells"},
		{"ErrItemQuantity", func(in *table.CharacterInput) { in.Inventory = []table.ItemView{{Name: "Arrow", Quantity: 10000}} }, "inventory.0.quantity"},
		{"ErrItemNegative", func(in *table.CharacterInput) { in.Inventory = []table.ItemView{{Name: "Arrow", Quantity: -1}} }, "inventory.0.quantity"},
		{"ErrItemName", func(in *table.CharacterInput) { in.Inventory = []table.ItemView{{Name: "a\x00b", Quantity: 1}} }, "inventory.0.name"},
		{"ErrTooManyItems", func(in *table.CharacterInput) { in.Inventory = make([]table.ItemView, 201) }, "inventory"},
		{"ErrLongNotes", func(in *table.CharacterInput) { in.Notes = long(10001) }, "notes"},
	})
}

// TestQuickRollAttack: an attack rolls 1d20 + the to-hit the stored sheet
// derives, its damage the stored dice + the damage modifier; the client
// names only the attack. The event says which attack and which roll.
func TestQuickRollAttack(t *testing.T) {
	lt, store := newLiveTable(t)
	// The seated character plays, so its sheet is edited in storage.
	ch, err := store.FindCharacterByID(ctx, lt.CharacterID)
	tabletest.Must(t, err)
	ch.Str = 16 // +3; level 3: proficiency +2
	ch.Attacks = []models.Attack{
		{Name: "Longsword", Ability: "str", Proficient: true, Bonus: 1, Damage: "1d8", DamageType: "slashing", AddModifier: true},
		{Name: "Fire bolt", Ability: "int", Proficient: true, Damage: "1d10", DamageType: "fire"},
	}
	tabletest.Must(t, store.SaveCharacter(ctx, ch))
	v, err := lt.svc.GetCharacter(ctx, lt.Seated, lt.CharacterID)
	tabletest.Must(t, err)
	sword := v.Derived.Attacks[0]
	if sword.ToHit != 3+2+1 || sword.Damage != "1d8+3" {
		t.Fatalf("derived %+v", sword)
	}

	for _, key := range []string{"Longsword", "longsword", "1"} {
		r, err := lt.svc.QuickRoll(ctx, lt.Seated, lt.LobbyID, table.QuickRollInput{Attack: key})
		tabletest.Must(t, err)
		if r.BaseModifier != sword.ToHit || r.Formula != "d20 + 6" || r.Total != r.Audit.Total+sword.ToHit || r.Total < 7 || r.Total > 26 {
			t.Fatalf("%q: got %+v, want 1d20 + %d", key, r, sword.ToHit)
		}
	}
	r, err := lt.svc.QuickRoll(ctx, lt.Seated, lt.LobbyID, table.QuickRollInput{Attack: "Longsword", Damage: true})
	tabletest.Must(t, err)
	if r.BaseModifier != 3 || r.Formula != "d8 + 3" || r.Total < 4 || r.Total > 11 {
		t.Fatalf("damage: got %+v, want 1d8 + 3", r)
	}
	// No modifier on the cantrip's damage; to-hit +0 Int + 2.
	r, err = lt.svc.QuickRoll(ctx, lt.Seated, lt.LobbyID, table.QuickRollInput{Attack: "2", Damage: true})
	tabletest.Must(t, err)
	if r.BaseModifier != 0 || r.Formula != "d10" {
		t.Fatalf("cantrip damage: got %+v", r)
	}
	// In chat: /r attack <name> and /r damage <name>, the same rolls.
	p := lt.input(t, lt.Seated, "/r attack longsword")
	if p.Roll.BaseModifier != sword.ToHit || p.Roll.Formula != "d20 + 6" {
		t.Fatalf("/r attack longsword rolled %+v", p.Roll)
	}
	if p = lt.input(t, lt.Seated, "/gmroll damage Longsword"); p.Roll.BaseModifier != 3 || p.Roll.Formula != "d8 + 3" || p.Roll.Visibility != models.VisibilityActorAndDM {
		t.Fatalf("/gmroll damage Longsword rolled %+v", p.Roll)
	}
	_, err = lt.svc.PostInput(ctx, lt.Seated, lt.LobbyID, table.InputLine{Text: "/r attack dagger"})
	wantCode(t, err, apperr.InvalidRequest)
	// The DM rolls a player's attack for them from the same sheet.
	seat := lt.PlayerSeatID
	r, err = lt.svc.QuickRoll(ctx, lt.Owner, lt.LobbyID, table.QuickRollInput{Attack: "fire bolt", SubjectSeatID: &seat})
	tabletest.Must(t, err)
	if r.BaseModifier != 2 || r.ExecutionMode != models.ExecDMProxy {
		t.Fatalf("DM for the player: got %+v", r)
	}

	page, err := lt.svc.ListEvents(ctx, lt.Seated, lt.LobbyID, 0, table.MaxEventLimit)
	tabletest.Must(t, err)
	var last map[string]any
	for _, e := range page.Events {
		if e.Kind == table.EventRollQuick {
			tabletest.Must(t, json.Unmarshal(e.Payload, &last))
		}
	}
	if last["attack_name"] != "Fire bolt" || last["attack_roll"] != "to_hit" {
		t.Fatalf("last roll.quick payload %v", last)
	}

	for _, tt := range []struct {
		name   string
		caller table.Caller
		in     table.QuickRollInput
		field  string
	}{
		{"ErrUnknownAttack", lt.Seated, table.QuickRollInput{Attack: "dagger"}, "attack"},
		{"ErrNumberOutOfRange", lt.Seated, table.QuickRollInput{Attack: "3"}, "attack"},
		{"ErrAttackAndFormula", lt.Seated, table.QuickRollInput{Attack: "1", Formula: "1d20+20"}, "attack"},
		{"ErrAttackAndCheck", lt.Seated, table.QuickRollInput{Attack: "1", Check: "perception"}, "attack"},
		{"ErrDamageAlone", lt.Seated, table.QuickRollInput{Damage: true, Formula: "1d6"}, "damage"},
		{"ErrNoCharacter", lt.Owner, table.QuickRollInput{Attack: "1"}, "attack"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := lt.svc.QuickRoll(ctx, tt.caller, lt.LobbyID, tt.in)
			wantCode(t, err, apperr.InvalidRequest)
			if e, _ := apperr.As(err); e.Fields[tt.field] == "" {
				t.Fatalf("fields %v lack %s", e.Fields, tt.field)
			}
		})
	}
}
