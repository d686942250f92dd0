package mcp

import (
	"context"
	"encoding/json"
	"log/slog"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// Toolbox is this server's MCP tools for a client in the same process (the
// server's own narrator): the very specs an outside agent lists and the
// very handlers its tools/call reaches, with the grant as the caller. There
// is nothing here an outside agent cannot do, and no second rule.
type Toolbox struct {
	deps   toolDeps
	byName map[string]tool
}

// NewToolbox returns the tools served by a handler built with the same
// options (Table, Logger, Limits).
func NewToolbox(opts Options) *Toolbox {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	b := &Toolbox{deps: toolDeps{table: opts.Table, logger: opts.Logger, limits: opts.Limits}, byName: map[string]tool{}}
	for _, t := range tools {
		b.byName[t.name] = t
	}
	return b
}

// ToolSpec is one tool as tools/list describes it.
type ToolSpec struct {
	Name        string
	Description string
	InputSchema json.RawMessage
	ReadOnly    bool
}

// Specs lists the tools in tools/list order.
func (b *Toolbox) Specs() []ToolSpec {
	out := make([]ToolSpec, 0, len(tools))
	for _, t := range tools {
		ro := t.spec.Annotations != nil && t.spec.Annotations.ReadOnlyHint
		out = append(out, ToolSpec{Name: t.name, Description: t.spec.Description, InputSchema: t.spec.InputSchema.(json.RawMessage), ReadOnly: ro})
	}
	return out
}

// ToolResult is a tool call's answer: its structured content as JSON, and
// for a refusal the stable error code.
type ToolResult struct {
	JSON    json.RawMessage
	IsError bool
	Code    apperr.Code
}

// Call calls a tool as the grant, exactly as tools/call over /mcp would
// (argument decoding, the grant's call budget, the gameplay call and its
// authority checks). An unknown tool name is a refusal, not a Go error.
func (b *Toolbox) Call(ctx context.Context, grantID int64, name string, args json.RawMessage) ToolResult {
	t, ok := b.byName[name]
	if !ok {
		res := errorResult(b.deps.logger, name, apperr.E(apperr.InvalidRequest, "There is no tool %q.", truncateName(name)))
		return toolResult(res)
	}
	return toolResult(t.handle(ctx, b.deps, Principal{GrantID: grantID, Caller: table.AI(grantID)}, args))
}

func toolResult(r *mcpsdk.CallToolResult) ToolResult {
	raw, _ := json.Marshal(r.StructuredContent)
	out := ToolResult{JSON: raw, IsError: r.IsError}
	if r.IsError {
		if m, ok := r.StructuredContent.(map[string]any); ok {
			if te, ok := m["error"].(ToolError); ok {
				out.Code = te.Code
			}
		}
	}
	return out
}

func truncateName(s string) string {
	if len(s) > 64 {
		return s[:64]
	}
	return s
}
