package limits

import (
	"context"
	"testing"
	"time"

	"github.com/adventure-table/adventure-table/models"
	"github.com/adventure-table/adventure-table/models/modelstest"
)

// TestSharedAcrossProcesses, on PostgreSQL: two processes' limiters share
// their buckets through the database, so together they allow what one
// would (not twice as much): the burst at once, then one request per
// interval, wherever each request lands; a refusal says how long to wait
// and costs nothing; full buckets are swept. SQLite keeps the buckets in
// the one process's memory (there is no second process to share with).
func TestSharedAcrossProcesses(t *testing.T) {
	if modelstest.Dialect() != models.Postgres {
		t.Skip("shared buckets live in PostgreSQL; SQLite is one process's database")
	}
	store := modelstest.MustOpen(t)
	cfg := Config{Join: {Events: 10, Window: 10 * time.Second, Burst: 5}} // one a second, five at once
	a, clockA := newAt(t, cfg)
	b, clockB := newAt(t, cfg)
	a.ShareThrough(store, nil)
	b.ShareThrough(store, nil)
	advance := func(d time.Duration) { clockA.advance(d); clockB.advance(d) }
	allowed := func(n int) (ok int) {
		for i := range n {
			l := a
			if i%2 == 1 {
				l = b
			}
			if l.Allow(Join, "198.51.100.9") == nil {
				ok++
			}
		}
		return ok
	}
	if got := allowed(20); got != 5 {
		t.Fatalf("at once, two processes allowed %d, want the burst of 5 (one process's)", got)
	}
	if wait := retryAfter(t, b.Allow(Join, "198.51.100.9")); wait != 1 {
		t.Fatalf("retry after %d s, want 1", wait)
	}
	advance(3 * time.Second)
	if got := allowed(20); got != 3 {
		t.Fatalf("three seconds later: %d allowed, want 3", got)
	}
	if a.Allow(Join, "203.0.113.1") != nil {
		t.Fatal("another key shares the first one's bucket")
	}
	advance(time.Minute)
	if got := allowed(20); got != 5 {
		t.Fatalf("a minute later: %d allowed, want a full burst of 5", got)
	}
	advance(time.Minute) // every bucket is full again
	n, err := store.SweepRateLimits(context.Background(), clockA.now())
	if err != nil || n != 2 { // the two keys' buckets, the one of each
		t.Fatalf("swept %d (%v), want the 2 buckets", n, err)
	}

	// the database gone: this process's own bucket decides, nothing fails
	store.Close()
	if a.Allow(Join, "192.0.2.50") != nil {
		t.Fatal("with the database down, a first request was refused")
	}
}

// BenchmarkSharedAllow is the cost of one shared decision on PostgreSQL
// (one UPSERT), the price per request of limits that hold across
// processes; BenchmarkLocalAllow is the in-memory bucket's, for scale.
func BenchmarkSharedAllow(b *testing.B) {
	if modelstest.Dialect() != models.Postgres {
		b.Skip("PostgreSQL only")
	}
	benchAllow(b, modelstest.MustOpen(b))
}

func BenchmarkLocalAllow(b *testing.B) { benchAllow(b, nil) }

// benchAllow decides over four keys under a limit that never refuses (the
// cost, not the limit), in shared when it is not nil.
func benchAllow(b *testing.B, shared Shared) {
	l := New(Config{IP: {Events: 1 << 30, Window: time.Second, Burst: 1 << 30}})
	if shared != nil {
		l.ShareThrough(shared, nil)
	}
	keys := []string{"198.51.100.1", "198.51.100.2", "198.51.100.3", "198.51.100.4"}
	i := 0
	for b.Loop() {
		if err := l.Allow(IP, keys[i%len(keys)]); err != nil {
			b.Fatal(err)
		}
		i++
	}
}
