package sheet_test

import (
	"slices"
	"testing"

	"github.com/adventure-table/adventure-table/gameplay/sheet"
	"github.com/google/go-cmp/cmp"
)

func TestProficiencyBonus(t *testing.T) {
	// SRD 5.1: +2 at levels 1–4, +3 at 5–8, +4 at 9–12, +5 at 13–16, +6 at 17–20.
	for _, tt := range []struct{ level, want int }{
		{1, 2}, {4, 2}, {5, 3}, {8, 3}, {9, 4}, {12, 4}, {13, 5}, {16, 5}, {17, 6}, {20, 6},
	} {
		if got := sheet.ProficiencyBonus(tt.level); got != tt.want {
			t.Errorf("level %d: got %+d, want %+d", tt.level, got, tt.want)
		}
	}
}

func TestAbilityModifier(t *testing.T) {
	// SRD 5.1 "Ability Scores and Modifiers" table, including both ends.
	for _, tt := range []struct{ score, want int }{
		{1, -5}, {2, -4}, {3, -4}, {8, -1}, {9, -1}, {10, 0}, {11, 0}, {12, 1}, {15, 2}, {20, 5}, {29, 9}, {30, 10},
	} {
		if got := sheet.AbilityModifier(tt.score); got != tt.want {
			t.Errorf("score %d: got %+d, want %+d", tt.score, got, tt.want)
		}
	}
}

func TestCheckModifier(t *testing.T) {
	in := sheet.Input{Level: 9, Scores: sheet.Scores{Str: 8, Dex: 16, Con: 12, Int: 10, Wis: 14, Cha: 11},
		SkillProficiencies: []string{"stealth", "perception", "athletics"}, SkillExpertise: []string{"stealth", "arcana"}}
	for _, tt := range []struct {
		name, ability, skill string
		want                 int
	}{
		{"Ability", "dex", "", 3},
		{"NotProficient", "dex", "acrobatics", 3},
		{"Proficient", "wis", "perception", 2 + 4},
		{"ExpertiseDoubles", "dex", "stealth", 3 + 2*4},
		{"ExpertiseWithoutProficiencyIgnored", "int", "arcana", 0},
		{"NegativeModifierPlusProficiency", "str", "athletics", -1 + 4},
		{"SkillWithDifferentAbility", "str", "stealth", -1 + 2*4},
		{"UnknownAbility", "luck", "", -5},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := sheet.CheckModifier(in, tt.ability, tt.skill); got != tt.want {
				t.Fatalf("got %+d, want %+d", got, tt.want)
			}
		})
	}
}

func TestPassivePerception(t *testing.T) {
	for _, tt := range []struct {
		name        string
		level, wis  int
		prof, exper bool
		want        int
	}{
		{"Untrained", 1, 13, false, false, 10 + 1},
		{"LowWisdom", 1, 6, false, false, 10 - 2},
		{"Proficient", 1, 13, true, false, 10 + 1 + 2},
		{"Expertise", 17, 20, true, true, 10 + 5 + 2*6},
	} {
		t.Run(tt.name, func(t *testing.T) {
			in := sheet.Input{Level: tt.level, Scores: sheet.Scores{Str: 10, Dex: 10, Con: 10, Int: 10, Wis: tt.wis, Cha: 10}}
			if tt.prof {
				in.SkillProficiencies = []string{"perception"}
			}
			if tt.exper {
				in.SkillExpertise = []string{"perception"}
			}
			if got := sheet.Derive(in).PassivePerception; got != tt.want {
				t.Fatalf("got %d, want %d", got, tt.want)
			}
		})
	}
}

// TestDerive checks a whole sheet: a level 5 rogue in leather armor.
func TestDerive(t *testing.T) {
	in := sheet.Input{Level: 5, Scores: sheet.Scores{Str: 10, Dex: 18, Con: 14, Int: 12, Wis: 13, Cha: 8},
		SaveProficiencies:  []string{"dex", "int"},
		SkillProficiencies: []string{"acrobatics", "deception", "perception", "stealth"},
		SkillExpertise:     []string{"perception", "stealth"},
		Armor:              sheet.ArmorInput{Armor: "leather"}, Speed: 30, HitDie: 8}
	skills := map[string]int{}
	for skill, a := range sheet.Skills {
		skills[skill] = map[string]int{"str": 0, "dex": 4, "con": 2, "int": 1, "wis": 1, "cha": -1}[a]
	}
	skills["acrobatics"], skills["deception"], skills["perception"], skills["stealth"] = 4+3, -1+3, 1+6, 4+6
	want := sheet.Derived{ProficiencyBonus: 3,
		Modifiers:         map[string]int{"str": 0, "dex": 4, "con": 2, "int": 1, "wis": 1, "cha": -1},
		Saves:             map[string]int{"str": 0, "dex": 4 + 3, "con": 2, "int": 1 + 3, "wis": 1, "cha": -1},
		Skills:            skills,
		PassivePerception: 17, Initiative: 4, AC: 11 + 4, Speed: 30, HitDice: "5d8", Attacks: []sheet.AttackDerived{}}
	if diff := cmp.Diff(want, sheet.Derive(in)); diff != "" {
		t.Fatalf("derived (-want +got):\n%s", diff)
	}
	if n := len(sheet.Derive(in).Skills); n != 18 {
		t.Fatalf("%d skills, want the SRD's 18", n)
	}
}

func TestDeriveWithoutOptionalInputs(t *testing.T) {
	d := sheet.Derive(sheet.Input{Level: 1, Scores: sheet.Scores{Str: 10, Dex: 10, Con: 10, Int: 10, Wis: 10, Cha: 10}})
	if d.AC != 10 || d.Speed != 0 || d.HitDice != "" || d.Initiative != 0 || d.PassivePerception != 10 {
		t.Fatalf("got %+v", d)
	}
}

func TestArmorClass(t *testing.T) {
	scores := sheet.Scores{Str: 15, Dex: 18, Con: 16, Int: 10, Wis: 14, Cha: 10}
	for _, tt := range []struct {
		name    string
		armor   sheet.ArmorInput
		wantAC  int
		stealth bool
	}{
		{"Unarmored", sheet.ArmorInput{}, 10 + 4, false},
		{"Shield", sheet.ArmorInput{Shield: true}, 10 + 4 + 2, false},
		{"LightAddsDex", sheet.ArmorInput{Armor: "studded_leather"}, 12 + 4, false},
		{"PaddedStealth", sheet.ArmorInput{Armor: "padded"}, 11 + 4, true},
		{"MediumCapsDex", sheet.ArmorInput{Armor: "chain_shirt"}, 13 + 2, false},
		{"HalfPlateStealth", sheet.ArmorInput{Armor: "half_plate", Shield: true}, 15 + 2 + 2, true},
		{"HeavyNoDex", sheet.ArmorInput{Armor: "chain_mail"}, 16, true},
		{"PlateShieldBonus", sheet.ArmorInput{Armor: "plate", Shield: true, Bonus: 1}, 18 + 2 + 1, true},
		{"Barbarian", sheet.ArmorInput{Unarmored: sheet.UnarmoredBarbarian, Shield: true}, 10 + 4 + 3 + 2, false},
		{"Monk", sheet.ArmorInput{Unarmored: sheet.UnarmoredMonk}, 10 + 4 + 2, false},
		{"MonkLosesWisWithShield", sheet.ArmorInput{Unarmored: sheet.UnarmoredMonk, Shield: true}, 10 + 4 + 2, false},
		{"MageArmor", sheet.ArmorInput{Unarmored: sheet.MageArmor}, 13 + 4, false},
		{"BodyArmorOverridesUnarmored", sheet.ArmorInput{Armor: "hide", Unarmored: sheet.UnarmoredBarbarian}, 12 + 2, false},
		{"UnknownArmorIsNone", sheet.ArmorInput{Armor: "mithral_dream"}, 10 + 4, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ac, stealth := sheet.ArmorClass(scores, tt.armor)
			if ac != tt.wantAC || stealth != tt.stealth {
				t.Fatalf("got AC %d stealth disadvantage %v, want %d %v", ac, stealth, tt.wantAC, tt.stealth)
			}
		})
	}
	// A low Dex lowers light and medium armor but never heavy.
	clumsy := sheet.Scores{Str: 10, Dex: 6, Con: 10, Int: 10, Wis: 10, Cha: 10}
	for armor, want := range map[string]int{"leather": 11 - 2, "breastplate": 14 - 2, "splint": 17} {
		if ac, _ := sheet.ArmorClass(clumsy, sheet.ArmorInput{Armor: armor}); ac != want {
			t.Errorf("%s with Dex 6: got AC %d, want %d", armor, ac, want)
		}
	}
	// Every armor has a known category and the heavy ones need Strength
	// only where the SRD says so.
	for key, a := range sheet.Armors {
		if !slices.Contains([]string{sheet.Light, sheet.Medium, sheet.Heavy}, a.Category) {
			t.Errorf("%s: category %q", key, a.Category)
		}
	}
	var strong []string
	for key, a := range sheet.Armors {
		if a.Strength > 0 {
			strong = append(strong, key)
		}
	}
	slices.Sort(strong)
	if diff := cmp.Diff([]string{"chain_mail", "plate", "splint"}, strong); diff != "" {
		t.Errorf("armors with a Strength requirement (-want +got):\n%s", diff)
	}
}

func TestSpeedHeavyArmorStrength(t *testing.T) {
	for _, tt := range []struct {
		name         string
		armor        string
		str, speed   int
		wantSpeed    int
		wantStealthD bool
	}{
		{"NoArmor", "", 3, 30, 30, false},
		{"ChainMailMet", "chain_mail", 13, 30, 30, true},
		{"ChainMailShort", "chain_mail", 12, 30, 20, true},
		{"PlateShort", "plate", 14, 25, 15, true},
		{"PlateMet", "plate", 15, 25, 25, true},
		{"RingMailNoRequirement", "ring_mail", 3, 30, 30, true},
		{"SpeedUnknown", "plate", 3, 0, 0, true},
		{"NeverNegative", "plate", 3, 5, 0, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			in := sheet.Input{Level: 1, Scores: sheet.Scores{Str: tt.str, Dex: 10, Con: 10, Int: 10, Wis: 10, Cha: 10},
				Armor: sheet.ArmorInput{Armor: tt.armor}, Speed: tt.speed}
			d := sheet.Derive(in)
			if d.Speed != tt.wantSpeed || d.StealthDisadvantage != tt.wantStealthD {
				t.Fatalf("got speed %d stealth disadvantage %v, want %d %v", d.Speed, d.StealthDisadvantage, tt.wantSpeed, tt.wantStealthD)
			}
		})
	}
}

func TestHitDice(t *testing.T) {
	for _, tt := range []struct {
		level, die int
		want       string
	}{{1, 12, "1d12"}, {7, 6, "7d6"}, {20, 10, "20d10"}, {3, 0, ""}} {
		in := sheet.Input{Level: tt.level, HitDie: tt.die}
		if got := sheet.Derive(in).HitDice; got != tt.want {
			t.Errorf("level %d d%d: got %q, want %q", tt.level, tt.die, got, tt.want)
		}
	}
}

func TestParseCheck(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want sheet.Check
		ok   bool
	}{
		{"perception", sheet.Check{Ability: "wis", Skill: "perception"}, true},
		{"Perception", sheet.Check{Ability: "wis", Skill: "perception"}, true},
		{"  Sleight   of Hand ", sheet.Check{Ability: "dex", Skill: "sleight_of_hand"}, true},
		{"sleight-of-hand", sheet.Check{Ability: "dex", Skill: "sleight_of_hand"}, true},
		{"animal_handling", sheet.Check{Ability: "wis", Skill: "animal_handling"}, true},
		{"DEX", sheet.Check{Ability: "dex"}, true},
		{"wisdom", sheet.Check{Ability: "wis"}, true},
		{"Charisma", sheet.Check{Ability: "cha"}, true},
		{"", sheet.Check{}, false},
		{"1d20+5", sheet.Check{}, false},
		{"luck", sheet.Check{}, false},
		{"perception 15", sheet.Check{}, false},
	} {
		got, ok := sheet.ParseCheck(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("%q: got %+v %v, want %+v %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
	if k := (sheet.Check{Ability: "wis", Skill: "perception"}).Key(); k != "perception" {
		t.Errorf("skill key %q", k)
	}
	if k := (sheet.Check{Ability: "dex"}).Key(); k != "dex" {
		t.Errorf("ability key %q", k)
	}
}

func TestParseSave(t *testing.T) {
	for in, want := range map[string]string{"dex save": "dex", "Dexterity saving throw": "dex", "wis_save": "wis", " CON  Save ": "con", "charisma-save": "cha"} {
		if got, ok := sheet.ParseSave(in); !ok || got != want {
			t.Errorf("ParseSave(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	for _, in := range []string{"", "save", "dex", "perception save", "luck save", "dex save please"} {
		if got, ok := sheet.ParseSave(in); ok {
			t.Errorf("ParseSave(%q) = %q, want none", in, got)
		}
	}
}
