package table

import (
	"testing"
	"time"
)

// TestRecheckSpread: the waiters of one caller recheck over the
// recheckSpread after their shared viewer's cache expires, not in one
// instant, and every one of them within audienceTTL of the resolution.
func TestRecheckSpread(t *testing.T) {
	resolved := time.Now()
	until := resolved.Add(audienceTTL - recheckSpread) // as audienceOf caches it
	seen := map[time.Duration]bool{}
	for range 1000 {
		at := time.Now().Add(recheckAfter(until))
		if at.Before(until.Add(-time.Second)) || at.After(resolved.Add(audienceTTL+time.Second)) {
			t.Fatalf("a waiter rechecks %v after its viewer's resolution, want %v to %v", at.Sub(resolved), audienceTTL-recheckSpread, audienceTTL)
		}
		seen[at.Sub(until).Truncate(100*time.Millisecond)] = true
	}
	if len(seen) < 20 {
		t.Fatalf("1000 waiters recheck in %d distinct tenths of a second, want them spread over %v", len(seen), recheckSpread)
	}
}
