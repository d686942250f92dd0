package mcp

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/gameplay/table/tabletest"
	"github.com/adventure-table/adventure-table/models"
	"github.com/adventure-table/adventure-table/models/modelstest"
)

// queryMeter counts the SQL statements of each MCP request by tool name
// (the Mcp-Name header), the way the server really runs them: bearer
// verification, the tool call and its answer.
type queryMeter struct {
	mu sync.Mutex
	// started numbers each tool's requests as they arrive; counts holds
	// each request's statements by that number once its handler returned.
	started map[string]int
	counts  map[string]map[int]int64
}

func (m *queryMeter) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tool := r.Header.Get("Mcp-Name")
		m.mu.Lock()
		call := m.started[tool]
		m.started[tool]++
		m.mu.Unlock()
		ctx, n := models.WithQueryCounter(r.Context())
		h.ServeHTTP(w, r.WithContext(ctx))
		m.mu.Lock()
		if m.counts[tool] == nil {
			m.counts[tool] = map[int]int64{}
		}
		m.counts[tool][call] = n.Load()
		m.mu.Unlock()
	})
}

// of is the count of the tool's call number `calls` (1 is the first), once
// its handler has returned. The client reads an answer before its handler
// returns, so the next call can end first: calls are told apart by the
// order they arrived in, not the order they ended in.
func (m *queryMeter) of(tool string, calls int) int64 {
	for {
		m.mu.Lock()
		n, done := m.counts[tool][calls-1]
		m.mu.Unlock()
		if done {
			return n
		}
		time.Sleep(time.Millisecond) // waiting for the handler to return, not for time to pass
	}
}

// TestToolQueryCounts pins how many statements the hot tools cost, so a
// change that adds a query per call shows up here. The bearer check costs
// none after an agent's first call (its grant row is kept until authority
// changes), and wait_for_event woken by a post costs none at all: the
// hub's one shared read serves every waiter, and the roster comes from the
// same cache.
func TestToolQueryCounts(t *testing.T) {
	svc := table.New(modelstest.MustOpen(t), nil)
	meter := &queryMeter{started: map[string]int{}, counts: map[string]map[int]int64{}}
	srv := httptest.NewServer(meter.wrap(NewHandler(Options{Version: "test", Table: svc, Verify: func(ctx context.Context, tok string) (Principal, error) {
		c, err := svc.AuthenticateGrant(ctx, tok)
		return Principal{GrantID: c.GrantID, Caller: c}, err
	}})))
	t.Cleanup(srv.Close)
	lt := tabletest.New(t, svc)
	_, err := svc.StartSession(context.Background(), lt.Owner, lt.LobbyID)
	tabletest.Must(t, err)
	m, err := svc.LetAIControl(context.Background(), lt.Seated, lt.PlayerSeatID, table.HandoffInput{})
	tabletest.Must(t, err)
	a := connectAgent(t, srv.URL, m.Token)

	var cx Context
	a.call("get_session_context", nil, &cx)
	a.call("get_session_context", nil, &cx)
	var posted Posted
	a.call("post_message", map[string]any{"text": "Hello"}, &posted)
	a.call("post_message", map[string]any{"text": "Hello again"}, &posted)
	// With lines of play in the recent events, the context recalls the
	// campaign's memories too (the first call after the posts reads the
	// table afresh; the second is what every call costs from then on).
	a.call("get_session_context", nil, &cx)
	a.call("get_session_context", nil, &cx)
	// A first wait resolves and caches; the one measured is woken by a post.
	var pg EventPage
	a.call("wait_for_event", map[string]any{"after": posted.Seq, "timeout_seconds": 1}, &pg)
	// Two wakes: the first also caches the roster the pages name speakers
	// from; the second is what every wake costs from then on.
	after := posted.Seq
	for i := range 2 {
		done := make(chan EventPage, 1)
		go func() {
			var p EventPage
			a.call("wait_for_event", map[string]any{"after": after, "timeout_seconds": 30}, &p)
			done <- p
		}()
		for svc.Notifier().Waiters(lt.LobbyID) == 0 {
			time.Sleep(time.Millisecond) // waiting for the waiter to register, not for time to pass
		}
		p, err := svc.PostMessage(context.Background(), lt.Owner, lt.LobbyID, table.MessageInput{Kind: "narration", Text: fmt.Sprintf("The door opens (%d).", i)})
		tabletest.Must(t, err)
		if got := <-done; len(got.Events) != 1 {
			t.Fatalf("woken wait got %+v", got)
		}
		after = p.Event.Seq
	}
	for _, c := range []struct {
		tool  string
		calls int
		want  int64
	}{
		// one scope (the session with its campaign and room, seats), the
		// characters, the campaign's world (edited outside the session,
		// so never in its snapshot) and the campaign's memories (written
		// by a background job); the rest of the table (participants,
		// names, stage, events, checks, pending actions, windows, the
		// fight) is the hub's snapshot while nothing happens
		{"get_session_context", 4, 5},
		// scope (the session with its campaign and room, seats,
		// participants); next seq (one UPDATE … RETURNING, which on
		// PostgreSQL also queues the NOTIFY for other processes); message;
		// event
		{"post_message", 2, 6},
		// none: the hub's shared read and cached roster serve it
		{"wait_for_event", 3, 0},
	} {
		if got := meter.of(c.tool, c.calls); got != c.want {
			t.Errorf("%s ran %d statements, want %d", c.tool, got, c.want)
		}
	}
	// wait_for_event that answers at once (timeout_seconds 0, paging
	// through older events): the one read, the caller's viewer coming from
	// the hub's cache as a waiter's does.
	for range 2 {
		a.call("wait_for_event", map[string]any{"after": 0, "timeout_seconds": 0}, &pg)
	}
	if got := meter.of("wait_for_event", 5); got != 1 {
		t.Errorf("wait_for_event with timeout_seconds 0 ran %d statements, want 1", got)
	}
}
