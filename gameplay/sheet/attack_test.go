package sheet_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/adventure-table/adventure-table/gameplay/sheet"
)

// TestDeriveAttacks: to-hit is the ability modifier + proficiency if
// proficient + the attack's bonus; damage adds the modifier only when the
// attack says so, negative ones too (SRD 5.1 "Attack Rolls", "Damage Rolls").
func TestDeriveAttacks(t *testing.T) {
	in := sheet.Input{Level: 5, Scores: sheet.Scores{Str: 16, Dex: 14, Con: 10, Int: 8, Wis: 12, Cha: 18},
		Attacks: []sheet.Attack{
			{Name: "Longsword", Ability: "str", Proficient: true, Bonus: 1, Damage: "1d8", DamageType: "slashing", AddModifier: true},
			{Name: "Fire Bolt", Ability: "cha", Proficient: true, Damage: "2d10", DamageType: "fire"},
			{Name: "Club", Ability: "int", Damage: "1d4", DamageType: "bludgeoning", AddModifier: true},
			{Name: "Unarmed strike", Proficient: true, Damage: "1", DamageType: "bludgeoning"},
		}}
	want := []sheet.AttackDerived{
		{Name: "Longsword", ToHit: 3 + 3 + 1, Damage: "1d8+3", DamageModifier: 3, DamageType: "slashing"},
		{Name: "Fire Bolt", ToHit: 4 + 3, Damage: "2d10", DamageType: "fire"},
		{Name: "Club", ToHit: -1, Damage: "1d4-1", DamageModifier: -1, DamageType: "bludgeoning"},
		{Name: "Unarmed strike", ToHit: 3, Damage: "1", DamageType: "bludgeoning"},
	}
	if diff := cmp.Diff(want, sheet.Derive(in).Attacks); diff != "" {
		t.Fatalf("attacks (-want +got):\n%s", diff)
	}
}

func TestFindAttack(t *testing.T) {
	attacks := []sheet.Attack{{Name: "Longsword"}, {Name: "Light Crossbow"}}
	for _, tt := range []struct {
		key  string
		want int
		ok   bool
	}{
		{"Longsword", 0, true}, {"light  crossbow", 1, true}, {"LIGHT-CROSSBOW", 1, true}, {"1", 0, true}, {"2", 1, true},
		{"3", 0, false}, {"0", 0, false}, {"01", 0, false}, {"", 0, false}, {"dagger", 0, false},
	} {
		if got, ok := sheet.FindAttack(attacks, tt.key); got != tt.want || ok != tt.ok {
			t.Errorf("%q: got %d %v, want %d %v", tt.key, got, ok, tt.want, tt.ok)
		}
	}
}
