package table_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/adventure-table/adventure-table/gameplay/sheet"
	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/gameplay/table/tabletest"
	"github.com/adventure-table/adventure-table/models/apperr"
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
	// Proficient in Dex and Int saves; no armor, speed or hit die: AC
	// 10 + Dex, speed and hit dice not given.
	want := table.CharacterDerived{
		Modifiers:         map[string]int{"str": 0, "dex": 2, "con": 1, "int": 0, "wis": 1, "cha": -1},
		Saves:             map[string]int{"str": 0, "dex": 2 + 2, "con": 1, "int": 0 + 2, "wis": 1, "cha": -1},
		Skills:            map[string]int{},
		PassivePerception: 10 + 1 + 2, Initiative: 2, AC: 12, Attacks: []sheet.AttackDerived{}}
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
	for key, mod := range v.Derived.Saves {
		for _, line := range []string{"/r " + key + " save", "/r " + key + "_save"} {
			if p := lt.input(t, lt.Seated, line); p.Roll.BaseModifier != mod {
				t.Errorf("%s added %+d, the sheet says %+d", line, p.Roll.BaseModifier, mod)
			}
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

// TestCharacterDerivedFromStoredSheet: the sheet fields a player saves are
// stored, read back from the row, and derive saves, AC, speed and hit dice
// by the sheet rules; an edit changes them.
func TestCharacterDerivedFromStoredSheet(t *testing.T) {
	t.Parallel()
	svc, store := newService(t)
	c := tabletest.NewUser(t, svc, "Player")
	in := tabletest.Character("Brakka")
	// Level 5 (+3); Str 12 is below chain mail's 13.
	in.Level, in.Abilities = 5, table.Abilities{Str: 12, Dex: 14, Con: 16, Int: 8, Wis: 10, Cha: 11}
	in.Class, in.Species, in.Background = " Fighter 5 ", "Dwarf", "Soldier"
	in.SaveProficiencies = []string{"str", "con", "con"}
	in.Armor = table.ArmorView{Body: "chain_mail", Shield: true, Bonus: 1}
	in.Speed, in.HitDie = 30, 10
	created, err := svc.CreateCharacter(ctx, c, in)
	tabletest.Must(t, err)
	row, err := store.FindCharacterByID(ctx, created.ID)
	tabletest.Must(t, err)
	if row.Class != "Fighter 5" || row.Species != "Dwarf" || row.Background != "Soldier" || !cmp.Equal(row.SaveProficiencies, []string{"str", "con"}) ||
		row.Armor != "chain_mail" || !row.Shield || row.ArmorBonus != 1 || row.Speed != 30 || row.HitDie != 10 {
		t.Fatalf("stored row %+v", row)
	}
	v, err := svc.GetCharacter(ctx, c, created.ID)
	tabletest.Must(t, err)
	d := v.Derived
	wantSaves := map[string]int{"str": 1 + 3, "dex": 2, "con": 3 + 3, "int": -1, "wis": 0, "cha": 0}
	if diff := cmp.Diff(wantSaves, d.Saves); diff != "" {
		t.Errorf("saves (-want +got):\n%s", diff)
	}
	// Chain mail 16, no Dex; shield +2; bonus +1. Heavy armor without its
	// Strength slows by 10 feet. Five d10 hit dice.
	if d.AC != 19 || !d.StealthDisadvantage || d.Speed != 20 || d.HitDice != "5d10" || d.Initiative != 2 {
		t.Errorf("got AC %d stealth dis. %v speed %d hit dice %q initiative %d, want 19 true 20 5d10 2", d.AC, d.StealthDisadvantage, d.Speed, d.HitDice, d.Initiative)
	}
	if v.Class != "Fighter 5" || v.Armor != in.Armor || v.Speed != 30 || v.HitDie != 10 {
		t.Errorf("view %+v", v)
	}

	// A monk without armor: 10 + Dex + Wis.
	in.Abilities.Wis = 16
	in.Armor = table.ArmorView{Unarmored: "monk"}
	in.HitDie = 8
	v, err = svc.UpdateCharacter(ctx, c, created.ID, in)
	tabletest.Must(t, err)
	if v.Derived.AC != 10+2+3 || v.Derived.StealthDisadvantage || v.Derived.Speed != 30 || v.Derived.HitDice != "5d8" {
		t.Errorf("after the edit: %+v", v.Derived)
	}
	again, err := svc.GetCharacter(ctx, c, created.ID)
	tabletest.Must(t, err)
	if diff := cmp.Diff(v, again, cmpopts.EquateApproxTime(time.Millisecond)); diff != "" {
		t.Errorf("the stored character derives differently (-update +get):\n%s", diff)
	}
}

// The editor's preview derives exactly what saving would, and writes
// nothing; a bad sheet is character_invalid.
func TestPreviewCharacterDerivesAsSaving(t *testing.T) {
	svc, store := newService(t)
	me := tabletest.NewUser(t, svc, "Mira")
	in := tabletest.Character("Mira")
	in.Abilities.Dex = 18
	before, err := store.TableCounts(ctx)
	tabletest.Must(t, err)
	preview, err := svc.PreviewCharacter(ctx, me, in)
	tabletest.Must(t, err)
	after, err := store.TableCounts(ctx)
	tabletest.Must(t, err)
	if after["characters"] != before["characters"] {
		t.Fatalf("a preview wrote a character")
	}
	saved, err := svc.CreateCharacter(ctx, me, in)
	tabletest.Must(t, err)
	if !cmp.Equal(preview, saved.Derived) {
		t.Fatalf("preview %+v, saved %+v", preview, saved.Derived)
	}
	if preview.Modifiers["dex"] != 4 {
		t.Fatalf("dex 18 gives modifier %d, want +4", preview.Modifiers["dex"])
	}
	in.Level = 0
	_, err = svc.PreviewCharacter(ctx, me, in)
	wantCode(t, err, apperr.CharacterInvalid)
}
