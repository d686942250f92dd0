package main

import (
	"fmt"
	"io"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/adventure-table/adventure-table/gameplay/llm/llmtest"
	"github.com/adventure-table/adventure-table/models"
	"github.com/adventure-table/adventure-table/models/modelstest"
)

// TestAnalyticsFlushOnSIGTERM: the real server counts a solo turn, what its
// player made and a failed turn, and writes them when SIGTERM stops it (a
// minute has not passed: only the last flush can have written them); the
// visitor is one person however many things they made.
func TestAnalyticsFlushOnSIGTERM(t *testing.T) {
	e := newChildEnv(t)
	fake := llmtest.New(t)
	c := e.start(t)
	a := newAPI(t, c.base)
	a.setModel(fake.URL())
	adv := a.newAdventure()
	a.newAdventure() // a second scenario: still one person who made something
	fake.Push(llmtest.Reply{Chunks: []string{"The door creaks open."}, FinishReason: "stop"})
	a.playTurn(adv, "open the door")
	fake.Push(llmtest.Reply{Status: 401})
	if _, _, err := a.streamTurn(adv, "again", func(turnEvent) {}); err != nil {
		t.Fatal(err)
	}

	c.terminate()
	db := e.openDB(t)
	var hits []struct {
		Metric, Label string
		Hits          int64
	}
	if err := db.Raw("SELECT metric, label, SUM(hits) AS hits FROM analytics_hits WHERE metric IN ('turn', 'turn_failed') GROUP BY metric, label ORDER BY metric, label").Scan(&hits).Error; err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprint(hits)
	if want := "[{turn solo 1} {turn_failed provider_auth_failed 1}]"; got != want {
		t.Errorf("counters after SIGTERM: %s, want %s", got, want)
	}
	// one model call streamed a piece (the refused one never did)
	var firstTokens int64
	if err := db.Raw("SELECT COALESCE(SUM(hits), 0) FROM analytics_hits WHERE metric = 'model_first_token'").Scan(&firstTokens).Error; err != nil || firstTokens != 1 {
		t.Errorf("times to first token counted: %d (%v), want 1", firstTokens, err)
	}
	var visitors []struct {
		Visitor string
		Flags   int64
	}
	if err := db.Raw("SELECT visitor, flags FROM analytics_visitor_days").Scan(&visitors).Error; err != nil {
		t.Fatal(err)
	}
	// came (1), made (2) and played (4), not the demo's (8): one person, one row
	if len(visitors) != 1 || visitors[0].Flags != 1|2|4 || len(visitors[0].Visitor) != 32 {
		t.Errorf("visitor days after SIGTERM: %+v", visitors)
	}
}

// TestTwoProcessesAddUp: two real server processes on one PostgreSQL
// count 1,000 page loads each, and 1,000 first visits each (a browser
// without a cookie: a new guest, one visitor-day row of the funnel),
// flushing every second. Once the first has written all of its counts it
// is killed with SIGKILL; then the second counts its own and stops with
// SIGTERM (its last flush). The totals are exact: the two processes' page
// loads add up on the same counter, nothing flushed is lost, nothing is
// counted twice.
//
// PostgreSQL only: several processes share a PostgreSQL database, never a
// SQLite file (see TestTwoProcessesOneStepPerSeat).
func TestTwoProcessesAddUp(t *testing.T) {
	if modelstest.Dialect() != models.Postgres {
		t.Skip("two server processes share a PostgreSQL database only")
	}
	const events = 1000
	env := newChildEnv(t, "AT_ANALYTICS_FLUSH=1s")
	first, second := env.start(t), env.start(t)
	db := env.openDB(t)
	counted := func() (pages, visitors int64) {
		t.Helper()
		if err := db.Raw("SELECT COALESCE(SUM(hits), 0) FROM analytics_hits WHERE metric = 'visit' AND label = 'tables'").Scan(&pages).Error; err != nil {
			t.Fatal(err)
		}
		if err := db.Raw("SELECT COUNT(*) FROM analytics_visitor_days").Scan(&visitors).Error; err != nil {
			t.Fatal(err)
		}
		return pages, visitors
	}
	// count sends c a page load of /tables and a first visit, n times
	count := func(c *child, n int) {
		t.Helper()
		client := &http.Client{Timeout: 30 * time.Second}
		get := func(path string, ok ...int) {
			req, _ := http.NewRequest("GET", c.base+path, nil)
			req.Header.Set("Accept", "text/html")
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if !slices.Contains(ok, resp.StatusCode) {
				t.Fatalf("GET %s: %d", path, resp.StatusCode)
			}
		}
		for range n {
			// 503 when this build carries no web app: the load is counted all the same
			get("/tables", http.StatusOK, http.StatusServiceUnavailable)
			get("/api/me", http.StatusOK)
		}
	}
	count(first, events)
	// the first process's counts are all written by its own flushes
	waitUntil(t, "the first process's flush", func() bool { p, v := counted(); return p >= events && v >= events })
	first.kill9()
	count(second, events)
	second.terminate()
	if pages, visitors := counted(); pages != 2*events || visitors != 2*events {
		t.Errorf("counted %d page loads and %d visitors, want %d of each (1,000 flushed before the kill, 1,000 at the stop)", pages, visitors, 2*events)
	}
}
