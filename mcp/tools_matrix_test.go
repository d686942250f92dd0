package mcp

import (
	"context"
	"net/http"
	"strings"
	"testing"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/gameplay/table/tabletest"
)

// TestToolAuthorizationMatrix calls every tool as an AI DM, an AI player
// on its own seat, an AI player reaching for another seat, an unbound
// pre-session DM, and a token whose seat was taken back. "" means allowed.
func TestToolAuthorizationMatrix(t *testing.T) {
	ctx := context.Background()
	svc, srv := liveServer(t)
	f := tabletest.New(t, svc)
	// The DM seat goes to an AI, which starts the session.
	dmGrant, err := svc.SetDMSeatAI(ctx, f.Owner, f.CampaignID)
	tabletest.Must(t, err)
	dmCaller, err := svc.AuthenticateGrant(ctx, dmGrant.Token)
	tabletest.Must(t, err)
	_, err = svc.StartSession(ctx, dmCaller, f.LobbyID)
	tabletest.Must(t, err)
	// Tomas (a human) joins late on the free seat: "another seat".
	_, err = svc.AssignSeat(ctx, f.Owner, f.FreeSeatID, f.UnseatedAccess)
	tabletest.Must(t, err)
	_, err = svc.SetSeatCharacter(ctx, f.Unseated, f.FreeSeatID, &f.UnseatedCharacterID)
	tabletest.Must(t, err)
	_, err = svc.LateJoin(ctx, dmCaller, f.LobbyID, f.FreeSeatID)
	tabletest.Must(t, err)
	// Mira's player hands her to an AI.
	playerGrant, err := svc.LetAIControl(ctx, f.Seated, f.PlayerSeatID, table.HandoffInput{})
	tabletest.Must(t, err)
	// The spare campaign's DM seat holds an unbound pre-session grant.
	preGrant, err := svc.SetDMSeatAI(ctx, f.Owner, f.SpareCampaignID)
	tabletest.Must(t, err)
	// Tomas hands over and takes back: that token is dead.
	dead, err := svc.LetAIControl(ctx, f.Unseated, f.FreeSeatID, table.HandoffInput{})
	tabletest.Must(t, err)
	_, err = svc.TakeBackControl(ctx, f.Unseated, f.FreeSeatID)
	tabletest.Must(t, err)

	clients := map[string]*mcpsdk.ClientSession{
		"ai_dm":          connect(t, srv.URL, dmGrant.Token),
		"ai_player":      connect(t, srv.URL, playerGrant.Token),
		"pre_session_dm": connect(t, srv.URL, preGrant.Token),
	}
	clients["ai_player_other"] = clients["ai_player"]
	mira, tomas := f.PlayerSeatID, f.FreeSeatID
	newRequest := func(seat int64) int64 {
		out, err := svc.RequestCheck(ctx, dmCaller, f.LobbyID, table.CheckRequestInput{SeatIDs: []int64{seat}, Skill: "perception"})
		tabletest.Must(t, err)
		return out.Requests[0].ID
	}
	type cell struct {
		args func() map[string]any
		want string
	}
	const pre = "ai_grant_pre_session_only"
	cases := []struct {
		tool   string
		byRole map[string]cell
	}{
		{"get_pre_session_context", map[string]cell{"ai_dm": {nil, ""}, "ai_player": {nil, ""}, "pre_session_dm": {nil, ""}}},
		{"start_session", map[string]cell{"ai_dm": {nil, "session_not_lobby"}, "ai_player": {nil, "session_not_lobby"}, "pre_session_dm": {nil, "session_not_lobby"}}},
		{"get_session_context", map[string]cell{"ai_dm": {nil, ""}, "ai_player": {nil, ""}, "pre_session_dm": {nil, pre}}},
		{"get_character_context", map[string]cell{"ai_dm": {func() map[string]any { return map[string]any{"seat_id": mira} }, ""},
			"ai_player": {nil, ""}, "ai_player_other": {func() map[string]any { return map[string]any{"seat_id": tomas} }, "not_found"}, "pre_session_dm": {nil, pre}}},
		{"post_dialogue", map[string]cell{"ai_dm": {func() map[string]any { return map[string]any{"text": "Night falls."} }, ""},
			"ai_player":       {func() map[string]any { return map[string]any{"text": "Hi."} }, ""},
			"ai_player_other": {func() map[string]any { return map[string]any{"text": "Hi.", "as_seat_id": tomas} }, "message_kind_not_allowed"},
			"pre_session_dm":  {func() map[string]any { return map[string]any{"text": "Hi."} }, pre}}},
		{"post_action", map[string]cell{"ai_dm": {func() map[string]any { return map[string]any{"text": "Tomas ducks.", "as_seat_id": tomas} }, ""},
			"ai_player":       {func() map[string]any { return map[string]any{"text": "I look.", "intent": "search"} }, ""},
			"ai_player_other": {func() map[string]any { return map[string]any{"text": "x", "as_seat_id": tomas} }, "message_kind_not_allowed"},
			"pre_session_dm":  {func() map[string]any { return map[string]any{"text": "x"} }, pre}}},
		{"post_ooc", map[string]cell{"ai_dm": {func() map[string]any { return map[string]any{"text": "brb"} }, ""},
			"ai_player": {func() map[string]any { return map[string]any{"text": "brb"} }, ""}, "pre_session_dm": {func() map[string]any { return map[string]any{"text": "x"} }, pre}}},
		{"whisper_dm", map[string]cell{"ai_dm": {func() map[string]any { return map[string]any{"text": "psst", "to_seat_id": mira} }, ""},
			"ai_player":       {func() map[string]any { return map[string]any{"text": "psst"} }, ""},
			"ai_player_other": {func() map[string]any { return map[string]any{"text": "psst", "to_seat_id": tomas} }, "message_kind_not_allowed"},
			"pre_session_dm":  {func() map[string]any { return map[string]any{"text": "x"} }, pre}}},
		{"set_stage_text", map[string]cell{"ai_dm": {func() map[string]any { return map[string]any{"text": "A cave."} }, ""},
			"ai_player": {func() map[string]any { return map[string]any{"text": "Mine."} }, "not_current_dm"}, "pre_session_dm": {func() map[string]any { return map[string]any{"text": "x"} }, pre}}},
		{"request_check", map[string]cell{"ai_dm": {func() map[string]any { return map[string]any{"skill": "stealth", "dc": 12} }, ""},
			"ai_player": {func() map[string]any { return map[string]any{"skill": "stealth"} }, "not_current_dm"}, "pre_session_dm": {func() map[string]any { return map[string]any{"skill": "stealth"} }, pre}}},
		{"roll_pending", map[string]cell{"ai_dm": {func() map[string]any { return map[string]any{"request_id": newRequest(mira)} }, ""},
			"ai_player":       {func() map[string]any { return map[string]any{"request_id": newRequest(mira)} }, ""},
			"ai_player_other": {func() map[string]any { return map[string]any{"request_id": newRequest(tomas)} }, "not_roll_target"},
			"pre_session_dm":  {func() map[string]any { return map[string]any{"request_id": newRequest(mira)} }, pre}}},
		{"submit_physical_roll", map[string]cell{"ai_dm": {func() map[string]any { return map[string]any{"request_id": newRequest(tomas), "faces": []int{12}} }, ""},
			"ai_player":       {func() map[string]any { return map[string]any{"request_id": newRequest(mira), "faces": []int{9}} }, ""},
			"ai_player_other": {func() map[string]any { return map[string]any{"request_id": newRequest(tomas), "faces": []int{9}} }, "not_roll_target"},
			"pre_session_dm":  {func() map[string]any { return map[string]any{"request_id": newRequest(mira), "faces": []int{9}} }, pre}}},
		{"quick_roll", map[string]cell{"ai_dm": {func() map[string]any { return map[string]any{"formula": "2d6"} }, ""},
			"ai_player": {func() map[string]any { return map[string]any{"formula": "1d20+2"} }, ""}, "pre_session_dm": {func() map[string]any { return map[string]any{"formula": "1d4"} }, pre}}},
		{"update_character_state", map[string]cell{"ai_dm": {func() map[string]any { return map[string]any{"subject_seat_id": mira, "op": "damage", "amount": 3} }, ""},
			"ai_player":       {func() map[string]any { return map[string]any{"subject_seat_id": mira, "op": "heal", "amount": 1} }, ""},
			"ai_player_other": {func() map[string]any { return map[string]any{"subject_seat_id": tomas, "op": "heal", "amount": 1} }, "character_state_forbidden"},
			"pre_session_dm":  {func() map[string]any { return map[string]any{"subject_seat_id": mira, "op": "heal", "amount": 1} }, pre}}},
		{"get_pending_events", map[string]cell{"ai_dm": {func() map[string]any { return map[string]any{"after": 0} }, ""},
			"ai_player": {func() map[string]any { return map[string]any{"after": 0} }, ""}, "pre_session_dm": {func() map[string]any { return map[string]any{"after": 0} }, pre}}},
		{"wait_for_event", map[string]cell{"ai_dm": {func() map[string]any { return map[string]any{"after": 0, "timeout_seconds": 1} }, ""},
			"ai_player": {func() map[string]any { return map[string]any{"after": 0, "timeout_seconds": 1} }, ""}, "pre_session_dm": {func() map[string]any { return map[string]any{"after": 0, "timeout_seconds": 1} }, pre}}},
	}
	if len(cases) != len(tools) {
		t.Fatalf("the matrix covers %d tools, the server has %d", len(cases), len(tools))
	}
	for _, tc := range cases {
		for role, c := range tc.byRole {
			t.Run(tc.tool+"/"+role, func(t *testing.T) {
				args := map[string]any{}
				if c.args != nil {
					args = c.args()
				}
				if got := callTool(t, clients[role], tc.tool, args, nil); got != c.want {
					t.Fatalf("got %q, want %q", got, c.want)
				}
			})
		}
		t.Run(tc.tool+"/dead_token", func(t *testing.T) {
			resp := rawToolCall(t, srv.URL, dead.Token, tc.tool)
			defer resp.Body.Close()
			if resp.StatusCode != http.StatusUnauthorized || errorCode(t, resp) != "ai_token_revoked" {
				t.Fatalf("a dead token reached %s: %d", tc.tool, resp.StatusCode)
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
