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
