package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/gameplay/table/tabletest"
)

// TestToolAuthorizationMatrix calls every tool as an AI DM, an AI player
// on its own seat, an AI player reaching for another seat, and an unbound
// pre-session DM. "" means allowed. Every result is validated against the
// listed output schema.
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
	seatTomas(t, svc, f)
	_, err = svc.LateJoin(ctx, dmCaller, f.LobbyID, f.FreeSeatID)
	tabletest.Must(t, err)
	// Mira's player hands her to an AI.
	playerGrant, err := svc.LetAIControl(ctx, f.Seated, f.PlayerSeatID, table.HandoffInput{})
	tabletest.Must(t, err)
	// The spare campaign's DM seat holds an unbound pre-session grant.
	preGrant, err := svc.SetDMSeatAI(ctx, f.Owner, f.SpareCampaignID)
	tabletest.Must(t, err)

	agents := map[string]*agent{
		"ai_dm":          connectAgent(t, srv.URL, dmGrant.Token),
		"ai_player":      connectAgent(t, srv.URL, playerGrant.Token),
		"pre_session_dm": connectAgent(t, srv.URL, preGrant.Token),
	}
	agents["ai_player_other"] = agents["ai_player"]
	mira, tomas := f.PlayerSeatID, f.FreeSeatID
	newRequest := func(seat int64) int64 {
		out, err := svc.RequestCheck(ctx, dmCaller, f.LobbyID, table.CheckRequestInput{SeatIDs: []int64{seat}, Skill: "perception"})
		tabletest.Must(t, err)
		return out.Requests[0].ID
	}
	newWindow := func() int64 {
		w, err := svc.OpenActionWindow(ctx, dmCaller, f.LobbyID, table.WindowInput{Prompt: "Now?"})
		tabletest.Must(t, err)
		return w.ID
	}
	newAction := func(seat int64) int64 {
		a, err := svc.DeclareAction(ctx, dmCaller, f.LobbyID, table.ActionInput{Text: "jumps", SubjectSeatID: &seat})
		tabletest.Must(t, err)
		return a.ID
	}
	newEntry := func() int64 {
		e, err := svc.AddJournalEntry(ctx, dmCaller, f.CampaignID, table.JournalInput{Kind: "npc", Title: "Innkeeper Bram"})
		tabletest.Must(t, err)
		return e.ID
	}
	type args = map[string]any
	type cell struct {
		args func() args
		want string
	}
	fixed := func(a args) func() args { return func() args { return a } }
	const pre = "ai_grant_pre_session_only"
	cases := []struct {
		tool, variant string
		byRole        map[string]cell
	}{
		{"get_pre_session_context", "", map[string]cell{"ai_dm": {nil, ""}, "ai_player": {nil, ""}, "pre_session_dm": {nil, ""}}},
		{"session", "start", map[string]cell{"ai_dm": {fixed(args{"action": "start"}), "session_not_lobby"}, "ai_player": {fixed(args{"action": "start"}), "session_not_lobby"},
			"pre_session_dm": {fixed(args{"action": "start"}), "session_not_lobby"}}},
		{"get_session_context", "", map[string]cell{"ai_dm": {nil, ""}, "ai_player": {nil, ""}, "pre_session_dm": {nil, pre}}},
		{"get_character_context", "", map[string]cell{"ai_dm": {fixed(args{"seat_id": mira}), ""},
			"ai_player": {nil, ""}, "ai_player_other": {fixed(args{"seat_id": tomas}), "not_found"}, "pre_session_dm": {nil, pre}}},
		{"post_message", "say", map[string]cell{"ai_dm": {fixed(args{"text": "Night falls.", "speaker": "Owl"}), ""},
			"ai_player":       {fixed(args{"text": "Hi."}), ""},
			"ai_player_other": {fixed(args{"text": "Hi.", "seat_id": tomas}), "message_kind_not_allowed"},
			"pre_session_dm":  {fixed(args{"text": "Hi."}), pre}}},
		{"post_message", "action", map[string]cell{"ai_dm": {fixed(args{"kind": "action", "text": "Tomas ducks.", "seat_id": tomas}), ""},
			"ai_player":       {fixed(args{"kind": "action", "text": "I look.", "intent": "search"}), ""},
			"ai_player_other": {fixed(args{"kind": "action", "text": "x", "seat_id": tomas}), "message_kind_not_allowed"},
			"pre_session_dm":  {fixed(args{"kind": "action", "text": "x"}), pre}}},
		{"post_message", "ooc", map[string]cell{"ai_dm": {fixed(args{"kind": "ooc", "text": "brb"}), ""},
			"ai_player": {fixed(args{"kind": "ooc", "text": "brb"}), ""}, "pre_session_dm": {fixed(args{"kind": "ooc", "text": "x"}), pre}}},
		{"post_message", "whisper", map[string]cell{"ai_dm": {fixed(args{"kind": "whisper", "text": "psst", "seat_id": mira}), ""},
			"ai_player":       {fixed(args{"kind": "whisper", "text": "psst"}), ""},
			"ai_player_other": {fixed(args{"kind": "whisper", "text": "psst", "seat_id": tomas}), "message_kind_not_allowed"},
			"pre_session_dm":  {fixed(args{"kind": "whisper", "text": "x"}), pre}}},
		{"post_message", "unknown kind", map[string]cell{"ai_player": {fixed(args{"kind": "shout", "text": "Hi."}), "invalid_request"}}},
		{"declare_action", "", map[string]cell{"ai_dm": {fixed(args{"text": "Tomas runs.", "seat_id": tomas}), ""},
			"ai_player":       {func() args { return args{"text": "I hide.", "window_id": newWindow()} }, ""},
			"ai_player_other": {fixed(args{"text": "x", "seat_id": tomas}), "message_kind_not_allowed"},
			"pre_session_dm":  {fixed(args{"text": "x"}), pre}}},
		{"set_stage", "", map[string]cell{"ai_dm": {fixed(args{"text": "A cave."}), ""},
			"ai_player": {fixed(args{"text": "Mine."}), "not_current_dm"}, "pre_session_dm": {fixed(args{"text": "x"}), pre}}},
		{"request_check", "", map[string]cell{"ai_dm": {fixed(args{"skill": "stealth", "dc": 12}), ""},
			"ai_player": {fixed(args{"skill": "stealth"}), "not_current_dm"}, "pre_session_dm": {fixed(args{"skill": "stealth"}), pre}}},
		{"cancel_check", "", map[string]cell{"ai_dm": {func() args { return args{"request_id": newRequest(mira)} }, ""},
			"ai_player":      {func() args { return args{"request_id": newRequest(mira)} }, "not_current_dm"},
			"pre_session_dm": {func() args { return args{"request_id": newRequest(mira)} }, pre}}},
		{"roll_check", "", map[string]cell{"ai_dm": {func() args { return args{"request_id": newRequest(mira)} }, ""},
			"ai_player":       {func() args { return args{"request_id": newRequest(mira), "faces": []int{9}} }, ""},
			"ai_player_other": {func() args { return args{"request_id": newRequest(tomas)} }, "not_roll_target"},
			"pre_session_dm":  {func() args { return args{"request_id": newRequest(mira)} }, pre}}},
		{"quick_roll", "", map[string]cell{"ai_dm": {fixed(args{"formula": "2d6", "seat_id": tomas}), ""},
			"ai_player": {fixed(args{"formula": "1d20+2"}), ""}, "pre_session_dm": {fixed(args{"formula": "1d4"}), pre}}},
		{"update_character_state", "", map[string]cell{"ai_dm": {fixed(args{"seat_id": mira, "op": "damage", "amount": 3}), ""},
			"ai_player":       {fixed(args{"seat_id": mira, "op": "heal", "amount": 1}), ""},
			"ai_player_other": {fixed(args{"seat_id": tomas, "op": "heal", "amount": 1}), "character_state_forbidden"},
			"pre_session_dm":  {fixed(args{"seat_id": mira, "op": "heal", "amount": 1}), pre}}},
		{"action_window", "open", map[string]cell{"ai_dm": {fixed(args{"prompt": "Go?"}), ""},
			"ai_player": {fixed(args{"prompt": "Go?"}), "not_current_dm"}, "pre_session_dm": {fixed(args{"prompt": "Go?"}), pre}}},
		{"action_window", "close", map[string]cell{"ai_dm": {func() args { return args{"window_id": newWindow()} }, ""},
			"ai_player":      {func() args { return args{"window_id": newWindow()} }, "not_current_dm"},
			"pre_session_dm": {func() args { return args{"window_id": newWindow()} }, pre}}},
		{"action_window", "both", map[string]cell{"ai_dm": {func() args { return args{"prompt": "Go?", "window_id": newWindow()} }, "invalid_request"}}},
		{"adjudicate_action", "", map[string]cell{"ai_dm": {func() args { return args{"action_id": newAction(mira), "status": "processing"} }, ""},
			"ai_player":       {func() args { return args{"action_id": newAction(mira), "status": "cancelled"} }, ""},
			"ai_player_other": {func() args { return args{"action_id": newAction(tomas), "status": "cancelled"} }, "not_current_dm"},
			"pre_session_dm":  {func() args { return args{"action_id": newAction(mira), "status": "cancelled"} }, pre}}},
		{"session", "admit", map[string]cell{"ai_dm": {fixed(args{"action": "admit", "seat_id": tomas}), "participant_already_joined"},
			"ai_player": {fixed(args{"action": "admit", "seat_id": tomas}), "not_current_dm"}, "pre_session_dm": {fixed(args{"action": "admit", "seat_id": tomas}), pre}}},
		{"session", "unknown action", map[string]cell{"ai_dm": {fixed(args{"action": "pause"}), "invalid_request"}}},
		{"wait_for_event", "now", map[string]cell{"ai_dm": {fixed(args{"after": 0, "timeout_seconds": 0}), ""},
			"ai_player": {fixed(args{"after": 0, "timeout_seconds": 0}), ""}, "pre_session_dm": {fixed(args{"after": 0, "timeout_seconds": 0}), pre}}},
		{"wait_for_event", "wait", map[string]cell{"ai_dm": {fixed(args{"after": 0, "timeout_seconds": 1}), ""},
			"ai_player": {fixed(args{"after": 0, "timeout_seconds": 1}), ""}, "pre_session_dm": {fixed(args{"after": 0, "timeout_seconds": 1}), pre}}},
		// A fight: the DM starts it with a hidden NPC; players act for
		// their own seat only; nobody's turn before it begins.
		{"fight", "start", map[string]cell{"ai_dm": {fixed(args{"action": "start", "npcs": []args{{"name": "Ogre", "ac": 11, "hp": 30}}}), ""},
			"ai_player":      {fixed(args{"action": "change", "combatant_id": "npc:1", "change": "reveal"}), "not_current_dm"},
			"pre_session_dm": {fixed(args{"action": "start"}), pre}}},
		{"fight", "initiative", map[string]cell{"ai_dm": {fixed(args{"action": "initiative", "combatant_id": fmt.Sprintf("seat:%d", tomas)}), ""},
			"ai_player":       {fixed(args{"action": "initiative", "combatant_id": fmt.Sprintf("seat:%d", mira), "faces": []int{12}}), ""},
			"ai_player_other": {fixed(args{"action": "initiative", "combatant_id": fmt.Sprintf("seat:%d", tomas)}), "not_your_combatant"},
			"pre_session_dm":  {fixed(args{"action": "end_turn"}), pre}}},
		// The journal: the DM writes for anyone and confirms; a player
		// proposes for the table or seats including their own, and changes
		// nothing of the DM's.
		{"journal", "list", map[string]cell{"ai_dm": {nil, ""}, "ai_player": {fixed(args{"action": "list", "kind": "npc", "query": "Bram"}), ""}, "pre_session_dm": {nil, pre}}},
		{"journal", "add", map[string]cell{"ai_dm": {fixed(args{"action": "add", "kind": "clue", "title": "The DC is 15", "audience": "dm"}), ""},
			"ai_player":       {fixed(args{"action": "add", "kind": "clue", "title": "Muddy boots", "seq": 1}), ""},
			"ai_player_other": {fixed(args{"action": "add", "kind": "note", "title": "x", "audience": "seats", "seat_ids": []int64{tomas}}), "journal_audience_not_allowed"},
			"pre_session_dm":  {fixed(args{"action": "add", "kind": "npc", "title": "x"}), pre}}},
		{"journal", "edit", map[string]cell{"ai_dm": {func() args { return args{"action": "edit", "entry_id": newEntry(), "text": "Owes the thieves."} }, ""},
			"ai_player":      {func() args { return args{"action": "edit", "entry_id": newEntry(), "title": "Bob"} }, "journal_entry_not_editable"},
			"pre_session_dm": {func() args { return args{"action": "edit", "entry_id": newEntry(), "title": "Bob"} }, pre}}},
		{"journal", "confirm", map[string]cell{"ai_dm": {func() args { return args{"action": "confirm", "entry_id": newEntry()} }, ""},
			"ai_player": {func() args { return args{"action": "confirm", "entry_id": newEntry()} }, "journal_dm_required"}}},
		{"journal", "delete", map[string]cell{"ai_dm": {func() args { return args{"action": "delete", "entry_id": newEntry()} }, ""},
			"ai_player": {func() args { return args{"action": "delete", "entry_id": newEntry()} }, "journal_entry_not_editable"}}},
		{"journal", "unknown action", map[string]cell{"ai_dm": {fixed(args{"action": "burn"}), "invalid_request"}}},
		{"session", "end", map[string]cell{"ai_player": {fixed(args{"action": "end"}), "not_current_dm"}, "pre_session_dm": {fixed(args{"action": "end"}), pre}}},
	}
	covered := map[string]bool{}
	for _, tc := range cases {
		covered[tc.tool] = true
	}
	for _, tl := range tools {
		if !covered[tl.name] {
			t.Errorf("the matrix does not cover %s", tl.name)
		}
	}
	if len(covered) != len(tools) {
		t.Fatalf("the matrix names %d tools, the server has %d", len(covered), len(tools))
	}
	for _, tc := range cases {
		for _, role := range []string{"ai_dm", "ai_player", "ai_player_other", "pre_session_dm"} {
			c, ok := tc.byRole[role]
			if !ok {
				continue
			}
			t.Run(strings.TrimSuffix(tc.tool+" "+tc.variant, " ")+"/"+role, func(t *testing.T) {
				a := agents[role]
				a.t = t
				var in args
				if c.args != nil {
					in = c.args()
				}
				if got := a.call(tc.tool, in, nil); got != c.want {
					t.Fatalf("got %q, want %q", got, c.want)
				}
			})
		}
	}
	// Last, the DM ends the session; it cannot end it twice.
	agents["ai_dm"].t = t
	agents["ai_dm"].must("session", map[string]any{"action": "end"}, nil)
	if code := agents["ai_dm"].call("session", map[string]any{"action": "end"}, nil); code != "session_ended" {
		t.Fatalf("ending twice: %q", code)
	}
}

// TestOldToolNamesAreUnknown: a tool name of the earlier 24-tool surface
// (get_events) is refused exactly like a name that never existed.
func TestOldToolNamesAreUnknown(t *testing.T) {
	svc, srv := liveServer(t)
	f := tabletest.New(t, svc)
	dm := aiDM(t, srv.URL, f)
	refusal := func(name string) string {
		t.Helper()
		res, err := dm.cs.CallTool(context.Background(), &mcpsdk.CallToolParams{Name: name, Arguments: map[string]any{"after": 0}})
		if err == nil {
			raw, _ := json.Marshal(res)
			t.Fatalf("%s was served: %s", name, raw)
		}
		return strings.ReplaceAll(err.Error(), name, "NAME")
	}
	if old, unknown := refusal("get_events"), refusal("no_such_tool"); old != unknown || !strings.Contains(unknown, "NAME") {
		t.Fatalf("get_events is refused with %q, an unknown tool with %q", old, unknown)
	}
}
