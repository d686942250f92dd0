package table_test

import (
	"encoding/json"
	"testing"

	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/gameplay/table/tabletest"
)

// TestDCCommitmentEncoding pins the encoding (commitment.go): the web
// app's verifier (commitment.test.ts) checks the same vector.
func TestDCCommitmentEncoding(t *testing.T) {
	got := table.DCCommitment(15, "000102030405060708090a0b0c0d0e0f")
	if want := "3b7d15c3ee80b14e1a3f9b3e75d5546f112931d5b9503e293ab5041a9e3231a0"; got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
	if table.DCCommitment(16, "000102030405060708090a0b0c0d0e0f") == got {
		t.Fatal("another DC gives the same commitment")
	}
}

// requestOf is the request with id on reader's board.
func requestOf(t *testing.T, lt liveTable, reader table.Caller, id int64) table.RollRequestView {
	t.Helper()
	board, err := lt.svc.Board(ctx, reader, lt.LobbyID)
	tabletest.Must(t, err)
	for _, r := range board.Requests {
		if r.ID == id {
			return r
		}
	}
	t.Fatalf("request %d is not on the board of %d", id, reader.UserID)
	return table.RollRequestView{}
}

// rollEventPayload is the payload of reader's event of kind about request id.
func rollEventPayload(t *testing.T, lt liveTable, reader table.Caller, kind string, id int64) map[string]any {
	t.Helper()
	events, err := lt.svc.ListEvents(ctx, reader, lt.LobbyID, 0, 200)
	tabletest.Must(t, err)
	for _, e := range events.Events {
		var p map[string]any
		tabletest.Must(t, json.Unmarshal(e.Payload, &p))
		if e.Kind == kind && p["request_id"] == float64(id) {
			return p
		}
	}
	t.Fatalf("reader %d has no %s event for request %d", reader.UserID, kind, id)
	return nil
}

// TestDCCommitment: while a secret DC is pending a player sees its
// commitment and neither the DC nor the salt; the roll reveals both, and
// they recompute the commitment the player saw. The DM sees the DC
// throughout; two requests with one DC get different salts; a cancelled
// check reveals nothing.
func TestDCCommitment(t *testing.T) {
	lt, _ := newLiveTable(t)
	a, b := requestPerception(t, lt) // DC 15 for both
	for _, r := range []table.RollRequestView{a, b} {
		if len(r.DCSalt) != 32 || r.DCCommitment != table.DCCommitment(15, r.DCSalt) {
			t.Fatalf("DM's request: salt %q, commitment %q", r.DCSalt, r.DCCommitment)
		}
	}
	if a.DCSalt == b.DCSalt || a.DCCommitment == b.DCCommitment {
		t.Fatalf("two requests with DC 15 share salt %q / commitment %q", a.DCSalt, a.DCCommitment)
	}

	// Pending: the player (Seated, a's target) and the other player see the
	// commitment, not the DC or salt.
	for _, reader := range []table.Caller{lt.Seated, lt.Unseated} {
		r := requestOf(t, lt, reader, a.ID)
		if r.DC != nil || r.DCSalt != "" || r.DCCommitment != a.DCCommitment {
			t.Fatalf("reader %d's pending request: dc %v, salt %q, commitment %q (want %q)", reader.UserID, r.DC, r.DCSalt, r.DCCommitment, a.DCCommitment)
		}
	}
	p := rollEventPayload(t, lt, lt.Seated, table.EventRollRequested, a.ID)
	if p["dc_commitment"] != a.DCCommitment || p["dc"] != nil || p["dc_salt"] != nil {
		t.Fatalf("player's roll.requested: %v", p)
	}
	if dm := requestOf(t, lt, lt.Owner, a.ID); dm.DC == nil || *dm.DC != 15 {
		t.Fatalf("DM's pending request: %+v", dm)
	}

	// Rolled: everyone who sees it gets the DC and the salt, which open
	// the commitment seen before.
	_, err := lt.svc.ResolveRequest(ctx, lt.Seated, a.ID, table.RollInput{Faces: []int{4, 9}})
	tabletest.Must(t, err)
	for _, reader := range []table.Caller{lt.Seated, lt.Unseated, lt.Owner} {
		r := requestOf(t, lt, reader, a.ID)
		if r.DC == nil || *r.DC != 15 || r.DCSalt != a.DCSalt || table.DCCommitment(*r.DC, r.DCSalt) != a.DCCommitment {
			t.Fatalf("reader %d's resolved request: dc %v, salt %q", reader.UserID, r.DC, r.DCSalt)
		}
	}
	p = rollEventPayload(t, lt, lt.Seated, table.EventRollResolved, a.ID)
	dc, _ := p["dc"].(float64)
	salt, _ := p["dc_salt"].(string)
	if table.DCCommitment(int(dc), salt) != a.DCCommitment || p["dc_commitment"] != a.DCCommitment {
		t.Fatalf("player's roll.resolved does not open the commitment: %v", p)
	}
	// b is still pending: its DC stays secret.
	if r := requestOf(t, lt, lt.Seated, b.ID); r.DC != nil || r.DCSalt != "" || r.DCCommitment != b.DCCommitment {
		t.Fatalf("pending b after a resolved: %+v", r)
	}

	// Cancelled: nothing revealed (the DM may ask again with the DC).
	_, err = lt.svc.CancelRequest(ctx, lt.Owner, b.ID)
	tabletest.Must(t, err)
	if r := requestOf(t, lt, lt.Unseated, b.ID); r.DC != nil || r.DCSalt != "" || r.DCCommitment != b.DCCommitment {
		t.Fatalf("cancelled b: %+v", r)
	}
	if p := rollEventPayload(t, lt, lt.Unseated, table.EventRollCancelled, b.ID); p["dc"] != nil || p["dc_salt"] != nil {
		t.Fatalf("roll.cancelled reveals: %v", p)
	}
	if dm := requestOf(t, lt, lt.Owner, b.ID); dm.DC == nil || *dm.DC != 15 {
		t.Fatalf("DM's cancelled request: %+v", dm)
	}

	// No DC: no commitment.
	out, err := lt.svc.RequestCheck(ctx, lt.Owner, lt.LobbyID, table.CheckRequestInput{Skill: "stealth", SeatIDs: []int64{lt.PlayerSeatID}})
	tabletest.Must(t, err)
	if r := out.Requests[0]; r.DCCommitment != "" || r.DCSalt != "" {
		t.Fatalf("a check without a DC has commitment %q salt %q", r.DCCommitment, r.DCSalt)
	}
}
