package prompt_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/adventure-table/adventure-table/gameplay/narrative/prompt"
)

func TestBuildCardTriggers(t *testing.T) {
	tests := []struct {
		name string
		key  string
		text string
		want bool
	}{
		{"WholeWord", "rat", "A rat scurries past.", true},
		{"InsideWord", "rat", "The pirate grins.", false},
		{"Possessive", "rat", "The rat's tail twitches.", true},
		{"CaseInsensitive", "gwen", "GWEN waves from the door.", true},
		{"MultiWord", "Black Tower", "You see the BLACK\n  tower at last.", true},
		{"MultiWordJoined", "Black Tower", "You see the blacktower.", false},
		{"MultiWordPrefix", "Black Tower", "You see the black towers.", false},
		{"UnicodeCase", "Ærøskøbing", "The ferry to ÆRØSKØBING leaves.", true},
		{"GreekFinalSigma", "Οδυσσευς", "ΟΔΥΣΣΕΥΣ ΕΠΕΣΤΡΕΨΕ.", true},
		{"UnicodeInsideWord", "über", "Überall Nebel.", false},
		{"CombiningMarkInsideWord", "cafe", "A cafe\u0301 sign.", false},
		{"ShortKeyIgnored", "a", "a b c", false},
		{"ShortUnicodeKeyIgnored", "é", "é", false},
		{"EmptyKey", "", "anything", false},
		{"BlankKey", "   ", "a   b", false},
		{"PunctuationEdges", "C++", "You write C++ all night.", true},
		{"InvalidUTF8", "rat", "\xffrat\xfe", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := prompt.Build(prompt.Input{
				Cards:   []prompt.Card{{ID: 7, Title: "Card", Keys: []string{tt.key}, Entry: "Entry."}},
				History: []prompt.Turn{{Kind: "narration", Text: tt.text}},
				Budget:  8000,
			})
			if got := len(r.Cards) == 1 && r.Cards[0].Included; got != tt.want {
				t.Errorf("triggered = %v (%+v), want %v", got, r.Cards, tt.want)
			}
		})
	}
}

func TestBuildCardOrder(t *testing.T) {
	cards := []prompt.Card{
		{ID: 1, Title: "Alpha", Keys: []string{"alpha"}, Entry: "First card."},
		{ID: 2, Title: "Beta", Keys: []string{"bravo", "beta"}, Entry: "Second card."},
		{ID: 3, Title: "Gamma", Keys: []string{"gamma"}, Entry: "Third card."},
		{ID: 4, Title: "Delta", Keys: []string{"delta"}, Entry: "Fourth card."},
	}
	history := []prompt.Turn{
		{Kind: "narration", Text: "delta"}, // 7th from the end: not scanned
		{Kind: "narration", Text: "gamma"},
		{Kind: "player", Text: "alpha"},
		{Kind: "narration", Text: "..."},
		{Kind: "player", Text: "..."},
		{Kind: "narration", Text: "..."},
		{Kind: "player", Text: "gamma, then beta"},
	}
	r := prompt.Build(prompt.Input{Cards: cards, History: history, Budget: 8000})
	want := []prompt.CardReport{
		{ID: 2, Title: "Beta", Trigger: "beta", Included: true},   // newest turn, earlier in input
		{ID: 3, Title: "Gamma", Trigger: "gamma", Included: true}, // newest turn too
		{ID: 1, Title: "Alpha", Trigger: "alpha", Included: true},
	}
	if diff := cmp.Diff(want, r.Cards, cmpopts.IgnoreFields(prompt.CardReport{}, "Tokens")); diff != "" {
		t.Errorf("card reports (-want +got):\n%s", diff)
	}
	// The lore lists cards in input order, so the same set renders the same.
	last := lastContent(r)
	a, b, g := strings.Index(last, "Alpha: First"), strings.Index(last, "Beta: Second"), strings.Index(last, "Gamma: Third")
	if a < 0 || !(a < b && b < g) || strings.Contains(last, "Delta") {
		t.Errorf("lore out of input order or holding an untriggered card:\n%s", last)
	}
}

func TestBuildCardBudget(t *testing.T) {
	entry := func(words int) string { return strings.TrimSpace(strings.Repeat("lorem ", words)) }
	cards := []prompt.Card{
		{ID: 1, Title: "Lantern", Keys: []string{"lantern"}, Entry: entry(70)},
		{ID: 2, Title: "Bridge", Keys: []string{"bridge"}, Entry: entry(60)},
		{ID: 3, Title: "Crow", Keys: []string{"crow"}, Entry: entry(8)},
		{ID: 4, Title: "Tower", Keys: []string{"tower"}, Entry: entry(5)},
	}
	in := prompt.Input{
		Cards: cards,
		History: []prompt.Turn{
			{Kind: "narration", Text: "A crow watches from the rail."},
			{Kind: "player", Text: "I cross the bridge holding the lantern high."},
		},
		Budget: 0, // Available floors at 256, so cards get 102
	}

	t.Run("CappedAt40Percent", func(t *testing.T) {
		r := prompt.Build(in)
		capTokens := r.Available * 4 / 10
		if r.Available != 256 || capTokens != 102 {
			t.Fatalf("Available = %d, card cap %d; want 256, 102", r.Available, capTokens)
		}
		want := []prompt.CardReport{
			{ID: 1, Title: "Lantern", Trigger: "lantern", Included: true},
			{ID: 2, Title: "Bridge", Trigger: "bridge", Included: false},
			{ID: 3, Title: "Crow", Trigger: "crow", Included: true},
		}
		if diff := cmp.Diff(want, r.Cards, cmpopts.IgnoreFields(prompt.CardReport{}, "Tokens")); diff != "" {
			t.Fatalf("card reports (-want +got):\n%s", diff)
		}
		if r.Cards[1].Tokens < capTokens-r.Cards[0].Tokens {
			t.Fatalf("test setup: Bridge costs %d, it should not fit beside Lantern's %d", r.Cards[1].Tokens, r.Cards[0].Tokens)
		}
		spent := r.Cards[0].Tokens + r.Cards[2].Tokens
		if spent > capTokens {
			t.Errorf("included cards cost %d, over the cap %d", spent, capTokens)
		}
		lore := section(t, r, "lore")
		if lore.Fixed || lore.Tokens < spent || lore.Tokens+r.HistoryTokens > r.Available {
			t.Errorf("lore section %+v with history %d, want elastic, >= %d and within %d", lore, r.HistoryTokens, spent, r.Available)
		}
		last := lastContent(r)
		if !strings.Contains(last, "Lantern: lorem") || !strings.Contains(last, "Crow: lorem") || strings.Contains(last, "Bridge") {
			t.Errorf("lore holds the wrong cards:\n%s", last)
		}
	})

	t.Run("NoneTriggered", func(t *testing.T) {
		in := in
		in.History = []prompt.Turn{{Kind: "player", Text: "I wait in silence."}}
		r := prompt.Build(in)
		if len(r.Cards) != 0 || strings.Contains(lastContent(r), "Lore:") {
			t.Errorf("cards = %+v, last message %q; want no lore", r.Cards, lastContent(r))
		}
		for _, s := range r.Sections {
			if s.Name == "lore" {
				t.Errorf("lore section present with no triggered card")
			}
		}
	})
}
