package narrative_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/adventure-table/adventure-table/gameplay/narrative"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// rulesOf is a card's rules, for comparison.
func rulesOf(c narrative.CardInput) narrative.CardInput {
	return narrative.CardInput{SecondaryKeys: c.SecondaryKeys, Logic: c.Logic, Constant: c.Constant, Priority: c.Priority}
}

// A card's rules are written in play and in the scenario editor, refused
// with their own codes when the matcher could not honour them, copied into
// adventures and honoured by the very next prompt.
func TestCardRulesInPlay(t *testing.T) {
	f := newSolo(t)
	ctx := context.Background()
	adv := f.adventure().Adventure.ID

	for _, tt := range []struct {
		name   string
		in     narrative.CardInput
		code   apperr.Code
		reason string
	}{
		{"UnknownLogic", narrative.CardInput{Title: "x", Keys: []string{"x1"}, SecondaryKeys: []string{"y1"}, Logic: "sometimes"}, apperr.CardLogicInvalid, ""},
		{"Lookahead", narrative.CardInput{Title: "x", Keys: []string{"/drag(?=on)/"}}, apperr.CardKeyInvalid, "unsupported"},
		{"Backreference", narrative.CardInput{Title: "x", Keys: []string{"x1"}, SecondaryKeys: []string{`/(a)\1/`}}, apperr.CardKeyInvalid, "unsupported"},
		{"TooLong", narrative.CardInput{Title: "x", Keys: []string{"/" + strings.Repeat("a", 201) + "/"}}, apperr.CardKeyInvalid, "too_long"},
		{"TooMany", narrative.CardInput{Title: "x", Keys: []string{"/a1/", "/a2/", "/a3/", "/a4/", "/a5/", "/a6/"}}, apperr.CardKeyInvalid, "too_many"},
		{"PriorityOutOfRange", narrative.CardInput{Title: "x", Keys: []string{"x1"}, Priority: 2000000}, apperr.CardInvalid, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := f.svc.AddCard(ctx, f.user, adv, tt.in)
			if apperr.CodeOf(err) != tt.code {
				t.Fatalf("AddCard: %v, want %s", err, tt.code)
			}
			var ae *apperr.Error
			if tt.reason != "" && (!errors.As(err, &ae) || ae.Details["reason"] != tt.reason) {
				t.Errorf("details %+v, want reason %s", ae, tt.reason)
			}
			want := tt.code
			if want == apperr.CardInvalid {
				want = apperr.ScenarioInvalid // the editor's other problems
			}
			_, err = f.svc.CreateScenario(ctx, f.user, narrative.ScenarioInput{Title: "S", Cards: []narrative.CardInput{tt.in}})
			if apperr.CodeOf(err) != want {
				t.Errorf("CreateScenario: %v, want %s", err, want)
			}
		})
	}

	// A player card with rules, and a scenario card given some in play.
	long := "/" + strings.Repeat("(?:ab)", 30) + "|dragon/i" // past 80 characters, within 200 bytes
	added, err := f.svc.AddCard(ctx, f.user, adv, narrative.CardInput{Title: "Rampage", Keys: []string{long},
		SecondaryKeys: []string{"peace"}, Logic: "not_any", Priority: 5, Entry: "The dragon burns the fields."})
	must(t, err)
	if want := (narrative.CardInput{SecondaryKeys: []string{"peace"}, Logic: "not_any", Priority: 5}); !cmp.Equal(rulesOf(added.CardInput), want) {
		t.Errorf("added rules %+v", rulesOf(added.CardInput))
	}
	cards, err := f.svc.ListCards(ctx, f.user, adv)
	must(t, err)
	gwen := cardByTitle(t, cards, "Gwen")
	changed, err := f.svc.ChangeCard(ctx, f.user, adv, gwen.ID, narrative.CardEdit{Constant: ptr(true), Priority: ptr(-3), Logic: ptr("and_any")})
	must(t, err)
	if !changed.Constant || changed.Priority != -3 || changed.Logic != "" || !changed.PlayerAuthored {
		t.Errorf("changed %+v", changed)
	}
	if _, err := f.svc.ChangeCard(ctx, f.user, adv, gwen.ID, narrative.CardEdit{Logic: ptr("xor")}); apperr.CodeOf(err) != apperr.CardLogicInvalid {
		t.Errorf("bad logic edit: %v", err)
	}

	// The next prompt: Gwen is constant (no key named), the rampage fires
	// on its long pattern and stays out once peace is named.
	done := f.play(adv, "A DRAGON lands in the square.", "It roars.", "")
	ins, err := f.svc.GetInsights(ctx, f.user, done.Action.ID)
	must(t, err)
	got := included(ins)
	if !cmp.Equal(got, []string{"Gwen", "Rampage"}) {
		t.Errorf("included %v, want Gwen (constant) then Rampage", got)
	}
	done = f.play(adv, "We offer the dragon peace.", "It listens.", "")
	ins, err = f.svc.GetInsights(ctx, f.user, done.Action.ID)
	must(t, err)
	if got := included(ins); !cmp.Equal(got, []string{"Gwen"}) {
		t.Errorf("after peace: included %v, want Gwen only", got)
	}
	cards, err = f.svc.ListCards(ctx, f.user, adv)
	must(t, err)
	if use := cardByTitle(t, cards, "Gwen").LastTurn; use == nil || !use.Constant || !use.Included {
		t.Errorf("Gwen's last turn %+v, want constant and included", use)
	}
}

// Bundles carry a card's rules both ways, and an older bundle without them
// still reads, its cards firing on any key as before.
func TestCardRulesInBundles(t *testing.T) {
	f := newSolo(t)
	ctx := context.Background()
	sc, err := f.svc.CreateScenario(ctx, f.user, narrative.ScenarioInput{Title: "Rules", Opening: "Once.", Cards: []narrative.CardInput{
		{Title: "Forge", Keys: []string{"forge", `/a{1,3}b/`}, SecondaryKeys: []string{"night", "storm"}, Logic: "and_all", Priority: 7, Entry: "Hot."},
		{Title: "Law", Constant: true, Priority: -1, Entry: "No magic."},
		{Title: "Plain", Keys: []string{"plain"}, Entry: "Plain."},
	}})
	must(t, err)
	bundle, err := f.svc.ExportScenario(ctx, f.user, sc.ID)
	must(t, err)
	file := string(encode(t, bundle))
	for _, want := range []string{`"secondary_keys":["night","storm"],"logic":"and_all","priority":7`, `"constant":true,"priority":-1`} {
		if !strings.Contains(file, want) {
			t.Errorf("scenario bundle lacks %s:\n%s", want, file)
		}
	}
	if strings.Contains(file[strings.Index(file, `"title":"Plain"`):], "logic") {
		t.Errorf("a card without rules writes them: %s", file)
	}
	back, err := f.svc.ImportScenario(ctx, f.user, []byte(file))
	must(t, err)
	if diff := cmp.Diff(sc.Cards[0].CardInput, back.Cards[0].CardInput); diff != "" {
		t.Errorf("scenario round trip (-want +got):\n%s", diff)
	}

	page, err := f.svc.Play(ctx, f.user, sc.ID, narrative.Persona{PersonaName: "Ash"})
	must(t, err)
	adv, err := f.svc.ExportAdventure(ctx, f.user, page.Adventure.ID)
	must(t, err)
	imported, err := f.svc.ImportAdventure(ctx, f.user, encode(t, adv))
	must(t, err)
	again, err := f.svc.ExportAdventure(ctx, f.user, imported.Adventure.ID)
	must(t, err)
	if diff := cmp.Diff(adv, again); diff != "" {
		t.Errorf("adventure round trip (-first +again):\n%s", diff)
	}
	if c := again.Adventure.Cards[1]; !c.Constant || c.Priority != -1 {
		t.Errorf("adventure bundle card %+v", c)
	}

	// A bundle written before cards had rules.
	old := `{"format":"adventure-table.scenario","version":1,"scenario":{"title":"Old","premise":"","plot_essentials":"","ai_instructions":"",` +
		`"authors_note":"","opening":"","stat_schema":{},"cards":[{"title":"Mira","keys":["Mira"],"entry":"The smith.","type":""}],` +
		`"scripts":{"library":"","input":"","context":"","output":""}}}`
	v, err := f.svc.ImportScenario(ctx, f.user, []byte(old))
	must(t, err)
	if c := v.Cards[0]; c.SecondaryKeys != nil || c.Logic != "" || c.Constant || c.Priority != 0 {
		t.Errorf("old bundle card %+v", c)
	}
	if reexport, err := f.svc.ExportScenario(ctx, f.user, v.ID); err != nil || string(encode(t, reexport)) != old {
		t.Errorf("an old bundle does not export as it came (%v):\n%s\n%s", err, encode(t, reexport), old)
	}
	bad := strings.Replace(file, `"logic":"and_all"`, `"logic":"maybe"`, 1)
	if _, err := f.svc.ImportScenario(ctx, f.user, []byte(bad)); apperr.CodeOf(err) != apperr.CardLogicInvalid {
		t.Errorf("bundle with an unknown logic: %v", err)
	}
}

// Scripts see a card's rules in storyCards and may change them; a card
// they rebuild from AI Dungeon's own fields keeps its rules.
func TestCardRulesInScripts(t *testing.T) {
	f := newSolo(t)
	ctx := context.Background()
	adv := f.adventureWith(narrative.Scripts{Output: `const g = storyCards.find((c) => c.title === "Gwen");
log(g.constant, g.priority, g.logic === "", g.secondaryKeys === "");
const i = storyCards.indexOf(g);
storyCards[i] = { id: g.id, keys: g.keys, entry: g.entry, type: g.type, title: g.title, description: g.description };
const l = storyCards.find((c) => c.title === "Lantern");
Object.assign(l, { secondaryKeys: "night, /dark(ness)?/i", logic: "and_any", priority: 9 });
addStoryCard("owl", "An owl hoots.", "creature");
text`}).Adventure.ID
	cards, err := f.svc.ListCards(ctx, f.user, adv)
	must(t, err)
	_, err = f.svc.ChangeCard(ctx, f.user, adv, cardByTitle(t, cards, "Gwen").ID, narrative.CardEdit{Constant: ptr(true), Priority: ptr(4)})
	must(t, err)
	f.play(adv, "I listen.", "Silence.", "")
	cards, err = f.svc.ListCards(ctx, f.user, adv)
	must(t, err)
	if g := cardByTitle(t, cards, "Gwen"); !g.Constant || g.Priority != 4 {
		t.Errorf("Gwen rebuilt by the script lost her rules: %+v", g)
	}
	want := narrative.CardInput{SecondaryKeys: []string{"night", "/dark(ness)?/i"}, Priority: 9}
	if diff := cmp.Diff(want, rulesOf(cardByTitle(t, cards, "Lantern").CardInput)); diff != "" {
		t.Errorf("Lantern's rules from the script (-want +got):\n%s", diff)
	}
	if o := cardByTitle(t, cards, "owl"); o.Constant || o.Priority != 0 || o.SecondaryKeys != nil {
		t.Errorf("a script's new card has rules: %+v", o)
	}
}
