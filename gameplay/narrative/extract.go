package narrative

import (
	"encoding/json"
	"regexp"
	"strings"
)

// maxBareAttempts bounds how many '{' positions the bare-object fallback tries,
// counting back from the end, so a long narration full of braces stays linear.
const maxBareAttempts = 16

// dottedPath is what a key of a bare trailing object must look like. At least
// one dot is required: prose such as {"name": "Bob"} is JSON but no delta.
var dottedPath = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*(\.[A-Za-z0-9_-]+)+$`)

// ExtractDelta finds the model's proposed state delta in a narration and
// returns the prose with the block removed. It never fails: a malformed block
// gives an empty (non-nil) delta and the prose untouched except that a
// recognised fence is still stripped, so the player never sees broken JSON.
//
// A recognised fence is one labelled state or json (any case), or an
// unlabelled one whose body starts with "{"; other fences (```python, a poem in
// a bare fence) are prose. An unclosed recognised fence runs to the end of the
// text, because the state block comes last and truncation eats its end first.
// All recognised fences are stripped, and when there are several the last one
// wins: the model emits the block as its final act, and an earlier block is a
// draft it went on to replace. Inside a fence, trailing commas and leading '+'
// on numbers are tolerated, empty keys are dropped, and every other key and
// value is passed on for Referee to judge and report.
//
// Only when no recognised fence exists, a bare JSON object hugging the end of
// the text is taken, and only if it is delta-shaped: non-empty, every key a
// dotted path, every value a number, bool or string. Prose ending in "}" is
// therefore never eaten.
func ExtractDelta(text string) (prose string, delta map[string]any) {
	fences := findFences(text)
	if len(fences) == 0 {
		return extractBare(text)
	}

	delta = map[string]any{}
	if m, ok := parseObject(fences[len(fences)-1].body); ok {
		for k, v := range m {
			if k != "" {
				delta[k] = v
			}
		}
	}

	// Rejoin the prose around the fences with a paragraph break. Each fence
	// is at least four bytes and each separator two, so prose never grows.
	var parts []string
	prev := 0
	for _, f := range fences {
		parts = appendTrimmed(parts, text[prev:f.start])
		prev = f.end
	}
	parts = appendTrimmed(parts, text[prev:])
	return strings.Join(parts, "\n\n"), delta
}

func appendTrimmed(parts []string, s string) []string {
	if s = strings.TrimSpace(s); s != "" {
		parts = append(parts, s)
	}
	return parts
}

// fence is a recognised code fence: text[start:end] is removed from the prose.
type fence struct {
	start, end int
	body       string
}

// findFences returns the recognised fences of text in order. Unrecognised
// fences are skipped as a whole so their closing ``` is not mistaken for an
// opening one.
func findFences(text string) []fence {
	var out []fence
	pos := 0
	for {
		i := strings.Index(text[pos:], "```")
		if i < 0 {
			return out
		}
		open := pos + i
		j := open + 3
		for j < len(text) && isLabelByte(text[j]) {
			j++
		}
		label := text[open+3 : j]
		k := strings.Index(text[j:], "```")
		body, end := text[j:], len(text)
		if k >= 0 {
			body, end = text[j:j+k], j+k+3
		}
		recognised := strings.EqualFold(label, "state") || strings.EqualFold(label, "json") ||
			(label == "" && strings.HasPrefix(strings.TrimSpace(body), "{"))
		if recognised {
			out = append(out, fence{start: open, end: end, body: body})
		}
		if k < 0 {
			return out
		}
		pos = end
	}
}

func isLabelByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// extractBare implements the fallback for a narration with no fence.
func extractBare(text string) (string, map[string]any) {
	end := len(strings.TrimRight(text, " \t\r\n"))
	if end == 0 || text[end-1] != '}' {
		return text, map[string]any{}
	}
	i := strings.LastIndexByte(text[:end], '{')
	for tries := 0; i >= 0 && tries < maxBareAttempts; tries++ {
		if m, ok := parseObject(text[i:end]); ok {
			// The first object that parses is the one hugging the end; an
			// earlier '{' could only enclose it, making it nested, not a delta.
			if deltaShaped(m) {
				return strings.TrimRight(text[:i], " \t\r\n"), m
			}
			break
		}
		i = strings.LastIndexByte(text[:i], '{')
	}
	return text, map[string]any{}
}

func deltaShaped(m map[string]any) bool {
	if len(m) == 0 {
		return false
	}
	for k, v := range m {
		if !dottedPath.MatchString(k) {
			return false
		}
		switch v.(type) {
		case float64, bool, string:
		default:
			return false
		}
	}
	return true
}

// parseObject decodes s as a JSON object after loosening it. A top-level
// value that is not an object (including null) is not ok.
func parseObject(s string) (map[string]any, bool) {
	var m map[string]any
	if err := json.Unmarshal([]byte(loosen(s)), &m); err != nil || m == nil {
		return nil, false
	}
	return m, true
}

// loosen repairs the two mistakes free-tier models make most in otherwise
// valid JSON: a trailing comma before } or ], and a leading '+' on a number
// ({"player.hp": +5}). String literals are copied untouched, so a "+" or ","
// inside one survives.
func loosen(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	inString, escaped := false, false
	var lastSig byte // last non-space byte written outside a string
	for i := 0; i < len(s); i++ {
		c := s[i]
		if inString {
			b.WriteByte(c)
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
				lastSig = c
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case ',':
			if n := nextSig(s, i+1); n == '}' || n == ']' {
				continue
			}
		case '+':
			// Only a sign where a value starts; "1e+5" keeps its '+'.
			if (lastSig == ':' || lastSig == ',' || lastSig == '[') && i+1 < len(s) &&
				(s[i+1] >= '0' && s[i+1] <= '9' || s[i+1] == '.') {
				continue
			}
		}
		b.WriteByte(c)
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			lastSig = c
		}
	}
	return b.String()
}

// nextSig returns the first non-space byte of s at or after i, or 0.
func nextSig(s string, i int) byte {
	for ; i < len(s); i++ {
		switch s[i] {
		case ' ', '\t', '\r', '\n':
		default:
			return s[i]
		}
	}
	return 0
}
