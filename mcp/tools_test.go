package mcp

import (
	"context"
	"encoding/json"
	"flag"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/gameplay/table/tabletest"
	"github.com/adventure-table/adventure-table/models/modelstest"
)

var update = flag.Bool("update", false, "rewrite the golden tool schemas")

// liveServer serves MCP with the real table service over HTTP.
func liveServer(t *testing.T) (*table.Service, *httptest.Server) {
	t.Helper()
	svc := table.New(modelstest.MustOpen(t), nil)
	srv := httptest.NewServer(NewHandler(Options{Version: "test", Table: svc, Verify: func(ctx context.Context, tok string) (Principal, error) {
		c, err := svc.AuthenticateGrant(ctx, tok)
		return Principal{GrantID: c.GrantID}, err
	}}))
	t.Cleanup(srv.Close)
	return svc, srv
}

func connect(t *testing.T, url, token string) *mcpsdk.ClientSession {
	t.Helper()
	client := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "test-agent", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcpsdk.StreamableClientTransport{Endpoint: url,
		HTTPClient: &http.Client{Transport: bearerTransport{token}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// callTool calls a tool and decodes its structured result into out; it
// returns the error code of an isError result.
func callTool(t *testing.T, cs *mcpsdk.ClientSession, name string, args any, out any) string {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcpsdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	raw, _ := json.Marshal(res.StructuredContent)
	if res.IsError {
		var e struct {
			Error ToolError `json:"error"`
		}
		json.Unmarshal(raw, &e)
		if e.Error.Code == "" {
			t.Fatalf("%s: error result without a code: %s", name, raw)
		}
		return string(e.Error.Code)
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatalf("%s: %v in %s", name, err, raw)
		}
	}
	return ""
}

// TestToolSchemasGolden keeps every tool's contract (name, description,
// input and output schema) in testdata/tools; refresh with -update.
func TestToolSchemasGolden(t *testing.T) {
	svc, srv := liveServer(t)
	// Listing tools needs a valid token: hand a seat to an AI.
	lt := tabletest.New(t, svc)
	_, err := svc.StartSession(context.Background(), lt.Owner, lt.LobbyID)
	tabletest.Must(t, err)
	m, err := svc.LetAIControl(context.Background(), lt.Seated, lt.PlayerSeatID, table.HandoffInput{})
	tabletest.Must(t, err)
	cs := connect(t, srv.URL, m.Token)
	list, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Tools) != len(tools) {
		t.Fatalf("listed %d tools, declared %d", len(list.Tools), len(tools))
	}
	for _, tl := range list.Tools {
		got, _ := json.MarshalIndent(tl, "", "  ")
		path := filepath.Join("testdata", "tools", tl.Name+".json")
		if *update {
			os.MkdirAll(filepath.Dir(path), 0o755)
			os.WriteFile(path, append(got, '\n'), 0o644)
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("no golden schema for %s (run go test ./mcp -update): %v", tl.Name, err)
		}
		if strings.TrimSpace(string(want)) != strings.TrimSpace(string(got)) {
			t.Errorf("tool %s changed; if intended, run go test ./mcp -update\n%s", tl.Name, got)
		}
	}
	for _, forbidden := range []string{"delete_room", "assign_seat", "revoke_member", "end_session", "abandon_session", "set_controller"} {
		for _, tl := range list.Tools {
			if tl.Name == forbidden {
				t.Fatalf("forbidden tool %s exists", forbidden)
			}
		}
	}
}

// TestAIScene plays a short scene through the real MCP endpoint: an AI DM
// starts the session, sets the stage and asks an AI player for a hidden
// check; the player waits for the event and rolls; the DM sees the result.
func TestAIScene(t *testing.T) {
	ctx := context.Background()
	svc, srv := liveServer(t)
	lt := tabletest.New(t, svc)
	dmGrant, err := svc.SetDMSeatAI(ctx, lt.Owner, lt.CampaignID)
	tabletest.Must(t, err)
	dm := connect(t, srv.URL, dmGrant.Token)

	if code := callTool(t, dm, "get_session_context", map[string]any{}, nil); code != "ai_grant_pre_session_only" {
		t.Fatalf("unbound DM grant read the session: %q", code)
	}
	var pre table.PreSessionContext
	if code := callTool(t, dm, "get_pre_session_context", map[string]any{}, &pre); code != "" || !pre.ReadyToStart {
		t.Fatalf("pre-session context %q %+v", code, pre)
	}
	if code := callTool(t, dm, "start_session", map[string]any{}, nil); code != "" {
		t.Fatalf("start_session: %s", code)
	}
	// The human player hands Mira to an AI.
	playerGrant, err := svc.LetAIControl(ctx, lt.Seated, lt.PlayerSeatID, table.HandoffInput{TemporaryInstruction: "Be brave."})
	tabletest.Must(t, err)
	player := connect(t, srv.URL, playerGrant.Token)

	var pctx SessionContext
	if code := callTool(t, player, "get_session_context", map[string]any{}, &pctx); code != "" {
		t.Fatalf("player context: %s", code)
	}
	if pctx.Session.Me.Role != "player" || pctx.Session.Me.TemporaryInstruction != "Be brave." || !strings.Contains(pctx.You, "Mira") {
		t.Fatalf("player context %+v", pctx)
	}
	if code := callTool(t, dm, "set_stage_text", map[string]any{"text": "A misty bridge."}, nil); code != "" {
		t.Fatalf("set_stage_text: %s", code)
	}
	if code := callTool(t, player, "set_stage_text", map[string]any{"text": "mine now"}, nil); code != "not_current_dm" {
		t.Fatalf("player set the stage: %q", code)
	}
	var checks table.CheckRequests
	if code := callTool(t, dm, "request_check", map[string]any{"skill": "perception", "dc": 15}, &checks); code != "" {
		t.Fatalf("request_check: %s", code)
	}
	var page table.EventPage
	if code := callTool(t, player, "wait_for_event", map[string]any{"after": pctx.Cursor, "timeout_seconds": 5}, &page); code != "" || len(page.Events) == 0 {
		t.Fatalf("wait_for_event: %q %+v", code, page)
	}
	raw, _ := json.Marshal(page)
	if strings.Contains(string(raw), `"dc"`) {
		t.Fatalf("the player's events carry the DC: %s", raw)
	}
	if code := callTool(t, player, "get_session_context", map[string]any{}, &pctx); code != "" || len(pctx.PendingChecks) != 1 {
		t.Fatalf("pending checks %q %+v", code, pctx.PendingChecks)
	}
	var res table.RollResultView
	if code := callTool(t, player, "roll_pending", map[string]any{"request_id": pctx.PendingChecks[0].ID}, &res); code != "" || res.Success != nil {
		t.Fatalf("roll_pending: %q %+v", code, res)
	}
	if code := callTool(t, player, "roll_pending", map[string]any{"request_id": pctx.PendingChecks[0].ID}, nil); code != "roll_request_already_resolved" {
		t.Fatalf("second roll: %q", code)
	}
	var dmCtx SessionContext
	callTool(t, dm, "get_session_context", map[string]any{}, &dmCtx)
	var seen bool
	for _, e := range dmCtx.Session.RecentEvents {
		if e.Kind == "roll.outcome" && strings.Contains(string(e.Payload), `"dc":15`) {
			seen = true
		}
	}
	if !seen {
		t.Fatal("the DM does not see the outcome")
	}
	if code := callTool(t, player, "post_dialogue", map[string]any{"text": "I see something!", "bogus": 1}, nil); code != "invalid_request" {
		t.Fatalf("unknown argument: %q", code)
	}
	// The human takes Mira back: the AI's token stops working at once.
	_, err = svc.TakeBackControl(ctx, lt.Seated, lt.PlayerSeatID)
	tabletest.Must(t, err)
	_, err = player.CallTool(ctx, &mcpsdk.CallToolParams{Name: "post_dialogue", Arguments: map[string]any{"text": "hello?"}})
	if err == nil || !strings.Contains(err.Error(), "Unauthorized") {
		t.Fatalf("a taken-back token still works: %v", err)
	}
}
