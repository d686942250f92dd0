package imports

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/adventure-table/adventure-table/gameplay/narrative"
	"github.com/adventure-table/adventure-table/gameplay/narrative/prompt"
	"github.com/adventure-table/adventure-table/models"
)

var aidPlaceholder = regexp.MustCompile(`\$\{[^{}]{1,80}\}`)

// aiDungeon reads the community exporter's GraphQL result (research §4):
// {"data": {"scenario": {…}}} or {"data": {"adventure": {…}}}.
func (b *builder) aiDungeon(data map[string]any) error {
	if sc, ok := data["scenario"].(map[string]any); ok {
		return b.aidScenario(sc, FormatAIDungeon)
	}
	if adv, ok := data["adventure"].(map[string]any); ok {
		return b.aidScenario(adv, FormatAIDungeonAdv)
	}
	return malformed(FormatAIDungeon, "data")
}

// aidScenario maps an AI Dungeon scenario (or an adventure's setup) to a
// scenario: prompt → opening, memory (Plot Essentials) → plot essentials,
// author's note, AI instructions, story cards and the four scripts.
func (b *builder) aidScenario(sc map[string]any, format string) error {
	b.format = format
	b.in.Title = cmpOr(str(sc, "title"), defaultAIDungeonTitle)
	if str(sc, "title") != "" {
		b.mapField("title", "title")
	}
	b.text(&b.in.Opening, str(sc, "prompt"), "prompt", "opening")
	b.text(&b.in.PlotEssentials, str(sc, "memory"), "memory", "plot_essentials")
	b.text(&b.in.AuthorsNote, str(sc, "authorsNote"), "authorsNote", "authors_note")
	details, _ := sc["details"].(map[string]any)
	if details != nil {
		b.text(&b.in.AIInstructions, str(details, "instructions"), "details.instructions", "ai_instructions")
		for _, f := range []string{"storyCardInstructions", "storyCardStoryInformation", "storySummary"} {
			if strings.TrimSpace(str(details, f)) != "" {
				reason := ReasonNoEquivalent
				if f == "storySummary" {
					reason = ReasonStory
				}
				b.notMapped("details."+f, reason)
			}
		}
	}
	b.scripts(sc)

	if cards, ok := sc["storyCards"].([]any); ok {
		b.aidCards(cards, "storyCards")
	} else if sc["storyCards"] != nil {
		return malformed(format, "storyCards")
	}

	for _, f := range []struct{ field, reason string }{
		{"description", ReasonNotPrompted},
		{"image", ReasonNotPrompted},
		{"contentRating", ReasonNotPrompted},
	} {
		if strings.TrimSpace(str(sc, f.field)) != "" {
			b.notMapped(f.field, f.reason)
		}
	}
	if boolean(sc, "thirdPerson") {
		b.notMapped("thirdPerson", ReasonNoEquivalent)
	}
	for _, f := range []struct{ field, reason string }{
		{"tags", ReasonNotPrompted},
		{"options", ReasonNoEquivalent},
		{"actionWindow", ReasonStory},
		{"actions", ReasonStory},
	} {
		if list, ok := sc[f.field].([]any); ok && len(list) > 0 {
			b.note(NoteFieldNotMapped, "", "field", f.field, "reason", f.reason, "count", strconv.Itoa(len(list)))
		}
	}
	if st, ok := sc["gameState"].(map[string]any); ok && len(st) > 0 {
		b.notMapped("gameState", ReasonStory)
	}
	seen := map[string]bool{}
	for _, m := range aidPlaceholder.FindAllString(b.in.Opening, -1) {
		if !seen[m] {
			seen[m] = true
			b.note(NoteMacroKept, "", "macro", m)
		}
	}
	return nil
}

// scripts copies the four script slots, from the exporter's gameCode*
// fields or the newer state.scripts shape.
func (b *builder) scripts(sc map[string]any) {
	slots := []struct {
		from, newer, to string
		dst             *string
	}{
		{"gameCodeSharedLibrary", "sharedLibrary", "library", &b.in.Scripts.Library},
		{"gameCodeOnInput", "onInput", "input", &b.in.Scripts.Input},
		{"gameCodeOnModelContext", "onModelContext", "context", &b.in.Scripts.Context},
		{"gameCodeOnOutput", "onOutput", "output", &b.in.Scripts.Output},
	}
	var newer map[string]any
	if st, ok := sc["state"].(map[string]any); ok {
		newer, _ = st["scripts"].(map[string]any)
	}
	for _, s := range slots {
		from, code := s.from, str(sc, s.from)
		if strings.TrimSpace(code) == "" && newer != nil {
			from, code = "state.scripts."+s.newer, str(newer, s.newer)
		}
		if strings.TrimSpace(code) == "" {
			continue
		}
		if len(code) > narrative.MaxScriptBytes {
			b.notMapped(from, ReasonTooLarge)
			continue
		}
		*s.dst = models.CleanText(code)
		b.mapped = append(b.mapped, Note{Code: NoteScript, Params: map[string]string{"from": from, "to": s.to}})
	}
}

// looksLikeAIDCards tells an AI Dungeon story-card export (an array of
// {keys, value, …}) from any other array.
func looksLikeAIDCards(list []any) bool {
	if len(list) == 0 {
		return false
	}
	for _, x := range list {
		c, ok := x.(map[string]any)
		if !ok || !has(c, "keys") || !(has(c, "value") || has(c, "entry")) {
			return false
		}
	}
	return true
}

// aidCards reads AI Dungeon story cards: keys is one comma-separated
// string, the text is value (entry in scripts and older exports).
func (b *builder) aidCards(list []any, from string) {
	before := len(b.in.Cards)
	for i, x := range list {
		c, ok := x.(map[string]any)
		if !ok {
			continue
		}
		keys := aidKeys(c)
		name := cmpOr(str(c, "title"), cmpOr(firstKey(keys), "#"+strconv.Itoa(i+1)))
		if c["deletedAt"] != nil {
			b.note(NoteEntryDeleted, name)
			continue
		}
		if strings.TrimSpace(str(c, "description")) != "" {
			b.note(NoteEntryOption, name, "option", "description", "value", show(clipShow(str(c, "description"))))
		}
		if boolean(c, "useForCharacterCreation") {
			b.note(NoteEntryOption, name, "option", "useForCharacterCreation", "value", "true")
		}
		b.addCard(name, card{title: str(c, "title"), entry: cmpOr(str(c, "value"), str(c, "entry")), typ: str(c, "type"), keys: keys})
	}
	b.cardsNote(from, before)
}

// aidKeys reads a card's keys: one comma-separated string, where Enhanced
// World Info's /pattern/flags keys stay whole even with commas inside.
func aidKeys(c map[string]any) []string {
	if s, ok := c["keys"].(string); ok {
		return prompt.SplitKeys(s)
	}
	return strs(c, "keys")
}

func clipShow(s string) string {
	if r := []rune(s); len(r) > 80 {
		return string(r[:79]) + "…"
	}
	return s
}
