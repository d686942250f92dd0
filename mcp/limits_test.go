package mcp

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/adventure-table/adventure-table/gameplay/limits"
	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/gameplay/table/tabletest"
	"github.com/adventure-table/adventure-table/models/modelstest"
)

// TestCallsPerGrantAreLimited: a grant gets its mcp budget of tool calls;
// the next is refused with the tool error rate_limited (a result the agent
// reads, with details.retry_after_seconds), while another grant's calls go
// on. Listing tools is not a call.
func TestCallsPerGrantAreLimited(t *testing.T) {
	const budget = 4
	svc := table.New(modelstest.MustOpen(t), nil)
	lim := limits.New(limits.Config{limits.MCP: {Events: budget, Window: time.Hour, Burst: budget}})
	srv := httptest.NewServer(NewHandler(Options{Version: "test", Table: svc, Limits: lim, Verify: func(ctx context.Context, tok string) (Principal, error) {
		c, err := svc.AuthenticateGrant(ctx, tok)
		return Principal{GrantID: c.GrantID}, err
	}}))
	t.Cleanup(srv.Close)
	f := tabletest.New(t, svc)
	dm := aiDM(t, srv.URL, f)
	dm.must("session", map[string]any{"action": "start"}, nil)
	player := aiPlayer(t, srv.URL, f)

	for range budget {
		player.must("get_session_context", nil, nil)
	}
	code, details := player.callDetails("get_session_context", nil, nil)
	if code != "rate_limited" {
		t.Fatalf("call %d with one grant: %q, want rate_limited", budget+1, code)
	}
	if secs, _ := details["retry_after_seconds"].(float64); secs < 1 {
		t.Fatalf("details %v: no retry_after_seconds", details)
	}
	if code := player.call("post_message", map[string]any{"text": "Mira waits."}, nil); code != "rate_limited" {
		t.Fatalf("another tool with the spent grant: %q", code)
	}
	// The DM's grant spent one call (session start): its budget is its own.
	for range budget - 1 {
		dm.must("get_session_context", nil, nil)
	}
	if code := dm.call("get_session_context", nil, nil); code != "rate_limited" {
		t.Fatalf("the DM grant past its own budget: %q", code)
	}
}
