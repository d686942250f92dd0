package narrative_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/adventure-table/adventure-table/gameplay/narrative"
	"github.com/adventure-table/adventure-table/gameplay/narrative/imports"
)

// importLorebook imports a file of testdata/lorebooks as a scenario and
// returns it with the import's preview.
func (f *solo) importLorebook(name string) imports.Imported {
	f.t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "lorebooks", name))
	must(f.t, err)
	got, err := imports.Import(context.Background(), f.svc, f.user, data)
	must(f.t, err)
	return got
}

// insightsAfter plays a fresh adventure of the scenario through one turn
// per action and returns the Insights of the last narration.
func (f *solo) insightsAfter(scenarioID int64, actions ...string) narrative.Insights {
	f.t.Helper()
	page, err := f.svc.Play(context.Background(), f.user, scenarioID, narrative.Persona{PersonaName: "Ash"})
	must(f.t, err)
	var done narrative.Event
	for _, a := range actions {
		done = f.play(page.Adventure.ID, a, "The wind turns.", "")
	}
	ins, err := f.svc.GetInsights(context.Background(), f.user, done.Action.ID)
	must(f.t, err)
	return ins
}

// included lists the titles of the cards a prompt carried, in report order.
func included(ins narrative.Insights) []string {
	var out []string
	for _, c := range ins.Cards {
		if c.Included {
			out = append(out, c.Title)
		}
	}
	return out
}

// Imported lorebooks fire as they did in SillyTavern, seen through the
// Insights of a real turn: an AND entry needs its key, a NOT_ANY entry stays
// out when its secondary word is named, a constant entry is always in, and
// the lore follows the entries' order.
func TestImportedLorebookBehaviour(t *testing.T) {
	f := newSolo(t)
	sc := f.importLorebook("sillytavern_rules.json").Scenario.ID
	const law = "Law of the land"

	t.Run("AndAnyNeedsItsKey", func(t *testing.T) {
		if got := included(f.insightsAfter(sc, "Night falls over the village.")); slices.Contains(got, "Night forge") {
			t.Errorf("the secondary word alone fired the entry: %v", got)
		}
		if got := included(f.insightsAfter(sc, "Night falls over the forge.")); !slices.Contains(got, "Night forge") {
			t.Errorf("key and secondary word did not fire the entry: %v", got)
		}
	})
	t.Run("NotAnyStaysOutOnItsWord", func(t *testing.T) {
		for _, action := range []string{"We sign the peace treaty.", "The dragon watches us sign the peace treaty."} {
			if got := included(f.insightsAfter(sc, action)); slices.Contains(got, "Dragon rampage") {
				t.Errorf("%q fired the NOT_ANY entry: %v", action, got)
			}
		}
		if got := included(f.insightsAfter(sc, "The dragon burns the fields.")); !slices.Contains(got, "Dragon rampage") {
			t.Errorf("the dragon without peace did not fire it: %v", got)
		}
	})
	t.Run("ConstantAlwaysIn", func(t *testing.T) {
		ins := f.insightsAfter(sc, "I wait by the well.")
		i := slices.IndexFunc(ins.Cards, func(c narrative.InsightCard) bool { return c.Title == law })
		if i < 0 || !ins.Cards[i].Included || !ins.Cards[i].Constant || ins.Cards[i].Trigger != "" {
			t.Fatalf("the constant entry is not in the prompt: %+v", ins.Cards)
		}
		last := ins.Messages[len(ins.Messages)-1].Content
		if !strings.Contains(last, law+": Magic is outlawed in the kingdom.") {
			t.Errorf("the prompt does not carry the constant entry:\n%s", last)
		}
	})
	t.Run("OrderAsSillyTavern", func(t *testing.T) {
		ins := f.insightsAfter(sc, "alpha, bravo and charlie arrive.")
		last := ins.Messages[len(ins.Messages)-1].Content
		a, b, c := strings.Index(last, "- A: Card A."), strings.Index(last, "- B: Card B."), strings.Index(last, "- C: Card C.")
		// order 300, 100, 200: SillyTavern inserts B, C, A (higher order
		// nearer the end); the constant (order 100) sits with B, before it
		// in the file.
		l := strings.Index(last, "- "+law)
		if b < 0 || !(l < b && b < c && c < a) {
			t.Errorf("lore not in the order law, B, C, A:\n%s", last)
		}
	})
}

// A character card whose entry has the secondary key "me" (Sakana's "Liking
// {{user}}") stays out on "Tell me a joke" and comes in when its own key is
// named with it.
func TestImportedCharacterSecondaryKeyAlone(t *testing.T) {
	f := newSolo(t)
	sc := f.importLorebook("character_secondary_me.json").Scenario.ID
	const liking = "Liking {{user}}"
	if got := included(f.insightsAfter(sc, "Tell me a joke.")); slices.Contains(got, liking) {
		t.Errorf(`"Tell me a joke" pulled %q in: %v`, liking, got)
	}
	if got := included(f.insightsAfter(sc, "Do you like me?")); !slices.Contains(got, liking) {
		t.Errorf(`"Do you like me?" did not bring %q in: %v`, liking, got)
	}
}

// AI Dungeon Enhanced World Info keys are regular expressions: one the
// matcher takes fires; one it refuses (a lookbehind) is named in the
// preview, with the card it leaves unable to fire.
func TestImportedRegexKeys(t *testing.T) {
	f := newSolo(t)
	got := f.importLorebook("aidungeon_ewi_cards.json")
	var notes []string
	for _, n := range got.Preview.Unmapped {
		notes = append(notes, n.Code+" "+n.Entry+" "+n.Params["key"]+" "+n.Params["reason"])
	}
	want := []string{
		"regex_key Red dragon /(?<=red )dragon/i unsupported",
		"never_fires Red dragon  ",
	}
	if !slices.Equal(notes, want) {
		t.Errorf("notes:\n got %q\nwant %q", notes, want)
	}
	ins := f.insightsAfter(got.Scenario.ID, "Two DRAGONS circle the keep of the queen of Thorns.")
	var fired []string
	for _, c := range ins.Cards {
		if c.Included {
			fired = append(fired, c.Title+" by "+c.Trigger)
		}
	}
	if diff := strings.Join(fired, "; "); diff != `Dragons by /\bdragons?\b/i; Crowns by /\b(king|queen) of \w{1,20}\b/` {
		t.Errorf("fired: %s", diff)
	}
}
