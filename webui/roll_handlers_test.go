package webui_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/gameplay/table/tabletest"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// TestSecretDCOverHTTP: while a check with a secret DC is pending, every
// route a player can read answers without the DC or its salt, and the board
// and the player's events carry its commitment; after both players rolled
// they answer without pass/fail (hidden outcome), and the player's board
// reveals the DC and salt, which recompute the commitment. The DM's answers have the DC
// and the outcome.
func TestSecretDCOverHTTP(t *testing.T) {
	f := newFixture(t, withSecret)
	tf := startedTable(t, f)
	svc := f.services.Table
	_, err := svc.AssignSeat(ctx, tf.Owner, tf.FreeSeatID, tf.UnseatedAccess)
	tabletest.Must(t, err)
	_, err = svc.SetSeatCharacter(ctx, tf.Unseated, tf.FreeSeatID, &tf.UnseatedCharacterID)
	tabletest.Must(t, err)
	_, err = svc.LateJoin(ctx, tf.Owner, tf.LobbyID, tf.FreeSeatID)
	tabletest.Must(t, err)
	h, p := f.handler, fmt.Sprintf

	rec := call(t, h, tf.Owner, "POST", p("/api/sessions/%d/checks", tf.LobbyID), `{"skill":"perception","dc":15,"mode":"advantage"}`)
	if rec.Code != 201 || !strings.Contains(rec.Body.String(), `"dc":15`) {
		t.Fatalf("request check: %d %s", rec.Code, rec.Body)
	}
	var created table.CheckRequests
	json.Unmarshal(rec.Body.Bytes(), &created)
	readable := []string{
		p("/api/sessions/%d/rolls", tf.LobbyID),
		p("/api/sessions/%d/events?after=0&limit=200", tf.LobbyID),
		p("/api/sessions/%d/events/wait?after=0&timeout=1", tf.LobbyID),
		p("/api/sessions/%d", tf.LobbyID),
		p("/api/rooms/%d", tf.RoomID),
		"/api/characters",
	}
	commitment := map[int64]string{} // by target seat
	for _, r := range created.Requests {
		commitment[r.TargetSeatID] = r.DCCommitment
	}
	for _, who := range []table.Caller{tf.Seated, tf.Unseated, tf.DMKey} {
		for _, path := range readable {
			rec := call(t, h, who, "GET", path, "")
			if body := rec.Body.String(); rec.Code != 200 || strings.Contains(body, `"dc"`) || strings.Contains(body, `"dc_salt"`) {
				t.Fatalf("GET %s as user %d while pending: %d %s", path, who.UserID, rec.Code, body)
			}
		}
	}
	for who, seat := range map[table.Caller]int64{tf.Seated: tf.PlayerSeatID, tf.Unseated: tf.FreeSeatID} {
		for _, path := range readable[:2] {
			if body := call(t, h, who, "GET", path, "").Body.String(); !strings.Contains(body, `"dc_commitment":"`+commitment[seat]+`"`) {
				t.Fatalf("GET %s as user %d lacks the commitment %s: %s", path, who.UserID, commitment[seat], body)
			}
		}
	}
	for _, r := range created.Requests {
		who, path, body := tf.Seated, p("/api/roll-requests/%d/roll", r.ID), `{}`
		if r.TargetSeatID == tf.FreeSeatID {
			who, path, body = tf.Unseated, p("/api/roll-requests/%d/physical", r.ID), `{"faces":[7,18]}`
		}
		if rec = call(t, h, who, "POST", path, body); rec.Code != 200 {
			t.Fatalf("resolve %d: %d %s", r.ID, rec.Code, rec.Body)
		}
		if strings.Contains(rec.Body.String(), `"success"`) {
			t.Fatalf("the roller learns the hidden outcome: %s", rec.Body)
		}
	}
	for _, who := range []table.Caller{tf.Seated, tf.Unseated, tf.DMKey} {
		for _, path := range readable {
			rec := call(t, h, who, "GET", path, "")
			if rec.Code != 200 {
				t.Fatalf("GET %s: %d", path, rec.Code)
			}
			if body := rec.Body.String(); strings.Contains(body, `"success"`) {
				t.Fatalf("GET %s as user %d shows the outcome: %s", path, who.UserID, body)
			}
		}
	}
	// Rolled: the player's board opens each commitment.
	var board table.RollBoard
	json.Unmarshal(call(t, h, tf.Seated, "GET", p("/api/sessions/%d/rolls", tf.LobbyID), "").Body.Bytes(), &board)
	if len(board.Requests) != 2 {
		t.Fatalf("the player's board has %d requests, want 2", len(board.Requests))
	}
	for _, r := range board.Requests {
		if r.DC == nil || *r.DC != 15 || r.DCSalt == "" || table.DCCommitment(*r.DC, r.DCSalt) != commitment[r.TargetSeatID] {
			t.Fatalf("the player's resolved request %d: dc %v salt %q, commitment was %s", r.ID, r.DC, r.DCSalt, commitment[r.TargetSeatID])
		}
	}
	rec = call(t, h, tf.Owner, "GET", p("/api/sessions/%d/rolls", tf.LobbyID), "")
	if !strings.Contains(rec.Body.String(), `"dc":15`) || !strings.Contains(rec.Body.String(), `"success":true`) {
		t.Fatalf("the DM's board lacks DC or outcome: %s", rec.Body)
	}
	bRequest := created.Requests[0].ID
	if created.Requests[0].TargetSeatID != tf.FreeSeatID {
		bRequest = created.Requests[1].ID
	}
	rec = call(t, h, tf.Unseated, "POST", p("/api/roll-requests/%d/physical", bRequest), `{"faces":[1,2]}`)
	if rec.Code != 409 || !strings.Contains(rec.Body.String(), "roll_request_already_resolved") {
		t.Fatalf("second resolution: %d %s", rec.Code, rec.Body)
	}
}

// TestHandoffOverHTTP: the token is shown once at handoff and appears in no
// later answer and no log line; the origin takes the seat back.
func TestHandoffOverHTTP(t *testing.T) {
	f := newFixture(t, withSecret)
	tf := startedTable(t, f)
	h, p := f.handler, fmt.Sprintf
	rec := call(t, h, tf.Seated, "POST", p("/api/seats/%d/handoff", tf.PlayerSeatID), `{"temporary_instruction":"be bold"}`)
	if rec.Code != 201 {
		t.Fatalf("handoff: %d %s", rec.Code, rec.Body)
	}
	var m table.MintedGrant
	json.Unmarshal(rec.Body.Bytes(), &m)
	if !strings.HasPrefix(m.Token, "at_ai_") {
		t.Fatalf("no token in %s", rec.Body)
	}
	for _, path := range []string{p("/api/rooms/%d", tf.RoomID), p("/api/sessions/%d", tf.LobbyID), p("/api/sessions/%d/events?after=0", tf.LobbyID)} {
		for _, who := range []table.Caller{tf.Owner, tf.Seated} {
			body := call(t, h, who, "GET", path, "").Body.String()
			if strings.Contains(body, m.Token[10:]) || strings.Contains(body, "be bold") {
				t.Fatalf("GET %s shows the token or the instruction: %s", path, body)
			}
		}
	}
	if rec = call(t, h, tf.Unseated, "POST", p("/api/seats/%d/take-back", tf.PlayerSeatID), ""); rec.Code != 403 || !strings.Contains(rec.Body.String(), "take_back_origin_required") {
		t.Fatalf("take-back by another member: %d %s", rec.Code, rec.Body)
	}
	if rec = call(t, h, tf.Seated, "POST", p("/api/seats/%d/take-back", tf.PlayerSeatID), ""); rec.Code != 200 {
		t.Fatalf("take-back: %d %s", rec.Code, rec.Body)
	}
	if strings.Contains(f.logs.String(), m.Token[10:]) {
		t.Fatal("the token reached the logs")
	}
	// The token is authentic, so the bearer check lets it through; every
	// call then refuses it and says why.
	ai, err := f.services.Table.AuthenticateGrant(ctx, m.Token)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.services.Table.Resume(ctx, ai, tf.LobbyID); apperr.CodeOf(err) != apperr.AITokenRevoked {
		t.Fatalf("the token still works after take-back: %v", err)
	}
}
