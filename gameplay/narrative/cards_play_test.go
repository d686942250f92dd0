package narrative_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/adventure-table/adventure-table/gameplay/narrative"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// cardByTitle finds a card of the play list.
func cardByTitle(t *testing.T, cards narrative.PlayCards, title string) narrative.PlayCard {
	t.Helper()
	for _, c := range cards.Cards {
		if c.Title == title {
			return c
		}
	}
	t.Fatalf("no card %q in %+v", title, cards.Cards)
	return narrative.PlayCard{}
}

// fieldsOf is the field problems of an application error.
func fieldsOf(err error) map[string]string {
	var ae *apperr.Error
	if errors.As(err, &ae) {
		return ae.Fields
	}
	return nil
}

// Story cards edited, added, set aside and brought back in play change the
// very next prompt; the list says which cards the last prompt triggered
// and how full it was.
func TestCardsInPlayChangeTheNextPrompt(t *testing.T) {
	f := newSolo(t)
	ctx := context.Background()
	adv := f.adventure().Adventure.ID

	cards, err := f.svc.ListCards(ctx, f.user, adv)
	must(t, err)
	if len(cards.Cards) != 2 || cards.LastBuild != nil || cards.MaxCards != narrative.MaxCards {
		t.Fatalf("before any turn: %+v", cards)
	}
	f.play(adv, "I greet Gwen", "Gwen nods.", "")
	if !strings.Contains(f.lastPrompt(), "Gwen is a veteran guard.") {
		t.Fatal("the scenario's card is not in the prompt")
	}
	cards, err = f.svc.ListCards(ctx, f.user, adv)
	must(t, err)
	gwen, lantern := cardByTitle(t, cards, "Gwen"), cardByTitle(t, cards, "Lantern")
	if gwen.LastTurn == nil || !gwen.LastTurn.Included || gwen.LastTurn.Trigger != "Gwen" || lantern.LastTurn != nil {
		t.Fatalf("last turn's triggers: gwen %+v, lantern %+v", gwen.LastTurn, lantern.LastTurn)
	}
	if gwen.Source != narrative.CardFromScenario || gwen.PlayerAuthored || !gwen.Enabled {
		t.Fatalf("gwen %+v", gwen)
	}
	// the fake reports 100 prompt tokens; the budget is the settings' 4000
	if b := cards.LastBuild; b == nil || b.Used != 100 || b.Estimated || b.Budget != 4000 || b.ActionID != f.page(adv).Story[2].ID {
		t.Fatalf("last build %+v", cards.LastBuild)
	}

	// edit
	edited, err := f.svc.ChangeCard(ctx, f.user, adv, gwen.ID, narrative.CardEdit{Entry: ptr("Gwen is a retired smuggler.")})
	must(t, err)
	if !edited.PlayerAuthored || edited.Entry != "Gwen is a retired smuggler." || edited.Title != "Gwen" {
		t.Fatalf("edited %+v", edited)
	}
	f.play(adv, "I ask Gwen about the door", "She shrugs.", "")
	if p := f.lastPrompt(); !strings.Contains(p, "Gwen is a retired smuggler.") || strings.Contains(p, "veteran guard") {
		t.Fatalf("the edit did not reach the next prompt:\n%s", p)
	}

	// add
	bram, err := f.svc.AddCard(ctx, f.user, adv, narrative.CardInput{Title: " Bram ", Keys: []string{"Bram", " "}, Entry: "Bram keeps the inn.", Type: "character"})
	must(t, err)
	if bram.ID == 0 || bram.Title != "Bram" || len(bram.Keys) != 1 || bram.Source != narrative.CardFromPlayer || !bram.PlayerAuthored || !bram.Enabled {
		t.Fatalf("added %+v", bram)
	}
	f.play(adv, "I wave at Bram", "He waves back.", "")
	if !strings.Contains(f.lastPrompt(), "Bram keeps the inn.") {
		t.Fatal("the added card is not in the next prompt")
	}

	// set aside: never enters, though its key is named
	off, err := f.svc.ChangeCard(ctx, f.user, adv, gwen.ID, narrative.CardEdit{Enabled: ptr(false)})
	must(t, err)
	if off.Enabled {
		t.Fatalf("disabled %+v", off)
	}
	f.play(adv, "I greet Gwen and Bram", "They nod.", "")
	if p := f.lastPrompt(); strings.Contains(p, "retired smuggler") || !strings.Contains(p, "Bram keeps the inn.") {
		t.Fatalf("a disabled card entered the prompt (or the other one left):\n%s", p)
	}
	cards, err = f.svc.ListCards(ctx, f.user, adv)
	must(t, err)
	if g := cardByTitle(t, cards, "Gwen"); g.Enabled || g.LastTurn != nil {
		t.Fatalf("disabled gwen %+v", g)
	}
	ins, err := f.svc.GetInsights(ctx, f.user, cards.LastBuild.ActionID)
	must(t, err)
	for _, c := range ins.Cards {
		if c.ID == gwen.ID {
			t.Fatalf("insights list the disabled card: %+v", ins.Cards)
		}
	}

	// back
	_, err = f.svc.ChangeCard(ctx, f.user, adv, gwen.ID, narrative.CardEdit{Enabled: ptr(true)})
	must(t, err)
	f.play(adv, "I greet Gwen again", "She smiles.", "")
	if !strings.Contains(f.lastPrompt(), "Gwen is a retired smuggler.") {
		t.Fatal("the card brought back is not in the prompt")
	}
}

// Scripts never see a card set aside, so they can neither use nor remove it.
func TestDisabledCardIsHiddenFromScripts(t *testing.T) {
	f := newSolo(t)
	ctx := context.Background()
	page := f.adventureWith(narrative.Scripts{Context: `log("cards:" + storyCards.map(c => c.title).join(",")); text`})
	adv := page.Adventure.ID
	cards, err := f.svc.ListCards(ctx, f.user, adv)
	must(t, err)
	_, err = f.svc.ChangeCard(ctx, f.user, adv, cardByTitle(t, cards, "Lantern").ID, narrative.CardEdit{Enabled: ptr(false)})
	must(t, err)
	f.play(adv, "I look around", "Dark.", "")
	con, err := f.svc.GetConsole(ctx, f.user, adv)
	must(t, err)
	if len(con.Entries) == 0 || !strings.Contains(con.Entries[len(con.Entries)-1].Text, "cards:Gwen") || strings.Contains(con.Entries[len(con.Entries)-1].Text, "Lantern") {
		t.Fatalf("console %+v", con.Entries)
	}
	cards, err = f.svc.ListCards(ctx, f.user, adv)
	must(t, err)
	if len(cards.Cards) != 2 {
		t.Fatalf("the script's run removed the card it did not see: %+v", cards.Cards)
	}
}

// A scenario card the player edited in play is theirs: "update from
// scenario" neither overwrites it nor adds the scenario's version beside
// it. A card only set aside still follows the scenario, and stays aside.
func TestEditedCardSurvivesUpdateFromScenario(t *testing.T) {
	f := newSolo(t)
	ctx := context.Background()
	page := f.adventure()
	adv := page.Adventure.ID
	cards, err := f.svc.ListCards(ctx, f.user, adv)
	must(t, err)
	gwen, lantern := cardByTitle(t, cards, "Gwen"), cardByTitle(t, cards, "Lantern")
	_, err = f.svc.ChangeCard(ctx, f.user, adv, gwen.ID, narrative.CardEdit{Entry: ptr("Gwen is my sister.")})
	must(t, err)
	_, err = f.svc.ChangeCard(ctx, f.user, adv, lantern.ID, narrative.CardEdit{Enabled: ptr(false)})
	must(t, err)

	sc, err := f.svc.GetScenario(ctx, f.user, *page.Adventure.ScenarioID)
	must(t, err)
	in := narrative.ScenarioInput{Title: sc.Title, Opening: sc.Opening, StatSchema: sc.StatSchema, Scripts: sc.Scripts,
		Cards: []narrative.CardInput{
			{Title: "Gwen", Keys: []string{"Gwen"}, Entry: "Gwen is a traitor.", Type: "character"},
			{Title: "Lantern", Keys: []string{"lantern"}, Entry: "A lantern that burns blue.", Type: "item"},
		}}
	_, err = f.svc.UpdateScenario(ctx, f.user, sc.ID, in)
	must(t, err)
	diff, err := f.svc.RefreshDiff(ctx, f.user, adv)
	must(t, err)
	if len(diff.CardsUpdated) != 1 || diff.CardsUpdated[0].New.Title != "Lantern" || len(diff.CardsAdded) != 0 || len(diff.CardsRemoved) != 0 {
		t.Fatalf("diff %+v", diff)
	}
	_, err = f.svc.ApplyRefresh(ctx, f.user, adv)
	must(t, err)
	cards, err = f.svc.ListCards(ctx, f.user, adv)
	must(t, err)
	if len(cards.Cards) != 2 {
		t.Fatalf("after the update: %+v", cards.Cards)
	}
	if g := cardByTitle(t, cards, "Gwen"); g.Entry != "Gwen is my sister." || !g.PlayerAuthored {
		t.Fatalf("the player's edit was overwritten: %+v", g)
	}
	if l := cardByTitle(t, cards, "Lantern"); l.Entry != "A lantern that burns blue." || l.Enabled {
		t.Fatalf("lantern %+v", l)
	}
}

// Bad cards are refused with card_invalid and change nothing; the cap is
// the scenario editor's.
func TestCardsInPlayRefuseBadInput(t *testing.T) {
	f := newSolo(t)
	ctx := context.Background()
	adv := f.adventure().Adventure.ID
	cards, err := f.svc.ListCards(ctx, f.user, adv)
	must(t, err)
	gwen := cardByTitle(t, cards, "Gwen")
	manyKeys := make([]string, 21)
	for i := range manyKeys {
		manyKeys[i] = fmt.Sprintf("k%d", i)
	}
	for _, tt := range []struct {
		name  string
		in    narrative.CardInput
		field string
	}{
		{"NoTitle", narrative.CardInput{Title: "  ", Keys: []string{"x"}}, "title"},
		{"LongEntry", narrative.CardInput{Title: "x", Entry: strings.Repeat("a", 4001)}, "entry"},
		{"TooManyKeys", narrative.CardInput{Title: "x", Keys: manyKeys}, "keys"},
		{"LongKey", narrative.CardInput{Title: "x", Keys: []string{strings.Repeat("k", 81)}}, "keys"},
		{"LongType", narrative.CardInput{Title: "x", Type: strings.Repeat("t", 41)}, "type"},
		{"NUL", narrative.CardInput{Title: "x", Entry: "a\x00b"}, "entry"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := f.svc.AddCard(ctx, f.user, adv, tt.in)
			assertCode(t, err, "card_invalid")
			if fields := fieldsOf(err); fields[tt.field] == "" {
				t.Fatalf("fields %v, want %s", fields, tt.field)
			}
			_, err = f.svc.ChangeCard(ctx, f.user, adv, gwen.ID, narrative.CardEdit{Title: &tt.in.Title, Keys: tt.in.Keys, Entry: &tt.in.Entry, Type: &tt.in.Type})
			assertCode(t, err, "card_invalid")
		})
	}
	after, err := f.svc.ListCards(ctx, f.user, adv)
	must(t, err)
	if len(after.Cards) != 2 || cardByTitle(t, after, "Gwen").Entry != gwen.Entry || cardByTitle(t, after, "Gwen").PlayerAuthored {
		t.Fatalf("a refused card changed the adventure: %+v", after.Cards)
	}
	_, err = f.svc.ChangeCard(ctx, f.user, adv, 999999, narrative.CardEdit{Enabled: ptr(false)})
	assertCode(t, err, "not_found")
	_, err = f.svc.CountTokens(ctx, f.user, narrative.TokenCountInput{Text: strings.Repeat("a", 16001)})
	assertCode(t, err, "turn_text_invalid")
}

// An adventure at the scenario editor's cap takes no more cards.
func TestCardsInPlayCap(t *testing.T) {
	f := newSolo(t)
	ctx := context.Background()
	in := narrative.ScenarioInput{Title: "Many", Opening: "Go.", StatSchema: narrative.Schema{}}
	for i := range narrative.MaxCards {
		in.Cards = append(in.Cards, narrative.CardInput{Title: fmt.Sprintf("c%d", i), Keys: []string{}})
	}
	sc, err := f.svc.CreateScenario(ctx, f.user, in)
	must(t, err)
	page, err := f.svc.Play(ctx, f.user, sc.ID, narrative.Persona{})
	must(t, err)
	_, err = f.svc.AddCard(ctx, f.user, page.Adventure.ID, narrative.CardInput{Title: "one more"})
	assertCode(t, err, "card_limit_reached")
}

// Another user's adventure does not exist for the caller; cards are not
// changed while a turn is being written.
func TestCardsInPlayOwnerAndTurn(t *testing.T) {
	f := newSolo(t)
	ctx := context.Background()
	adv := f.adventure().Adventure.ID
	cards, err := f.svc.ListCards(ctx, f.user, adv)
	must(t, err)
	gwen := cardByTitle(t, cards, "Gwen")
	other := newSoloUser(t, f)
	_, err = f.svc.ListCards(ctx, other, adv)
	assertCode(t, err, "not_found")
	_, err = f.svc.AddCard(ctx, other, adv, narrative.CardInput{Title: "x"})
	assertCode(t, err, "not_found")
	_, err = f.svc.ChangeCard(ctx, other, adv, gwen.ID, narrative.CardEdit{Enabled: ptr(false)})
	assertCode(t, err, "not_found")
	// another of my adventures does not reach this one's card
	adv2 := f.adventure().Adventure.ID
	_, err = f.svc.ChangeCard(ctx, f.user, adv2, gwen.ID, narrative.CardEdit{Enabled: ptr(false)})
	assertCode(t, err, "not_found")

	turn, err := f.svc.StartTurn(ctx, f.user, adv, narrative.TurnInput{Mode: narrative.ModeDo, Text: "wait"})
	must(t, err)
	_, err = f.svc.ChangeCard(ctx, f.user, adv, gwen.ID, narrative.CardEdit{Enabled: ptr(false)})
	assertCode(t, err, "turn_in_progress")
	_, err = f.svc.AddCard(ctx, f.user, adv, narrative.CardInput{Title: "x"})
	assertCode(t, err, "turn_in_progress")
	turn.Abandon()
	cards, err = f.svc.ListCards(ctx, f.user, adv)
	must(t, err)
	if len(cards.Cards) != 2 || !cardByTitle(t, cards, "Gwen").Enabled {
		t.Fatalf("a refused change landed: %+v", cards.Cards)
	}
}

// A card a turn's script made keeps to that turn's lines when the player
// edits it.
func TestEditedScriptCardKeepsItsLine(t *testing.T) {
	f := newSolo(t)
	ctx := context.Background()
	page := f.adventureWith(narrative.Scripts{Output: `if (text.includes("dragon")) { addStoryCard("wyrm", "A red dragon sleeps on the hill.", "creature"); }
text`})
	adv := page.Adventure.ID
	f.play(adv, "I look around", "A quiet hill.", "")
	forkPoint := f.page(adv).Story[2].ID
	f.play(adv, "I climb the hill", "A dragon sleeps here.", "")
	cards, err := f.svc.ListCards(ctx, f.user, adv)
	must(t, err)
	wyrm := cardByTitle(t, cards, "wyrm")
	if wyrm.Source != narrative.CardFromScript {
		t.Fatalf("wyrm %+v", wyrm)
	}
	_, err = f.svc.ChangeCard(ctx, f.user, adv, wyrm.ID, narrative.CardEdit{Entry: ptr("The wyrm is a gold dragon.")})
	must(t, err)
	f.play(adv, "I wake the wyrm", "It opens one eye.", "")
	if !strings.Contains(f.lastPrompt(), "The wyrm is a gold dragon.") {
		t.Fatal("the edited script card is missing on its line")
	}
	_, err = f.svc.Fork(ctx, f.user, adv, forkPoint)
	must(t, err)
	cards, err = f.svc.ListCards(ctx, f.user, adv)
	must(t, err)
	if len(cards.Cards) != 2 {
		t.Fatalf("the other line lists %+v", cards.Cards)
	}
	_, err = f.svc.ChangeCard(ctx, f.user, adv, wyrm.ID, narrative.CardEdit{Enabled: ptr(false)})
	assertCode(t, err, "not_found")
	f.play(adv, "I ask about the wyrm", "Nobody knows it.", "")
	if strings.Contains(f.lastPrompt(), "gold dragon") {
		t.Fatal("the edited card left its line")
	}
}

// A card a script wrote past the editor's limits (a key over 80
// characters) can still be set aside; editing its text must fix it.
func TestSetAsideScriptCardPastTheLimits(t *testing.T) {
	f := newSolo(t)
	ctx := context.Background()
	page := f.adventureWith(narrative.Scripts{Output: `addStoryCard("` + strings.Repeat("k", 90) + `", "A long-keyed card.", "lore"); text`})
	adv := page.Adventure.ID
	f.play(adv, "I look around", "A quiet hill.", "")
	cards, err := f.svc.ListCards(ctx, f.user, adv)
	must(t, err)
	long := cardByTitle(t, cards, strings.Repeat("k", 90))
	off, err := f.svc.ChangeCard(ctx, f.user, adv, long.ID, narrative.CardEdit{Enabled: ptr(false)})
	must(t, err)
	if off.Enabled || off.PlayerAuthored {
		t.Fatalf("set aside %+v", off)
	}
	_, err = f.svc.ChangeCard(ctx, f.user, adv, long.ID, narrative.CardEdit{Entry: ptr("Edited.")})
	assertCode(t, err, "card_invalid")
}

// The narrator settings' reasoning effort reaches the model's request, and
// only a known value is accepted.
func TestReasoningEffortReachesTheRequest(t *testing.T) {
	f := newSolo(t)
	ctx := context.Background()
	adv := f.adventure().Adventure.ID
	f.play(adv, "I wait", "Time passes.", "")
	reqs := f.fake.Requests()
	if got := reqs[len(reqs)-1].ReasoningEffort; got != "" {
		t.Fatalf("reasoning_effort %q sent without being set", got)
	}
	in := narrative.ProviderSettingsInput{BaseURL: f.fake.URL(), Model: "fake", ContextBudget: 4000, MaxOutputTokens: 400, Temperature: 0.8, TopP: 0.95,
		ReasoningEffort: "high"}
	v, err := f.svc.PutSettings(ctx, f.user, in)
	must(t, err)
	if v.ReasoningEffort != "high" {
		t.Fatalf("settings %+v", v)
	}
	f.play(adv, "I think hard", "You think.", "")
	reqs = f.fake.Requests()
	if got := reqs[len(reqs)-1].ReasoningEffort; got != "high" {
		t.Fatalf("reasoning_effort %q, want high", got)
	}
	in.ReasoningEffort = "extreme"
	_, err = f.svc.PutSettings(ctx, f.user, in)
	assertCode(t, err, "provider_settings_invalid")
	if got, err := f.svc.GetSettings(ctx, f.user); err != nil || got.ReasoningEffort != "high" {
		t.Fatalf("after a refused save: %+v %v", got, err)
	}
}

// The token count is the server's tokenizer times the learnt ratio.
func TestCountTokens(t *testing.T) {
	f := newSolo(t)
	ctx := context.Background()
	n, err := f.svc.CountTokens(ctx, f.user, narrative.TokenCountInput{Text: "I open the door."})
	must(t, err)
	if n.Tokens < 4 || n.Tokens > 6 || n.TokenRatio != 1 {
		t.Fatalf("count %+v", n)
	}
	empty, err := f.svc.CountTokens(ctx, f.user, narrative.TokenCountInput{})
	must(t, err)
	if empty.Tokens != 0 {
		t.Fatalf("empty text counts %d", empty.Tokens)
	}
}
