package table_test

import (
	"context"
	"testing"
	"time"

	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/gameplay/table/tabletest"
	"github.com/adventure-table/adventure-table/models"
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
}
