package table_test

import (
	"strings"
	"testing"

	"github.com/adventure-table/adventure-table/gameplay/sheet"
	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/gameplay/table/tabletest"
	"github.com/google/go-cmp/cmp"
)

// TestCharacterDerivedIsWhatRollsUse: the sheet's derived values are the
// modifiers a chat roll adds, skill by skill and ability by ability, so
// what a player reads is what the table rolls.
func TestCharacterDerivedIsWhatRollsUse(t *testing.T) {
	lt, _ := newLiveTable(t)
	v, err := lt.svc.GetCharacter(ctx, lt.Seated, lt.CharacterID)
	tabletest.Must(t, err)
	// Mira: level 3 (+2), Dex 14, Wis 13, Cha 8; proficient in Perception,
	// expertise in Stealth.
	want := table.CharacterDerived{
		Modifiers:         map[string]int{"str": 0, "dex": 2, "con": 1, "int": 0, "wis": 1, "cha": -1},
		Skills:            map[string]int{},
		PassivePerception: 10 + 1 + 2, Initiative: 2}
	for skill, a := range sheet.Skills {
		want.Skills[skill] = want.Modifiers[a]
	}
	want.Skills["perception"], want.Skills["stealth"] = 1+2, 2+2*2
	if diff := cmp.Diff(want, v.Derived); diff != "" {
		t.Fatalf("derived (-want +got):\n%s", diff)
	}
	for key, mod := range v.Derived.Skills {
		line := "/r " + strings.ReplaceAll(key, "_", " ")
		if p := lt.input(t, lt.Seated, line); p.Roll.BaseModifier != mod {
			t.Errorf("%s added %+d, the sheet says %+d", line, p.Roll.BaseModifier, mod)
		}
	}
	for key, mod := range v.Derived.Modifiers {
		if p := lt.input(t, lt.Seated, "/r "+key); p.Roll.BaseModifier != mod {
			t.Errorf("/r %s added %+d, the sheet says %+d", key, p.Roll.BaseModifier, mod)
		}
	}
	list, err := lt.svc.ListCharacters(ctx, lt.Seated)
	tabletest.Must(t, err)
	for _, c := range list.Characters {
		if c.ID == v.ID {
			if diff := cmp.Diff(v.Derived, c.Derived); diff != "" {
				t.Errorf("the list derives differently (-get +list):\n%s", diff)
			}
		}
	}
}
