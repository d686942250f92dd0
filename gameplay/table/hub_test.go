package table_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/gameplay/table/tabletest"
	"github.com/adventure-table/adventure-table/models"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// hubRoles are the readers of the live table: the DM, the two players and
// a member who holds no seat.
func hubRoles(lt liveTable) map[string]table.Caller {
	return map[string]table.Caller{"dm": lt.Owner, "player_a": lt.Seated, "player_b": lt.Unseated, "spectator": lt.DMKey}
}

type waitResult struct {
	role string
	page table.EventPage
	err  error
	// queries counts the statements the waiter itself ran.
	queries int64
}

// waitAll starts perRole waits for every role from `after` and returns
// once all of them are registered on the hub.
func waitAll(t *testing.T, lt liveTable, after int64, perRole int, timeout time.Duration) <-chan waitResult {
	t.Helper()
	roles := hubRoles(lt)
	out := make(chan waitResult, len(roles)*perRole)
	for name, c := range roles {
		for range perRole {
			go func() {
				qctx, n := models.WithQueryCounter(ctx)
				p, err := lt.svc.WaitEvents(qctx, c, lt.LobbyID, after, timeout)
				out <- waitResult{role: name, page: p, err: err, queries: n.Load()}
			}()
		}
	}
	for lt.svc.Notifier().Waiters(lt.LobbyID) < len(roles)*perRole {
		time.Sleep(time.Millisecond) // waiting for the waiters to register, not for time to pass
	}
	return out
}

// TestHubOneReadPerWake: many waiters of every role wait; one post wakes
// them all with a single shared read, and the waiters run no query of
// their own. Their next polls, from the new cursor, cost no query either.
func TestHubOneReadPerWake(t *testing.T) {
	lt, _ := newLiveTable(t)
	hubQueries := lt.svc.CountHubQueries()
	const perRole = 25
	start, err := lt.svc.ListEvents(ctx, lt.Owner, lt.LobbyID, 0, 200)
	tabletest.Must(t, err)
	cursor := start.Cursor
	for round := range 3 {
		// The first round resolves every waiter's actor; later rounds use
		// what the hub cached, and know nothing is newer than the cursor.
		before := hubQueries.Load()
		results := waitAll(t, lt, cursor, perRole, 30*time.Second)
		posted := lt.post(t, lt.Owner, table.MessageInput{Kind: "narration", Text: fmt.Sprintf("round %d", round)})
		var own int64
		for range 4 * perRole {
			r := <-results
			tabletest.Must(t, r.err)
			if len(r.page.Events) != 1 || r.page.Events[0].Seq != posted.Event.Seq || r.page.Cursor != posted.Event.Seq {
				t.Fatalf("round %d: %s got %+v, want the one new event", round, r.role, r.page)
			}
			own += r.queries
		}
		if got := hubQueries.Load() - before; got != 1 {
			t.Fatalf("round %d: the hub ran %d queries for one wake, want 1", round, got)
		}
		if round > 0 && own != 0 {
			t.Fatalf("round %d: the %d waiters ran %d queries of their own, want 0", round, 4*perRole, own)
		}
		cursor = posted.Event.Seq
	}
}

// TestHubKeepsTheAudience is the visibility matrix on the fan-out path:
// every role waits before each event is written, and what the hub hands
// each one is exactly what the list path shows it.
func TestHubKeepsTheAudience(t *testing.T) {
	lt, _ := newLiveTable(t)
	svc := lt.svc
	b := lt.FreeSeatID
	all := map[string]bool{"dm": true, "player_a": true, "player_b": true, "spectator": true}
	input := func(c table.Caller, line string) int64 {
		p, err := svc.PostInput(ctx, c, lt.LobbyID, table.InputLine{Text: line})
		tabletest.Must(t, err)
		return p.Event.Seq
	}
	cases := []struct {
		name string
		do   func() int64
		seen map[string]bool
	}{
		{"public", func() int64 {
			return lt.post(t, lt.Seated, table.MessageInput{Kind: "character_dialogue", Text: "Hello"}).Event.Seq
		}, all},
		{"a_whisper_dm", func() int64 {
			return lt.post(t, lt.Seated, table.MessageInput{Kind: "whisper_dm", Text: "I pocket the gem"}).Event.Seq
		}, map[string]bool{"dm": true, "player_a": true}},
		{"dm_whisper_b", func() int64 {
			return lt.post(t, lt.Owner, table.MessageInput{Kind: "whisper_dm", Text: "A voice", ToSeatID: &b}).Event.Seq
		}, map[string]bool{"dm": true, "player_b": true}},
		{"a_gmroll", func() int64 {
			return input(lt.Seated, "/gmroll 1d20")
		}, map[string]bool{"dm": true, "player_a": true}},
		{"dm_gmroll", func() int64 {
			return input(lt.Owner, "/gmroll 1d100")
		}, map[string]bool{"dm": true}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			start, err := svc.ListEvents(ctx, lt.Owner, lt.LobbyID, 0, 200)
			tabletest.Must(t, err)
			for start.HasMore {
				start, err = svc.ListEvents(ctx, lt.Owner, lt.LobbyID, start.Cursor, 200)
				tabletest.Must(t, err)
			}
			results := waitAll(t, lt, start.Cursor, 1, 30*time.Second)
			seq := c.do()
			// A public marker releases the readers who may not see it.
			marker := lt.post(t, lt.Owner, table.MessageInput{Kind: "narration", Text: "marker " + c.name}).Event.Seq
			for range 4 {
				r := <-results
				tabletest.Must(t, r.err)
				got := map[int64]bool{}
				for _, e := range r.page.Events {
					got[e.Seq] = true
				}
				if got[seq] != c.seen[r.role] {
					t.Errorf("%s: saw the event %v, want %v (page %+v)", r.role, got[seq], c.seen[r.role], r.page)
				}
				if !c.seen[r.role] && !got[marker] && r.page.Cursor < seq {
					t.Errorf("%s: page %+v neither moved past the hidden event nor shows the marker", r.role, r.page)
				}
			}
		})
	}
}

// TestHubRechecksAuthority: a member revoked while waiting is never handed
// another event, and is refused at once; a seat handed to another
// controller makes its waiter resolve again before it sees what follows.
func TestHubRechecksAuthority(t *testing.T) {
	lt, _ := newLiveTable(t)
	svc := lt.svc
	start, err := svc.ListEvents(ctx, lt.Owner, lt.LobbyID, 0, 200)
	tabletest.Must(t, err)

	got := make(chan error, 1)
	go func() {
		_, err := svc.WaitEvents(ctx, lt.Unseated, lt.LobbyID, start.Cursor, 30*time.Second)
		got <- err
	}()
	for svc.Notifier().Waiters(lt.LobbyID) == 0 {
		time.Sleep(time.Millisecond)
	}
	_, err = svc.RevokeMember(ctx, lt.Owner, lt.RoomID, lt.UnseatedAccess)
	tabletest.Must(t, err)
	lt.post(t, lt.Owner, table.MessageInput{Kind: "narration", Text: "after the revocation"})
	select {
	case err := <-got:
		wantCode(t, err, apperr.RoomAccessRevoked)
	case <-time.After(20 * time.Second):
		t.Fatal("the revoked member's wait was not released")
	}
	// Its next poll is refused too, from the canonical rows.
	_, err = svc.WaitEvents(ctx, lt.Unseated, lt.LobbyID, 0, time.Second)
	wantCode(t, err, apperr.RoomAccessRevoked)
}

// TestHubShutdownAndCancel: cancelled waiters leave the hub; shutdown
// answers every waiter with its page.
func TestHubShutdownAndCancel(t *testing.T) {
	lt, _ := newLiveTable(t)
	svc := lt.svc
	start, err := svc.ListEvents(ctx, lt.Owner, lt.LobbyID, 0, 200)
	tabletest.Must(t, err)
	cctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	errs := make(chan error, 10)
	for range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := svc.WaitEvents(cctx, lt.Seated, lt.LobbyID, start.Cursor, 30*time.Second)
			errs <- err
		}()
	}
	for svc.Notifier().Waiters(lt.LobbyID) < 10 {
		time.Sleep(time.Millisecond)
	}
	cancel()
	wg.Wait()
	close(errs)
	for err := range errs {
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled wait returned %v", err)
		}
	}
	if n := svc.Notifier().Waiters(lt.LobbyID); n != 0 {
		t.Fatalf("%d waiters left after cancel", n)
	}
}

// TestHubResolvesOncePerCaller: when every waiter must resolve its actor
// again at the same moment (an authority change committed by this process
// releases them all, or their trust runs out together), the waiters of one
// caller share one resolution instead of each reading the rows again.
func TestHubResolvesOncePerCaller(t *testing.T) {
	lt, _ := newLiveTable(t)
	const perRole = 25
	start, err := lt.svc.ListEvents(ctx, lt.Owner, lt.LobbyID, 0, 200)
	tabletest.Must(t, err)
	cursor := start.Cursor
	for round := range 2 {
		results := waitAll(t, lt, cursor, perRole, 30*time.Second)
		if round == 1 {
			// A rename is an authority change: every cached viewer is stale.
			tabletest.NewUser(t, lt.svc, "Newcomer")
		}
		posted := lt.post(t, lt.Owner, table.MessageInput{Kind: "narration", Text: fmt.Sprintf("round %d", round)})
		var own int64
		for range 4 * perRole {
			r := <-results
			tabletest.Must(t, r.err)
			if len(r.page.Events) != 1 || r.page.Events[0].Seq != posted.Event.Seq {
				t.Fatalf("round %d: %s got %+v, want the new event", round, r.role, r.page)
			}
			own += r.queries
		}
		t.Logf("round %d: the %d waiters ran %d statements", round, 4*perRole, own)
		// After a recheck each waiter reads its own page (one statement);
		// the resolution (four statements: the session, the caller's
		// access, seats, grants) is shared by the waiters of a caller. A
		// hundred waiters resolving on their own would run about 500.
		if round == 1 && own > 2*4*perRole {
			t.Fatalf("round %d: the %d waiters ran %d statements to resolve again, want about one resolution per caller", round, 4*perRole, own)
		}
		cursor = posted.Event.Seq
	}
}

// TestHubEncodesOncePerView: one wake hands every waiter that sees the
// same events the same page, encoded once: the players and the key
// holder share one encoding, the DM (who sees everything) another; each
// encoding is the page's JSON.
func TestHubEncodesOncePerView(t *testing.T) {
	lt, _ := newLiveTable(t)
	start, err := lt.svc.ListEvents(ctx, lt.Owner, lt.LobbyID, 0, 200)
	tabletest.Must(t, err)
	const perRole = 5
	results := waitAll(t, lt, start.Cursor, perRole, 30*time.Second)
	posted := lt.post(t, lt.Owner, table.MessageInput{Kind: "narration", Text: "The bell tolls."})
	encodings := map[string]map[any]bool{}
	for range 4 * perRole {
		r := <-results
		tabletest.Must(t, r.err)
		group := "players"
		if r.role == "dm" {
			group = "dm"
		}
		if encodings[group] == nil {
			encodings[group] = map[any]bool{}
		}
		encodings[group][table.SharedEncoding(r.page)] = true
		got, err := r.page.JSON()
		tabletest.Must(t, err)
		var back struct {
			Events []struct {
				Seq int64 `json:"seq"`
			} `json:"events"`
			Cursor int64 `json:"cursor"`
		}
		tabletest.Must(t, json.Unmarshal(got, &back))
		if len(back.Events) != 1 || back.Events[0].Seq != posted.Event.Seq || back.Cursor != posted.Event.Seq {
			t.Fatalf("%s read %s", r.role, got)
		}
	}
	for group, seen := range encodings {
		if len(seen) != 1 || seen[nil] {
			t.Fatalf("%s: %d encodings for one wake (nil among them: %v), want one shared", group, len(seen), seen[nil])
		}
	}
	if len(encodings) != 2 {
		t.Fatalf("groups %v", encodings)
	}
	for enc := range encodings["dm"] {
		if encodings["players"][enc] {
			t.Fatal("the DM's page and the players' share one encoding")
		}
	}
}

// TestFollowStaysOnTheFeed: followers (the event stream) stay on the feed
// from one wake to the next: each post costs the hub one read and the
// followers none, nobody leaves the feed, and a follower still busy with
// one page when two more posts come gets them as one page, in order.
func TestFollowStaysOnTheFeed(t *testing.T) {
	lt, _ := newLiveTable(t)
	hubQueries := lt.svc.CountHubQueries()
	start, err := lt.svc.ListEvents(ctx, lt.Owner, lt.LobbyID, 0, 200)
	tabletest.Must(t, err)
	fctx, stop := context.WithCancel(ctx)
	defer stop()
	type got struct {
		who  int
		page table.EventPage
		// queue: the statements the follower had run when it got the page.
		queue int64
	}
	pages := make(chan got, 100)
	const followers = 8
	gate := make(chan struct{})
	var queries [followers]*atomic.Int64
	var wg sync.WaitGroup
	for i := range followers {
		qctx, q := models.WithQueryCounter(fctx)
		queries[i] = q
		caller := []table.Caller{lt.Owner, lt.Seated, lt.Unseated, lt.DMKey}[i%4]
		first := true
		wg.Go(func() {
			_, err := lt.svc.FollowEvents(qctx, caller, lt.LobbyID, start.Cursor, func() time.Duration { return time.Minute }, func(p table.EventPage) bool {
				pages <- got{who: i, page: p, queue: q.Load()}
				if i == 0 && first {
					first = false
					<-gate // follower 0 is slow with its first page
				}
				return true
			})
			if !errors.Is(err, context.Canceled) {
				t.Errorf("follower %d ended with %v, want the cancel", i, err)
			}
		})
	}
	for lt.svc.Notifier().Waiters(lt.LobbyID) < followers {
		time.Sleep(time.Millisecond) // waiting for the followers to be on the feed
	}
	subscribed := make([]int64, followers)
	for i := range followers {
		subscribed[i] = queries[i].Load()
	}
	var posted []int64
	for round := range 3 {
		before := hubQueries.Load()
		p := lt.post(t, lt.Owner, table.MessageInput{Kind: "narration", Text: fmt.Sprintf("round %d", round)})
		posted = append(posted, p.Event.Seq)
		// Every follower but the slow one gets this post, alone.
		want := followers - 1
		if round == 0 {
			want = followers
		}
		for range want {
			g := <-pages
			if len(g.page.Events) != 1 || g.page.Events[0].Seq != p.Event.Seq || g.page.Cursor != p.Event.Seq {
				t.Fatalf("round %d: follower %d got %+v, want the one new event", round, g.who, g.page)
			}
		}
		if got := hubQueries.Load() - before; got != 1 {
			t.Fatalf("round %d: the hub ran %d queries for one wake, want 1", round, got)
		}
		if n := lt.svc.Notifier().Waiters(lt.LobbyID); n != followers {
			t.Fatalf("round %d: %d followers on the feed, want all %d", round, n, followers)
		}
	}
	for i := range followers {
		if own := queries[i].Load() - subscribed[i]; own != 0 {
			t.Fatalf("follower %d ran %d statements of its own over three wakes, want 0", i, own)
		}
	}
	close(gate)
	g := <-pages
	if g.who != 0 || len(g.page.Events) != 2 || g.page.Events[0].Seq != posted[1] || g.page.Events[1].Seq != posted[2] || g.page.Cursor != posted[2] {
		t.Fatalf("the slow follower then got %+v from follower %d, want posts 2 and 3 as one page", g.page, g.who)
	}
	if own := g.queue - subscribed[0]; own != 0 {
		t.Fatalf("the slow follower ran %d statements to catch up, want 0 (the hub kept its pages)", own)
	}
	stop()
	wg.Wait()
	if n := lt.svc.Notifier().Waiters(lt.LobbyID); n != 0 {
		t.Fatalf("%d followers left on the feed after they stopped", n)
	}
}

// TestSeatsReadOncePerCaller: when a wake answers many waiters of one
// caller at once and the hub holds no roster (its trust ran out), they
// share one read of the seats instead of each reading them.
func TestSeatsReadOncePerCaller(t *testing.T) {
	lt, _ := newLiveTable(t)
	start, err := lt.svc.ListEvents(ctx, lt.Seated, lt.LobbyID, 0, 200)
	tabletest.Must(t, err)
	// One waiter holds the session's feed, as the waiting agents do.
	waiting := waitAll(t, lt, start.Cursor, 1, 30*time.Second)
	qctx, one := models.WithQueryCounter(ctx)
	if _, err := lt.svc.SessionSeats(qctx, lt.Seated, lt.LobbyID); err != nil {
		t.Fatal(err)
	}
	perRead := one.Load()
	lt.svc.Notifier().ForgetRosters()

	// Without a shared read, every caller would read (and be held too).
	const callers = 50
	reads, statements := tabletest.Herd(lt.svc.SetFailpoint, "seats.read", callers, func(qctx context.Context, _ int) {
		if _, err := lt.svc.SessionSeats(qctx, lt.Seated, lt.LobbyID); err != nil {
			t.Error(err)
		}
	})
	t.Logf("%d concurrent reads of the seats: %d read, %d statements (%d for one read)", callers, reads, statements, perRead)
	if reads != 1 || statements != perRead {
		t.Fatalf("%d concurrent reads of the seats by one caller read %d times, %d statements; want one read (%d statements)", callers, reads, statements, perRead)
	}
	lt.post(t, lt.Owner, table.MessageInput{Kind: "narration", Text: "release the waiters"})
	for range 4 {
		<-waiting
	}
}
