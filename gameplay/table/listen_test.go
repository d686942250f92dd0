package table_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/gameplay/table/tabletest"
	"github.com/adventure-table/adventure-table/models"
	"github.com/adventure-table/adventure-table/models/apperr"
	"github.com/adventure-table/adventure-table/models/modelstest"
)

// Two server processes on one PostgreSQL database: a long poll held by one
// wakes when the other commits an event, through LISTEN/NOTIFY (the two
// services share no in-process notifier). On SQLite there is one process and
// following is a no-op.
func TestWaitWakesAcrossProcesses(t *testing.T) {
	cfg := modelstest.Config(t)
	open := func() *models.Store {
		s, err := models.Open(ctx, cfg)
		tabletest.Must(t, err)
		t.Cleanup(func() { s.Close() })
		return s
	}
	storeA := open()
	_, err := storeA.Migrate(ctx)
	tabletest.Must(t, err)
	storeB := open()
	a, b := table.New(storeA, nil), table.New(storeB, nil)
	lctx, stop := context.WithCancel(ctx)
	defer stop()
	if err := b.FollowOtherProcesses(lctx, func(err error) { t.Errorf("listen: %v", err) }); err != nil {
		t.Fatal(err)
	}
	if modelstest.Dialect() != models.Postgres {
		return // nothing to follow with one process; the call above must not fail
	}
	f := tabletest.New(t, a)
	_, err = a.StartSession(ctx, f.Owner, f.LobbyID)
	tabletest.Must(t, err)
	cur, err := b.ListEvents(ctx, f.Seated, f.LobbyID, 0, 100)
	tabletest.Must(t, err)

	got := make(chan table.EventPage, 1)
	go func() {
		p, _ := b.WaitEvents(ctx, f.Seated, f.LobbyID, cur.Cursor, 30*time.Second)
		got <- p
	}()
	for b.Notifier().Waiters(f.LobbyID) == 0 {
		time.Sleep(time.Millisecond) // waiting for the waiter to register, not for time to pass
	}
	posted, err := a.PostMessage(ctx, f.Seated, f.LobbyID, table.MessageInput{Kind: "ooc", Text: "anyone there?"})
	tabletest.Must(t, err)
	select {
	case p := <-got:
		if len(p.Events) != 1 || p.Events[0].Seq != posted.Event.Seq {
			t.Fatalf("the other process's waiter got %+v, want the new event", p)
		}
	case <-time.After(20 * time.Second):
		// A wait that only times out (30 s) would return no events; this
		// bound just keeps a broken build from hanging the suite.
		t.Fatal("the waiter in the other process was not woken")
	}

	// What this process keeps of the table for an agent's reads (Now's
	// snapshot) gives way to the other process's commit when its
	// notification arrives, not after the snapshot's 30 s.
	_, err = b.Now(ctx, f.Seated, f.LobbyID, 24)
	tabletest.Must(t, err)
	_, err = a.PostMessage(ctx, f.Owner, f.LobbyID, table.MessageInput{Kind: "narration", Text: "The bell tolls."})
	tabletest.Must(t, err)
	for deadline := time.Now().Add(20 * time.Second); ; {
		now, err := b.Now(ctx, f.Seated, f.LobbyID, 24)
		tabletest.Must(t, err)
		last := now.Resume.RecentEvents[len(now.Resume.RecentEvents)-1]
		if strings.Contains(string(last.Payload), "The bell tolls.") {
			break
		}
		if time.Now().After(deadline) { // a hang guard, not a measure
			t.Fatal("the other process's post never reached this process's reads")
		}
		time.Sleep(time.Millisecond) // waiting for the notification, not for time to pass
	}

	// A member revoked by the other process is refused here as soon as its
	// notification arrives, although this process had the member's viewer
	// cached (the read above trusts it for up to 30 s otherwise). The
	// revoke puts no event in the session: only the authority channel
	// tells this process.
	_, err = b.ListEvents(ctx, f.Unseated, f.LobbyID, 0, 100)
	tabletest.Must(t, err)
	before := storeB.AuthorityGeneration()
	_, err = a.RevokeMember(ctx, f.Owner, f.RoomID, f.UnseatedAccess)
	tabletest.Must(t, err)
	for deadline := time.Now().Add(20 * time.Second); storeB.AuthorityGeneration() == before; {
		if time.Now().After(deadline) { // a hang guard, not a measure
			t.Fatal("the other process's authority change never arrived")
		}
		time.Sleep(time.Millisecond) // waiting for the notification, not for time to pass
	}
	_, err = b.ListEvents(ctx, f.Unseated, f.LobbyID, 0, 100)
	wantCode(t, err, apperr.RoomAccessRevoked)
}

// TestConnectionLossLosesNoEvent drops every database connection again and
// again while a player posts (on PostgreSQL, through a real TCP proxy): the
// service recovers by itself, a post that failed is retried with its
// idempotency key the way a client would, and afterwards every line is in
// the log exactly once, the sequence has no gap, and a read from any
// cursor returns exactly the events after it.
func TestConnectionLossLosesNoEvent(t *testing.T) {
	store, outage := modelstest.MustOpenCuttable(t)
	if !outage.CanRestore() {
		t.Skip("SQLite has no connection to lose")
	}
	svc := table.New(store, nil)
	f := tabletest.New(t, svc)
	_, err := svc.StartSession(ctx, f.Owner, f.LobbyID)
	tabletest.Must(t, err)
	const lines = 40
	retries := 0
	for i := 0; i < lines; i++ {
		if i%5 == 2 {
			outage.Drop()
		}
		in := table.MessageInput{Kind: "say", Text: fmt.Sprintf("line %d", i), IdempotencyKey: fmt.Sprintf("k%d", i)}
		for attempt := 0; ; attempt++ {
			_, err := svc.PostMessage(ctx, f.Owner, f.LobbyID, in)
			if err == nil {
				break
			}
			if apperr.CodeOf(err) != apperr.DatabaseUnavailable || attempt > 5 {
				t.Fatalf("line %d: %v", i, err)
			}
			retries++
		}
	}
	t.Logf("%d posts were retried after a lost connection", retries)
	all, err := svc.ListEvents(ctx, f.Owner, f.LobbyID, 0, table.MaxEventLimit)
	tabletest.Must(t, err)
	seen := map[string]int{}
	for i, e := range all.Events {
		if e.Seq != int64(i+1) {
			t.Fatalf("event %d has seq %d: a gap", i, e.Seq)
		}
		var p struct {
			Text string `json:"text"`
		}
		json.Unmarshal(e.Payload, &p)
		if p.Text != "" {
			seen[p.Text]++
		}
	}
	for i := 0; i < lines; i++ {
		if n := seen[fmt.Sprintf("line %d", i)]; n != 1 {
			t.Fatalf("line %d is in the log %d times", i, n)
		}
	}
	for cursor := int64(0); cursor <= all.Cursor; cursor++ {
		page, err := svc.ListEvents(ctx, f.Owner, f.LobbyID, cursor, table.MaxEventLimit)
		tabletest.Must(t, err)
		if int64(len(page.Events)) != all.Cursor-cursor || (len(page.Events) > 0 && page.Events[0].Seq != cursor+1) {
			t.Fatalf("from cursor %d: %d events", cursor, len(page.Events))
		}
	}
}
