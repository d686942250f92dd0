package narrative_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/adventure-table/adventure-table/gameplay/narrative"
)

func TestExtractDelta(t *testing.T) {
	const story = "The blade catches your shoulder. Gwen shouts and drags you back."
	tests := []struct {
		name  string
		text  string
		prose string
		delta map[string]any
	}{
		{
			name:  "state fence",
			text:  story + "\n\n```state\n{\"player.hp\": -15, \"npc.gwen.trust\": 5, \"milestones.escaped\": true}\n```\n",
			prose: story,
			delta: map[string]any{"player.hp": -15.0, "npc.gwen.trust": 5.0, "milestones.escaped": true},
		},
		{
			name:  "json fence",
			text:  story + "\n```json\n{\"player.hp\": -5}\n```",
			prose: story,
			delta: map[string]any{"player.hp": -5.0},
		},
		{
			name:  "label is case-insensitive",
			text:  story + "\n```STATE\n{\"player.hp\": -5}\n```",
			prose: story,
			delta: map[string]any{"player.hp": -5.0},
		},
		{
			name:  "unlabelled fence",
			text:  story + "\n```\n{\"player.hp\": -5}\n```",
			prose: story,
			delta: map[string]any{"player.hp": -5.0},
		},
		{
			name:  "single-line fence",
			text:  story + " ```state{\"player.hp\": 3}```",
			prose: story,
			delta: map[string]any{"player.hp": 3.0},
		},
		{
			name:  "trailing commas",
			text:  story + "\n```state\n{\"player.hp\": -5, \"npc.gwen.tags\": [1, 2,],}\n```",
			prose: story,
			delta: map[string]any{"player.hp": -5.0, "npc.gwen.tags": []any{1.0, 2.0}},
		},
		{
			name:  "leading plus",
			text:  story + "\n```state\n{\"player.hp\": +10, \"npc.gwen.trust\":+2.5}\n```",
			prose: story,
			delta: map[string]any{"player.hp": 10.0, "npc.gwen.trust": 2.5},
		},
		{
			name:  "plus and comma inside strings survive",
			text:  story + "\n```state\n{\"npc.gwen.mood\": \"+1, },\", \"player.xp\": 1e+2}\n```",
			prose: story,
			delta: map[string]any{"npc.gwen.mood": "+1, },", "player.xp": 100.0},
		},
		{
			name:  "unclosed fence runs to end",
			text:  story + "\n```state\n{\"player.hp\": -5}",
			prose: story,
			delta: map[string]any{"player.hp": -5.0},
		},
		{
			name:  "truncated fence is stripped with empty delta",
			text:  story + "\n```state\n{\"player.hp\": -",
			prose: story,
			delta: map[string]any{},
		},
		{
			name:  "malformed json is stripped with empty delta",
			text:  story + "\n```state\n{player.hp: -5}\n```",
			prose: story,
			delta: map[string]any{},
		},
		{
			name:  "non-object fence body gives empty delta",
			text:  story + "\n```json\n[1, 2]\n```",
			prose: story,
			delta: map[string]any{},
		},
		{
			name:  "empty keys dropped",
			text:  story + "\n```state\n{\"\": 1, \"player.hp\": 2}\n```",
			prose: story,
			delta: map[string]any{"player.hp": 2.0},
		},
		{
			// The model emits its block last; an earlier one is a draft.
			name:  "multiple fences: last one wins, all stripped",
			text:  "Part one.\n```state\n{\"player.hp\": -1}\n```\nPart two.\n```state\n{\"player.hp\": -9}\n```",
			prose: "Part one.\n\nPart two.",
			delta: map[string]any{"player.hp": -9.0},
		},
		{
			name:  "multiple fences: malformed last one wins",
			text:  "A.\n```state\n{\"player.hp\": -1}\n```\nB.\n```state\n{oops\n```",
			prose: "A.\n\nB.",
			delta: map[string]any{},
		},
		{
			name:  "other fences are prose",
			text:  "Code:\n```python\nprint({'a': 1})\n```\nDone.\n```state\n{\"player.hp\": 1}\n```",
			prose: "Code:\n```python\nprint({'a': 1})\n```\nDone.",
			delta: map[string]any{"player.hp": 1.0},
		},
		{
			name:  "unlabelled non-json fence is prose",
			text:  "A poem:\n```\nroses are red\n```",
			prose: "A poem:\n```\nroses are red\n```",
			delta: map[string]any{},
		},
		{
			name:  "bare trailing delta accepted",
			text:  story + "\n{\"player.hp\": -15, \"milestones.escaped\": true,}  \n",
			prose: story,
			delta: map[string]any{"player.hp": -15.0, "milestones.escaped": true},
		},
		{
			name:  "bare trailing delta with leading plus",
			text:  story + " {\"npc.gwen.trust\": +5}",
			prose: story,
			delta: map[string]any{"npc.gwen.trust": 5.0},
		},
		{
			name:  "prose ending in brace untouched",
			text:  "He said {hello}",
			prose: "He said {hello}",
			delta: map[string]any{},
		},
		{
			name:  "json-looking non-delta untouched",
			text:  `The note reads {"name": "Bob"}`,
			prose: `The note reads {"name": "Bob"}`,
			delta: map[string]any{},
		},
		{
			name:  "bare object with nested value untouched",
			text:  `Sign: {"player.hp": {"x": 1}}`,
			prose: `Sign: {"player.hp": {"x": 1}}`,
			delta: map[string]any{},
		},
		{
			name:  "bare object not at end untouched",
			text:  `{"player.hp": 1} and then she left.`,
			prose: `{"player.hp": 1} and then she left.`,
			delta: map[string]any{},
		},
		{
			name:  "empty bare object untouched",
			text:  "Nothing {}",
			prose: "Nothing {}",
			delta: map[string]any{},
		},
		{
			name:  "no block at all",
			text:  story,
			prose: story,
			delta: map[string]any{},
		},
		{
			name:  "empty text",
			text:  "",
			prose: "",
			delta: map[string]any{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prose, delta := narrative.ExtractDelta(tt.text)
			if prose != tt.prose {
				t.Errorf("prose = %q, want %q", prose, tt.prose)
			}
			if !reflect.DeepEqual(delta, tt.delta) {
				t.Errorf("delta = %#v, want %#v", delta, tt.delta)
			}
		})
	}
}

func FuzzExtractDelta(f *testing.F) {
	for _, s := range []string{
		"",
		"He said {hello}",
		"Story.\n```state\n{\"player.hp\": -15, \"milestones.escaped\": true,}\n```",
		"```json\n{\"a.b\": +1}",
		"```\n{\"a.b\": \"x\"}\n``` more ```state\n{}\n```",
		"text {\"player.hp\": 1e+5, \"npc.x.y\": \"}\"}",
		"{\"\": 1}",
		"```state{\"\\\"\": [1,],}```",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		prose, delta := narrative.ExtractDelta(text)
		if len(prose) > len(text) {
			t.Fatalf("prose longer than input: %d > %d", len(prose), len(text))
		}
		if delta == nil {
			t.Fatal("nil delta")
		}
		for k := range delta {
			if k == "" {
				t.Fatal("empty delta key")
			}
		}
		if len(delta) == 0 && !strings.Contains(text, "```") && prose != text {
			t.Fatalf("prose changed without a block: %q -> %q", text, prose)
		}
	})
}
