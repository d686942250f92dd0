package sheet_test

import (
	"slices"
	"testing"

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
