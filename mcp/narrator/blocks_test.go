package narrator

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/adventure-table/adventure-table/gameplay/llm"
)

// TestActionBlocks: a model without native tool calling writes fenced
// blocks; each form it may use becomes the same calls, and the text keeps
// only what it says.
func TestActionBlocks(t *testing.T) {
	for _, tc := range []struct {
		name, text, rest string
		calls            []llm.ToolCall
	}{
		{"one call", "The door groans.\n```action\n{\"tool\": \"request_check\", \"arguments\": {\"skill\": \"athletics\", \"dc\": 12}}\n```\nPush!",
			"The door groans.\n\nPush!", []llm.ToolCall{{ID: "block-1", Name: "request_check", Arguments: `{"skill": "athletics", "dc": 12}`}}},
		{"a list, name and args", "```tool\n[{\"name\":\"set_stage\",\"args\":{\"text\":\"A cave\"}},{\"name\":\"post_message\",\"parameters\":{\"text\":\"Dark.\"}}]\n```",
			"", []llm.ToolCall{{ID: "block-1", Name: "set_stage", Arguments: `{"text":"A cave"}`}, {ID: "block-2", Name: "post_message", Arguments: `{"text":"Dark."}`}}},
		{"arguments as a string", "```json\n{\"tool\":\"fight\",\"arguments\":\"{\\\"action\\\":\\\"end_turn\\\"}\"}\n```",
			"", []llm.ToolCall{{ID: "block-1", Name: "fight", Arguments: `{"action":"end_turn"}`}}},
		{"no arguments", "```action\n{\"tool\":\"get_session_context\"}\n```", "", []llm.ToolCall{{ID: "block-1", Name: "get_session_context", Arguments: `{}`}}},
		{"not a call stays text", "```action\nroll a d20 for me\n```", "```action\nroll a d20 for me\n```", nil},
		{"a code block of another language stays", "```python\nprint(1)\n```", "```python\nprint(1)\n```", nil},
		{"plain narration", "The wind howls.", "The wind howls.", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			calls, rest := actionBlocks(tc.text)
			if diff := cmp.Diff(tc.calls, calls); diff != "" {
				t.Fatalf("calls (-want +got):\n%s", diff)
			}
			if rest != tc.rest {
				t.Fatalf("text %q, want %q", rest, tc.rest)
			}
		})
	}
}

// FuzzActionBlocks: any text parses without panicking; every call found
// has a name and arguments that are JSON, and the calls' ids are in order.
func FuzzActionBlocks(f *testing.F) {
	f.Add("```action\n{\"tool\": \"request_check\", \"arguments\": {\"skill\": \"athletics\"}}\n```")
	f.Add("```tool\n[{\"name\":\"a\"},{\"name\":\"b\",\"args\":\"{}\"}]\n```")
	f.Add("```json\n{\"tool\":\"x\",\"arguments\":\"not json\"}\n```")
	f.Add("no blocks at all")
	f.Fuzz(func(t *testing.T, text string) {
		calls, rest := actionBlocks(text)
		if len(rest) > len(text) {
			t.Fatalf("the text grew: %q -> %q", text, rest)
		}
		for i, c := range calls {
			if strings.TrimSpace(c.Name) == "" {
				t.Fatalf("a call without a name from %q", text)
			}
			if c.ID != "block-"+itoa(i+1) {
				t.Fatalf("call %d has id %q", i, c.ID)
			}
			_ = json.Valid([]byte(c.Arguments)) // invalid arguments are refused by the tool's decoder
		}
	})
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}
