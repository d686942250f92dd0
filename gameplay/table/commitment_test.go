package table_test

import (
	"encoding/json"
	"strings"
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
// commitment and neither the DC nor the salt; once every check of its group
// is settled, roll.revealed gives the DC and salt, which recompute the
// commitment the player saw. The DM sees the DC throughout; two requests
// with one DC get different salts; a cancelled check reveals nothing.
func TestDCCommitment(t *testing.T) {
	lt, _ := newLiveTable(t)
	a, b := requestPerception(t, lt) // DC 15 for both, one group
	for _, r := range []table.RollRequestView{a, b} {
		if len(r.DCCommitment) != 64 || r.DCSalt != "" {
			t.Fatalf("DM's pending request: commitment %q, salt %q", r.DCCommitment, r.DCSalt)
		}
	}
	if a.DCCommitment == b.DCCommitment {
		t.Fatalf("two requests with DC 15 share commitment %q", a.DCCommitment)
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

	// a is rolled, b is not: the group's one DC stays secret (revealing a's
	// would tell b's player theirs).
	_, err := lt.svc.ResolveRequest(ctx, lt.Seated, a.ID, table.RollInput{Faces: []int{4, 9}})
	tabletest.Must(t, err)
	for _, reader := range []table.Caller{lt.Seated, lt.Unseated} {
		board, err := lt.svc.Board(ctx, reader, lt.LobbyID)
		tabletest.Must(t, err)
		events, err := lt.svc.ListEvents(ctx, reader, lt.LobbyID, 0, 200)
		tabletest.Must(t, err)
		raw, _ := json.Marshal([]any{board, events})
		if strings.Contains(string(raw), `"dc"`) || strings.Contains(string(raw), `"dc_salt"`) {
			t.Fatalf("reader %d sees the DC while b is pending: %s", reader.UserID, raw)
		}
	}

	// b is cancelled: the group is settled, a's DC is revealed; b's is not.
	_, err = lt.svc.CancelRequest(ctx, lt.Owner, b.ID)
	tabletest.Must(t, err)
	var salt string
	for _, reader := range []table.Caller{lt.Seated, lt.Unseated, lt.Owner} {
		r := requestOf(t, lt, reader, a.ID)
		if r.DC == nil || *r.DC != 15 || len(r.DCSalt) != 32 || table.DCCommitment(*r.DC, r.DCSalt) != a.DCCommitment {
			t.Fatalf("reader %d's revealed request: dc %v, salt %q", reader.UserID, r.DC, r.DCSalt)
		}
		salt = r.DCSalt
	}
	p = rollEventPayload(t, lt, lt.Seated, table.EventRollRevealed, a.ID)
	dc, _ := p["dc"].(float64)
	if p["dc_salt"] != salt || table.DCCommitment(int(dc), salt) != a.DCCommitment || p["dc_commitment"] != a.DCCommitment {
		t.Fatalf("player's roll.revealed does not open the commitment: %v", p)
	}
	if r := requestOf(t, lt, lt.Unseated, b.ID); r.DC != nil || r.DCSalt != "" || r.DCCommitment != b.DCCommitment {
		t.Fatalf("cancelled b: %+v", r)
	}
	if p := rollEventPayload(t, lt, lt.Unseated, table.EventRollCancelled, b.ID); p["dc"] != nil || p["dc_salt"] != nil {
		t.Fatalf("roll.cancelled reveals: %v", p)
	}
	if dm := requestOf(t, lt, lt.Owner, b.ID); dm.DC == nil || *dm.DC != 15 || dm.DCSalt != "" {
		t.Fatalf("DM's cancelled request: %+v", dm)
	}

	// A check of one seat is revealed by its roll, with a salt of its own.
	out, err := lt.svc.RequestCheck(ctx, lt.Owner, lt.LobbyID, table.CheckRequestInput{Skill: "perception", DC: ptrInt(15), SeatIDs: []int64{lt.PlayerSeatID}})
	tabletest.Must(t, err)
	c := out.Requests[0]
	_, err = lt.svc.ResolveRequest(ctx, lt.Owner, c.ID, table.RollInput{})
	tabletest.Must(t, err)
	if r := requestOf(t, lt, lt.Seated, c.ID); r.DC == nil || r.DCSalt == salt || table.DCCommitment(*r.DC, r.DCSalt) != c.DCCommitment {
		t.Fatalf("a one-seat check, rolled: %+v (the first salt %s)", r, salt)
	}

	// No DC: no commitment.
	out, err = lt.svc.RequestCheck(ctx, lt.Owner, lt.LobbyID, table.CheckRequestInput{Skill: "stealth", SeatIDs: []int64{lt.PlayerSeatID}})
	tabletest.Must(t, err)
	if r := out.Requests[0]; r.DCCommitment != "" || r.DCSalt != "" {
		t.Fatalf("a check without a DC has commitment %q salt %q", r.DCCommitment, r.DCSalt)
	}
}

// TestDCRevealedOnceWhenRolledTogether: the two checks of a group rolled at
// the same moment settle it once: one roll.revealed for each check.
func TestDCRevealedOnceWhenRolledTogether(t *testing.T) {
	lt, _ := newLiveTable(t)
	a, b := requestPerception(t, lt)
	errs := make(chan error, 2)
	for _, roll := range []struct {
		c  table.Caller
		id int64
	}{{lt.Seated, a.ID}, {lt.Unseated, b.ID}} {
		go func() {
			_, err := lt.svc.ResolveRequest(ctx, roll.c, roll.id, table.RollInput{})
			errs <- err
		}()
	}
	tabletest.Must(t, <-errs)
	tabletest.Must(t, <-errs)
	events, err := lt.svc.ListEvents(ctx, lt.Owner, lt.LobbyID, 0, 200)
	tabletest.Must(t, err)
	revealed := map[float64]int{}
	for _, e := range events.Events {
		if e.Kind == table.EventRollRevealed {
			var p map[string]any
			tabletest.Must(t, json.Unmarshal(e.Payload, &p))
			revealed[p["request_id"].(float64)]++
		}
	}
	if len(revealed) != 2 || revealed[float64(a.ID)] != 1 || revealed[float64(b.ID)] != 1 {
		t.Fatalf("roll.revealed per request: %v, want one each for %d and %d", revealed, a.ID, b.ID)
	}
}

// TestDCRevealedWhenTheSessionEnds: a rolled check whose group never
// settled is revealed when the session ends (before session.ended); the
// unrolled one is not.
func TestDCRevealedWhenTheSessionEnds(t *testing.T) {
	lt, _ := newLiveTable(t)
	a, b := requestPerception(t, lt)
	_, err := lt.svc.ResolveRequest(ctx, lt.Seated, a.ID, table.RollInput{})
	tabletest.Must(t, err)
	if r := requestOf(t, lt, lt.Seated, a.ID); r.DC != nil {
		t.Fatalf("revealed while b is pending: %+v", r)
	}
	_, err = lt.svc.EndSession(ctx, lt.Owner, lt.LobbyID)
	tabletest.Must(t, err)
	p := rollEventPayload(t, lt, lt.Seated, table.EventRollRevealed, a.ID)
	dc, _ := p["dc"].(float64)
	salt, _ := p["dc_salt"].(string)
	if table.DCCommitment(int(dc), salt) != a.DCCommitment {
		t.Fatalf("roll.revealed at the end does not open the commitment: %v", p)
	}
	events, err := lt.svc.ListEvents(ctx, lt.Seated, lt.LobbyID, 0, 200)
	tabletest.Must(t, err)
	if last := events.Events[len(events.Events)-1]; last.Kind != table.EventSessionEnded {
		t.Fatalf("the last event is %s, want session.ended", last.Kind)
	}
	if r := requestOf(t, lt, lt.Unseated, b.ID); r.DC != nil || r.DCSalt != "" {
		t.Fatalf("the unrolled b is revealed: %+v", r)
	}
}
