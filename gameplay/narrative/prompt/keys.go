package prompt

import (
	"errors"
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode/utf8"
)

// Secondary-key logic of a card, SillyTavern's selectiveLogic. A card
// fires when one of its keys is named and its secondary keys pass the
// logic; a card without secondary keys fires on a key alone.
const (
	LogicAndAny = "and_any" // and any secondary key is named (the default, also "")
	LogicAndAll = "and_all" // and every secondary key is named
	LogicNotAny = "not_any" // and no secondary key is named
	LogicNotAll = "not_all" // and not every secondary key is named
)

// Logics lists the logic values a card may hold.
var Logics = []string{LogicAndAny, LogicAndAll, LogicNotAny, LogicNotAll}

// ValidLogic reports whether logic is one of Logics or "" (AND_ANY).
func ValidLogic(logic string) bool {
	switch logic {
	case "", LogicAndAny, LogicAndAll, LogicNotAny, LogicNotAll:
		return true
	}
	return false
}

// Bounds of regular-expression keys. Go's regexp is RE2: matching takes
// time linear in the text for a compiled program of bounded size, so a key
// can cost no more than the text it scans times its program.
const (
	MaxRegexBytes = 200 // the pattern between the slashes
	MaxRegexKeys  = 5   // per card, keys and secondary keys together
	maxRegexInsts = 2000
)

// Why a regular-expression key is refused.
var (
	ErrRegexTooLong     = errors.New("the pattern is longer than 200 bytes")
	ErrRegexUnsupported = errors.New("the pattern uses what a linear-time matcher cannot do (lookaround, backreference) or does not compile")
	ErrRegexTooComplex  = errors.New("the pattern compiles to too large a program")
	ErrRegexTooMany     = errors.New("a card holds at most 5 regular-expression keys")
)

// IsRegexKey reports whether a key is a regular expression written
// /pattern/flags, as SillyTavern and AI Dungeon's Enhanced World Info write
// them (flags among g, i, m, s, u, y).
func IsRegexKey(k string) bool {
	k = strings.TrimSpace(k)
	if len(k) < 3 || k[0] != '/' {
		return false
	}
	end := strings.LastIndexByte(k, '/')
	return end > 1 && strings.Trim(k[end+1:], "gimsuy") == ""
}

// CompileRegexKey compiles a /pattern/flags key for the matcher: i, m and s
// keep their JavaScript meaning, g, u and y change nothing about whether a
// text matches. It returns one of the ErrRegex errors for a pattern it
// refuses.
func CompileRegexKey(k string) (*regexp.Regexp, error) {
	k = strings.TrimSpace(k)
	end := strings.LastIndexByte(k, '/')
	pattern, flags := k[1:end], k[end+1:]
	if len(pattern) > MaxRegexBytes {
		return nil, ErrRegexTooLong
	}
	var prefix string
	for _, f := range "ims" {
		if strings.ContainsRune(flags, f) {
			prefix += string(f)
		}
	}
	if prefix != "" {
		prefix = "(?" + prefix + ")"
	}
	parsed, err := syntax.Parse(prefix+pattern, syntax.Perl)
	if err != nil {
		return nil, ErrRegexUnsupported
	}
	prog, err := syntax.Compile(parsed.Simplify())
	if err != nil || len(prog.Inst) > maxRegexInsts {
		return nil, ErrRegexTooComplex
	}
	re, err := regexp.Compile(prefix + pattern)
	if err != nil {
		return nil, ErrRegexUnsupported
	}
	return re, nil
}

// CheckKeys reports the first problem of a card's keys and secondary keys
// as the matcher would meet it: a regular-expression key it refuses, or
// more than MaxRegexKeys of them. nil when every key can be matched.
func CheckKeys(keys, secondary []string) (key string, err error) {
	n := 0
	for _, k := range append(append([]string(nil), keys...), secondary...) {
		if !IsRegexKey(k) {
			continue
		}
		if _, err := CompileRegexKey(k); err != nil {
			return k, err
		}
		if n++; n > MaxRegexKeys {
			return k, ErrRegexTooMany
		}
	}
	return "", nil
}

// scanned is one turn of the scanned window, as written and folded.
type scanned struct{ raw, folded string }

// keyMatcher is one key ready to match: a plain key folded, or a compiled
// regular expression. A key that can never match (one letter, a refused
// pattern) has neither.
type keyMatcher struct {
	key    string // as the card spells it
	folded string
	re     *regexp.Regexp
}

// compileKeys prepares keys in order. budget counts the regular
// expressions the card may still compile: past it they never match.
func compileKeys(keys []string, budget *int) []keyMatcher {
	out := make([]keyMatcher, 0, len(keys))
	for _, k := range keys {
		k = strings.TrimSpace(k)
		if k == "" {
			continue
		}
		m := keyMatcher{key: k}
		if IsRegexKey(k) {
			if *budget > 0 {
				*budget--
				m.re, _ = CompileRegexKey(k)
			}
		} else if f := fold(k); utf8.RuneCountInString(f) >= minKeyRunes {
			m.folded = f
		}
		out = append(out, m)
	}
	return out
}

// usable reports whether the key can match anything at all.
func (m keyMatcher) usable() bool { return m.re != nil || m.folded != "" }

// matches reports whether the key names t: a plain key as a whole word of
// the folded text, a regular expression anywhere in the text as written.
func (m keyMatcher) matches(t scanned) bool {
	switch {
	case m.re != nil:
		return m.re.MatchString(t.raw)
	case m.folded != "":
		return containsWord(t.folded, m.folded)
	}
	return false
}

// MatchRegexKey reports whether the /pattern/flags key matches text, false
// for a key the matcher refuses (the fuzz target's entry point).
func MatchRegexKey(key, text string) bool {
	if !IsRegexKey(key) {
		return false
	}
	n := 1
	ms := compileKeys([]string{key}, &n)
	return len(ms) == 1 && ms[0].matches(scanned{raw: text, folded: fold(text)})
}

// SplitKeys reads keys written as one comma-separated string (AI Dungeon's
// cards, the scripts' storyCards): trimmed, empty ones dropped, and a
// /pattern/flags key kept whole when its pattern holds commas ("/a{1,3}/").
func SplitKeys(s string) []string {
	parts := strings.Split(s, ",")
	out := []string{}
	for i := 0; i < len(parts); i++ {
		k := strings.TrimSpace(parts[i])
		if strings.HasPrefix(k, "/") && !IsRegexKey(k) {
			for j := i + 1; j < len(parts); j++ {
				if joined := strings.Join(parts[i:j+1], ","); IsRegexKey(joined) {
					k, i = strings.TrimSpace(joined), j
					break
				}
			}
		}
		if k != "" {
			out = append(out, k)
		}
	}
	return out
}
