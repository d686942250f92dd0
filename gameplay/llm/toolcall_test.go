package llm_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/adventure-table/adventure-table/gameplay/llm"
	"github.com/adventure-table/adventure-table/gameplay/llm/llmtest"
)

// TestToolCalling: tools go out as chat completions' `tools` with their
// schemas; two calls streamed in pieces (id and name first, the arguments
// in halves) come back whole and in order; the assistant's calls and the
// tools' results go back to the endpoint in the next request, linked by id.
func TestToolCalling(t *testing.T) {
	f := llmtest.New(t)
	schema := map[string]any{"type": "object", "properties": map[string]any{"skill": map[string]any{"type": "string"}}, "required": []any{"skill"}}
	f.Push(llmtest.Reply{Chunks: []string{"Let me check."}, FinishReason: "tool_calls", ToolCalls: []llmtest.ToolCall{
		{ID: "call_a", Name: "request_check", Arguments: `{"skill":"perception","dc":14}`},
		{ID: "call_b", Name: "post_message", Arguments: `{"text":"Roll, Mira."}`},
	}})
	tools := []llm.Tool{{Name: "request_check", Description: "Ask for a check", Parameters: schema}}
	res, err := llm.NewOpenAI(nil).Stream(context.Background(), settings(f), llm.Request{Messages: request.Messages, Tools: tools}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []llm.ToolCall{
		{ID: "call_a", Name: "request_check", Arguments: `{"skill":"perception","dc":14}`},
		{ID: "call_b", Name: "post_message", Arguments: `{"text":"Roll, Mira."}`},
	}
	if diff := cmp.Diff(want, res.ToolCalls); diff != "" {
		t.Fatalf("tool calls (-want +got):\n%s", diff)
	}
	if res.Text != "Let me check." || res.FinishReason != "tool_calls" {
		t.Fatalf("text %q, finish %q", res.Text, res.FinishReason)
	}
	sent := f.Requests()[0]
	if !cmp.Equal(sent.Tools, []string{"request_check"}) {
		t.Fatalf("tools sent: %v", sent.Tools)
	}
	var gotSchema map[string]any
	if err := json.Unmarshal(sent.ToolSchemas["request_check"], &gotSchema); err != nil || !cmp.Equal(gotSchema, schema) {
		t.Fatalf("schema sent: %s (%v)", sent.ToolSchemas["request_check"], err)
	}

	// The conversation goes on with the calls and their results.
	f.Push(llmtest.Reply{Chunks: []string{"Done."}, FinishReason: "stop"})
	next := append(append([]llm.Message{}, request.Messages...),
		llm.Message{Role: llm.RoleAssistant, Content: res.Text, ToolCalls: res.ToolCalls},
		llm.Message{Role: llm.RoleTool, ToolCallID: "call_a", Content: `{"request_id":7}`},
		llm.Message{Role: llm.RoleTool, ToolCallID: "call_b", Content: `{"error":{"code":"not_current_dm"}}`})
	if _, err := llm.NewOpenAI(nil).Stream(context.Background(), settings(f), llm.Request{Messages: next, Tools: tools}, nil); err != nil {
		t.Fatal(err)
	}
	got := f.Requests()[1].Messages[len(request.Messages):]
	wantMsgs := []llmtest.Message{
		{Role: "assistant", Content: "Let me check.", ToolCalls: []llmtest.ToolCall{
			{ID: "call_a", Name: "request_check", Arguments: `{"skill":"perception","dc":14}`},
			{ID: "call_b", Name: "post_message", Arguments: `{"text":"Roll, Mira."}`}}},
		{Role: "tool", ToolCallID: "call_a", Content: `{"request_id":7}`},
		{Role: "tool", ToolCallID: "call_b", Content: `{"error":{"code":"not_current_dm"}}`},
	}
	if diff := cmp.Diff(wantMsgs, got); diff != "" {
		t.Fatalf("messages sent back (-want +got):\n%s", diff)
	}
}

// TestNoToolsSendsNoToolsField: a request without tools (every solo turn)
// sends no `tools` at all, as before.
func TestNoToolsSendsNoToolsField(t *testing.T) {
	f := llmtest.New(t)
	f.Push(llmtest.Reply{Chunks: []string{"ok"}, FinishReason: "stop"})
	if _, err := llm.NewOpenAI(nil).Stream(context.Background(), settings(f), request, nil); err != nil {
		t.Fatal(err)
	}
	var raw map[string]any
	_ = json.Unmarshal(f.Requests()[0].Raw, &raw)
	if _, ok := raw["tools"]; ok {
		t.Fatalf("a request without tools sent %v", raw["tools"])
	}
}
