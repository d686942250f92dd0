package mcp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/gameplay/table/tabletest"
	"github.com/adventure-table/adventure-table/models/modelstest"
)

// TestEveryToolDuringOutage takes the database away for real and calls
// every tool with a valid token: each answers 503 database_unavailable
// with Retry-After (the token cannot be checked), never a bad-token 401 or
// a 500. On PostgreSQL the database comes back and the same token works
// again without a restart.
func TestEveryToolDuringOutage(t *testing.T) {
	ctx := context.Background()
	store, outage := modelstest.MustOpenCuttable(t)
	svc := table.New(store, nil)
	srv := httptest.NewServer(NewHandler(Options{Version: "test", Table: svc, Verify: func(ctx context.Context, tok string) (Principal, error) {
		c, err := svc.AuthenticateGrant(ctx, tok)
		return Principal{GrantID: c.GrantID}, err
	}}))
	t.Cleanup(srv.Close)
	f := tabletest.New(t, svc)
	_, err := svc.StartSession(ctx, f.Owner, f.LobbyID)
	tabletest.Must(t, err)
	m, err := svc.LetAIControl(ctx, f.Seated, f.PlayerSeatID, table.HandoffInput{})
	tabletest.Must(t, err)

	outage.Cut()
	for _, tl := range tools {
		resp := rawToolCall(t, srv.URL, m.Token, tl.name)
		code := errorCode(t, resp)
		resp.Body.Close()
		if resp.StatusCode != http.StatusServiceUnavailable || code != "database_unavailable" || resp.Header.Get("Retry-After") == "" {
			t.Errorf("%s during the outage: %d %q Retry-After %q", tl.name, resp.StatusCode, code, resp.Header.Get("Retry-After"))
		}
	}
	if !outage.CanRestore() {
		return
	}
	outage.Restore()
	var cx Context
	connectAgent(t, srv.URL, m.Token).must("get_session_context", nil, &cx)
	if cx.Role != "player" {
		t.Fatalf("after the database came back: %+v", cx)
	}
}
