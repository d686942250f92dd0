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

// trigger is a card whose key appeared in the scanned turns.
type trigger struct {
	card int    // index into the input cards
	age  int    // 0 for the newest turn, 1 for the one before, ...
	key  string // the key as the card spells it
}

// selectCards reports every triggered card and renders the included ones.
// Cards are considered from the most recently named one, ties in input
// order, and included while they fit budget; a card that does not fit is
// skipped, so a smaller one after it may still get in.
func selectCards(cards []Card, window []Turn, budget int) ([]CardReport, string) {
	hits := findTriggers(cards, window)
	if len(hits) == 0 {
		return nil, ""
	}
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
		reports = append(reports, CardReport{ID: c.ID, Title: c.Title, Trigger: h.key, Tokens: tokens, Included: fits})
	}
	return reports, renderLore(cards, included)
}

// renderLore lists the included cards in input order rather than trigger
// order, so the same set of cards renders to the same bytes whichever turn
// named them last.
func renderLore(cards []Card, included []bool) string {
	var lines []string
	for i, c := range cards {
		if line := cardLine(c); included[i] && line != "" {
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
// (the memory bank's cast brief tops up its roster with them).
func Matching(cards []Card, window []Turn) []Card {
	var out []Card
	for _, h := range findTriggers(cards, window) {
		out = append(out, cards[h.card])
	}
	return out
}

// findTriggers returns the triggered cards, most recently named first.
func findTriggers(cards []Card, window []Turn) []trigger {
	scanned := window[max(0, len(window)-triggerTurns):]
	texts := make([]string, len(scanned)) // newest first
	for i, t := range scanned {
		texts[len(scanned)-1-i] = fold(t.Text)
	}
	var hits []trigger
	for i, c := range cards {
		if h, ok := firstTrigger(c.Keys, texts); ok {
			h.card = i
			hits = append(hits, h)
		}
	}
	slices.SortStableFunc(hits, func(a, b trigger) int { return cmp.Compare(a.age, b.age) })
	return hits
}

// firstTrigger finds the newest text naming one of keys. Within one text the
// first key in the card's order wins.
func firstTrigger(keys []string, texts []string) (trigger, bool) {
	type foldedKey struct{ key, folded string }
	var fks []foldedKey
	for _, k := range keys {
		k = strings.TrimSpace(k)
		if f := fold(k); utf8.RuneCountInString(f) >= minKeyRunes {
			fks = append(fks, foldedKey{k, f})
		}
	}
	for age, text := range texts {
		for _, fk := range fks {
			if containsWord(text, fk.folded) {
				return trigger{age: age, key: fk.key}, true
			}
		}
	}
	return trigger{}, false
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
