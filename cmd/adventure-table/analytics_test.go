package main

import (
	"fmt"
	"io"
	"net/http"
	"sync"
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

// TestTwoProcessesAddUp: two real server processes on one PostgreSQL count
// 1,000 page visits each (flushing every second); once the first has
// flushed all of its visits it is killed with SIGKILL, and the second stops
// with SIGTERM (its last flush). The totals are exact: nothing lost of what
// was flushed, nothing counted twice.
//
// PostgreSQL only: several processes share a PostgreSQL database, never a
// SQLite file (see TestTwoProcessesOneStepPerSeat).
func TestTwoProcessesAddUp(t *testing.T) {
	if modelstest.Dialect() != models.Postgres {
		t.Skip("two server processes share a PostgreSQL database only")
	}
	const visits = 1000
	env := newChildEnv(t, "AT_ANALYTICS_FLUSH=1s")
	first, second := env.start(t), env.start(t)
	db := env.openDB(t)
	visited := func(kind string) int64 {
		t.Helper()
		var n int64
		if err := db.Raw("SELECT COALESCE(SUM(hits), 0) FROM analytics_hits WHERE metric = 'visit' AND label = ?", kind).Scan(&n).Error; err != nil {
			t.Fatal(err)
		}
		return n
	}
	var wg sync.WaitGroup
	for _, p := range []struct {
		c    *child
		page string
	}{{first, "/tables"}, {second, "/solo"}} {
		wg.Go(func() {
			client := &http.Client{Timeout: 30 * time.Second}
			for range visits {
				req, _ := http.NewRequest("GET", p.c.base+p.page, nil)
				req.Header.Set("Accept", "text/html")
				resp, err := client.Do(req)
				if err != nil {
					t.Error(err)
					return
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					t.Errorf("GET %s: %d", p.page, resp.StatusCode)
					return
				}
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	// the first process's visits are all written by its own flushes
	deadline := time.Now().Add(30 * time.Second)
	for visited("tables") < visits && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	first.kill9()
	second.terminate()
	if got := visited("tables"); got != visits {
		t.Errorf("the killed process's visits: %d, want %d (flushed before the kill)", got, visits)
	}
	if got := visited("solo"); got != visits {
		t.Errorf("the stopped process's visits: %d, want %d", got, visits)
	}
}
