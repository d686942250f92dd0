package prompt_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/adventure-table/adventure-table/gameplay/llm"
	"github.com/adventure-table/adventure-table/gameplay/narrative/prompt"
)

// storyInput is a complete turn with every section present.
func storyInput() prompt.Input {
	return prompt.Input{
		Premise: "You are a courier crossing the Marsh of Ash with a sealed letter.",
		StatGuide: "player.hp 0–100: 0–20 very weak · 20–40 hurt · 40–60 minor damage · 60–90 healthy · 90–100 full health\n" +
			"player.gold 0–999",
		AIInstructions:  "Keep the tone grim but hopeful.",
		PersonaName:     "Wren",
		PersonaPronouns: "she/her",
		PersonaDesc:     "A wiry courier who never breaks a promise.",
		PlotEssentials:  "You promised Gwen to return before the thaw.",
		Summary:         "You left the Drowned Lantern at dawn.",
		Memories:        []string{"Gwen gave you her father's lantern."},
		StateLine:       "hp 55/100 (minor damage) · gold 3/999",
		FrontMemory:     "The letter must stay sealed.",
		AuthorsNote:     "Build dread slowly.",
		Cards: []prompt.Card{
			{ID: 1, Title: "Gwen", Keys: []string{"Gwen", "innkeeper"}, Entry: "Innkeeper of the Drowned Lantern; gruff and loyal."},
			{ID: 2, Title: "Marsh of Ash", Keys: []string{"marsh"}, Entry: "Grey reeds, sinking paths, will-o'-wisps."},
		},
		History: []prompt.Turn{
			{ID: 1, Kind: "opening", Text: "Rain hammers the shutters of the Drowned Lantern."},
			{ID: 2, Kind: "player", Text: "I ask the innkeeper for the road north."},
			{ID: 3, Kind: "narration", Text: "Gwen points at the marsh and shakes her head."},
			{ID: 4, Kind: "player", Text: "I take the lantern and go anyway."},
			{ID: 5, Kind: "narration", Text: "The door slams behind you. The reeds whisper."},
			{ID: 6, Kind: "player", Text: "I follow the path into the marsh."},
		},
		Budget:          8000,
		MaxOutputTokens: 800,
	}
}

func sectionNames(r prompt.Result) []string {
	names := make([]string, len(r.Sections))
	for i, s := range r.Sections {
		names[i] = s.Name
	}
	return names
}

func section(t *testing.T, r prompt.Result, name string) prompt.Section {
	t.Helper()
	for _, s := range r.Sections {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no %q section in %v", name, sectionNames(r))
	return prompt.Section{}
}

func lastContent(r prompt.Result) string {
	return r.Messages[len(r.Messages)-1].Content
}

func sumSections(r prompt.Result) (total, fixed int) {
	for _, s := range r.Sections {
		total += s.Tokens
		if s.Fixed {
			fixed += s.Tokens
		}
	}
	return total, fixed
}

// TestPromptCaching pins the layout that keeps the endpoint's prompt cache
// warm (test_prompt_caching of the engine-room notes): one stat changes
// between two builds of the same turn.
func TestPromptCaching(t *testing.T) {
	in := storyInput()
	before := prompt.Build(in)
	in.StateLine = "hp 40/100 (hurt) · gold 3/999 · torch lit, wet, shivering"
	after := prompt.Build(in)

	t.Run("StaticBlockUnchanged", func(t *testing.T) {
		if before.StaticBlock != after.StaticBlock {
			t.Fatalf("static block changed:\n%s", cmp.Diff(before.StaticBlock, after.StaticBlock))
		}
		if got := after.Messages[0]; got.Role != llm.RoleSystem || got.Content != after.StaticBlock {
			t.Errorf("first message = %+v, want the system static block", got)
		}
		for _, volatile := range []string{"55/100", "Drowned Lantern at dawn", "father's lantern", "Build dread", "stay sealed", "gruff and loyal", "must not exceed"} {
			if strings.Contains(after.StaticBlock, volatile) {
				t.Errorf("static block holds volatile text %q", volatile)
			}
		}
	})

	t.Run("LiveSectionsBelowHistory", func(t *testing.T) {
		n := len(after.Messages)
		if diff := cmp.Diff(before.Messages[:n-1], after.Messages[:n-1]); diff != "" {
			t.Errorf("a stat change altered messages before the last (-before +after):\n%s", diff)
		}
		if !strings.Contains(lastContent(after), "Current state: hp 40/100 (hurt)") {
			t.Errorf("last message lacks the stats:\n%s", lastContent(after))
		}
		names := sectionNames(after)
		want := []string{"static", "history", "authors_note", "summary", "lore", "memories", "stats"}
		if diff := cmp.Diff(want, names[:len(want)]); diff != "" {
			t.Errorf("section order (-want +got):\n%s", diff)
		}
	})

	t.Run("TailKeepsLastSlots", func(t *testing.T) {
		tail := []string{"Keep in mind: The letter must stay sealed.", prompt.LengthHint(800, true), prompt.RefusalNote, prompt.EmitReminder}
		if last := lastContent(after); !strings.HasSuffix(last, "\n\n"+strings.Join(tail, "\n\n")) {
			t.Errorf("last message does not end with the tail:\n%s", last)
		}
		names := sectionNames(after)
		want := []string{"front_memory", "length_hint", "refusal_note", "emit_reminder"}
		if diff := cmp.Diff(want, names[len(names)-len(want):]); diff != "" {
			t.Errorf("tail section order (-want +got):\n%s", diff)
		}
	})

	t.Run("LiveSectionsCharged", func(t *testing.T) {
		for _, r := range []prompt.Result{before, after} {
			stats := section(t, r, "stats")
			if !stats.Fixed || stats.Tokens == 0 {
				t.Errorf("stats section = %+v, want fixed and charged", stats)
			}
			total, fixed := sumSections(r)
			if r.TotalTokens != total {
				t.Errorf("TotalTokens = %d, want the sum of sections %d", r.TotalTokens, total)
			}
			if r.Available != r.Budget-fixed {
				t.Errorf("Available = %d, want budget %d - fixed %d", r.Available, r.Budget, fixed)
			}
		}
		grew := section(t, after, "stats").Tokens - section(t, before, "stats").Tokens
		if grew <= 0 {
			t.Fatalf("test setup: the new state line should cost more, grew by %d", grew)
		}
		if got := before.Available - after.Available; got != grew {
			t.Errorf("available shrank by %d, want the stats growth %d", got, grew)
		}
	})

	t.Run("NextTurnAppendsToPrefix", func(t *testing.T) {
		in := storyInput()
		in.AuthorsNote = "" // the note moves with the end of the history
		in.Budget = 1_000_000
		prev := prompt.Build(in)
		in.History = append(slices.Clone(in.History),
			prompt.Turn{ID: 7, Kind: "narration", Text: "Mud sucks at your boots."},
			prompt.Turn{ID: 8, Kind: "player", Text: "I raise the lantern."})
		in.StateLine = "hp 50/100 (minor damage) · gold 3/999"
		next := prompt.Build(in)

		cached := len(prev.Messages) - 1 // everything up to the last history message
		if diff := cmp.Diff(prev.Messages[:cached], next.Messages[:cached]); diff != "" {
			t.Fatalf("the next turn rewrote the cached prefix (-prev +next):\n%s", diff)
		}
		want := []llm.Message{{Role: llm.RoleAssistant, Content: "Mud sucks at your boots."}, {Role: llm.RoleUser, Content: "I raise the lantern."}}
		if diff := cmp.Diff(want, next.Messages[cached:cached+2]); diff != "" {
			t.Errorf("messages after the prefix (-want +got):\n%s", diff)
		}
	})
}

func TestBuildRoles(t *testing.T) {
	in := storyInput()
	in.AuthorsNote = ""
	r := prompt.Build(in)
	var got []string
	for _, m := range r.Messages {
		got = append(got, m.Role)
	}
	want := []string{"system", "assistant", "user", "assistant", "user", "assistant", "user", "user"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("roles (-want +got):\n%s", diff)
	}
	if r.HistoryTurns != 6 {
		t.Errorf("HistoryTurns = %d, want 6", r.HistoryTurns)
	}
}

func TestBuildStaticBlock(t *testing.T) {
	t.Run("AllHeadings", func(t *testing.T) {
		static := prompt.Build(storyInput()).StaticBlock
		order := []string{"second person", "## Premise", "## World state", "player.hp 0–100", "```state", "## Player's instructions", "## The protagonist\nName: Wren (she/her)\nA wiry courier", "## Plot essentials"}
		at := 0
		for _, s := range order {
			i := strings.Index(static[at:], s)
			if i < 0 {
				t.Fatalf("static block lacks %q after byte %d:\n%s", s, at, static)
			}
			at += i
		}
	})
	t.Run("NoStatsNoEmitRule", func(t *testing.T) {
		in := storyInput()
		in.StatGuide = ""
		r := prompt.Build(in)
		if strings.Contains(r.StaticBlock, "```state") || strings.Contains(r.StaticBlock, "## World state") {
			t.Errorf("static block has the emit rule without stats:\n%s", r.StaticBlock)
		}
		if slices.Contains(sectionNames(r), "emit_reminder") || strings.Contains(lastContent(r), prompt.EmitReminder) {
			t.Errorf("emit reminder present without stats")
		}
		if !strings.Contains(r.StaticBlock, "## The protagonist\nName: Wren") {
			t.Errorf("persona missing without stats:\n%s", r.StaticBlock)
		}
	})
	t.Run("EmptyInputsLeaveHeadingsOut", func(t *testing.T) {
		r := prompt.Build(prompt.Input{})
		if strings.Contains(r.StaticBlock, "##") {
			t.Errorf("empty input rendered headings:\n%s", r.StaticBlock)
		}
		if diff := cmp.Diff([]string{"static", "refusal_note"}, sectionNames(r)); diff != "" {
			t.Errorf("sections (-want +got):\n%s", diff)
		}
		if len(r.Messages) != 2 || lastContent(r) != prompt.RefusalNote {
			t.Errorf("messages = %+v, want the static block and the refusal note", r.Messages)
		}
	})
}

func TestBuildAuthorsNote(t *testing.T) {
	const note = "[Author's note: Build dread slowly.]"
	for n := range 6 {
		t.Run(fmt.Sprintf("%dTurns", n), func(t *testing.T) {
			in := storyInput()
			in.History = in.History[:n]
			r := prompt.Build(in)
			at := slices.IndexFunc(r.Messages, func(m llm.Message) bool { return m.Content == note })
			if at < 0 {
				t.Fatalf("no author's note in %+v", r.Messages)
			}
			if r.Messages[at].Role != llm.RoleUser {
				t.Errorf("note role = %q, want user", r.Messages[at].Role)
			}
			// The note goes before the 3rd-from-last turn, or before the
			// first when there are fewer; with no history, straight after
			// the static block.
			want := 1 + max(0, n-3)
			if at != want {
				t.Errorf("note at message %d, want %d", at, want)
			}
			if n > 0 && r.Messages[at+1].Content != in.History[max(0, n-3)].Text {
				t.Errorf("note precedes %q, want turn %d", r.Messages[at+1].Content, max(0, n-3))
			}
			names := sectionNames(r)
			noteAt, histAt := slices.Index(names, "authors_note"), slices.Index(names, "history")
			if n > 3 && noteAt < histAt || n <= 3 && n > 0 && noteAt > histAt {
				t.Errorf("sections %v: note listed out of prompt order", names)
			}
		})
	}
}

// turnOf makes a turn with a cached token count, so budgets are exact.
func turnOf(text string, tokens int) prompt.Turn {
	return prompt.Turn{Kind: "narration", Text: text, Tokens: tokens}
}

func TestBuildBudget(t *testing.T) {
	t.Run("FixedOverBudget", func(t *testing.T) {
		in := storyInput()
		in.Premise = strings.Repeat("The marsh is wide and grey. ", 300)
		in.Budget = 100
		r := prompt.Build(in)
		if r.Available != 256 {
			t.Errorf("Available = %d, want the 256 floor", r.Available)
		}
		if s := section(t, r, "static"); s.Tokens < 1000 {
			t.Errorf("static = %d tokens, want the whole premise charged", s.Tokens)
		}
		if r.HistoryTurns == 0 || r.HistoryTokens > r.Available {
			t.Errorf("history = %d turns, %d tokens, want some story within %d", r.HistoryTurns, r.HistoryTokens, r.Available)
		}
	})

	t.Run("NewestTruncated", func(t *testing.T) {
		var b strings.Builder
		for i := range 200 {
			fmt.Fprintf(&b, "Sentence %d of the long turn drags on. ", i)
		}
		b.WriteString("THE END.")
		newest := b.String()
		r := prompt.Build(prompt.Input{History: []prompt.Turn{turnOf("Long ago.", 0), {Kind: "player", Text: newest}}})
		if !r.NewestTruncated || r.HistoryTurns != 1 {
			t.Fatalf("NewestTruncated = %v, HistoryTurns = %d, want true, 1", r.NewestTruncated, r.HistoryTurns)
		}
		got := r.Messages[1].Content
		if !strings.HasSuffix(newest, got) || !strings.HasSuffix(got, "THE END.") {
			t.Errorf("kept %q, want the end of the turn", got)
		}
		n := prompt.Count(got)
		if n > r.Available || n < r.Available-4 {
			t.Errorf("kept %d tokens, want close to but within %d", n, r.Available)
		}
		if r.HistoryTokens != n || section(t, r, "history").Tokens != n {
			t.Errorf("HistoryTokens = %d, want the kept %d", r.HistoryTokens, n)
		}
	})

	t.Run("StopsAtFirstMiss", func(t *testing.T) {
		r := prompt.Build(prompt.Input{History: []prompt.Turn{
			turnOf("Tiny old turn.", 5), turnOf("Huge middle turn.", 1000), turnOf("Newest turn.", 50),
		}})
		if r.HistoryTurns != 1 || r.HistoryTokens != 50 || r.NewestTruncated {
			t.Errorf("history = %d turns, %d tokens, truncated %v; want only the newest, 50, false", r.HistoryTurns, r.HistoryTokens, r.NewestTruncated)
		}
		for _, m := range r.Messages {
			if strings.Contains(m.Content, "Tiny old turn.") {
				t.Errorf("skipped over a turn that did not fit to an older one")
			}
		}
	})

	t.Run("FillsFromNewest", func(t *testing.T) {
		r := prompt.Build(prompt.Input{History: []prompt.Turn{
			turnOf("one", 100), turnOf("two", 100), turnOf("three", 100), turnOf("four", 100),
		}})
		if r.HistoryTurns != 2 || r.HistoryTokens != 200 {
			t.Fatalf("history = %d turns, %d tokens, want 2, 200", r.HistoryTurns, r.HistoryTokens)
		}
		if r.Messages[1].Content != "three" || r.Messages[2].Content != "four" {
			t.Errorf("kept %q, %q, want the newest two oldest first", r.Messages[1].Content, r.Messages[2].Content)
		}
	})

	t.Run("EmptyHistory", func(t *testing.T) {
		r := prompt.Build(prompt.Input{Budget: 8000})
		if r.HistoryTurns != 0 || slices.Contains(sectionNames(r), "history") {
			t.Errorf("empty history reported %d turns, sections %v", r.HistoryTurns, sectionNames(r))
		}
	})
}

// BenchmarkBuild measures one turn: 200 story cards of which 20 are named in
// the newest turns, and a 6,000-token history window.
func BenchmarkBuild(b *testing.B) {
	in := storyInput()
	in.Cards = nil
	for i := range 200 {
		in.Cards = append(in.Cards, prompt.Card{
			ID:    int64(i),
			Title: fmt.Sprintf("Place %d", i),
			Keys:  []string{fmt.Sprintf("keyword%03d", i), fmt.Sprintf("old name %d", i)},
			Entry: strings.Repeat(fmt.Sprintf("Card %d has a history of floods and feuds. ", i), 4),
		})
	}
	in.History = nil
	tokens := 0
	for i := 0; tokens < 6000; i++ {
		var b strings.Builder
		fmt.Fprintf(&b, "Turn %d. ", i)
		for range 12 {
			b.WriteString("The reeds bend under the wind while the lantern gutters. ")
		}
		in.History = append(in.History, prompt.Turn{ID: int64(i), Kind: []string{"player", "narration"}[i%2], Text: b.String()})
		tokens += prompt.Count(b.String())
	}
	for i := range 20 { // name 20 cards in the newest 5 turns
		t := &in.History[len(in.History)-1-i%5]
		t.Text += fmt.Sprintf(" You pass keyword%03d.", i*10)
	}
	cached := slices.Clone(in.History)
	for i := range cached {
		cached[i].Tokens = prompt.Count(cached[i].Text)
	}
	if r := prompt.Build(in); len(r.Cards) != 20 {
		b.Fatalf("triggered %d cards, want 20", len(r.Cards))
	}

	b.Run("CachedTokens", func(b *testing.B) {
		in := in
		in.History = cached
		for b.Loop() {
			prompt.Build(in)
		}
	})
	b.Run("CountedTokens", func(b *testing.B) {
		for b.Loop() {
			prompt.Build(in)
		}
	})
}
