package sheet_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/adventure-table/adventure-table/gameplay/dice"
	"github.com/adventure-table/adventure-table/gameplay/sheet"
)

// FuzzParseCheck: any text names a known skill (with its own ability) or a
// known ability, or nothing; what it names parses back to itself.
func FuzzParseCheck(f *testing.F) {
	for _, seed := range []string{"perception", "Sleight of Hand", "sleight-of-hand", "DEX", "wisdom", "", " ", "1d20",
		"animal  handling", "strength\x00", "ＰＥＲＣＥＰＴＩＯＮ", "stealth-", "_stealth"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, ok := sheet.ParseCheck(s)
		if !ok {
			if c != (sheet.Check{}) {
				t.Fatalf("%q: not a check but got %+v", s, c)
			}
			return
		}
		if !slices.Contains(sheet.Abilities, c.Ability) {
			t.Fatalf("%q: ability %q", s, c.Ability)
		}
		if c.Skill != "" && sheet.Skills[c.Skill] != c.Ability {
			t.Fatalf("%q: skill %q with ability %q", s, c.Skill, c.Ability)
		}
		if again, ok := sheet.ParseCheck(c.Key()); !ok || again != c {
			t.Fatalf("%q: key %q parses to %+v %v", s, c.Key(), again, ok)
		}
	})
}

// FuzzParseSave: any text names a saving throw of a known ability or
// nothing; a save's key parses back to the same ability, and never as a
// check.
func FuzzParseSave(f *testing.F) {
	for _, seed := range []string{"dex save", "Dexterity saving throw", "wis_save", "save", "perception save", "", "_save", "dex__save", "ＤＥＸ save"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, ok := sheet.ParseSave(s)
		if !ok {
			if a != "" {
				t.Fatalf("%q: not a save but got %q", s, a)
			}
			return
		}
		if !slices.Contains(sheet.Abilities, a) {
			t.Fatalf("%q: ability %q", s, a)
		}
		key := a + sheet.SaveSuffix
		if again, ok := sheet.ParseSave(key); !ok || again != a {
			t.Fatalf("%q: key %q parses to %q %v", s, key, again, ok)
		}
		if _, ok := sheet.ParseCheck(key); ok {
			t.Fatalf("%q: key %q also parses as a check", s, key)
		}
	})
}

// FuzzDamageNotation: for any valid damage dice and modifier, the written
// notation is valid dice notation whose range is the dice's shifted by the
// modifier, so the sheet shows what the damage roll can give.
func FuzzDamageNotation(f *testing.F) {
	for _, seed := range []struct {
		dice string
		mod  int
	}{{"1d8", 3}, {"2d6", 0}, {"1d4", -1}, {"1", 2}, {"1d8+1d6", 5}, {"(1d4+2)*2", -3}, {"1d8-2", -5}, {" 1d10 ", 1}} {
		f.Add(seed.dice, seed.mod)
	}
	f.Fuzz(func(t *testing.T, d string, mod int) {
		e, err := dice.Parse(d, dice.DefaultLimits)
		// A sheet's damage is at most MaxDamageLength (the validation's
		// rule), so the modifier never pushes it past the dice limit.
		if err != nil || len(strings.TrimSpace(d)) > sheet.MaxDamageLength || mod < -10 || mod > 10 {
			return
		}
		s := sheet.DamageNotation(d, mod)
		got, err := dice.Parse(s, dice.DefaultLimits)
		if err != nil {
			t.Fatalf("%q %+d: %q does not parse: %v", d, mod, s, err)
		}
		lo, hi := e.Range()
		if glo, ghi := got.Range(); glo != lo+mod || ghi != hi+mod {
			t.Fatalf("%q %+d: %q ranges %d..%d, want %d..%d", d, mod, s, glo, ghi, lo+mod, hi+mod)
		}
	})
}

// FuzzFindAttack: whatever a roll names picks an attack on the sheet or
// none, and an attack's own name and number pick it.
func FuzzFindAttack(f *testing.F) {
	for _, seed := range []string{"Longsword", "2", "light crossbow", "0", "-1", "", "99999999999999999999", "１"} {
		f.Add(seed)
	}
	attacks := []sheet.Attack{{Name: "Longsword"}, {Name: "Light Crossbow"}, {Name: "Fire Bolt"}}
	f.Fuzz(func(t *testing.T, key string) {
		i, ok := sheet.FindAttack(attacks, key)
		if !ok {
			return
		}
		if i < 0 || i >= len(attacks) {
			t.Fatalf("%q: index %d of %d", key, i, len(attacks))
		}
		if j, ok := sheet.FindAttack(attacks, attacks[i].Name); !ok || j != i {
			t.Fatalf("%q: name %q finds %d %v", key, attacks[i].Name, j, ok)
		}
	})
}
