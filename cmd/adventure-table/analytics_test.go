package main

import (
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/adventure-table/adventure-table/gameplay/llm/llmtest"
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

	if err := c.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-c.exited:
		if c.err != nil {
			t.Fatalf("exit after SIGTERM: %v\n%s", c.err, c.stderr)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("the server did not stop within 30 s of SIGTERM\n%s", c.stderr)
	}
	db := e.openDB(t)
	var hits []struct {
		Metric, Label string
		Hits          int64
	}
	if err := db.Raw("SELECT metric, label, SUM(hits) AS hits FROM analytics_hits GROUP BY metric, label ORDER BY metric, label").Scan(&hits).Error; err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprint(hits)
	if want := "[{turn solo 1} {turn_failed provider_auth_failed 1}]"; got != want {
		t.Errorf("counters after SIGTERM: %s, want %s", got, want)
	}
	var visitors []struct {
		Visitor string
		Flags   int64
	}
	if err := db.Raw("SELECT visitor, flags FROM analytics_visitor_days").Scan(&visitors).Error; err != nil {
		t.Fatal(err)
	}
	// came (1), made (2) and played (4): one person, one row
	if len(visitors) != 1 || visitors[0].Flags != 1|2|4 || len(visitors[0].Visitor) != 32 {
		t.Errorf("visitor days after SIGTERM: %+v", visitors)
	}
}
