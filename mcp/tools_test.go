package mcp

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"image"
	"image/png"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

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

// listedTools lists the tools as a client sees them, with a token of a
// seat handed to an AI.
func listedTools(t *testing.T) []*mcpsdk.Tool {
	svc, srv := liveServer(t)
	lt := tabletest.New(t, svc)
	_, err := svc.StartSession(context.Background(), lt.Owner, lt.LobbyID)
	tabletest.Must(t, err)
	m, err := svc.LetAIControl(context.Background(), lt.Seated, lt.PlayerSeatID, table.HandoffInput{})
	tabletest.Must(t, err)
	list, err := connect(t, srv.URL, m.Token).ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Tools) != len(tools) {
		t.Fatalf("listed %d tools, declared %d", len(list.Tools), len(tools))
	}
	return list.Tools
}

// TestToolSchemasGolden keeps every tool's contract (name, title,
// description, annotations, input and output schema) in testdata/tools;
// refresh with -update.
func TestToolSchemasGolden(t *testing.T) {
	listed := listedTools(t)
	if *update {
		old, _ := filepath.Glob(filepath.Join("testdata", "tools", "*.json"))
		for _, f := range old {
			os.Remove(f)
		}
	}
	for _, tl := range listed {
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
	files, _ := filepath.Glob(filepath.Join("testdata", "tools", "*.json"))
	if len(files) != len(listed) {
		t.Errorf("%d golden files for %d tools: remove the stale ones (go test ./mcp -update)", len(files), len(listed))
	}
	for _, tl := range listed {
		if tl.Title == "" || tl.Annotations == nil || tl.Annotations.OpenWorldHint == nil || *tl.Annotations.OpenWorldHint {
			t.Errorf("%s: needs a title and annotations with openWorldHint false", tl.Name)
		}
		for _, forbidden := range []string{"delete_room", "assign_seat", "revoke_member", "abandon_session", "set_controller"} {
			if tl.Name == forbidden {
				t.Fatalf("forbidden tool %s exists", forbidden)
			}
		}
	}
}

// Byte budgets of what a model reads. The tool list is in every agent's
// context window; the session context is read at least once a turn. The
// whole list adds the output schemas, which clients validate with.
const (
	modelVisibleListBudget = 12 << 10
	wholeListBudget        = 28 << 10
	contextBudget          = 4 << 10
	meanTurnOutputBudget   = 4 << 10
	maxTurnOutputBudget    = 8 << 10
)

// TestToolListBudget: names, titles, descriptions and input schemas fit
// in 12 KB, the whole list with output schemas in 28 KB; no schema uses a
// ["null", X] type (optional fields are absent, never null), and every
// property's schema is an object (a bare `true`, what an untyped Go field
// gives, fails the 2025-11-25 wire-schema check clients run).
func TestToolListBudget(t *testing.T) {
	listed := listedTools(t)
	visible, whole := 0, 0
	for _, tl := range listed {
		v, _ := json.Marshal(map[string]any{"name": tl.Name, "title": tl.Title, "description": tl.Description, "inputSchema": tl.InputSchema})
		w, _ := json.Marshal(tl)
		visible += len(v)
		whole += len(w)
		if bytes.Contains(w, []byte(`"null"`)) {
			t.Errorf("%s: a schema allows null: %s", tl.Name, w)
		}
		for _, schema := range []any{tl.InputSchema, tl.OutputSchema} {
			if path := booleanSchema(schema, tl.Name); path != "" {
				t.Errorf("a property's schema is a boolean, not an object: %s", path)
			}
		}
	}
	t.Logf("tools/list: %d tools, model-visible %d bytes, whole %d bytes", len(listed), visible, whole)
	if visible > modelVisibleListBudget || whole > wholeListBudget {
		t.Fatalf("tools/list is %d bytes model-visible (budget %d) and %d whole (budget %d)", visible, modelVisibleListBudget, whole, wholeListBudget)
	}
}

// booleanSchema returns the path of the first property or items schema
// that is a boolean, or "".
func booleanSchema(schema any, path string) string {
	raw, _ := json.Marshal(schema)
	var node map[string]any
	if json.Unmarshal(raw, &node) != nil {
		return ""
	}
	if props, ok := node["properties"].(map[string]any); ok {
		for name, p := range props {
			if _, isBool := p.(bool); isBool {
				return path + "." + name
			}
			if found := booleanSchema(p, path+"."+name); found != "" {
				return found
			}
		}
	}
	if items, ok := node["items"]; ok {
		if _, isBool := items.(bool); isBool {
			return path + "[]"
		}
		return booleanSchema(items, path+"[]")
	}
	return ""
}

// tinyPNG is a real 2×2 PNG.
func tinyPNG(t *testing.T) string {
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewRGBA(image.Rect(0, 0, 2, 2))); err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(b.Bytes())
}

// TestFullScene plays every tool through the real HTTP handler as
// validating clients would: an AI DM, an AI player and a human who joins
// late. Every result, success or error, is checked against the output
// schema the agent listed.
func TestFullScene(t *testing.T) {
	ctx := context.Background()
	svc, srv := liveServer(t)
	f := tabletest.New(t, svc)
	dm := aiDM(t, srv.URL, f)

	if code := dm.call("get_session_context", nil, nil); code != "ai_grant_pre_session_only" {
		t.Fatalf("unbound DM grant read the session: %q", code)
	}
	var pre PreSession
	dm.must("get_pre_session_context", nil, &pre)
	if !pre.ReadyToStart || pre.LobbySessionID != f.LobbyID {
		t.Fatalf("pre-session context %+v", pre)
	}
	var started Done
	dm.must("session", map[string]any{"action": "start"}, &started)
	var cx Context
	dm.must("get_session_context", nil, &cx)
	if started.Status != "active" || cx.Role != "dm" || cx.Session.Status != "active" || !hasStepArgText(cx.Next, "session", "action", "end") {
		t.Fatalf("after start: %+v", cx)
	}
	mira, tomas := f.PlayerSeatID, f.FreeSeatID
	playerGrant, err := svc.LetAIControl(ctx, f.Seated, mira, table.HandoffInput{TemporaryInstruction: "Be brave."})
	tabletest.Must(t, err)
	player := connectAgent(t, srv.URL, playerGrant.Token)
	var pcx Context
	player.must("get_session_context", nil, &pcx)
	if pcx.Role != "player" || pcx.Instruction != "Be brave." || !strings.Contains(pcx.You, "Mira") || pcx.SeatID != mira {
		t.Fatalf("player context %+v", pcx)
	}

	// Tomas sits down with a character: the DM is told it can admit him.
	seatTomas(t, svc, f)
	dm.must("get_session_context", nil, &cx)
	if !hasStepArg(cx.Next, "session", "seat_id", tomas) {
		t.Fatalf("the DM is not offered to admit Tomas: %+v", cx.Next)
	}
	dm.must("session", map[string]any{"action": "admit", "seat_id": tomas}, nil)
	if code := dm.call("session", map[string]any{"action": "admit", "seat_id": tomas}, nil); code == "" {
		t.Fatal("a seat was admitted twice")
	}

	// The stage: text, an image in the call, cleared again; never by a player.
	var st Stage
	dm.must("set_stage", map[string]any{"text": "A misty bridge."}, &st)
	dm.must("set_stage", map[string]any{"image_base64": tinyPNG(t)}, &st)
	if st.Text != "A misty bridge." || !st.Image {
		t.Fatalf("stage with image %+v", st)
	}
	if code := dm.call("set_stage", map[string]any{"image_base64": base64.StdEncoding.EncodeToString([]byte("not an image"))}, nil); code != "stage_image_invalid" && code != "invalid_request" {
		t.Fatalf("a non-image was accepted: %q", code)
	}
	dm.must("set_stage", map[string]any{"clear_image": true}, &st)
	if st.Image || st.Text != "A misty bridge." {
		t.Fatalf("cleared stage %+v", st)
	}
	if code := player.call("set_stage", map[string]any{"text": "mine now"}, nil); code != "not_current_dm" {
		t.Fatalf("player set the stage: %q", code)
	}

	// Talk: narration, an NPC, the DM speaking for Tomas, whispers both ways.
	dm.must("post_message", map[string]any{"text": "Rain drums on the planks."}, nil)
	dm.must("post_message", map[string]any{"text": "Halt! Who goes there?", "speaker": "Old Tom"}, nil)
	dm.must("post_message", map[string]any{"text": "Friends!", "seat_id": tomas}, nil)
	player.must("post_message", map[string]any{"text": "We mean no harm."}, nil)
	player.must("post_message", map[string]any{"kind": "action", "text": "I look under the bridge.", "intent": "search"}, nil)
	player.must("post_message", map[string]any{"kind": "ooc", "text": "brb, tea"}, nil)
	player.must("post_message", map[string]any{"kind": "whisper", "text": "I pocket the coin."}, nil)
	dm.must("post_message", map[string]any{"kind": "whisper", "text": "You feel watched.", "seat_id": mira}, nil)
	if code := player.call("post_message", map[string]any{"kind": "whisper", "text": "psst", "seat_id": tomas}, nil); code != "message_kind_not_allowed" {
		t.Fatalf("a player whispered another player: %q", code)
	}
	if code := player.call("post_message", map[string]any{"text": "x", "speaker": "Old Tom"}, nil); code != "message_kind_not_allowed" {
		t.Fatalf("a player spoke as an NPC: %q", code)
	}
	if code := player.call("post_message", map[string]any{"text": "x", "bogus": 1}, nil); code != "invalid_request" {
		t.Fatalf("unknown argument: %q", code)
	}
	var pg EventPage
	player.must("wait_for_event", map[string]any{"after": pcx.Cursor, "timeout_seconds": 0}, &pg)
	byMsg := map[string]Event{}
	for _, e := range pg.Events {
		byMsg[e.Msg+"|"+e.Text] = e
	}
	if e := byMsg["npc|Halt! Who goes there?"]; e.By != "Old Tom (NPC)" {
		t.Fatalf("NPC speech reads %+v", pg.Events)
	}
	if e := byMsg["say|Friends!"]; !strings.HasPrefix(e.By, "DM for ") {
		t.Fatalf("DM proxy reads %+v", e)
	}
	if e := byMsg["whisper|You feel watched."]; e.To != "Mira (AI)" || e.By != "DM" {
		t.Fatalf("the DM's whisper reads %+v", e)
	}
	if e := byMsg["whisper|I pocket the coin."]; e.To != "DM" {
		t.Fatalf("the player's whisper reads %+v", e)
	}

	// An action window, a declared action, a check that decides it.
	var w Window
	dm.must("action_window", map[string]any{"prompt": "What does everyone do?"}, &w)
	player.must("get_session_context", nil, &pcx)
	if pcx.Window == nil || !hasStepArg(pcx.Next, "declare_action", "window_id", w.WindowID) {
		t.Fatalf("the player is not offered the window: %+v", pcx)
	}
	var decl Declared
	player.must("declare_action", map[string]any{"text": "I climb down.", "window_id": w.WindowID}, &decl)
	dm.must("get_session_context", nil, &cx)
	if len(cx.Actions) != 1 || !hasStepArg(cx.Next, "adjudicate_action", "action_id", decl.ActionID) {
		t.Fatalf("the DM is not offered the action: %+v", cx)
	}
	dm.must("adjudicate_action", map[string]any{"action_id": decl.ActionID, "status": "processing"}, &decl)
	var checks Checks
	dm.must("request_check", map[string]any{"seat_id": mira, "skill": "athletics", "dc": 15, "action_id": decl.ActionID}, &checks)
	if len(checks.Checks) != 1 || checks.Checks[0].DC != 15 || checks.Checks[0].SeatID != mira {
		t.Fatalf("request_check %+v", checks)
	}
	// The secret DC: the player reads its commitment, not the DC or salt.
	commitment := checks.Checks[0].Commitment
	if len(commitment) != 64 || checks.Checks[0].Salt != "" {
		t.Fatalf("the DM's check: commitment %q salt %q", commitment, checks.Checks[0].Salt)
	}
	player.must("wait_for_event", map[string]any{"after": pcx.Cursor, "timeout_seconds": 5}, &pg)
	if raw, _ := json.Marshal(pg); len(pg.Events) == 0 || strings.Contains(string(raw), `"dc"`) || strings.Contains(string(raw), `"dc_salt"`) ||
		!strings.Contains(string(raw), `"dc_commitment":"`+commitment+`"`) {
		t.Fatalf("the player's events: %s", raw)
	}
	player.must("get_session_context", nil, &pcx)
	if len(pcx.Checks) != 1 || pcx.Checks[0].DC != 0 || pcx.Checks[0].Salt != "" || pcx.Checks[0].Commitment != commitment ||
		!hasStepArg(pcx.Next, "roll_check", "request_id", checks.Checks[0].RequestID) {
		t.Fatalf("pending checks %+v next %+v", pcx.Checks, pcx.Next)
	}
	var roll Roll
	player.must("roll_check", map[string]any{"request_id": checks.Checks[0].RequestID}, &roll)
	if roll.Success != nil || roll.Total < 1 || len(roll.Dice) != 1 {
		t.Fatalf("roll_check %+v", roll)
	}
	// Rolled (the only check of its group): the player's roll.revealed gives
	// the DC and the salt, which recompute the commitment.
	player.must("wait_for_event", map[string]any{"after": pg.Cursor, "timeout_seconds": 5}, &pg)
	revealed := false
	for _, e := range pg.Events {
		if e.Kind == table.EventRollRevealed {
			dc, _ := e.Data["dc"].(float64)
			salt, _ := e.Data["dc_salt"].(string)
			revealed = dc == 15 && table.DCCommitment(int(dc), salt) == commitment
		}
	}
	if !revealed {
		t.Fatalf("the player's events do not open the commitment: %+v", pg.Events)
	}
	if code := player.call("roll_check", map[string]any{"request_id": checks.Checks[0].RequestID}, nil); code != "roll_request_already_resolved" {
		t.Fatalf("second roll: %q", code)
	}
	dm.must("adjudicate_action", map[string]any{"action_id": decl.ActionID, "status": "resolved"}, nil)
	if code := dm.call("adjudicate_action", map[string]any{"action_id": decl.ActionID, "status": "processing"}, nil); code != "pending_action_invalid_transition" {
		t.Fatalf("a resolved action moved: %q", code)
	}
	dm.must("action_window", map[string]any{"window_id": w.WindowID}, nil)
	if code := player.call("declare_action", map[string]any{"text": "late", "window_id": w.WindowID}, nil); code != "action_window_closed" {
		t.Fatalf("declared into a closed window: %q", code)
	}

	// Everyone rolls stealth: Mira with physical dice, Tomas's is cancelled.
	dm.must("request_check", map[string]any{"skill": "stealth", "dc": 12, "mode": "advantage"}, &checks)
	if len(checks.Checks) != 2 {
		t.Fatalf("everyone playing: %+v", checks)
	}
	for _, c := range checks.Checks {
		if c.SeatID == mira {
			if code := player.call("roll_check", map[string]any{"request_id": c.RequestID, "faces": []int{4}}, nil); code != "roll_faces_mismatch" {
				t.Fatalf("one face for advantage: %q", code)
			}
			player.must("roll_check", map[string]any{"request_id": c.RequestID, "faces": []int{4, 17}}, &roll)
			if len(roll.Dice) != 2 || len(roll.Kept) != 1 || roll.Kept[0] != 17 {
				t.Fatalf("physical roll %+v", roll)
			}
		} else {
			var cancelled Check
			dm.must("cancel_check", map[string]any{"request_id": c.RequestID}, &cancelled)
			if cancelled.Status != "cancelled" {
				t.Fatalf("cancel_check %+v", cancelled)
			}
		}
	}

	// A failed check reads as a failure to the DM (false is not "absent").
	dm.must("get_session_context", nil, &cx)
	dm.must("request_check", map[string]any{"seat_id": mira, "skill": "arcana", "dc": 40}, &checks)
	player.must("roll_check", map[string]any{"request_id": checks.Checks[0].RequestID, "faces": []int{1}}, nil)
	dm.must("wait_for_event", map[string]any{"after": cx.Cursor, "timeout_seconds": 0}, &pg)
	failed := false
	for _, e := range pg.Events {
		if e.Kind == "roll.outcome" && e.Data["success"] == false {
			failed = true
		}
	}
	if !failed {
		t.Fatalf("the DM cannot see the failure: %+v", pg.Events)
	}

	// A saving throw, typed as a player would say it: Mira's Dex save is +4
	// (proficient), so a physical 11 meets the secret DC 15.
	dm.must("request_check", map[string]any{"seat_id": mira, "save": "dex save", "dc": 15}, &checks)
	if c := checks.Checks[0]; c.Check != "dex_save" || c.DC != 15 {
		t.Fatalf("a save request reads %+v", c)
	}
	player.must("roll_check", map[string]any{"request_id": checks.Checks[0].RequestID, "faces": []int{11}}, &roll)
	if roll.Total != 15 {
		t.Fatalf("a Dex save of 11 totals %d, want 15", roll.Total)
	}
	if code := dm.call("request_check", map[string]any{"seat_id": mira, "save": "perception"}, nil); code != "check_invalid" {
		t.Fatalf("a skill as a save: %q", code)
	}

	// HP, conditions and a sheet.
	var sc StateChanged
	dm.must("update_character_state", map[string]any{"seat_id": mira, "op": "damage", "amount": 3}, &sc)
	dm.must("update_character_state", map[string]any{"seat_id": mira, "op": "add_condition", "condition": "prone"}, &sc)
	if len(sc.Conditions) != 1 || sc.Conditions[0] != "prone" || sc.Character != "Mira" {
		t.Fatalf("state %+v", sc)
	}
	if code := player.call("update_character_state", map[string]any{"seat_id": mira, "op": "damage", "amount": 1}, nil); code != "character_state_forbidden" {
		t.Fatalf("a player damaged themself: %q", code)
	}
	if code := dm.call("update_character_state", map[string]any{"seat_id": mira, "op": "explode"}, nil); code != "character_state_invalid" {
		t.Fatalf("unknown op: %q", code)
	}
	var sheet Sheet
	player.must("get_character_context", nil, &sheet)
	if sheet.Name != "Mira" || sheet.HP.Current != sheet.HP.Max-3 {
		t.Fatalf("sheet %+v", sheet)
	}
	dm.must("get_character_context", map[string]any{"seat_id": tomas}, &sheet)
	if code := player.call("get_character_context", map[string]any{"seat_id": tomas}, nil); code == "" {
		t.Fatal("a player read another player's sheet")
	}
	player.must("quick_roll", map[string]any{"formula": "2d6+3"}, &roll)
	if code := player.call("quick_roll", map[string]any{"formula": "2d6+"}, nil); code == "" {
		t.Fatal("a bad formula rolled")
	}
	// The same rule as /r perception and /gmroll: the server adds the
	// modifier; a private roll is the roller's and the DM's.
	player.must("quick_roll", map[string]any{"check": "Perception", "private": true}, &roll)
	if len(roll.Dice) != 1 || roll.Total-roll.Dice[0] != 3 || roll.Formula != "d20 + 3" {
		t.Fatalf("perception roll %+v", roll)
	}
	if code := player.call("quick_roll", map[string]any{"check": "luck"}, nil); code != "invalid_request" {
		t.Fatalf("a check of luck: %q", code)
	}

	// Paging through everything from the start.
	var all []Event
	for after := int64(0); ; {
		player.must("wait_for_event", map[string]any{"after": after, "timeout_seconds": 0}, &pg)
		all = append(all, pg.Events...)
		after = pg.Cursor
		if !pg.HasMore {
			break
		}
	}
	if len(all) < 20 {
		t.Fatalf("paged %d events", len(all))
	}
	// timeout_seconds 0 answers at once: nothing new, the same cursor (a
	// wait would hold the call for the default 25 s).
	asked := time.Now()
	player.must("wait_for_event", map[string]any{"after": pg.Cursor, "timeout_seconds": 0}, &pg)
	if len(pg.Events) != 0 || pg.Cursor != all[len(all)-1].Seq || time.Since(asked) > 10*time.Second {
		t.Fatalf("an immediate read at the end waited %v: %+v", time.Since(asked), pg)
	}
	if code := player.call("wait_for_event", map[string]any{"after": -1, "timeout_seconds": 0}, nil); code != "invalid_request" {
		t.Fatalf("negative cursor: %q", code)
	}

	// Take-back: the token says why it stopped working.
	_, err = svc.TakeBackControl(ctx, f.Seated, mira)
	tabletest.Must(t, err)
	if code, details := player.callDetails("post_message", map[string]any{"text": "hello?"}, nil); code != "ai_token_revoked" || details["reason"] != "taken_back" {
		t.Fatalf("a taken-back token: %q %v", code, details)
	}

	// The end: a wait in flight gets session.ended; then session_ended.
	second, err := svc.LetAIControl(ctx, f.Seated, mira, table.HandoffInput{})
	tabletest.Must(t, err)
	player = connectAgent(t, srv.URL, second.Token)
	player.must("get_session_context", nil, &pcx)
	waited := make(chan *mcpsdk.CallToolResult, 1)
	go func() {
		res, err := player.cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: "wait_for_event", Arguments: map[string]any{"after": pcx.Cursor, "timeout_seconds": 30}})
		if err != nil {
			res = &mcpsdk.CallToolResult{IsError: true}
		}
		waited <- res
	}()
	for svc.Notifier().Waiters(f.LobbyID) == 0 {
		// Wait for the long poll to be parked (no time assertion here).
		select {
		case res := <-waited:
			t.Fatalf("the wait returned early: %+v", res)
		default:
			runtime.Gosched()
		}
	}
	var done Done
	dm.must("session", map[string]any{"action": "end"}, &done)
	if done.Status != "ended" {
		t.Fatalf("session end %+v", done)
	}
	player.check("wait_for_event", <-waited, &pg)
	if n := len(pg.Events); n == 0 || pg.Events[n-1].Kind != table.EventSessionEnded {
		t.Fatalf("the wait in flight got %+v, want session.ended", pg.Events)
	}
	for _, a := range []*agent{player, dm} {
		if code, details := a.callDetails("get_session_context", nil, nil); code != "session_ended" || details["reason"] != "session_ended" {
			t.Fatalf("after the end: %q %v", code, details)
		}
		if code := a.call("wait_for_event", map[string]any{"after": pg.Cursor, "timeout_seconds": 1}, nil); code != "session_ended" {
			t.Fatalf("waiting after the end: %q", code)
		}
	}
}

// seatTomas sits Tomas (a human) on the fixture's free seat with his
// character, ready to join a session late.
func seatTomas(t *testing.T, svc *table.Service, f tabletest.Fixture) {
	t.Helper()
	_, err := svc.AssignSeat(context.Background(), f.Owner, f.FreeSeatID, f.UnseatedAccess)
	tabletest.Must(t, err)
	_, err = svc.SetSeatCharacter(context.Background(), f.Unseated, f.FreeSeatID, &f.UnseatedCharacterID)
	tabletest.Must(t, err)
}

func hasStep(steps []Step, tool string) bool {
	for _, s := range steps {
		if s.Tool == tool {
			return true
		}
	}
	return false
}

func hasStepArg(steps []Step, tool, arg string, want int64) bool {
	for _, s := range steps {
		if s.Tool == tool && fmt.Sprint(s.Args[arg]) == fmt.Sprint(want) {
			return true
		}
	}
	return false
}

// TestInlineRollsAreCompact: a message's inline rolls reach an agent in
// the Roll form, without the audit trail.
func TestInlineRollsAreCompact(t *testing.T) {
	e := newRoster(nil).compactEvent(table.EventView{Seq: 7, Kind: table.EventMessagePosted,
		Payload: table.EventPayload(`{"version":1,"message_id":3,"kind":"action","text":"I hit [[1d20+2]]","rolls":[{"id":9,"formula":"d20 + 2","total":17,"raw_dice":[15],"audit":{"groups":[]},"visibility":"public","created_at":"2026-01-01T00:00:00Z"}]}`)})
	raw, _ := json.Marshal(e)
	if !strings.Contains(string(raw), `"rolls":[{"dice":[15],"formula":"d20 + 2","total":17}]`) || strings.Contains(string(raw), "audit") {
		t.Fatalf("compact inline rolls: %s", raw)
	}
}
