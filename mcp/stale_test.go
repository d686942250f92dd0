package mcp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/gameplay/table/tabletest"
	"github.com/adventure-table/adventure-table/models/modelstest"
)

// TestStaleTokensOnEveryTool makes tokens stale in every way a table can
// and calls every tool with each: all are refused with the token's code
// (as a tool error that says why, validated against the listed schema),
// except an expired pre-session token, which the bearer check refuses with
// 401. (A token cannot name a wrong session through the tools: they take
// the session from the grant itself.)
func TestStaleTokensOnEveryTool(t *testing.T) {
	ctx := context.Background()
	now := time.Now()
	clock := &now
	svc := table.New(modelstest.MustOpen(t), func() time.Time { return *clock })
	srv := httptest.NewServer(NewHandler(Options{Version: "test", Table: svc, Verify: func(ctx context.Context, tok string) (Principal, error) {
		c, err := svc.AuthenticateGrant(ctx, tok)
		return Principal{GrantID: c.GrantID}, err
	}}))
	t.Cleanup(srv.Close)

	handedOff := func(t *testing.T) (tabletest.Fixture, string) {
		f := tabletest.New(t, svc)
		_, err := svc.StartSession(ctx, f.Owner, f.LobbyID)
		tabletest.Must(t, err)
		m, err := svc.LetAIControl(ctx, f.Seated, f.PlayerSeatID, table.HandoffInput{})
		tabletest.Must(t, err)
		return f, m.Token
	}
	preSession := func(t *testing.T) (tabletest.Fixture, string) {
		f := tabletest.New(t, svc)
		m, err := svc.SetDMSeatAI(ctx, f.Owner, f.CampaignID)
		tabletest.Must(t, err)
		return f, m.Token
	}
	cases := []struct {
		name  string
		stale func(t *testing.T) string
		want  string
	}{
		{"TakenBack", func(t *testing.T) string {
			f, tok := handedOff(t)
			_, err := svc.TakeBackControl(ctx, f.Seated, f.PlayerSeatID)
			tabletest.Must(t, err)
			return tok
		}, "ai_token_revoked"},
		{"MemberRevoked", func(t *testing.T) string {
			f, tok := handedOff(t)
			_, err := svc.RevokeMember(ctx, f.Owner, f.RoomID, f.SeatedAccess)
			tabletest.Must(t, err)
			return tok
		}, "ai_token_revoked"},
		{"ReassignedByOwner", func(t *testing.T) string {
			f, tok := handedOff(t)
			_, err := svc.AssignSeat(ctx, f.Owner, f.PlayerSeatID, f.UnseatedAccess)
			tabletest.Must(t, err)
			return tok
		}, "ai_token_revoked"},
		{"SessionEnded", func(t *testing.T) string {
			f, tok := handedOff(t)
			_, err := svc.EndSession(ctx, f.Owner, f.LobbyID)
			tabletest.Must(t, err)
			return tok
		}, "session_ended"},
		{"DMRotated", func(t *testing.T) string {
			f, tok := preSession(t)
			_, err := svc.SetDMSeatAI(ctx, f.Owner, f.CampaignID)
			tabletest.Must(t, err)
			return tok
		}, "ai_token_revoked"},
		{"CampaignArchived", func(t *testing.T) string {
			f, tok := preSession(t)
			archived := "archived"
			_, err := svc.UpdateCampaign(ctx, f.Owner, f.CampaignID, table.CampaignChange{Status: &archived})
			tabletest.Must(t, err)
			return tok
		}, "ai_token_revoked"},
		{"ActiveCampaignSwitched", func(t *testing.T) string {
			f, tok := preSession(t)
			_, err := svc.UpdateRoom(ctx, f.Owner, f.RoomID, table.RoomChange{ActiveCampaignID: &f.SpareCampaignID})
			tabletest.Must(t, err)
			return tok
		}, "ai_token_revoked"},
		{"PreSessionExpired", func(t *testing.T) string {
			_, tok := preSession(t)
			later := now.Add(table.PreSessionGrantTTL + time.Second)
			clock = &later
			t.Cleanup(func() { clock = &now })
			return tok
		}, "ai_token_expired"},
	}
	// Real ids for the tools that name a thing: they live in another room,
	// so only the token's own state can explain a refusal.
	other := tabletest.New(t, svc)
	_, err := svc.StartSession(ctx, other.Owner, other.LobbyID)
	tabletest.Must(t, err)
	req, err := svc.RequestCheck(ctx, other.Owner, other.LobbyID, table.CheckRequestInput{Skill: "perception"})
	tabletest.Must(t, err)
	win, err := svc.OpenActionWindow(ctx, other.Owner, other.LobbyID, table.WindowInput{Prompt: "Now?"})
	tabletest.Must(t, err)
	act, err := svc.DeclareAction(ctx, other.Owner, other.LobbyID, table.ActionInput{Text: "jumps", SubjectSeatID: &other.PlayerSeatID})
	tabletest.Must(t, err)
	validArgs := map[string]map[string]any{
		"get_character_context": {}, "post_message": {"kind": "action", "text": "hi"}, "declare_action": {"text": "hi"}, "set_stage": {"text": "hi"}, "request_check": {"skill": "stealth"},
		"cancel_check": {"request_id": req.Requests[0].ID}, "roll_check": {"request_id": req.Requests[0].ID},
		"quick_roll": {"formula": "1d20"}, "update_character_state": {"seat_id": other.PlayerSeatID, "op": "heal", "amount": 1},
		"action_window": {"window_id": win.ID}, "adjudicate_action": {"action_id": act.ID, "status": "cancelled"},
		"session": {"action": "admit", "seat_id": other.FreeSeatID}, "wait_for_event": {"after": 1 << 40, "timeout_seconds": 1},
		"fight": {"action": "end_turn"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tok := tc.stale(t)
			if tc.want == "ai_token_expired" {
				for _, tl := range tools {
					resp := rawToolCall(t, srv.URL, tok, tl.name)
					code := errorCode(t, resp)
					resp.Body.Close()
					if resp.StatusCode != http.StatusUnauthorized || code != tc.want {
						t.Errorf("%s: got %d %q, want 401 %q", tl.name, resp.StatusCode, code, tc.want)
					}
				}
				return
			}
			a := connectAgent(t, srv.URL, tok)
			for _, tl := range tools {
				if code := a.call(tl.name, validArgs[tl.name], nil); code != tc.want {
					t.Errorf("%s: got %q, want %q", tl.name, code, tc.want)
				}
			}
		})
	}
}

// rawToolCall sends one tools/call in the 2026-07-28 wire format.
func rawToolCall(t *testing.T, url, token, tool string) *http.Response {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + tool + `","arguments":{},"_meta":{` +
		`"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", ProtocolVersion)
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", tool)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}
