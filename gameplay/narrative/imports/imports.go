// Package imports turns files that players bring from other tools into a
// scenario: SillyTavern World Info, Character Card V1/V2/V3 (JSON, PNG or
// CHARX), AI Dungeon scenario and story-card exports, and NovelAI
// lorebooks.
//
// Parse is pure: bytes in, a Preview out (the scenario it would create and
// what maps and what does not). Import creates that scenario through
// narrative.Service.CreateScenario, the one creation path.
package imports

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/adventure-table/adventure-table/gameplay/narrative"
	"github.com/adventure-table/adventure-table/gameplay/narrative/prompt"
	"github.com/adventure-table/adventure-table/models"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// MaxFileBytes bounds an imported file (a character card PNG carries its
// picture too).
const MaxFileBytes = 8 << 20

// Formats Parse recognises.
const (
	FormatSillyTavern      = "sillytavern_world_info"
	FormatCharacterCardV1  = "character_card_v1"
	FormatCharacterCardV2  = "character_card_v2"
	FormatCharacterCardV3  = "character_card_v3"
	FormatCharacterBook    = "character_book"
	FormatAIDungeon        = "ai_dungeon_scenario"
	FormatAIDungeonAdv     = "ai_dungeon_adventure"
	FormatAIDungeonCards   = "ai_dungeon_story_cards"
	FormatNovelAILorebook  = "novelai_lorebook"
	defaultLorebookTitle   = "Imported lorebook"
	defaultCharacterTitle  = "Imported character"
	defaultAIDungeonTitle  = "Imported AI Dungeon scenario"
	defaultStoryCardsTitle = "Imported story cards"
)

// Note codes. Mapped notes say where something went; unmapped notes say
// what was left out and why. The web app translates each code with its
// params.
const (
	// Mapped.
	NoteField  = "field"  // params from, to: a field copied into the scenario
	NoteCards  = "cards"  // params from, count: entries that became story cards
	NoteScript = "script" // params from, to: a script slot

	// Not mapped.
	NoteEntryDisabled  = "entry_disabled"   // entry: a disabled entry, not imported
	NoteEntryDeleted   = "entry_deleted"    // entry: deleted in the source, not imported
	NoteEntryOption    = "entry_option"     // entry; params option, value: a per-entry setting with no equivalent
	NoteRegexKey       = "regex_key"        // entry; params key, reason (too_long, unsupported, too_complex, too_many): a regular-expression key the matcher refuses, dropped
	NoteNeverFires     = "never_fires"      // entry: a card that is not constant and has no key that can fire it (it is imported, and never enters a prompt)
	NoteKeysOverLimit  = "keys_over_limit"  // entry; params count, limit: keys beyond the card's limit
	NoteTextClipped    = "text_clipped"     // entry (optional); params field, limit: text cut to the limit
	NoteCardsOverLimit = "cards_over_limit" // params count, limit: entries beyond the scenario's limit
	NoteFieldNotMapped = "field_not_mapped" // params field, reason (not_prompted, no_equivalent, narrator_instructions, story_not_imported, too_large), count (optional)
	NoteMacroKept      = "macro_kept"       // params macro: a placeholder left as written
	NoteVersionNewer   = "version_newer"    // params version: a newer spec version than the one read
)

// Reasons of NoteFieldNotMapped.
const (
	ReasonNotPrompted  = "not_prompted"
	ReasonNoEquivalent = "no_equivalent"
	ReasonNarrator     = "narrator_instructions"
	ReasonStory        = "story_not_imported"
	ReasonTooLarge     = "too_large"
)

// Note is one line of a preview.
type Note struct {
	Code string `json:"code"`
	// Entry names the card (or source entry) the note is about.
	Entry  string            `json:"entry,omitempty"`
	Params map[string]string `json:"params,omitempty"`
}

// Preview is what an import would create.
type Preview struct {
	Format   string                  `json:"format" jsonschema:"sillytavern_world_info, character_card_v1, character_card_v2, character_card_v3, character_book, ai_dungeon_scenario, ai_dungeon_adventure, ai_dungeon_story_cards or novelai_lorebook"`
	Title    string                  `json:"title"`
	Scenario narrative.ScenarioInput `json:"scenario"`
	Mapped   []Note                  `json:"mapped"`
	Unmapped []Note                  `json:"unmapped"`
}

// Imported is the answer to an import: the new scenario and the preview it
// came from.
type Imported struct {
	Preview  Preview                `json:"preview"`
	Scenario narrative.ScenarioView `json:"scenario"`
}

// Import parses data and creates the scenario it describes for userID.
// Nothing is created when the file cannot be read or the scenario is not
// valid.
func Import(ctx context.Context, n *narrative.Service, userID int64, data []byte) (Imported, error) {
	p, err := Parse(data)
	if err != nil {
		return Imported{}, err
	}
	v, err := n.CreateScenario(ctx, userID, p.Scenario)
	if err != nil {
		return Imported{}, err
	}
	return Imported{Preview: p, Scenario: v}, nil
}

// Parse detects the format of data from its content and maps it.
func Parse(data []byte) (Preview, error) {
	if len(data) > MaxFileBytes {
		return Preview{}, tooLarge("The file", MaxFileBytes)
	}
	switch {
	case bytes.HasPrefix(data, pngSignature):
		return parsePNG(data)
	case bytes.HasPrefix(data, zipSignature):
		return parseCHARX(data)
	}
	return parseJSON(data)
}

func parseJSON(data []byte) (Preview, error) {
	trimmed := bytes.TrimSpace(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")))
	if len(trimmed) == 0 || (trimmed[0] != '{' && trimmed[0] != '[') {
		return Preview{}, unsupported("")
	}
	v, err := decode(trimmed)
	if err != nil {
		return Preview{}, apperr.Wrap(err, apperr.InvalidRequest, "The file is not valid JSON.")
	}
	b := &builder{}
	switch doc := v.(type) {
	case []any:
		if !looksLikeAIDCards(doc) {
			return Preview{}, unsupported("")
		}
		b.format, b.in.Title = FormatAIDungeonCards, defaultStoryCardsTitle
		b.aidCards(doc, "story_cards")
	case map[string]any:
		if err := b.detect(doc); err != nil {
			return Preview{}, err
		}
	}
	return b.finish(), nil
}

// detect picks the reader for a JSON object.
func (b *builder) detect(doc map[string]any) error {
	spec := str(doc, "spec")
	switch {
	case spec == "chara_card_v2" || spec == "chara_card_v3":
		return b.characterCard(doc)
	case spec == "lorebook_v3":
		data, ok := doc["data"].(map[string]any)
		if !ok {
			return malformed(FormatCharacterBook, "data")
		}
		b.format = FormatCharacterBook
		b.in.Title = cmpOr(str(data, "name"), defaultLorebookTitle)
		return b.characterBook(data, "entries")
	case spec != "":
		return unsupported(spec)
	case has(doc, "lorebookVersion"):
		return b.novelAI(doc)
	case isObject(doc["data"]) && (has(doc["data"].(map[string]any), "scenario") || has(doc["data"].(map[string]any), "adventure")):
		return b.aiDungeon(doc["data"].(map[string]any))
	case has(doc, "prompt") && (has(doc, "storyCards") || has(doc, "gameCodeOnInput") || has(doc, "memory")):
		return b.aidScenario(doc, FormatAIDungeon)
	case isObject(doc["entries"]):
		return b.sillyTavern(doc)
	case isArray(doc["entries"]):
		b.format = FormatCharacterBook
		b.in.Title = cmpOr(str(doc, "name"), defaultLorebookTitle)
		return b.characterBook(doc, "entries")
	case has(doc, "first_mes") && has(doc, "name"):
		return b.characterCard(doc)
	}
	return unsupported("")
}

func unsupported(claimed string) error {
	e := apperr.E(apperr.ImportFormatUnsupported, "The file is not in a format this version can import.")
	if claimed != "" {
		e.Details = map[string]any{"format": claimed}
	}
	return e
}

// tooLarge refuses what (the file, or a part of it) for being larger than
// limit bytes.
func tooLarge(what string, limit int64) error {
	e := apperr.E(apperr.InvalidRequest, "%s is larger than %d MiB.", what, limit>>20)
	e.Details = map[string]any{"limit": limit}
	return e
}

// malformed: the format was recognised but a part of it has the wrong shape.
func malformed(format, field string) error {
	e := apperr.E(apperr.InvalidRequest, "The %s file has a malformed %q.", format, field)
	e.Details = map[string]any{"format": format, "field": field}
	return e
}

// decode reads JSON keeping numbers as written.
func decode(data []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if d.More() {
		return nil, fmt.Errorf("data after the JSON value")
	}
	return v, nil
}

// builder collects the scenario and the notes while a reader walks a file.
type builder struct {
	format   string
	in       narrative.ScenarioInput
	mapped   []Note
	unmapped []Note
	dropped  int             // entries beyond narrative.MaxCards
	titles   map[string]bool // card titles taken
}

func (b *builder) mapField(from, to string) {
	b.mapped = append(b.mapped, Note{Code: NoteField, Params: map[string]string{"from": from, "to": to}})
}

func (b *builder) note(code, entry string, params ...string) {
	n := Note{Code: code, Entry: entry}
	if len(params) > 0 {
		n.Params = map[string]string{}
		for i := 0; i+1 < len(params); i += 2 {
			n.Params[params[i]] = params[i+1]
		}
	}
	b.unmapped = append(b.unmapped, n)
}

func (b *builder) notMapped(field, reason string) {
	b.note(NoteFieldNotMapped, "", "field", field, "reason", reason)
}

// text fits one scenario text field and records where it came from.
func (b *builder) text(dst *string, value, from, to string) {
	value = strings.TrimSpace(models.CleanText(value))
	if value == "" {
		return
	}
	*dst = b.clip("", to, value, narrative.ScenarioLimits.Text)
	b.mapField(from, to)
}

// clip cuts value to limit runes, noting it when it does.
func (b *builder) clip(entry, field, value string, limit int) string {
	if utf8.RuneCountInString(value) <= limit {
		return value
	}
	b.note(NoteTextClipped, entry, "field", field, "limit", strconv.Itoa(limit))
	return string([]rune(value)[:limit])
}

// card is one story card on its way in.
type card struct {
	title, entry, typ string
	keys, secondary   []string
	logic             string
	constant          bool
	priority          int
	// useRegex: a key with regular-expression characters is a pattern
	// (a character book's use_regex), case-sensitive with caseSensitive.
	useRegex, caseSensitive bool
}

// addCard fits a card into the scenario's limits and appends it; name is
// the entry as the notes call it.
func (b *builder) addCard(name string, c card) {
	if len(b.in.Cards) >= narrative.MaxCards {
		b.dropped++
		return
	}
	lim := narrative.ScenarioLimits
	c.title = strings.TrimSpace(models.CleanText(c.title))
	regexes := 0
	keys := b.cleanKeys(name, c, c.keys, &regexes)
	secondary := b.cleanKeys(name, c, c.secondary, &regexes)
	if c.title == "" && len(keys) > 0 {
		c.title = keys[0]
	}
	if c.title == "" {
		c.title = fmt.Sprintf("Card %d", len(b.in.Cards)+1)
	}
	c.title = b.clip(c.title, "title", c.title, lim.CardTitle)
	c.title = b.uniqueTitle(c.title)
	keys = b.fitKeys(c.title, keys)
	secondary = b.fitKeys(c.title, secondary)
	entry := b.clip(c.title, "entry", strings.TrimSpace(models.CleanText(c.entry)), lim.CardEntry)
	typ := b.clip(c.title, "type", strings.TrimSpace(models.CleanText(c.typ)), lim.CardType)
	in := narrative.CardInput{Title: c.title, Keys: keys, Entry: entry, Type: typ, Constant: c.constant, Priority: c.priority}
	if len(secondary) > 0 {
		in.SecondaryKeys, in.Logic = secondary, c.logic
	}
	if in.Logic == prompt.LogicAndAny {
		in.Logic = ""
	}
	if !prompt.CanFire(prompt.Card{Keys: in.Keys, SecondaryKeys: in.SecondaryKeys, Logic: in.Logic, Constant: in.Constant}) {
		b.note(NoteNeverFires, c.title)
	}
	b.in.Cards = append(b.in.Cards, in)
}

// cleanKeys trims and de-duplicates keys, turns a character book's
// use_regex keys into /pattern/ keys, and keeps a regular-expression key
// only when the matcher takes it (regexes counts them across the card's
// keys and secondary keys); a refused one is noted with the reason.
func (b *builder) cleanKeys(name string, c card, in []string, regexes *int) []string {
	keys := []string{}
	seen := map[string]bool{}
	for _, k := range in {
		k = strings.TrimSpace(models.CleanText(k))
		if k == "" || seen[strings.ToLower(k)] {
			continue
		}
		seen[strings.ToLower(k)] = true
		if c.useRegex && !prompt.IsRegexKey(k) && strings.ContainsAny(k, `\^$.|?*+()[]{}`) {
			flags := "i"
			if c.caseSensitive {
				flags = ""
			}
			k = "/" + k + "/" + flags
		}
		if prompt.IsRegexKey(k) {
			_, err := prompt.CompileRegexKey(k)
			if err == nil && *regexes >= prompt.MaxRegexKeys {
				err = prompt.ErrRegexTooMany
			}
			if err != nil {
				b.note(NoteRegexKey, name, "key", k, "reason", narrative.RegexRefusal(err))
				continue
			}
			*regexes++
		}
		keys = append(keys, k)
	}
	return keys
}

// fitKeys keeps the keys a card may hold: plain keys of up to 80
// characters, at most 20; the rest are noted.
func (b *builder) fitKeys(title string, keys []string) []string {
	lim := narrative.ScenarioLimits
	fitted := []string{}
	long := 0
	for _, k := range keys {
		if !prompt.IsRegexKey(k) && utf8.RuneCountInString(k) > lim.CardKeyRunes {
			long++
			continue
		}
		fitted = append(fitted, k)
	}
	if len(fitted) > lim.CardKeys {
		long += len(fitted) - lim.CardKeys
		fitted = fitted[:lim.CardKeys]
	}
	if long > 0 {
		b.note(NoteKeysOverLimit, title, "count", strconv.Itoa(long), "limit", strconv.Itoa(lim.CardKeys))
	}
	return fitted
}

// uniqueTitle numbers a title already taken by another card ("Mira (2)"),
// within the title limit.
func (b *builder) uniqueTitle(t string) string {
	if b.titles == nil {
		b.titles = map[string]bool{}
	}
	s := t
	for i := 2; b.titles[s]; i++ {
		suffix := fmt.Sprintf(" (%d)", i)
		r := []rune(t)
		if room := narrative.ScenarioLimits.CardTitle - utf8.RuneCountInString(suffix); len(r) > room {
			r = r[:room]
		}
		s = string(r) + suffix
	}
	b.titles[s] = true
	return s
}

// finish closes the preview.
func (b *builder) finish() Preview {
	if b.dropped > 0 {
		b.note(NoteCardsOverLimit, "", "count", strconv.Itoa(b.dropped), "limit", strconv.Itoa(narrative.MaxCards))
	}
	if b.in.Cards == nil {
		b.in.Cards = []narrative.CardInput{}
	}
	b.in.Title = strings.TrimSpace(models.CleanText(b.in.Title))
	b.in.Title = b.clip("", "title", b.in.Title, narrative.ScenarioLimits.Title)
	if strings.TrimSpace(b.in.Title) == "" {
		b.in.Title = defaultLorebookTitle
	}
	if b.in.StatSchema == nil {
		b.in.StatSchema = narrative.Schema{}
	}
	if b.mapped == nil {
		b.mapped = []Note{}
	}
	if b.unmapped == nil {
		b.unmapped = []Note{}
	}
	return Preview{Format: b.format, Title: b.in.Title, Scenario: b.in, Mapped: b.mapped, Unmapped: b.unmapped}
}

// cardsNote records how many entries became cards.
func (b *builder) cardsNote(from string, before int) {
	if n := len(b.in.Cards) - before; n > 0 {
		b.mapped = append(b.mapped, Note{Code: NoteCards, Params: map[string]string{"from": from, "count": strconv.Itoa(n)}})
	}
}

// Helpers over decoded JSON. A field of another type reads as absent.

func has(m map[string]any, k string) bool { _, ok := m[k]; return ok }
func isObject(v any) bool                 { _, ok := v.(map[string]any); return ok }
func isArray(v any) bool                  { _, ok := v.([]any); return ok }

func str(m map[string]any, k string) string {
	s, _ := m[k].(string)
	return s
}

func boolean(m map[string]any, k string) bool {
	v, _ := m[k].(bool)
	return v
}

func number(m map[string]any, k string) (float64, bool) {
	n, ok := m[k].(json.Number)
	if !ok {
		return 0, false
	}
	f, err := n.Float64()
	return f, err == nil
}

// strs reads a list of strings, or one comma-separated string.
func strs(m map[string]any, k string) []string {
	switch v := m[k].(type) {
	case string:
		return strings.Split(v, ",")
	case []any:
		out := make([]string, 0, len(v))
		for _, x := range v {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// show writes a JSON value for a note.
func show(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case json.Number:
		return x.String()
	case bool:
		return strconv.FormatBool(x)
	case nil:
		return "null"
	}
	b, _ := json.Marshal(v)
	s := string(b)
	if utf8.RuneCountInString(s) > 80 {
		s = string([]rune(s)[:79]) + "…"
	}
	return s
}

// option describes a per-entry setting this app has no equivalent for, and
// the values that mean "off" (so a default is not reported).
type option struct {
	name     string
	defaults []string
}

// reportOptions notes each option of m whose value is not a default.
func (b *builder) reportOptions(entry string, m map[string]any, opts []option) {
	for _, o := range opts {
		v, ok := m[o.name]
		if !ok || v == nil {
			continue
		}
		s := show(v)
		off := false
		for _, d := range o.defaults {
			if s == d {
				off = true
				break
			}
		}
		if !off {
			b.note(NoteEntryOption, entry, "option", o.name, "value", s)
		}
	}
}

// sortedKeys orders the keys of an entries object by their number when they
// are numbers (SillyTavern uids), else as text.
func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, errA := strconv.Atoi(keys[i])
		c, errC := strconv.Atoi(keys[j])
		if errA == nil && errC == nil {
			return a < c
		}
		return keys[i] < keys[j]
	})
	return keys
}

func cmpOr(a, b string) string {
	if strings.TrimSpace(a) != "" {
		return a
	}
	return b
}
