package analytics_test

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sync/atomic"
	"testing"
	"time"

	"github.com/adventure-table/adventure-table/gameplay/analytics"
	"github.com/adventure-table/adventure-table/models"
	"github.com/adventure-table/adventure-table/models/modelstest"
)

var ctx = context.Background()

func clock(at string) func() time.Time {
	t, _ := time.Parse(time.RFC3339, at)
	return func() time.Time { return t }
}

// hits reads the counters back as "day metric label" → hits.
func hits(t *testing.T, store *models.Store) map[string]int64 {
	t.Helper()
	rows, err := store.AnalyticsHitsSince(ctx, "2000-01-01")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int64{}
	for _, r := range rows {
		out[r.Day+" "+r.Metric+" "+r.Label] = r.Hits
	}
	return out
}

// TestFlushesAddUp, on SQLite and PostgreSQL (the UPSERTs run for real on
// both): two processes' counters flush into one database and their counts
// add up, day by day; a second flush adds to the first; a visitor's funnel
// flags turn on and stay on, and one person doing a thing six times is one
// visitor.
func TestFlushesAddUp(t *testing.T) {
	store := modelstest.MustOpen(t)
	secret := []byte("analytics-test-secret")
	a := analytics.New(store, secret, clock("2026-12-04T10:00:00Z"), nil)
	b := analytics.New(store, secret, clock("2026-12-04T23:59:59Z"), nil)
	for range 3 {
		a.Count("visit", "home", 1)
	}
	b.Count("visit", "home", 2)
	b.Count("turn_failed", "provider_timeout", 1)
	for range 6 {
		a.Reach(7, analytics.Made)
	}
	a.Reach(7, analytics.Came)
	b.Reach(7, analytics.Played)
	b.Reach(8, analytics.Came)
	for _, c := range []*analytics.Counter{a, b} {
		if err := c.Flush(ctx); err != nil {
			t.Fatal(err)
		}
	}
	a.Count("visit", "home", 10)
	if err := a.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	// nothing counted since: a flush writes nothing
	if err := a.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	got := hits(t, store)
	if got["2026-12-04 visit home"] != 15 || got["2026-12-04 turn_failed provider_timeout"] != 1 || len(got) != 2 {
		t.Fatalf("counters: %v", got)
	}
	funnel, err := store.AnalyticsFunnelSince(ctx, "2026-12-04")
	if err != nil {
		t.Fatal(err)
	}
	byFlags := map[int64]int64{}
	for _, f := range funnel {
		byFlags[f.Flags] += f.Visitors
	}
	all := int64(analytics.Came | analytics.Made | analytics.Played)
	if byFlags[all] != 1 || byFlags[int64(analytics.Came)] != 1 || len(byFlags) != 2 {
		t.Fatalf("visitors by flags: %v (want one who came, made and played, one who came)", byFlags)
	}
}

// failing fails its first failures calls of each kind, then writes.
type failing struct {
	*models.Store
	hitFailures, dayFailures atomic.Int32
}

func (f *failing) AddAnalyticsHits(ctx context.Context, h []models.AnalyticsHit) error {
	if f.hitFailures.Add(-1) >= 0 {
		return errors.New("database away")
	}
	return f.Store.AddAnalyticsHits(ctx, h)
}

func (f *failing) MarkAnalyticsVisitorDays(ctx context.Context, d []models.AnalyticsVisitorDay) error {
	if f.dayFailures.Add(-1) >= 0 {
		return errors.New("database away")
	}
	return f.Store.MarkAnalyticsVisitorDays(ctx, d)
}

// TestFailedFlushIsRetried: a flush that fails keeps its counts for the
// next one, which writes them exactly once, with what was counted between;
// when the hits were written and the visitor days failed, only the days are
// written again.
func TestFailedFlushIsRetried(t *testing.T) {
	store := modelstest.MustOpen(t)
	f := &failing{Store: store}
	f.hitFailures.Store(1)
	c := analytics.New(f, []byte("s"), clock("2026-12-04T10:00:00Z"), nil)
	c.Count("visit", "solo", 4)
	c.Reach(1, analytics.Came)
	if err := c.Flush(ctx); err == nil {
		t.Fatal("the failing flush reports no error")
	}
	if got := hits(t, store); len(got) != 0 {
		t.Fatalf("a failed flush wrote %v", got)
	}
	c.Count("visit", "solo", 1)
	f.dayFailures.Store(1)
	if err := c.Flush(ctx); err == nil {
		t.Fatal("the flush whose visitor days failed reports no error")
	}
	if err := c.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if got := hits(t, store); got["2026-12-04 visit solo"] != 5 {
		t.Fatalf("after the retries: %v, want 5 solo visits exactly", got)
	}
	funnel, err := store.AnalyticsFunnelSince(ctx, "2026-12-04")
	if err != nil || len(funnel) != 1 || funnel[0].Visitors != 1 {
		t.Fatalf("funnel after the retries: %+v %v", funnel, err)
	}
}

// TestVisitorIsAnonymous: a visitor is 32 hex characters that depend on the
// secret and the user, and nothing else of the user goes in a row.
func TestVisitorIsAnonymous(t *testing.T) {
	v := analytics.Visitor([]byte("one"), 123456)
	if !regexp.MustCompile(`^[0-9a-f]{32}$`).MatchString(v) {
		t.Fatalf("visitor %q", v)
	}
	if v == analytics.Visitor([]byte("two"), 123456) || v == analytics.Visitor([]byte("one"), 123457) {
		t.Fatal("the visitor does not depend on the secret and the user")
	}
	if v != analytics.Visitor([]byte("one"), 123456) {
		t.Fatal("the same user is not the same visitor")
	}
}

// BenchmarkFlush measures a minute's flush of a day with 10,000 visitors:
// each visitor's day row, a few hundred counters; statements and time per
// flush (the counting itself is not timed).
func BenchmarkFlush(b *testing.B) {
	store := modelstest.MustOpen(b)
	c := analytics.New(store, []byte("bench"), clock("2026-12-04T10:00:00Z"), nil)
	var statements int64
	for b.Loop() {
		b.StopTimer() // the counting is not the flush
		for v := range 10_000 {
			c.Reach(int64(v+1), analytics.Came)
			c.Count("visit", fmt.Sprintf("page-%d", v%40), 1)
		}
		for code := range 20 {
			c.Count("turn_failed", fmt.Sprintf("code-%d", code), 1)
			c.Count("latency_ms", fmt.Sprintf("le-%d", 50<<code), 3)
		}
		qctx, n := models.WithQueryCounter(ctx)
		b.StartTimer()
		if err := c.Flush(qctx); err != nil {
			b.Fatal(err)
		}
		statements = n.Load()
	}
	b.ReportMetric(float64(statements), "statements/flush")
}
