package prompt_test

import (
	"slices"
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

// fired builds one prompt over history and returns the titles of the cards
// it reports, in report order.
func fired(t *testing.T, cards []prompt.Card, history ...string) []string {
	t.Helper()
	in := prompt.Input{Cards: cards, Budget: 8000}
	for _, h := range history {
		in.History = append(in.History, prompt.Turn{Kind: "player", Text: h})
	}
	var got []string
	for _, c := range prompt.Build(in).Cards {
		got = append(got, c.Title)
	}
	return got
}

func TestBuildCardSecondaryLogic(t *testing.T) {
	card := func(logic string, secondary ...string) []prompt.Card {
		return []prompt.Card{{ID: 1, Title: "Dragon", Keys: []string{"dragon"}, SecondaryKeys: secondary, Logic: logic, Entry: "A dragon."}}
	}
	tests := []struct {
		name  string
		cards []prompt.Card
		text  []string
		want  bool
	}{
		{"NoSecondaryPrimaryAlone", card(""), []string{"The dragon wakes."}, true},
		{"AndAnySecondaryAloneNever", card(prompt.LogicAndAny, "fire", "smoke"), []string{"Fire and smoke everywhere."}, false},
		{"AndAnyPrimaryAlone", card(prompt.LogicAndAny, "fire", "smoke"), []string{"The dragon sleeps."}, false},
		{"AndAnyPrimaryAndOne", card(prompt.LogicAndAny, "fire", "smoke"), []string{"The dragon breathes fire."}, true},
		{"EmptyLogicIsAndAny", card("", "fire"), []string{"The dragon sleeps."}, false},
		{"AndAllOneMissing", card(prompt.LogicAndAll, "fire", "smoke"), []string{"The dragon breathes fire."}, false},
		{"AndAllAll", card(prompt.LogicAndAll, "fire", "smoke"), []string{"The dragon breathes fire and smoke."}, true},
		{"AndAllAcrossTurns", card(prompt.LogicAndAll, "fire", "smoke"), []string{"Smoke rises.", "The dragon breathes fire."}, true},
		{"NotAnyNone", card(prompt.LogicNotAny, "peace"), []string{"The dragon burns the village."}, true},
		{"NotAnyNamed", card(prompt.LogicNotAny, "peace"), []string{"The dragon watches as we sign the peace treaty."}, false},
		{"NotAnySecondaryAloneNever", card(prompt.LogicNotAny, "peace"), []string{"We sign the peace treaty."}, false},
		{"NotAllSome", card(prompt.LogicNotAll, "fire", "smoke"), []string{"The dragon breathes fire."}, true},
		{"NotAllAll", card(prompt.LogicNotAll, "fire", "smoke"), []string{"The dragon breathes fire and smoke."}, false},
		{"ShortSecondaryNeverNamed", card(prompt.LogicAndAny, "x"), []string{"The dragon x."}, false},
		{"RegexSecondary", card(prompt.LogicAndAny, `/fire(s|d)?/i`), []string{"The dragon FIRED."}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := len(fired(t, tt.cards, tt.text...)) == 1; got != tt.want {
				t.Errorf("fired = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestBuildCardConstant(t *testing.T) {
	entry := func(words int) string { return strings.TrimSpace(strings.Repeat("lorem ", words)) }
	cards := []prompt.Card{
		{ID: 1, Title: "Rules", Constant: true, Priority: 10, Entry: entry(30)},
		{ID: 2, Title: "Crow", Keys: []string{"crow"}, Priority: 500, Entry: entry(30)},
		{ID: 3, Title: "Laws", Constant: true, Priority: 20, Entry: entry(30)},
		{ID: 4, Title: "Myths", Constant: true, Priority: 5, Entry: entry(30)},
	}
	in := prompt.Input{Cards: cards, History: []prompt.Turn{{Kind: "player", Text: "A crow caws."}}, Budget: 0} // 102 tokens of cards
	r := prompt.Build(in)
	// Constants first, highest priority first, then the named card, however
	// high its priority: three of these fit in 102 tokens.
	want := []prompt.CardReport{
		{ID: 3, Title: "Laws", Constant: true, Included: true},
		{ID: 1, Title: "Rules", Constant: true, Included: true},
		{ID: 4, Title: "Myths", Constant: true, Included: true},
		{ID: 2, Title: "Crow", Trigger: "crow", Included: false},
	}
	if diff := cmp.Diff(want, r.Cards, cmpopts.IgnoreFields(prompt.CardReport{}, "Tokens")); diff != "" {
		t.Fatalf("card reports (-want +got):\n%s", diff)
	}
	spent := 0
	for _, c := range r.Cards {
		if c.Included {
			spent += c.Tokens
		}
	}
	if capTokens := r.Available * 4 / 10; spent > capTokens {
		t.Errorf("constants cost %d, over the card budget %d", spent, capTokens)
	}
	// Over a budget too small for all, the lowest-priority constant is out.
	in.Cards[3].Entry = entry(60)
	r = prompt.Build(in)
	if r.Cards[2].Title != "Myths" || r.Cards[2].Included || !r.Cards[0].Included || !r.Cards[1].Included {
		t.Errorf("small budget: got %+v, want Laws and Rules in, Myths out", r.Cards)
	}
	// Nothing named and nothing in the history: constants still come in.
	if got := fired(t, cards[:1]); len(got) != 1 {
		t.Errorf("constant without history: got %v", got)
	}
	// The memory bank's roster takes only cards the text names.
	if got := prompt.Matching(cards, in.History); len(got) != 1 || got[0].ID != 2 {
		t.Errorf("Matching = %+v, want only Crow", got)
	}
}

func TestBuildCardPriority(t *testing.T) {
	cards := []prompt.Card{
		{ID: 1, Title: "A", Keys: []string{"alpha"}, Priority: 300, Entry: "Card A."},
		{ID: 2, Title: "B", Keys: []string{"bravo"}, Priority: 100, Entry: "Card B."},
		{ID: 3, Title: "C", Keys: []string{"charlie"}, Priority: 200, Entry: "Card C."},
	}
	in := prompt.Input{Cards: cards, Budget: 8000, History: []prompt.Turn{{Kind: "player", Text: "alpha bravo charlie"}}}
	r := prompt.Build(in)
	last := lastContent(r)
	a, b, c := strings.Index(last, "- A: Card A."), strings.Index(last, "- B: Card B."), strings.Index(last, "- C: Card C.")
	if b < 0 || !(b < c && c < a) {
		t.Errorf("lore not ordered B, C, A (SillyTavern's order, highest nearest the end):\n%s", last)
	}
	// The same set of cards renders to the same bytes whatever named them.
	in.History = []prompt.Turn{{Kind: "player", Text: "charlie"}, {Kind: "player", Text: "bravo"}, {Kind: "player", Text: "alpha"}}
	if again := lastContent(prompt.Build(in)); again != last {
		t.Errorf("lore changed with the order the cards were named:\n%s\nvs\n%s", last, again)
	}
	// A short budget keeps the highest priorities, whichever was named last.
	entry := strings.TrimSpace(strings.Repeat("lorem ", 45))
	for i := range in.Cards {
		in.Cards[i].Entry = entry
	}
	in.Budget = 0 // 102 tokens of cards: two fit
	in.History = []prompt.Turn{{Kind: "player", Text: "alpha charlie"}, {Kind: "player", Text: "bravo"}}
	var got []string
	for _, c := range prompt.Build(in).Cards {
		if c.Included {
			got = append(got, c.Title)
		}
	}
	if diff := cmp.Diff([]string{"A", "C"}, got); diff != "" {
		t.Errorf("included under a short budget (-want +got):\n%s", diff)
	}
}

func TestBuildCardRegexKeys(t *testing.T) {
	tests := []struct {
		name, key, text string
		want            bool
	}{
		{"Fires", `/\bdragons?\b/i`, "Two DRAGONS circle.", true},
		{"CaseSensitiveWithoutI", `/Dragon/`, "a dragon", false},
		{"NoMatch", `/\bwyrm\b/i`, "A dragon.", false},
		{"Alternation", `/(king|queen) of \w+/i`, "The Queen of Thorns speaks.", true},
		{"LookaheadRefused", `/dragon(?=s)/`, "dragons", false},
		{"BackreferenceRefused", `/(a)\1/`, "aa", false},
		{"TooLongRefused", "/" + strings.Repeat("a", prompt.MaxRegexBytes+1) + "/", strings.Repeat("a", 300), false},
		{"EmptyPatternNotARegex", "//", "//", true}, // a plain key of two slashes
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cards := []prompt.Card{{ID: 1, Title: "Card", Keys: []string{tt.key}, Entry: "E."}}
			if got := len(fired(t, cards, tt.text)) == 1; got != tt.want {
				t.Errorf("fired = %v, want %v", got, tt.want)
			}
		})
	}
	// Past five regular-expression keys a card's further ones never match.
	keys := []string{"/q1/", "/q2/", "/q3/", "/q4/", "/q5/", "/q6/"}
	if got := fired(t, []prompt.Card{{ID: 1, Title: "Card", Keys: keys}}, "q6"); len(got) != 0 {
		t.Errorf("the sixth regex key fired")
	}
	if _, err := prompt.CheckKeys(keys, nil); err != prompt.ErrRegexTooMany {
		t.Errorf("CheckKeys(6 regex keys) = %v, want ErrRegexTooMany", err)
	}
	if k, err := prompt.CheckKeys([]string{"plain"}, []string{`/(?<=a)b/`}); err != prompt.ErrRegexUnsupported || k != `/(?<=a)b/` {
		t.Errorf("CheckKeys(lookbehind) = %q, %v; want the key and ErrRegexUnsupported", k, err)
	}
}

func TestCanFire(t *testing.T) {
	tests := []struct {
		name string
		card prompt.Card
		want bool
	}{
		{"PlainKey", prompt.Card{Keys: []string{"dragon"}}, true},
		{"NoKeys", prompt.Card{}, false},
		{"Constant", prompt.Card{Constant: true}, true},
		{"OneLetterKey", prompt.Card{Keys: []string{"a"}}, false},
		{"RefusedRegex", prompt.Card{Keys: []string{`/a(?!b)/`}}, false},
		{"GoodRegex", prompt.Card{Keys: []string{`/a+b/`}}, true},
		{"AndAnyAllSecondaryUnusable", prompt.Card{Keys: []string{"dragon"}, SecondaryKeys: []string{"x"}}, false},
		{"AndAllOneUnusable", prompt.Card{Keys: []string{"dragon"}, SecondaryKeys: []string{"fire", "x"}, Logic: prompt.LogicAndAll}, false},
		{"NotAnyUnusable", prompt.Card{Keys: []string{"dragon"}, SecondaryKeys: []string{"x"}, Logic: prompt.LogicNotAny}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := prompt.CanFire(tt.card); got != tt.want {
				t.Errorf("CanFire = %v, want %v", got, tt.want)
			}
		})
	}
}

// FuzzRegexKey checks the regular-expression key matcher on any key and
// text: it never panics, refuses what it cannot match in linear time, and
// agrees with CheckKeys about which keys it accepts.
func FuzzRegexKey(f *testing.F) {
	for _, seed := range [][2]string{
		{`/\bdragons?\b/i`, "Two dragons."},
		{`/dragon(?=s)/`, "dragons"},
		{`/(a)\1/`, "aa"},
		{`/(a+)+$/`, strings.Repeat("a", 64) + "!"},
		{`/a{1000}{1000}/`, "a"},
		{`/[/`, "["},
		{"/\xff/", "\xff"},
		{`/^king$/m`, "the\nking\n"},
		{`//`, ""},
		{`/x/gimsuy`, "X"},
	} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, key, text string) {
		got := prompt.MatchRegexKey(key, text)
		if !prompt.IsRegexKey(key) {
			if got {
				t.Fatalf("a plain key %q matched as a regular expression", key)
			}
			return
		}
		_, err := prompt.CheckKeys([]string{key}, nil)
		if err != nil && got {
			t.Fatalf("refused key %q (%v) matched", key, err)
		}
		if end := strings.LastIndexByte(strings.TrimSpace(key), '/'); err == nil && end-1 > prompt.MaxRegexBytes {
			t.Fatalf("accepted a pattern of %d bytes", end-1)
		}
	})
}

// A reader fetches only the entries of the cards Triggered names, from the
// newest turns alone: Build then gives the same prompt as with every card,
// and a build with just those turns gives the story's share of the budget.
func TestTriggeredCardsAreAllABuildNeeds(t *testing.T) {
	entry := func(words int) string { return strings.TrimSpace(strings.Repeat("lorem ", words)) }
	cards := []prompt.Card{
		{ID: 10, Title: "Alpha", Keys: []string{"alpha"}, Entry: entry(30), Priority: 2},
		{ID: 11, Title: "Rule", Constant: true, Entry: entry(10)},
		{ID: 12, Title: "Delta", Keys: []string{"delta"}, Entry: entry(40)},
		{ID: 13, Title: "Beta", Keys: []string{"beta"}, SecondaryKeys: []string{"gamma"}, Entry: entry(20)},
		{ID: 14, Title: "Omega", Keys: []string{"omega"}, Entry: entry(50)},
	}
	var history []prompt.Turn
	for i := range 40 {
		text := "The road goes on. " + entry(30)
		switch i {
		case 2:
			text += " omega" // too old to be scanned
		case 36:
			text += " beta and gamma"
		case 39:
			text += " delta, then alpha"
		}
		history = append(history, prompt.Turn{ID: int64(i + 1), Kind: "narration", Text: text, Tokens: prompt.Count(text)})
	}
	ids := prompt.Triggered(cards, history[len(history)-8:])
	if want := []int64{10, 11, 12, 13}; !slices.Equal(ids, want) {
		t.Fatalf("Triggered = %v, want %v", ids, want)
	}
	var fired []prompt.Card
	for _, c := range cards {
		if slices.Contains(ids, c.ID) {
			fired = append(fired, c)
		}
	}
	all := prompt.Build(prompt.Input{Cards: cards, History: history, Budget: 1500})
	some := prompt.Build(prompt.Input{Cards: fired, History: history, Budget: 1500})
	if diff := cmp.Diff(all, some); diff != "" {
		t.Errorf("a build with the triggered cards differs (-all +triggered):\n%s", diff)
	}
	dry := prompt.Build(prompt.Input{Cards: fired, History: history[len(history)-8:], Budget: 1500})
	if dry.HistoryBudget != all.HistoryBudget || all.HistoryTokens > all.HistoryBudget {
		t.Errorf("the story's share from the newest turns: %d, from all: %d (history used %d)", dry.HistoryBudget, all.HistoryBudget, all.HistoryTokens)
	}
}
