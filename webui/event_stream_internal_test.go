package webui

import (
	"testing"
	"time"
)

// TestKeepaliveSpread: the streams one post woke send their next keepalive
// over the last five seconds before 25 s, not all in the same instant; and
// never later than 25 s (proxies close a stream silent for long).
func TestKeepaliveSpread(t *testing.T) {
	seen := map[time.Duration]bool{}
	for range 1000 {
		d := keepaliveWait()
		if d <= streamKeepalive-keepaliveSpread || d > streamKeepalive {
			t.Fatalf("keepalive after %v, want in (%v, %v]", d, streamKeepalive-keepaliveSpread, streamKeepalive)
		}
		seen[d.Truncate(time.Second)] = true
	}
	if len(seen) < 5 {
		t.Fatalf("1000 streams keep alive in %d distinct seconds, want the 5 of the spread", len(seen))
	}
}
