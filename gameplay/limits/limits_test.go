package limits

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/adventure-table/adventure-table/gameplay/analytics"
	"github.com/adventure-table/adventure-table/models/apperr"
	"github.com/adventure-table/adventure-table/models/modelstest"
)

// clock is a hand-driven time source: tests move it, never sleep.
type clock struct{ t time.Time }

func (c *clock) now() time.Time          { return c.t }
func (c *clock) advance(d time.Duration) { c.t = c.t.Add(d) }

func newAt(t *testing.T, cfg Config) (*Limits, *clock) {
	t.Helper()
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	l := New(cfg)
	c := &clock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	l.now = c.now
	return l, c
}

// retryAfter returns the retry_after_seconds of a rate_limited error, and
// fails on anything else.
func retryAfter(t *testing.T, err error) int {
	t.Helper()
	e, ok := apperr.As(err)
	if !ok || apperr.CodeOf(err) != apperr.RateLimited {
		t.Fatalf("got %v, want rate_limited", err)
	}
	secs, ok := e.Details["retry_after_seconds"].(int)
	if !ok || secs < 1 {
		t.Fatalf("retry_after_seconds is %#v, want a whole number ≥ 1", e.Details["retry_after_seconds"])
	}
	return secs
}

func TestBurstThenRate(t *testing.T) {
	// 6 a minute (one every 10 s), 3 at once.
	l, c := newAt(t, Config{Join: {Events: 6, Window: time.Minute, Burst: 3}})
	for i := range 3 {
		if err := l.Allow(Join, "203.0.113.7"); err != nil {
			t.Fatalf("request %d within the burst: %v", i+1, err)
		}
	}
	if secs := retryAfter(t, l.Allow(Join, "203.0.113.7")); secs != 10 {
		t.Fatalf("retry after %d s, want 10 (one token every 10 s)", secs)
	}
	// A refused attempt costs nothing: 4 s later the wait is 6 s, not 16.
	c.advance(4 * time.Second)
	if secs := retryAfter(t, l.Allow(Join, "203.0.113.7")); secs != 6 {
		t.Fatalf("retry after %d s, want 6", secs)
	}
	// A fraction of a second rounds up.
	c.advance(5*time.Second + 500*time.Millisecond)
	if secs := retryAfter(t, l.Allow(Join, "203.0.113.7")); secs != 1 {
		t.Fatalf("retry after %d s, want 1 (0.5 s rounds up)", secs)
	}
	c.advance(500 * time.Millisecond)
	if err := l.Allow(Join, "203.0.113.7"); err != nil {
		t.Fatalf("after the wait: %v", err)
	}
	if err := l.Allow(Join, "203.0.113.7"); err == nil {
		t.Fatal("the refilled token was spent twice")
	}
	// Another key, and another class, have budgets of their own.
	if err := l.Allow(Join, "203.0.113.8"); err != nil {
		t.Fatalf("another key: %v", err)
	}
	if err := l.Allow(Guest, "203.0.113.7"); err != nil {
		t.Fatalf("a class without a rule is never limited: %v", err)
	}
}

func TestSustainedRate(t *testing.T) {
	// Over an hour, a client that keeps trying gets the burst plus the
	// hour's refill, no more.
	l, c := newAt(t, Config{Turn: {Events: 120, Window: time.Hour, Burst: 10}})
	allowed := 0
	for range 3600 {
		if l.Allow(Turn, "u1") == nil {
			allowed++
		}
		c.advance(time.Second)
	}
	if allowed < 129 || allowed > 130 {
		t.Fatalf("allowed %d in an hour, want 10 + 120", allowed)
	}
}

func TestRefusalDetails(t *testing.T) {
	l, _ := newAt(t, Config{Guest: {Events: 1, Window: time.Hour, Burst: 1}})
	l.Allow(Guest, "k")
	err := l.Allow(Guest, "k")
	if secs := retryAfter(t, err); secs != 3600 {
		t.Fatalf("retry after %d, want 3600", secs)
	}
	e, _ := apperr.As(err)
	if e.Details["limit"] != "guest" || apperr.CodeOf(err).Kind() != apperr.KindRateLimited {
		t.Fatalf("details %v, kind %s", e.Details, apperr.CodeOf(err).Kind())
	}
}

// TestRefusalsAreCounted: each refusal is counted once by its class (a
// request let through is not).
func TestRefusalsAreCounted(t *testing.T) {
	l, _ := newAt(t, Config{Guest: {Events: 1, Window: time.Hour, Burst: 1}})
	store := modelstest.MustOpen(t)
	counts := analytics.New(store, nil, nil, nil)
	l.CountRefusals(counts)
	for range 3 {
		l.Allow(Guest, "k")
	}
	if err := counts.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	rows, err := store.AnalyticsHitsSince(context.Background(), "2000-01-01")
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || rows[0].Metric != analytics.MetricRateLimited || rows[0].Label != "guest" || rows[0].Hits != 2 {
		t.Fatalf("counted %+v, want two guest refusals", rows)
	}
	var none *Limits
	none.CountRefusals(counts) // no limits: nothing to count, no panic
}

func TestOff(t *testing.T) {
	var l *Limits // what New returns for "off"
	for _, cfg := range []Config{nil, {}} {
		if New(cfg) != nil {
			t.Fatalf("New(%v) is not nil", cfg)
		}
	}
	for range 1000 {
		if err := l.Allow(IP, "203.0.113.7"); err != nil {
			t.Fatalf("a nil Limits refused: %v", err)
		}
	}
	if l.Len(IP) != 0 || l.Sweep() != 0 || len(l.Config()) != 0 {
		t.Fatal("a nil Limits holds state")
	}
	off, err := Parse("off")
	if err != nil || New(off) != nil {
		t.Fatalf("Parse(off) = %v, %v", off, err)
	}
}

// TestEvictionKeepsMemoryBounded: a bucket that is full again is dropped (a
// fresh one behaves the same), one that is not is kept, and a flood of
// fresh keys never grows a class past its cap.
func TestEvictionKeepsMemoryBounded(t *testing.T) {
	l, c := newAt(t, Config{IP: {Events: 60, Window: time.Minute, Burst: 2}})
	for i := range 100 {
		l.Allow(IP, fmt.Sprintf("198.51.100.%d", i))
	}
	l.Allow(IP, "198.51.100.0") // empties the first bucket
	if n := l.Len(IP); n != 100 {
		t.Fatalf("tracking %d keys, want 100", n)
	}
	c.advance(time.Second) // one token back: the 99 are full, the first is not
	if n := l.Sweep(); n != 99 {
		t.Fatalf("swept %d, want 99", n)
	}
	if err := l.Allow(IP, "198.51.100.0"); err != nil {
		t.Fatalf("the kept bucket: %v", err)
	}
	if err := l.Allow(IP, "198.51.100.0"); err == nil {
		t.Fatal("the kept bucket forgot what it had spent")
	}
	c.advance(time.Hour)
	l.Sweep()
	if n := l.Len(IP); n != 0 {
		t.Fatalf("%d idle buckets survive a sweep", n)
	}

	// Allow sweeps by itself: a stream of one-off keys (a scanner rotating
	// addresses) leaves at most about two sweeps' worth behind.
	for i := range 100_000 {
		l.Allow(IP, fmt.Sprintf("k%d", i))
		c.advance(time.Millisecond)
	}
	if n := l.Len(IP); n > 2*minSweepKeys+100 {
		t.Fatalf("%d buckets after 100000 one-off keys", n)
	}

	// Keys that never fill again (each spends its whole burst) are capped
	// at maxKeys: the least recently seen make room.
	l, c = newAt(t, Config{Guest: {Events: 1, Window: time.Hour, Burst: 1}})
	l.classes[Guest].maxKeys = 5000
	for i := range 50_000 {
		l.Allow(Guest, fmt.Sprintf("g%d", i))
		c.advance(time.Millisecond)
	}
	if n := l.Len(Guest); n > 5000 {
		t.Fatalf("%d buckets past a cap of 5000", n)
	}
	// The newest keys are still refused: the cap drops the oldest.
	if err := l.Allow(Guest, "g49999"); err == nil {
		t.Fatal("the newest key was evicted")
	}
}

// TestConcurrentAllow: many goroutines on a few keys spend exactly the
// burst (run with -race).
func TestConcurrentAllow(t *testing.T) {
	l, _ := newAt(t, Config{MCP: {Events: 1, Window: time.Hour, Burst: 50}})
	var mu sync.Mutex
	allowed := map[string]int{}
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Go(func() {
			for i := range 100 {
				key := fmt.Sprintf("grant-%d", (g+i)%4)
				if l.Allow(MCP, key) == nil {
					mu.Lock()
					allowed[key]++
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	for k, n := range allowed {
		if n != 50 {
			t.Errorf("%s: %d allowed, want the burst of 50", k, n)
		}
	}
}

func TestIPKey(t *testing.T) {
	for in, want := range map[string]string{
		"203.0.113.7":                   "203.0.113.7",
		"::ffff:203.0.113.7":            "203.0.113.7",
		"2001:db8:1:2:aaaa:bbbb:cccc:1": "2001:db8:1:2::/64",
		"2001:db8:1:2::99":              "2001:db8:1:2::/64",
		"2001:db8:1:3::1":               "2001:db8:1:3::/64",
		"fe80::1%eth0":                  "fe80::/64",
		"not an ip":                     "not an ip",
	} {
		if got := IPKey(in); got != want {
			t.Errorf("IPKey(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestDefaults(t *testing.T) {
	d := Defaults()
	if err := d.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, c := range Classes {
		if _, ok := d[c]; !ok {
			t.Errorf("class %s has no default", c)
		}
	}
	if got, want := d.String(), "ip=600/1m:120,guest=20/1h,join=20/10m,create=60/1h,upload=30/1h,turn=120/1h,mcp=600/1m:120,login=30/10m"; got != want {
		t.Fatalf("defaults are %s, want %s", got, want)
	}
}

func TestParse(t *testing.T) {
	for _, tt := range []struct {
		in, want string
	}{
		{"", Defaults().String()},
		{"  ", Defaults().String()},
		{"off", "off"},
		{"join=5/10m", strings.Replace(Defaults().String(), "join=20/10m", "join=5/10m", 1)},
		{" ip = 100/30s:10 , turn=off ", strings.NewReplacer("ip=600/1m:120", "ip=100/30s:10", "turn=120/1h", "turn=off").Replace(Defaults().String())},
		{"guest=3/60m:3", strings.Replace(Defaults().String(), "guest=20/1h", "guest=3/1h", 1)},
		{"login=10/90s:2", strings.Replace(Defaults().String(), "login=30/10m", "login=10/1m30s:2", 1)},
		{"ip=off,guest=off,join=off,create=off,upload=off,turn=off,mcp=off,login=off", "off"},
	} {
		cfg, err := Parse(tt.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.in, err)
			continue
		}
		if got := cfg.String(); got != tt.want {
			t.Errorf("Parse(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
	for in, problem := range map[string]string{
		"on":                 "is not class=",
		"ip":                 "is not class=",
		"ip=":                "is not events/window",
		"dance=1/1m":         `unknown class "dance"`,
		"ip=1/1m,ip=2/1m":    "given twice",
		"ip=0/1m":            "whole number from 1",
		"ip=-1/1m":           "whole number from 1",
		"ip=1.5/1m":          "whole number from 1",
		"ip=2000000/1m":      "whole number from 1",
		"ip=1/0s":            "window",
		"ip=1/500ms":         "window",
		"ip=1/48h":           "window",
		"ip=1/forever":       "window",
		"ip=1/1m:0":          "burst",
		"ip=1/1m:x":          "burst",
		"ip=1/1m,":           "is not class=",
		"off,ip=1/1m":        "is not class=",
		"ip=1/1m:2:3":        "burst",
		"IP=1/1m":            "unknown class",
		"ip=1/1m;join=1/1m":  "window",
		"ip=1/1m join=1/10m": "window",
	} {
		_, err := Parse(in)
		if err == nil || !strings.Contains(err.Error(), problem) {
			t.Errorf("Parse(%q) = %v, want an error about %q", in, err, problem)
		}
	}
}
