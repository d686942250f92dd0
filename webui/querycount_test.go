package webui_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/models"
)

// counted makes a request like call and returns how many SQL statements
// serving it ran (identity, authority, the work and the answer).
func counted(t *testing.T, h http.Handler, c table.Caller, method, path, body string) (*httptest.ResponseRecorder, int64) {
	t.Helper()
	headers := map[string]string{}
	if body != "" {
		headers["Content-Type"] = "application/json"
	}
	return countedWith(t, h, c, method, path, headers, body)
}

// countedWith is counted with the given headers.
func countedWith(t *testing.T, h http.Handler, c table.Caller, method, path string, headers map[string]string, body ...string) (*httptest.ResponseRecorder, int64) {
	t.Helper()
	qctx, n := models.WithQueryCounter(ctx)
	req := httptest.NewRequest(method, path, strings.NewReader(strings.Join(body, ""))).WithContext(qctx)
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	req.AddCookie(cookieFor(c))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec, n.Load()
}

// TestHotRouteQueryCounts pins the statements of the web app's post and
// long poll. A poll woken by a post runs none of its own: the browser
// session is resumed from the accounts cache, the hub's one shared read
// serves every waiter, and the next poll from the new cursor knows nothing
// is newer without asking the database.
func TestHotRouteQueryCounts(t *testing.T) {
	f := newFixture(t, withSecret)
	tf := startedTable(t, f)
	h := f.handler
	p := fmt.Sprintf
	// Warm up: the identity's first request, the first resolution.
	call(t, h, tf.Seated, "POST", p("/api/sessions/%d/input", tf.LobbyID), `{"text":"warm up"}`)
	rec, posted := counted(t, h, tf.Seated, "POST", p("/api/sessions/%d/input", tf.LobbyID), `{"text":"Hello there"}`)
	if rec.Code != 201 {
		t.Fatalf("post: %d %s", rec.Code, rec.Body)
	}
	// scope (the session with its campaign and room, seats, access,
	// participants); next seq (one UPDATE … RETURNING, which on PostgreSQL
	// also queues the NOTIFY for other processes); message; event. The user
	// behind the cookie was resumed by the warm-up and is cached.
	if want := int64(7); posted != want {
		t.Errorf("the post ran %d statements, want %d", posted, want)
	}

	rec = call(t, h, tf.Owner, "GET", p("/api/sessions/%d/events?after=0", tf.LobbyID), "")
	var page table.EventPage
	mustJSON(t, rec, &page)
	after := page.Cursor
	// The first poll resolves and caches the DM's viewer; it times out.
	rec = call(t, h, tf.Owner, "GET", p("/api/sessions/%d/events/wait?after=%d&timeout=1", tf.LobbyID, after), "")
	if rec.Code != 200 {
		t.Fatalf("wait: %d %s", rec.Code, rec.Body)
	}
	for round := range 2 {
		type result struct {
			rec     *httptest.ResponseRecorder
			queries int64
		}
		done := make(chan result, 1)
		go func() {
			rec, n := counted(t, h, tf.Owner, "GET", p("/api/sessions/%d/events/wait?after=%d&timeout=30", tf.LobbyID, after), "")
			done <- result{rec, n}
		}()
		for f.services.Table.Notifier().Waiters(tf.LobbyID) == 0 {
			time.Sleep(time.Millisecond) // waiting for the poll to register, not for time to pass
		}
		call(t, h, tf.Seated, "POST", p("/api/sessions/%d/input", tf.LobbyID), p(`{"text":"round %d"}`, round))
		r := <-done
		mustJSON(t, r.rec, &page)
		if len(page.Events) != 1 {
			t.Fatalf("round %d: woken poll got %s", round, r.rec.Body)
		}
		// none: cached browser session and viewer, the hub's shared read
		if r.queries != 0 {
			t.Errorf("round %d: the woken poll ran %d statements, want 0", round, r.queries)
		}
		after = page.Cursor
	}
}

func mustJSON(t *testing.T, rec *httptest.ResponseRecorder, out any) {
	t.Helper()
	if err := json.Unmarshal(rec.Body.Bytes(), out); err != nil {
		t.Fatalf("%d %s: %v", rec.Code, rec.Body, err)
	}
}
