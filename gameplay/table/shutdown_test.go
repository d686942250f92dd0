package table_test

import (
	"testing"
	"time"

	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/gameplay/table/tabletest"
)

// Shutdown answers every open long poll at once with its page (no events,
// the cursor it waited from), and a wait that starts afterwards does not
// wait at all: the server's stop is never held up by a poll.
func TestShutdownAnswersLongPolls(t *testing.T) {
	lt, _ := newLiveTable(t)
	svc := lt.svc
	first, err := svc.ListEvents(ctx, lt.Seated, lt.LobbyID, 0, 100)
	tabletest.Must(t, err)
	type answer struct {
		page table.EventPage
		err  error
	}
	const waiters = 3
	got := make(chan answer, waiters)
	for _, c := range []table.Caller{lt.Owner, lt.Seated, lt.Unseated} {
		go func() {
			p, err := svc.WaitEvents(ctx, c, lt.LobbyID, first.Cursor, table.MaxWait)
			got <- answer{p, err}
		}()
	}
	for svc.Notifier().Waiters(lt.LobbyID) < waiters {
		time.Sleep(time.Millisecond) // waiting for the waiters to register, not for time to pass
	}
	start := time.Now()
	svc.Shutdown()
	for range waiters {
		select {
		case a := <-got:
			if a.err != nil || len(a.page.Events) != 0 || a.page.Cursor != first.Cursor {
				t.Fatalf("a poll was answered with %+v, %v; want its page at cursor %d", a.page, a.err, first.Cursor)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("a long poll was not answered after Shutdown")
		}
	}
	t.Logf("answered %v after Shutdown", time.Since(start))
	p, err := svc.WaitEvents(ctx, lt.Seated, lt.LobbyID, first.Cursor, table.MaxWait)
	if err != nil || p.Cursor != first.Cursor || time.Since(start) > 10*time.Second {
		t.Fatalf("a wait after Shutdown: %+v %v", p, err)
	}
}
