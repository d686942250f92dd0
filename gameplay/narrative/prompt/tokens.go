package prompt

import (
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/tiktoken-go/tokenizer"
)

// o200k loads the o200k_base codec once: building it decodes a vocabulary
// of 200k entries. The codec is safe for concurrent use. Invalid UTF-8 is
// replaced with U+FFFD before tokenizing, as tiktoken does, so counting and
// truncation see the same text an endpoint would.
var o200k = sync.OnceValue(func() tokenizer.Codec {
	c, err := tokenizer.Get(tokenizer.O200kBase)
	if err != nil {
		return nil
	}
	c.SetErrorMode(tokenizer.ErrorModeReplace)
	return c
})

// Count returns the number of tokens in text with the o200k_base BPE. For
// models with another vocabulary it is an estimate, which is all a context
// budget needs.
//
// Long texts that recur turn after turn (the static block, card lines, the
// live sections) are memoised: BPE is most of a build's CPU, and these are
// byte-identical across turns by design. Story turns carry their own cached
// counts and never reach here.
func Count(text string) int {
	if text == "" {
		return 0
	}
	if len(text) < memoMinBytes {
		return count(text)
	}
	if n, ok := memo.Load(text); ok {
		return n.(int)
	}
	n := count(text)
	if memoSize.Add(1) > memoMaxEntries {
		// Crude bound: start over rather than track recency; a miss only
		// costs one recount.
		memo.Clear()
		memoSize.Store(1)
	}
	memo.Store(text, n)
	return n
}

const (
	memoMinBytes   = 128
	memoMaxEntries = 4096
)

var (
	memo     sync.Map // text -> token count
	memoSize atomic.Int64
)

func count(text string) int {
	c := o200k()
	if c == nil {
		return estimate(text)
	}
	n, err := c.Count(text)
	if err != nil {
		return estimate(text)
	}
	return n
}

// estimate is the usual four bytes a token, for when the codec fails.
func estimate(text string) int {
	return (len(text) + 3) / 4
}

// tokensOf is a turn's cost: the cached count when the reader has one.
func tokensOf(t Turn) int {
	if t.Tokens > 0 {
		return t.Tokens
	}
	return Count(t.Text)
}

// keepEnd returns the longest end of text, cut on a token boundary, that
// counts at most limit tokens. The end is kept because it is the most recent
// part of the story, the part the model must continue from.
func keepEnd(text string, limit int) string {
	if limit <= 0 {
		return ""
	}
	c := o200k()
	if c == nil {
		return keepEndBytes(text, limit)
	}
	_, pieces, err := c.Encode(text)
	if err != nil {
		return keepEndBytes(text, limit)
	}
	// Re-encoding a suffix can split its first word differently, so check
	// the real count and drop a token more until it fits.
	for k := min(limit, len(pieces)); k > 0; {
		end := validStart(strings.Join(pieces[len(pieces)-k:], ""))
		n := Count(end)
		if n <= limit {
			return end
		}
		k -= max(1, n-limit)
	}
	return ""
}

// keepEndBytes is keepEnd's fallback when the codec fails, using estimate.
func keepEndBytes(text string, limit int) string {
	if estimate(text) <= limit {
		return text
	}
	return validStart(text[len(text)-limit*4:])
}

// validStart drops the continuation bytes a byte-level token can leave at the
// start of a cut, so the result is valid UTF-8 where the input was.
func validStart(s string) string {
	for len(s) > 0 && !utf8.RuneStart(s[0]) {
		s = s[1:]
	}
	return s
}
