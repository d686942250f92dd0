package prompt_test

import (
	"strings"
	"testing"

	"github.com/adventure-table/adventure-table/gameplay/llm"
	"github.com/adventure-table/adventure-table/gameplay/narrative/prompt"
)

// FuzzBuild checks the invariants that hold for any input: no panic, at
// least the system and final messages, sections summing to the total, cards
// within 40% of the elastic budget and the newest turn never dropped.
//
// history is split on "|" into turns; keys on ";" into cards, each card's
// keys on ",". Cards take the four logics, every fourth is constant, odd ones
// take note's words as secondary keys. tokens is the cached count given to every other turn.
func FuzzBuild(f *testing.F) {
	f.Add("A premise.", "player.hp 0–100", "hp 55/100", "Build dread.", "rat;Black Tower,tower", "An entry.",
		"You wake.|I look at the rat.|The black tower looms.", 0, 8000, 800)
	f.Add("", "", "", "", "", "", "", 0, 0, 0)
	f.Add("\xff", "\xfe", "\xc3", "\xe2\x82", "\xff\xff,ab", "\xf0\x9f", "ab\xff|\xffab", -1, -1, -1)
	f.Add(strings.Repeat("long premise ", 50), "", "", "", "lorem", strings.Repeat("lorem ", 300),
		strings.Repeat("lorem ipsum ", 100), 1<<62, 1<<62, 1<<62)
	f.Fuzz(func(t *testing.T, premise, guide, state, note, keys, entry, history string, tokens, budget, maxOut int) {
		in := prompt.Input{
			Premise: premise, StatGuide: guide, StateLine: state, AuthorsNote: note,
			Summary: entry, Memories: []string{entry, premise}, FrontMemory: note,
			Budget: budget, MaxOutputTokens: maxOut,
		}
		for i, k := range strings.Split(keys, ";") {
			c := prompt.Card{ID: int64(i), Title: k, Keys: strings.Split(k, ","), Entry: entry,
				Logic: prompt.Logics[i%len(prompt.Logics)], Constant: i%4 == 3, Priority: (i * 7) % 5}
			if i%2 == 1 {
				c.SecondaryKeys = strings.Fields(note)
			}
			in.Cards = append(in.Cards, c)
		}
		if history != "" {
			for i, text := range strings.Split(history, "|") {
				turn := prompt.Turn{Kind: []string{"opening", "player", "narration"}[i%3], Text: text}
				if i%2 == 1 {
					turn.Tokens = tokens
				}
				in.History = append(in.History, turn)
			}
		}

		r := prompt.Build(in)

		if len(r.Messages) < 2 || r.Messages[0].Role != llm.RoleSystem || r.Messages[0].Content != r.StaticBlock {
			t.Fatalf("messages start %+v, want the system static block and more", r.Messages)
		}
		if last := r.Messages[len(r.Messages)-1]; last.Role != llm.RoleUser || last.Content == "" {
			t.Errorf("last message = %+v, want a non-empty user message", last)
		}
		total, lore := 0, 0
		for _, s := range r.Sections {
			total += s.Tokens
			if s.Name == "lore" {
				lore = s.Tokens
			}
		}
		if r.TotalTokens != total {
			t.Errorf("TotalTokens = %d, sections sum to %d", r.TotalTokens, total)
		}
		if r.Available < 256 {
			t.Errorf("Available = %d, below the 256 floor", r.Available)
		}
		cards := 0
		for _, c := range r.Cards {
			if c.Included {
				cards += c.Tokens
			}
		}
		if capTokens := r.Available/10*4 + r.Available%10*4/10; cards > capTokens {
			t.Errorf("included cards cost %d, over the cap %d", cards, capTokens)
		}
		if lore+r.HistoryTokens > r.Available {
			t.Errorf("lore %d + history %d over available %d", lore, r.HistoryTokens, r.Available)
		}
		if len(in.History) > 0 && (r.HistoryTurns < 1 || r.HistoryTurns > len(in.History)) {
			t.Errorf("HistoryTurns = %d of %d, want the newest at least", r.HistoryTurns, len(in.History))
		}
	})
}
