package prompt

import (
	"strings"
	"unicode/utf8"
)

// Small text helpers the memory banks share (the solo adventure's and the
// table's campaign memory): what is sent to a model and what comes back.

// OneLine folds whitespace runs, newlines included, into single spaces.
func OneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// ClipMarked cuts s to at most n runes, marking a cut with an ellipsis.
func ClipMarked(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:max(n-1, 0)]) + "…"
}

// ClipTokens cuts s to at most n tokens (as Count counts them), at a word,
// marking a cut with an ellipsis.
func ClipTokens(s string, n int) string {
	if Count(s) <= n {
		return s
	}
	words := strings.Fields(s)
	lo, hi := 0, len(words)
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if Count(strings.Join(words[:mid], " ")+"…") <= n {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return strings.Join(words[:lo], " ") + "…"
}

// CleanMemory keeps a model's memory as one line of prose: no bullet or
// quotes around it, at most maxWords words (cut at a word, marked with an
// ellipsis).
func CleanMemory(prose string, maxWords int) string {
	text := OneLine(prose)
	text = strings.TrimLeft(text, "-*• ")
	text = strings.Trim(text, "\"“”")
	words := strings.Fields(text)
	if len(words) > maxWords {
		text = strings.Join(words[:maxWords], " ") + "…"
	}
	return text
}
