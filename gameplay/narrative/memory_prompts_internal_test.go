package narrative

import (
	"fmt"
	"strings"
	"testing"

	"github.com/adventure-table/adventure-table/gameplay/narrative/prompt"
	"github.com/adventure-table/adventure-table/models"
)

// The cast brief names the protagonist first, then the stat schema's NPCs,
// topped up by the cards the passage names, within 8 members of 240
// characters and 300 tokens of setting.
func TestCastBriefCeilings(t *testing.T) {
	schema := Schema{}
	for i := range 5 {
		schema[fmt.Sprintf("npc.npc%d.trust", i)] = StatSpec{Min: 0, Max: 10}
	}
	adv := &models.Adventure{PersonaName: "Mara", PersonaPronouns: "she/her", PersonaDesc: strings.Repeat("tall ", 100),
		StatSchema: mustJSON(schema), PlotEssentials: strings.Repeat("The valley floods every spring. ", 200)}
	var cards []prompt.Card
	for i := range 6 {
		cards = append(cards, prompt.Card{ID: int64(i), Title: fmt.Sprintf("Card%d", i), Keys: []string{fmt.Sprintf("card%d", i)}, Entry: "Someone."})
	}
	cards = append(cards, prompt.Card{ID: 99, Title: "Nobody", Keys: []string{"nobody"}, Entry: "Never named."})
	passage := []prompt.Turn{{Kind: "narration", Text: "card0 card1 card2 card3 card4 card5 meet at the ford."}}
	brief := castBrief(adv, cards, passage)
	lines := strings.Split(strings.TrimSpace(brief), "\n")
	var members []string
	var setting string
	for _, l := range lines {
		if m, ok := strings.CutPrefix(l, "- "); ok {
			members = append(members, m)
		}
		if s, ok := strings.CutPrefix(l, "Setting: "); ok {
			setting = s
		}
	}
	if len(members) != maxCastMembers {
		t.Fatalf("%d members, want %d:\n%s", len(members), maxCastMembers, brief)
	}
	if !strings.HasPrefix(members[0], "Protagonist: Mara (she/her): tall") || len([]rune(members[0])) > maxCastRunes {
		t.Fatalf("protagonist line %q", members[0])
	}
	if !strings.HasPrefix(members[1], "npc0") || !strings.HasPrefix(members[6], "Card0") || strings.Contains(brief, "Nobody") {
		t.Fatalf("roster order or top-up wrong:\n%s", brief)
	}
	if n := prompt.Count(setting); n > maxSettingTokens || n < maxSettingTokens-20 {
		t.Fatalf("setting of %d tokens", n)
	}
}

// The memory prompt states its rule and the reason for it.
func TestMemoryPromptStatesTheReason(t *testing.T) {
	msgs := memoryMessages(&models.Adventure{PersonaName: "Mara"}, nil, []prompt.Turn{{Kind: "player", Text: "> I open the door"}}, framingRule)
	for _, want := range []string{"third person", "bare pronoun", "At most 50 words", "read later on its own", "> I open the door", "Protagonist: Mara"} {
		if !strings.Contains(msgs[0].Content+msgs[1].Content, want) {
			t.Fatalf("memory prompt lacks %q", want)
		}
	}
	if got := cleanMemory("- \"Mara "+strings.Repeat("walked ", 80)+"\"", maxMemoryWords); len(strings.Fields(got)) != maxMemoryWords || !strings.HasSuffix(got, "…") {
		t.Fatalf("cleanMemory kept %d words: %q", len(strings.Fields(got)), got)
	}
}
