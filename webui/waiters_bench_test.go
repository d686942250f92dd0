package webui_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/gameplay/table/tabletest"
)

// BenchmarkIdleWaiters holds 1,000 long polls on one session through the
// real HTTP stack, then posts events and reports:
//   - wake_p50_ms / wake_p99_ms: from the post's commit to each waiter's response;
//   - pool_in_use: database connections checked out while the waiters idle;
//   - other_p99_ms vs other_p99_ms_no_waiters: p99 of an unrelated request
//     (the room page) with and without the waiters.
//
// Run: go test ./webui -run '^$' -bench IdleWaiters -benchtime 20x
// (AT_TEST_DB=postgres for PostgreSQL).
func BenchmarkIdleWaiters(b *testing.B) {
	const waiters = 1000
	f := newFixture(b, withSecret)
	tf := tabletest.New(b, f.services.Table)
	svc := f.services.Table
	_, err := svc.StartSession(ctx, tf.Owner, tf.LobbyID)
	tabletest.Must(b, err)
	// The server as it runs: no contract checker validating every answer.
	srv := httptest.NewServer(f.server)
	defer srv.Close()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 2 * waiters, MaxConnsPerHost: 0}}
	cookie := cookieFor(tf.Seated)
	get := func(path string) (*http.Response, error) {
		req, _ := http.NewRequest("GET", srv.URL+path, nil)
		req.AddCookie(cookie)
		return client.Do(req)
	}
	otherP99 := func() float64 {
		var d []time.Duration
		for range 200 {
			t0 := time.Now()
			resp, err := get(fmt.Sprintf("/api/rooms/%d", tf.RoomID))
			if err != nil {
				b.Fatal(err)
			}
			resp.Body.Close()
			d = append(d, time.Since(t0))
		}
		return percentile(d, 0.99)
	}
	baseline := otherP99()

	page, err := svc.ListEvents(ctx, tf.Seated, tf.LobbyID, 0, 200)
	tabletest.Must(b, err)
	cursor := page.Cursor
	var wakes []time.Duration
	var posted time.Time
	var mu sync.Mutex
	var poolInUse, other float64

	b.ResetTimer()
	for i := range b.N {
		var wg sync.WaitGroup
		for range waiters {
			wg.Add(1)
			go func() {
				defer wg.Done()
				resp, err := get(fmt.Sprintf("/api/sessions/%d/events/wait?after=%d&timeout=60", tf.LobbyID, cursor))
				if err != nil {
					b.Error(err)
					return
				}
				var p table.EventPage
				json.NewDecoder(resp.Body).Decode(&p)
				resp.Body.Close()
				got := time.Now()
				if len(p.Events) != 1 {
					b.Errorf("waiter got %d events", len(p.Events))
				}
				mu.Lock()
				wakes = append(wakes, got.Sub(posted))
				mu.Unlock()
			}()
		}
		deadline := time.Now().Add(30 * time.Second)
		for svc.Notifier().Waiters(tf.LobbyID) < waiters {
			if time.Now().After(deadline) {
				b.Fatalf("only %d of %d waiters registered", svc.Notifier().Waiters(tf.LobbyID), waiters)
			}
			time.Sleep(time.Millisecond)
		}
		if i == 0 {
			// Waiters register before their first read; let those reads
			// finish, then see what the idle waiters still hold.
			settle := time.Now().Add(5 * time.Second)
			for f.store.PoolInUse() > 0 && time.Now().Before(settle) {
				time.Sleep(time.Millisecond)
			}
			poolInUse = float64(f.store.PoolInUse())
			other = otherP99()
		}
		p, err := svc.PostMessage(ctx, tf.Owner, tf.LobbyID, table.MessageInput{Kind: "ooc", Text: fmt.Sprintf("tick %d", i)})
		if err != nil {
			b.Fatal(err)
		}
		// The commit happened inside PostMessage; measure from its return.
		mu.Lock()
		posted = time.Now()
		mu.Unlock()
		wg.Wait()
		cursor = p.Event.Seq
	}
	b.StopTimer()
	b.ReportMetric(float64(waiters), "waiters")
	b.ReportMetric(percentile(wakes, 0.50), "wake_p50_ms")
	b.ReportMetric(percentile(wakes, 0.99), "wake_p99_ms")
	b.ReportMetric(poolInUse, "pool_in_use")
	b.ReportMetric(other, "other_p99_ms")
	b.ReportMetric(baseline, "other_p99_ms_no_waiters")
}

func percentile(d []time.Duration, q float64) float64 {
	if len(d) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	i := int(q * float64(len(s)-1))
	return float64(s[i].Microseconds()) / 1000
}
