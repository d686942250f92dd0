package prompt_test

import (
	"testing"

	"github.com/adventure-table/adventure-table/gameplay/narrative/prompt"
)

func TestCount(t *testing.T) {
	tests := []struct {
		name string
		text string
		want int
	}{
		// o200k_base encodes "hello world" as [24912 2375] ("hello", " world").
		{"HelloWorld", "hello world", 2},
		{"Punctuation", "Hello, world!", 4},
		{"Empty", "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := prompt.Count(tt.text); got != tt.want {
				t.Errorf("Count(%q) = %d, want %d", tt.text, got, tt.want)
			}
		})
	}
	if got := prompt.Count("\xff\xfe invalid"); got <= 0 {
		t.Errorf("Count of invalid UTF-8 = %d, want > 0", got)
	}
}

func TestBuildTurnTokens(t *testing.T) {
	t.Run("CachedUsed", func(t *testing.T) {
		// 40 is deliberately not the real count (2): only a cached value gives it.
		r := prompt.Build(prompt.Input{History: []prompt.Turn{{Kind: "player", Text: "hello world", Tokens: 40}}, Budget: 8000})
		if r.HistoryTokens != 40 || section(t, r, "history").Tokens != 40 {
			t.Errorf("HistoryTokens = %d, want the cached 40", r.HistoryTokens)
		}
	})
	t.Run("ZeroCounted", func(t *testing.T) {
		r := prompt.Build(prompt.Input{History: []prompt.Turn{{Kind: "player", Text: "hello world"}}, Budget: 8000})
		if r.HistoryTokens != 2 {
			t.Errorf("HistoryTokens = %d, want the counted 2", r.HistoryTokens)
		}
	})
	t.Run("StaleCacheOverBudget", func(t *testing.T) {
		// The cache claims the turn cannot fit; the real text does, so it is
		// kept whole and not reported as truncated.
		r := prompt.Build(prompt.Input{History: []prompt.Turn{{Kind: "player", Text: "hello world", Tokens: 100_000}}})
		if r.NewestTruncated || r.HistoryTurns != 1 || r.Messages[1].Content != "hello world" || r.HistoryTokens != 2 {
			t.Errorf("got truncated %v, %d turns, %q, %d tokens", r.NewestTruncated, r.HistoryTurns, r.Messages[1].Content, r.HistoryTokens)
		}
	})
}
