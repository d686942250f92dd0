// Package prompt builds the narrator's prompt for one turn of a solo adventure.
//
// It is pure: the caller passes everything (the static inputs a person edits,
// the live sections, the story cards and the window of history the reader
// fetched) and gets back the exact messages plus an account of what each
// section cost. Two concerns shape it:
//
//   - Budget. Fixed sections are charged whatever they cost; story cards and
//     history share what is left (cards at most 40% of it), history filling
//     backwards from the newest turn.
//   - Caching. Endpoints cache a prompt prefix, so sections are ordered from
//     least to most volatile: a static system block that is byte-identical
//     across turns, then the history (which only grows at its end), then one
//     final user message with the live sections and the tail.
package prompt

import (
	"strings"

	"github.com/adventure-table/adventure-table/gameplay/llm"
)

// Card is one story card of an adventure.
type Card struct {
	ID    int64
	Title string
	// Keys are trigger words/phrases, matched case-insensitively on word
	// boundaries, or /pattern/flags regular expressions (see IsRegexKey).
	Keys []string
	// SecondaryKeys, when present, must pass Logic over the scanned turns
	// for a named card to fire.
	SecondaryKeys []string
	Logic         string // one of Logics; "" is LogicAndAny
	// Constant cards are in every prompt without a key, still within the
	// card budget, ahead of the others.
	Constant bool
	// Priority orders the lore section (lower first, higher nearer the end)
	// and decides which cards win a short budget (higher first).
	Priority int
	Entry    string
	Type     string
}

// Turn is one node of the story as the history reader returns it.
type Turn struct {
	ID     int64
	Kind   string // "opening", "player" or "narration"
	Text   string
	Tokens int // cached token count of Text; 0 means "count it"
}

// Input is everything one prompt is built from.
type Input struct {
	// Static block: only what a person edits by hand; byte-identical across turns.
	Premise         string // the scenario prompt
	StatGuide       string // rendered by the caller: one line per stat with its min/max and full band ladder; "" = no RPG layer
	AIInstructions  string
	PersonaName     string
	PersonaPronouns string
	PersonaDesc     string
	PlotEssentials  string
	// Live sections (below the history, least to most volatile).
	Summary   string   // empty until the memory bank exists (seam)
	Memories  []string // empty until the memory bank exists (seam)
	StateLine string   // e.g. "hp 55/100 (minor damage) · gold 3/999"; "" = no RPG layer
	// Tail.
	FrontMemory string // seam; usually ""
	AuthorsNote string // injected 3 actions from the end of the history
	// Elastic.
	Cards   []Card
	History []Turn // the window the reader fetched, OLDEST FIRST, newest last (the newest is usually the player's action of this turn)
	// Budgets.
	Budget          int // context token budget of the user's settings
	MaxOutputTokens int // the user's max output tokens (drives the length hint)
}

// Section is the cost of one section of a built prompt. Name is one of
// "static", "history", "authors_note", "summary", "lore", "memories", "stats",
// "front_memory", "length_hint", "refusal_note" or "emit_reminder".
type Section struct {
	Name   string
	Tokens int
	Fixed  bool // fixed sections are charged whatever they cost
}

// CardReport says what became of one triggered story card.
type CardReport struct {
	ID       int64
	Title    string
	Trigger  string // the key that matched ("" for a constant card; a card neither named nor constant is not reported)
	Constant bool   // in without a key
	Tokens   int
	Included bool // false when it did not fit the 40% card budget
}

// Result is a built prompt and its accounting.
type Result struct {
	Messages        []llm.Message // the exact prompt
	StaticBlock     string        // the system message content (byte-identical across turns when the static inputs are)
	Sections        []Section     // in prompt order, only sections that are present
	Cards           []CardReport  // every triggered card, included or not
	HistoryTurns    int           // how many turns of History made it in
	HistoryTokens   int
	NewestTruncated bool // the newest turn alone was over budget and was hard-truncated
	TotalTokens     int  // sum of all section tokens
	Budget          int
	Available       int // max(256, Budget - reserved)
	// HistoryBudget is what the story may take: Available less the lore.
	// The lore depends only on the newest turns, so a build with those
	// alone tells a reader how much more of the story to fetch.
	HistoryBudget int
}

// authorsNoteDepth (AUTHORS_NOTE_DEPTH) is how many history turns from the
// end the author's note is injected before: it is a steering control, and
// steering works best close to where the model writes.
const authorsNoteDepth = 3

// minAvailable is the floor of the elastic budget, so that fixed sections
// larger than the whole budget still leave room for some story.
const minAvailable = 256

// part is one section of the prompt while it is being assembled.
type part struct {
	name   string
	text   string
	tokens int
	fixed  bool
}

// newPart measures a section. An empty text is an absent section costing
// nothing.
func newPart(name, text string, fixed bool) part {
	return part{name: name, text: text, tokens: Count(text), fixed: fixed}
}

// Build assembles the prompt for one turn. It never fails and never panics:
// empty inputs leave their sections out, and a budget too small for the fixed
// sections still leaves 256 tokens for cards and history.
//
// Sections are listed in prompt order by where each one starts; the author's
// note sits inside the history, so it is listed before "history" when it
// precedes the first turn and after it otherwise. Message framing and the
// blank lines between paragraphs are not charged.
func Build(in Input) Result {
	static := newPart("static", staticBlock(in), true)
	note := newPart("authors_note", authorsNote(in.AuthorsNote), true)
	summary, memories, stats := liveParts(in)
	tail := tailParts(in) // front memory, length hint, refusal note, emit reminder
	reserved := static.tokens + note.tokens + summary.tokens + memories.tokens + stats.tokens
	for _, p := range tail {
		reserved += p.tokens
	}
	available := availableTokens(in.Budget, reserved)

	reports, loreText := selectCards(in.Cards, in.History, cardBudget(available))
	lore := newPart("lore", loreText, false)
	hist := fitHistory(in.History, available-lore.tokens)

	// The live sections go from least to most volatile (the summary changes
	// every few actions, lore with the scene, memories and stats nearly every
	// turn), so a turn that changes only a stat keeps the others cached.
	final := present(append([]part{summary, lore, memories, stats}, tail...))

	res := Result{
		StaticBlock:     static.text,
		Cards:           reports,
		HistoryTurns:    len(hist.turns),
		HistoryTokens:   hist.tokens,
		NewestTruncated: hist.truncated,
		Budget:          in.Budget,
		Available:       available,
		HistoryBudget:   available - lore.tokens,
	}
	res.Messages = assembleMessages(static.text, note, hist.turns, final)
	res.Sections = sections(static, note, hist, final)
	for _, s := range res.Sections {
		res.TotalTokens += s.Tokens
	}
	return res
}

// availableTokens is max(minAvailable, budget - reserved), written so that
// extreme budgets cannot overflow.
func availableTokens(budget, reserved int) int {
	if budget > reserved && budget-reserved > minAvailable {
		return budget - reserved
	}
	return minAvailable
}

// cardBudget is floor(available * 0.4) without overflowing on huge budgets.
func cardBudget(available int) int {
	return available/10*4 + available%10*4/10
}

// present drops the parts whose input was empty.
func present(parts []part) []part {
	out := parts[:0]
	for _, p := range parts {
		if p.text != "" {
			out = append(out, p)
		}
	}
	return out
}

// assembleMessages lays the prompt out: the static system block, the history
// with the author's note injected, then one user message holding the live and
// tail paragraphs.
func assembleMessages(static string, note part, turns []Turn, final []part) []llm.Message {
	msgs := make([]llm.Message, 0, len(turns)+3)
	msgs = append(msgs, llm.Message{Role: llm.RoleSystem, Content: static})
	at := noteIndex(len(turns))
	for i, t := range turns {
		if i == at && note.text != "" {
			msgs = append(msgs, llm.Message{Role: llm.RoleUser, Content: note.text})
		}
		msgs = append(msgs, llm.Message{Role: roleOf(t.Kind), Content: t.Text})
	}
	if len(turns) == 0 && note.text != "" {
		msgs = append(msgs, llm.Message{Role: llm.RoleUser, Content: note.text})
	}
	texts := make([]string, len(final))
	for i, p := range final {
		texts[i] = p.text
	}
	// The refusal note is always present, so this message is never empty.
	msgs = append(msgs, llm.Message{Role: llm.RoleUser, Content: strings.Join(texts, "\n\n")})
	return msgs
}

// noteIndex is the index of the history turn the author's note goes before:
// authorsNoteDepth turns from the end, or the first turn of a shorter history.
func noteIndex(turns int) int {
	return max(0, turns-authorsNoteDepth)
}

// roleOf maps a turn kind to a chat role. Anything but the player's own
// action is the narrator's voice.
func roleOf(kind string) string {
	if kind == "player" {
		return llm.RoleUser
	}
	return llm.RoleAssistant
}

// sections lists the present sections in prompt order.
func sections(static, note part, hist history, final []part) []Section {
	out := []Section{{Name: static.name, Tokens: static.tokens, Fixed: true}}
	histSection := Section{Name: "history", Tokens: hist.tokens}
	noteSection := Section{Name: note.name, Tokens: note.tokens, Fixed: true}
	hasHist, hasNote := len(hist.turns) > 0, note.text != ""
	switch {
	case hasHist && hasNote && noteIndex(len(hist.turns)) > 0:
		out = append(out, histSection, noteSection)
	case hasHist && hasNote:
		out = append(out, noteSection, histSection)
	case hasHist:
		out = append(out, histSection)
	case hasNote:
		out = append(out, noteSection)
	}
	for _, p := range final {
		out = append(out, Section{Name: p.name, Tokens: p.tokens, Fixed: p.fixed})
	}
	return out
}
