package main

import (
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/adventure-table/adventure-table/models"
	"github.com/adventure-table/adventure-table/models/modelstest"
)

// TestLimitsHoldAcrossProcesses: two real hosted servers on one
// PostgreSQL, one client sending /api requests to both in turn as fast as
// it can: together they let through what one server's limit allows (the
// burst, then the rate), within 10 %, not twice as much.
func TestLimitsHoldAcrossProcesses(t *testing.T) {
	if modelstest.Dialect() != models.Postgres {
		t.Skip("several server processes share a PostgreSQL database only")
	}
	const burst, perSecond = 10, 6.0
	env := newChildEnv(t, "AT_MODE=hosted", "AT_SECRET=limits-shared-test-secret-0123456789abcdef", "AT_TLS_PROXY=1",
		"AT_LIMITS=ip=60/10s:10")
	servers := []*child{env.start(t), env.start(t)}
	client := &http.Client{Timeout: 10 * time.Second}
	allowed, refused := 0, 0
	start := time.Now()
	for i := 0; time.Since(start) < 4*time.Second; i++ {
		resp, err := client.Get(servers[i%2].base + "/api/health")
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		switch resp.StatusCode {
		case http.StatusOK:
			allowed++
		case http.StatusTooManyRequests:
			refused++
		default:
			t.Fatalf("status %d", resp.StatusCode)
		}
	}
	elapsed := time.Since(start).Seconds()
	want := burst + perSecond*elapsed
	t.Logf("%.1f s: %d allowed, %d refused; one server's limit allows %.1f", elapsed, allowed, refused, want)
	if refused == 0 {
		t.Fatal("nothing was refused: the client never reached the limit")
	}
	if diff := float64(allowed) - want; diff > 0.1*want+1 || diff < -(0.1*want+1) {
		t.Errorf("two servers let %d requests through in %.1f s; one server's limit allows %.1f (within 10 %%)", allowed, elapsed, want)
	}
}
