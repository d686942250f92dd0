package prompt

import (
	"cmp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// triggerTurns is how many of the newest turns are scanned for card keys:
// lore follows the current scene, not everything the window still holds.
const triggerTurns = 6

// minKeyRunes ignores one-letter keys, which would match "a" and "I".
const minKeyRunes = 2

// loreHeading opens the lore section; its cost comes out of the card budget.
const loreHeading = "Lore:"

// trigger is a card that fires: a constant one, or one whose key appeared
// in the scanned turns with its secondary keys passing its logic.
type trigger struct {
	card int    // index into the input cards
	age  int    // 0 for the newest turn, 1 for the one before, ...; 0 for a constant card
	key  string // the key as the card spells it; "" for a constant card
}

// selectCards reports every triggered card and renders the included ones.
// Cards are considered constant ones first, then by priority (higher
// first), then from the most recently named one, ties in input order, and
// included while they fit budget; a card that does not fit is skipped, so a
// smaller one after it may still get in.
func selectCards(cards []Card, window []Turn, budget int) ([]CardReport, string) {
	hits := findTriggers(cards, window, true)
	if len(hits) == 0 {
		return nil, ""
	}
	slices.SortStableFunc(hits, func(a, b trigger) int {
		ca, cb := cards[a.card], cards[b.card]
		if ca.Constant != cb.Constant {
			if ca.Constant {
				return -1
			}
			return 1
		}
		return cmp.Or(cmp.Compare(cb.Priority, ca.Priority), cmp.Compare(a.age, b.age), cmp.Compare(a.card, b.card))
	})
	spent := Count(loreHeading)
	included := make([]bool, len(cards))
	reports := make([]CardReport, 0, len(hits))
	for _, h := range hits {
		c := cards[h.card]
		tokens := Count(cardLine(c))
		fits := tokens <= budget-spent
		if fits {
			spent += tokens
			included[h.card] = true
		}
		reports = append(reports, CardReport{ID: c.ID, Title: c.Title, Trigger: h.key, Constant: c.Constant, Tokens: tokens, Included: fits})
	}
	return reports, renderLore(cards, included)
}

// Triggered returns the ids of the cards that fire on the newest turns of
// window (constant ones too), in input order: the only cards whose entries a
// prompt can hold, so a reader can fetch just those before Build.
func Triggered(cards []Card, window []Turn) []int64 {
	hits := findTriggers(cards, window, true)
	slices.SortFunc(hits, func(a, b trigger) int { return cmp.Compare(a.card, b.card) })
	ids := make([]int64, len(hits))
	for i, h := range hits {
		ids[i] = cards[h.card].ID
	}
	return ids
}

// renderLore lists the included cards by priority, lower first, so the
// most important lore sits nearest the end of the prompt where the model
// writes (SillyTavern's insertion order), ties in input order. It depends
// only on which cards are included, so the same set renders to the same
// bytes whichever turn named them last.
func renderLore(cards []Card, included []bool) string {
	order := make([]int, 0, len(cards))
	for i := range cards {
		if included[i] {
			order = append(order, i)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(cards[a].Priority, cards[b].Priority) })
	var lines []string
	for _, i := range order {
		if line := cardLine(cards[i]); line != "" {
			lines = append(lines, line)
		}
	}
	if len(lines) == 0 {
		return ""
	}
	return loreHeading + "\n" + strings.Join(lines, "\n")
}

// cardLine is one card as the lore section shows it.
func cardLine(c Card) string {
	title, entry := strings.TrimSpace(c.Title), strings.TrimSpace(c.Entry)
	switch {
	case title == "" && entry == "":
		return ""
	case title == "":
		return "- " + entry
	case entry == "":
		return "- " + title
	}
	return "- " + title + ": " + entry
}

// Matching returns the cards that window names, most recently named first
// (the memory bank's cast brief tops up its roster with them). Constant
// cards are not named by anything, so they are not among them.
func Matching(cards []Card, window []Turn) []Card {
	var out []Card
	for _, h := range findTriggers(cards, window, false) {
		out = append(out, cards[h.card])
	}
	return out
}

// findTriggers returns the cards that fire, most recently named first,
// constant ones (when asked for) as named in the newest turn.
func findTriggers(cards []Card, window []Turn, constants bool) []trigger {
	scannedTurns := window[max(0, len(window)-triggerTurns):]
	texts := make([]scanned, len(scannedTurns)) // newest first
	for i, t := range scannedTurns {
		texts[len(scannedTurns)-1-i] = scanned{raw: t.Text, folded: fold(t.Text)}
	}
	var hits []trigger
	for i, c := range cards {
		if c.Constant {
			if constants {
				hits = append(hits, trigger{card: i})
			}
			continue
		}
		regexBudget := MaxRegexKeys
		primary := compileKeys(c.Keys, &regexBudget)
		h, ok := firstTrigger(primary, texts)
		if !ok || !secondaryPass(c.Logic, compileKeys(c.SecondaryKeys, &regexBudget), texts) {
			continue
		}
		h.card = i
		hits = append(hits, h)
	}
	slices.SortStableFunc(hits, func(a, b trigger) int { return cmp.Compare(a.age, b.age) })
	return hits
}

// firstTrigger finds the newest text naming one of keys. Within one text the
// first key in the card's order wins.
func firstTrigger(keys []keyMatcher, texts []scanned) (trigger, bool) {
	for age, text := range texts {
		for _, k := range keys {
			if k.matches(text) {
				return trigger{age: age, key: k.key}, true
			}
		}
	}
	return trigger{}, false
}

// secondaryPass applies a card's logic to its secondary keys over the whole
// scanned window, as SillyTavern checks them against its scan buffer. No
// secondary keys pass; a key that can never match counts as not named.
func secondaryPass(logic string, keys []keyMatcher, texts []scanned) bool {
	if len(keys) == 0 {
		return true
	}
	named := 0
	for _, k := range keys {
		if slices.ContainsFunc(texts, k.matches) {
			named++
		}
	}
	switch logic {
	case LogicAndAll:
		return named == len(keys)
	case LogicNotAny:
		return named == 0
	case LogicNotAll:
		return named < len(keys)
	}
	return named > 0
}

// CanFire reports whether a card can ever enter a prompt: it is constant,
// or one of its keys can match and its secondary keys can pass its logic.
func CanFire(c Card) bool {
	if c.Constant {
		return true
	}
	regexBudget := MaxRegexKeys
	if !slices.ContainsFunc(compileKeys(c.Keys, &regexBudget), keyMatcher.usable) {
		return false
	}
	secondary := compileKeys(c.SecondaryKeys, &regexBudget)
	switch c.Logic {
	case LogicAndAll:
		return !slices.ContainsFunc(secondary, func(k keyMatcher) bool { return !k.usable() })
	case LogicNotAny, LogicNotAll:
		return true
	}
	return len(secondary) == 0 || slices.ContainsFunc(secondary, keyMatcher.usable)
}

// containsWord reports whether key occurs in text on word boundaries. Both
// are folded. An edge of the key that is not a word character ("C++") needs
// no boundary there.
func containsWord(text, key string) bool {
	first, _ := utf8.DecodeRuneInString(key)
	last, _ := utf8.DecodeLastRuneInString(key)
	needStart, needEnd := isWordRune(first), isWordRune(last)
	for from := 0; from < len(text); {
		i := strings.Index(text[from:], key)
		if i < 0 {
			return false
		}
		start, end := from+i, from+i+len(key)
		before, _ := utf8.DecodeLastRuneInString(text[:start])
		after, _ := utf8.DecodeRuneInString(text[end:])
		if (!needStart || start == 0 || !isWordRune(before)) && (!needEnd || end == len(text) || !isWordRune(after)) {
			return true
		}
		_, size := utf8.DecodeRuneInString(text[start:])
		from = start + size
	}
	return false
}

func isWordRune(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r)
}

// fold maps s to a canonical form for case-insensitive matching: every rune
// becomes the smallest rune of its Unicode simple case-folding orbit (so "σ",
// "ς" and "Σ" agree, as do "k", "K" and the Kelvin sign), and every run of
// whitespace becomes one space, so a two-word key matches across a line break.
// Leading and trailing whitespace is dropped.
func fold(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		if unicode.IsSpace(r) {
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(foldRune(r))
	}
	return b.String()
}

func foldRune(r rune) rune {
	if r < utf8.RuneSelf {
		if 'a' <= r && r <= 'z' {
			return r - 'a' + 'A'
		}
		return r
	}
	lowest := r
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		lowest = min(lowest, f)
	}
	return lowest
}
