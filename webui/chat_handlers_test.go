package webui_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/adventure-table/adventure-table/gameplay/table"
)

// TestChatRoutes: rolls from the chat input, inline rolls, edit and delete,
// the roll history and presence, each answer checked against the OpenAPI
// document by the fixture.
func TestChatRoutes(t *testing.T) {
	f := newFixture(t, withSecret)
	tf := startedTable(t, f)
	h := f.handler
	p := fmt.Sprintf
	input := p("/api/sessions/%d/input", tf.LobbyID)

	rec := call(t, h, tf.Seated, "POST", input, `{"text":"/r 1d20+5"}`)
	var posted table.PostedMessage
	json.Unmarshal(rec.Body.Bytes(), &posted)
	if rec.Code != 201 || posted.MessageID != 0 || posted.Roll == nil || posted.Event.Kind != "roll.quick" || posted.Roll.Total != posted.Roll.RawDice[0]+5 {
		t.Fatalf("/r: %d %s", rec.Code, rec.Body)
	}
	rec = call(t, h, tf.Seated, "POST", input, `{"text":"/r perception"}`)
	json.Unmarshal(rec.Body.Bytes(), &posted)
	if rec.Code != 201 || posted.Roll.BaseModifier != 3 {
		t.Fatalf("/r perception: %d %s", rec.Code, rec.Body)
	}
	rec = call(t, h, tf.Seated, "POST", input, `{"text":"/gmroll 1d6"}`)
	json.Unmarshal(rec.Body.Bytes(), &posted)
	secret := posted.Roll.ID
	if rec.Code != 201 || posted.Event.Visibility != "actor_and_dm" {
		t.Fatalf("/gmroll: %d %s", rec.Code, rec.Body)
	}
	if rec = call(t, h, tf.Seated, "POST", input, `{"text":"/roll 1d"}`); rec.Code != 400 || !strings.Contains(rec.Body.String(), "dice_invalid_expression") {
		t.Fatalf("bad dice: %d %s", rec.Code, rec.Body)
	}
	if rec = call(t, h, tf.Owner, "POST", input, `{"text":"/r stealth"}`); rec.Code != 400 || !strings.Contains(rec.Body.String(), `"invalid_request"`) {
		t.Fatalf("DM skill roll without a character: %d %s", rec.Code, rec.Body)
	}
	rec = call(t, h, tf.Seated, "POST", input, `{"text":"I strike [[1d20+2]]"}`)
	json.Unmarshal(rec.Body.Bytes(), &posted)
	if rec.Code != 201 || posted.MessageID == 0 || !strings.Contains(string(posted.Event.Payload), `"rolls":[{`) {
		t.Fatalf("inline roll: %d %s", rec.Code, rec.Body)
	}
	if rec = call(t, h, tf.Seated, "POST", p("/api/sessions/%d/messages", tf.LobbyID), `{"kind":"ooc","text":"[[1d4]][[1d4]][[1d4]][[1d4]][[1d4]][[1d4]]"}`); rec.Code != 400 {
		t.Fatalf("six inline rolls: %d %s", rec.Code, rec.Body)
	}

	// Edit and delete.
	msg := p("/api/messages/%d", posted.MessageID)
	rec = call(t, h, tf.Seated, "PATCH", msg, `{"text":"I strike hard [[1d20+2]]"}`)
	var m table.MessageView
	json.Unmarshal(rec.Body.Bytes(), &m)
	if rec.Code != 200 || m.Text != "I strike hard [[1d20+2]]" || m.Event.Kind != "message.edited" || len(m.Rolls) != 1 || m.EditedAt == nil {
		t.Fatalf("edit: %d %s", rec.Code, rec.Body)
	}
	if rec = call(t, h, tf.DMKey, "PATCH", msg, `{"text":"x"}`); rec.Code != 403 || !strings.Contains(rec.Body.String(), "message_not_editable") {
		t.Fatalf("spectator edit: %d %s", rec.Code, rec.Body)
	}
	if rec = call(t, h, tf.Seated, "PATCH", msg, `{"text":"x","kind":"narration"}`); rec.Code != 400 {
		t.Fatalf("unknown field: %d %s", rec.Code, rec.Body)
	}
	if rec = call(t, h, tf.Stranger, "DELETE", msg, ""); rec.Code != 404 {
		t.Fatalf("stranger delete: %d %s", rec.Code, rec.Body)
	}
	rec = call(t, h, tf.Owner, "DELETE", msg, "")
	json.Unmarshal(rec.Body.Bytes(), &m)
	if rec.Code != 200 || m.Text != "" || m.DeletedAt == nil || m.DeletedBySeatID == nil || m.Event.Kind != "message.deleted" {
		t.Fatalf("DM delete: %d %s", rec.Code, rec.Body)
	}
	if rec = call(t, h, tf.Owner, "DELETE", msg, ""); rec.Code != 403 {
		t.Fatalf("second delete: %d %s", rec.Code, rec.Body)
	}
	rec = call(t, h, tf.Unseated, "GET", p("/api/sessions/%d/events?after=0", tf.LobbyID), "")
	if rec.Code != 200 || strings.Contains(rec.Body.String(), "I strike") || !strings.Contains(rec.Body.String(), `"message.deleted"`) {
		t.Fatalf("events after delete: %d %s", rec.Code, rec.Body)
	}

	// Roll history, newest first, paged, without others' /gmroll.
	var hist table.RollHistory
	rec = call(t, h, tf.Owner, "GET", p("/api/sessions/%d/roll-results?limit=2", tf.LobbyID), "")
	json.Unmarshal(rec.Body.Bytes(), &hist)
	if rec.Code != 200 || len(hist.Results) != 2 || !hist.HasMore || hist.Before == 0 {
		t.Fatalf("history: %d %s", rec.Code, rec.Body)
	}
	rec = call(t, h, tf.Owner, "GET", p("/api/sessions/%d/roll-results?before=%d", tf.LobbyID, hist.Before), "")
	json.Unmarshal(rec.Body.Bytes(), &hist)
	if rec.Code != 200 || len(hist.Results) != 2 || hist.HasMore {
		t.Fatalf("history page 2: %d %s", rec.Code, rec.Body)
	}
	rec = call(t, h, tf.DMKey, "GET", p("/api/sessions/%d/roll-results", tf.LobbyID), "")
	json.Unmarshal(rec.Body.Bytes(), &hist)
	for _, r := range hist.Results {
		if r.ID == secret {
			t.Fatalf("a spectator's history holds the /gmroll: %s", rec.Body)
		}
	}
	if rec.Code != 200 || len(hist.Results) != 3 {
		t.Fatalf("spectator history: %d %s", rec.Code, rec.Body)
	}
	for _, bad := range []string{"limit=0x", "limit=201", "before=-1"} {
		if rec = call(t, h, tf.Owner, "GET", p("/api/sessions/%d/roll-results?%s", tf.LobbyID, bad), ""); rec.Code != 400 {
			t.Fatalf("%s: %d", bad, rec.Code)
		}
	}

	// Presence: whoever read the events just now (Unseated above, the DM's
	// long poll here) and the asker (Seated), nobody else.
	if rec = call(t, h, tf.Owner, "GET", p("/api/sessions/%d/events/wait?after=0&timeout=1", tf.LobbyID), ""); rec.Code != 200 {
		t.Fatalf("DM wait: %d", rec.Code)
	}
	rec = call(t, h, tf.Seated, "GET", p("/api/sessions/%d/presence", tf.LobbyID), "")
	var pr table.Presence
	json.Unmarshal(rec.Body.Bytes(), &pr)
	names := map[string]string{}
	for _, e := range pr.Online {
		names[e.Name] = e.Role + "/" + e.Kind
	}
	if rec.Code != 200 || names["Owner"] != "dm/human" || names["Unseated"] != "spectator/human" || names["Key Holder"] != "" || names["Seated"] != "player/human" || len(pr.Online) != 3 {
		t.Fatalf("presence: %d %s", rec.Code, rec.Body)
	}
	if rec = call(t, h, tf.Stranger, "GET", p("/api/sessions/%d/presence", tf.LobbyID), ""); rec.Code != 404 {
		t.Fatalf("stranger presence: %d", rec.Code)
	}
}
