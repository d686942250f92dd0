package imports

import (
	"math"
	"strconv"
	"strings"

	"github.com/adventure-table/adventure-table/gameplay/narrative"
	"github.com/adventure-table/adventure-table/gameplay/narrative/prompt"
)

// SillyTavern's per-entry settings with no equivalent here, and their
// defaults (research §2). displayIndex, addMemo and uid only sort or label
// entries; matchWholeWords is what cards do already; key, keysecondary,
// selective, selectiveLogic, constant and order become the card's keys and
// rules.
var stOptions = []option{
	{"position", []string{"0"}},
	{"depth", []string{"4"}},
	{"role", []string{"0"}},
	{"group", []string{""}},
	{"groupOverride", []string{"false"}},
	{"groupWeight", []string{"100"}},
	{"useGroupScoring", []string{"false"}},
	{"excludeRecursion", []string{"false"}},
	{"preventRecursion", []string{"false"}},
	{"delayUntilRecursion", []string{"false", "0"}},
	{"scanDepth", nil},
	{"caseSensitive", []string{"false"}},
	{"vectorized", []string{"false"}},
	{"automationId", []string{""}},
	{"sticky", []string{"0"}},
	{"cooldown", []string{"0"}},
	{"delay", []string{"0"}},
	{"ignoreBudget", []string{"false"}},
	{"outletName", []string{""}},
	{"characterFilter", []string{`{"isExclude":false,"names":[],"tags":[]}`}},
	{"triggers", []string{"[]"}},
	{"matchPersonaDescription", []string{"false"}},
	{"matchCharacterDescription", []string{"false"}},
	{"matchCharacterPersonality", []string{"false"}},
	{"matchCharacterDepthPrompt", []string{"false"}},
	{"matchScenario", []string{"false"}},
	{"matchCreatorNotes", []string{"false"}},
}

// The same settings as SillyTavern stores them in a character book entry's
// extensions (mostly snake_case).
var stExtensionOptions = []option{
	{"position", []string{"0"}},
	{"depth", []string{"4"}},
	{"role", []string{"0"}},
	{"group", []string{""}},
	{"group_override", []string{"false"}},
	{"group_weight", []string{"100"}},
	{"use_group_scoring", []string{"false"}},
	{"exclude_recursion", []string{"false"}},
	{"prevent_recursion", []string{"false"}},
	{"delay_until_recursion", []string{"false", "0"}},
	{"scan_depth", nil},
	{"case_sensitive", []string{"false"}},
	{"vectorized", []string{"false"}},
	{"automation_id", []string{""}},
	{"sticky", []string{"0"}},
	{"cooldown", []string{"0"}},
	{"delay", []string{"0"}},
	{"ignore_budget", []string{"false"}},
	{"outlet_name", []string{""}},
}

// Character Card lorebook entry settings (research §1); constant and
// insertion_order become the card's rules.
var bookOptions = []option{
	{"case_sensitive", []string{"false"}},
	{"position", []string{"before_char", ""}},
}

// selectiveLogics maps SillyTavern's selectiveLogic numbers to a card's
// logic (research §2).
var selectiveLogics = map[string]string{"0": prompt.LogicAndAny, "1": prompt.LogicNotAll, "2": prompt.LogicNotAny, "3": prompt.LogicAndAll}

// secondaryKeys reads an entry's secondary keys and their logic. They count
// only on a selective entry, as in SillyTavern; an unknown logic reads as
// AND_ANY and is noted.
func (b *builder) secondaryKeys(c *card, entry string, selective bool, logic any, secondary []string) {
	if !selective {
		return
	}
	c.secondary = secondary
	if logic == nil {
		return
	}
	name, ok := selectiveLogics[show(logic)]
	if !ok {
		b.note(NoteEntryOption, entry, "option", "selectiveLogic", "value", show(logic))
		return
	}
	c.logic = name
}

// priority reads an entry's insertion order as the card's priority: a
// number within the card's bounds, rounded; outside them it is clamped and
// noted.
func (b *builder) priority(c *card, entry string, m map[string]any, field string) {
	f, ok := number(m, field)
	if !ok {
		return
	}
	limit := float64(narrative.ScenarioLimits.CardPriority)
	if f > limit || f < -limit {
		b.note(NoteEntryOption, entry, "option", field, "value", show(m[field]))
		f = max(-limit, min(limit, f))
	}
	c.priority = int(math.Round(f))
}

// probability notes a chance below 100% (SillyTavern applies it only with
// useProbability, which defaults to true).
func (b *builder) probability(entry string, m map[string]any, useKey string) {
	p, ok := number(m, "probability")
	if !ok || p >= 100 {
		return
	}
	if use, set := m[useKey].(bool); set && !use {
		return
	}
	b.note(NoteEntryOption, entry, "option", "probability", "value", strconv.FormatFloat(p, 'f', -1, 64))
}

// sillyTavern reads a World Info file: {"entries": {"<uid>": {…}}}.
func (b *builder) sillyTavern(doc map[string]any) error {
	b.format = FormatSillyTavern
	b.in.Title = cmpOr(str(doc, "name"), defaultLorebookTitle)
	if orig, ok := doc["originalData"].(map[string]any); ok {
		b.in.Title = cmpOr(str(doc, "name"), cmpOr(str(orig, "name"), defaultLorebookTitle))
	}
	entries := doc["entries"].(map[string]any)
	before := len(b.in.Cards)
	for _, uid := range sortedKeys(entries) {
		e, ok := entries[uid].(map[string]any)
		if !ok {
			return malformed(FormatSillyTavern, "entries."+uid)
		}
		keys := strs(e, "key")
		name := cmpOr(str(e, "comment"), cmpOr(firstKey(keys), "#"+uid))
		if boolean(e, "disable") {
			b.note(NoteEntryDisabled, name)
			continue
		}
		b.reportOptions(name, e, stOptions)
		b.probability(name, e, "useProbability")
		selective := true
		if v, ok := e["selective"].(bool); ok {
			selective = v
		}
		c := card{title: str(e, "comment"), entry: str(e, "content"), keys: keys, constant: boolean(e, "constant")}
		b.secondaryKeys(&c, name, selective, e["selectiveLogic"], strs(e, "keysecondary"))
		b.priority(&c, name, e, "order")
		b.addCard(name, c)
	}
	b.cardsNote("entries", before)
	return nil
}

// characterBook reads a Character Card lorebook (character_book, or a
// standalone lorebook_v3): entries under book[key].
func (b *builder) characterBook(book map[string]any, key string) error {
	list, ok := book[key].([]any)
	if !ok {
		if _, absent := book[key]; !absent || book[key] == nil {
			return nil
		}
		return malformed(b.format, "character_book."+key)
	}
	before := len(b.in.Cards)
	for i, x := range list {
		e, ok := x.(map[string]any)
		if !ok {
			return malformed(b.format, "character_book.entries["+strconv.Itoa(i)+"]")
		}
		keys := strs(e, "keys")
		name := cmpOr(str(e, "comment"), cmpOr(str(e, "name"), cmpOr(firstKey(keys), "#"+strconv.Itoa(i+1))))
		if enabled, set := e["enabled"].(bool); set && !enabled {
			b.note(NoteEntryDisabled, name)
			continue
		}
		b.reportOptions(name, e, bookOptions)
		ext, _ := e["extensions"].(map[string]any)
		if ext != nil {
			b.reportOptions(name, ext, stExtensionOptions)
			b.probability(name, ext, "useProbability")
		}
		var logic any
		if ext != nil {
			logic = ext["selectiveLogic"]
		}
		c := card{title: cmpOr(str(e, "comment"), str(e, "name")), entry: b.decorators(name, str(e, "content")), keys: keys,
			constant: boolean(e, "constant"), useRegex: boolean(e, "use_regex"), caseSensitive: boolean(e, "case_sensitive")}
		b.secondaryKeys(&c, name, boolean(e, "selective"), logic, strs(e, "secondary_keys"))
		b.priority(&c, name, e, "insertion_order")
		b.addCard(name, c)
	}
	b.cardsNote("character_book", before)
	return nil
}

// decorators strips V3 "@@name value" lines from the top of an entry's
// content, noting each (an "@@@" fallback line goes with the one above).
func (b *builder) decorators(entry, content string) string {
	lines := strings.Split(content, "\n")
	i := 0
	for ; i < len(lines); i++ {
		l := strings.TrimSpace(lines[i])
		if !strings.HasPrefix(l, "@@") {
			break
		}
		if strings.HasPrefix(l, "@@@") {
			continue
		}
		name, value, _ := strings.Cut(strings.TrimPrefix(l, "@@"), " ")
		b.note(NoteEntryOption, entry, "option", "@@"+name, "value", strings.TrimSpace(value))
	}
	return strings.Join(lines[i:], "\n")
}

func firstKey(keys []string) string {
	for _, k := range keys {
		if k = strings.TrimSpace(k); k != "" {
			return k
		}
	}
	return ""
}

// novelAI reads a NovelAI .lorebook: {lorebookVersion, entries: […]}.
func (b *builder) novelAI(doc map[string]any) error {
	b.format = FormatNovelAILorebook
	b.in.Title = cmpOr(str(doc, "name"), defaultLorebookTitle)
	list, ok := doc["entries"].([]any)
	if !ok && doc["entries"] != nil {
		return malformed(FormatNovelAILorebook, "entries")
	}
	before := len(b.in.Cards)
	for i, x := range list {
		e, ok := x.(map[string]any)
		if !ok {
			return malformed(FormatNovelAILorebook, "entries["+strconv.Itoa(i)+"]")
		}
		keys := strs(e, "keys")
		name := cmpOr(str(e, "displayName"), cmpOr(firstKey(keys), "#"+strconv.Itoa(i+1)))
		if enabled, set := e["enabled"].(bool); set && !enabled {
			b.note(NoteEntryDisabled, name)
			continue
		}
		b.reportOptions(name, e, []option{
			{"keyRelative", []string{"false"}},
			{"nonStoryActivatable", []string{"false"}},
		})
		c := card{title: str(e, "displayName"), entry: str(e, "text"), keys: keys, constant: boolean(e, "forceActivation")}
		if cfg, ok := e["contextConfig"].(map[string]any); ok {
			b.reportOptions(name, cfg, []option{{"insertionPosition", []string{"-1"}}})
			// NovelAI's insertion order; SillyTavern reads it as order too.
			b.priority(&c, name, cfg, "budgetPriority")
		}
		b.addCard(name, c)
	}
	b.cardsNote("entries", before)
	if cats, ok := doc["categories"].([]any); ok && len(cats) > 0 {
		b.note(NoteFieldNotMapped, "", "field", "categories", "reason", ReasonNoEquivalent, "count", strconv.Itoa(len(cats)))
	}
	return nil
}
