package mcp

import (
	"context"
	"testing"

	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/gameplay/table/tabletest"
)

// TestSheetAttacks: an agent reads its sheet's attacks with the numbers
// the server derives (the same as the web page's), and quick_roll with
// attack adds that to-hit, or rolls the damage with its modifier.
func TestSheetAttacks(t *testing.T) {
	ctx := context.Background()
	svc, srv := liveServer(t)
	f := tabletest.New(t, svc)
	in := tabletest.Character("Mira")
	in.Abilities.Str = 16 // +3; level 3: proficiency +2
	in.Attacks = []table.AttackView{{Name: "Longsword", Ability: "str", Proficient: true, Bonus: 1, Damage: "1d8", DamageType: "slashing", AddModifier: true}}
	in.Spells = []table.SpellView{{Name: "Shield", Level: 1}}
	in.Notes = "Brave."
	web, err := svc.UpdateCharacter(ctx, f.Seated, f.CharacterID, in)
	tabletest.Must(t, err)
	_, err = svc.StartSession(ctx, f.Owner, f.LobbyID)
	tabletest.Must(t, err)
	player := aiPlayer(t, srv.URL, f)

	var sheet Sheet
	player.must("get_character_context", nil, &sheet)
	if len(sheet.Attacks) != 1 || sheet.Attacks[0] != web.Derived.Attacks[0] || sheet.Attacks[0].ToHit != 3+2+1 || sheet.Attacks[0].Damage != "1d8+3" ||
		len(sheet.Spells) != 1 || sheet.Notes != "Brave." {
		t.Fatalf("sheet %+v, the web shows %+v", sheet, web.Derived.Attacks)
	}
	var roll Roll
	player.must("quick_roll", map[string]any{"attack": "longsword"}, &roll)
	if roll.Formula != "d20 + 6" || len(roll.Dice) != 1 || roll.Total != roll.Dice[0]+6 {
		t.Fatalf("to-hit %+v", roll)
	}
	player.must("quick_roll", map[string]any{"attack": "1", "damage": true}, &roll)
	if roll.Formula != "d8 + 3" || roll.Total != roll.Dice[0]+3 {
		t.Fatalf("damage %+v", roll)
	}
	if code := player.call("quick_roll", map[string]any{"attack": "dagger"}, nil); code != "invalid_request" {
		t.Fatalf("an attack not on the sheet: %q", code)
	}
}

// TestDamageTypeThroughState: the DM's damage through update_character_state
// names its type, and the character's defenses count as they do in a
// fight and on the web app's player card: resisted fire halves, untyped
// damage does not, and an unknown type changes nothing.
func TestDamageTypeThroughState(t *testing.T) {
	ctx := context.Background()
	svc, srv := liveServer(t)
	f := tabletest.New(t, svc)
	in := tabletest.Character("Mira")
	in.Defenses = table.DefensesView{Resistances: []string{"fire"}, Immunities: []string{}, Vulnerabilities: []string{}}
	_, err := svc.UpdateCharacter(ctx, f.Seated, f.CharacterID, in)
	tabletest.Must(t, err)
	dm := aiDM(t, srv.URL, f)
	dm.must("session", map[string]any{"action": "start"}, nil)

	var sc StateChanged
	dm.must("update_character_state", map[string]any{"seat_id": f.PlayerSeatID, "op": "heal", "amount": 9999}, &sc)
	full := sc.HP.Current
	dm.must("update_character_state", map[string]any{"seat_id": f.PlayerSeatID, "op": "damage", "amount": 6, "damage_type": "fire"}, &sc)
	if sc.HP.Current != full-3 {
		t.Fatalf("6 fire damage against resistance: %d → %d", full, sc.HP.Current)
	}
	dm.must("update_character_state", map[string]any{"seat_id": f.PlayerSeatID, "op": "damage", "amount": 2}, &sc)
	if sc.HP.Current != full-5 {
		t.Fatalf("2 untyped damage: %d → %d", full-3, sc.HP.Current)
	}
	if code := dm.call("update_character_state", map[string]any{"seat_id": f.PlayerSeatID, "op": "damage", "amount": 2, "damage_type": "sarcasm"}, nil); code != "character_state_invalid" {
		t.Fatalf("an unknown damage type: %q", code)
	}
	var sheet Sheet
	dm.must("get_character_context", map[string]any{"seat_id": f.PlayerSeatID}, &sheet)
	if sheet.HP.Current != full-5 {
		t.Fatalf("after a refused change: %+v", sheet.HP)
	}
}
