package main

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/adventure-table/adventure-table/gameplay/llm/llmtest"
)

// TestKillDuringNarratorStep kills the real server with SIGKILL while the
// narrator at the DM seat is in the middle of a step (the model is
// thinking), restarts it on the same data and database, and checks that
// nothing of the step was applied, the seat is not left claimed, and the
// next trigger (Act now) runs a whole step at once: the session starts and
// the narration is in the feed. On SQLite and on PostgreSQL.
func TestKillDuringNarratorStep(t *testing.T) {
	t.Parallel()
	fake := llmtest.New(t)
	var afterKill atomic.Bool
	fake.Respond(func(r llmtest.Request) llmtest.Reply {
		if !afterKill.Load() {
			// Thinks for ever: the step is in flight when the server dies.
			return llmtest.Reply{Chunks: []string{"…"}, Delay: time.Hour, FinishReason: "stop"}
		}
		if strings.Contains(r.Messages[len(r.Messages)-1].Content, `"ready_to_start":true`) {
			return llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "s", Name: "session", Arguments: `{"action":"start"}`}}, FinishReason: "tool_calls"}
		}
		return llmtest.Reply{Chunks: []string{"Thunder rolls over the moor. What do you do?"}, FinishReason: "stop"}
	})
	env := newChildEnv(t)
	c := env.start(t)
	a := newAPI(t, c.base)
	a.setModel(fake.URL())
	var tbl struct {
		Room struct {
			ID        int64
			Campaigns []struct{ Seats []struct{ ID int64 } }
		}
		Session struct{ ID int64 }
	}
	a.must("POST", "/api/tables", map[string]any{"name": "Moor"}, &tbl)
	dm := tbl.Room.Campaigns[0].Seats[0].ID
	a.must("POST", fmt.Sprintf("/api/seats/%d/narrator", dm), map[string]any{}, nil)
	a.must("POST", fmt.Sprintf("/api/seats/%d/narrator/control", dm), map[string]any{"action": "act_now"}, nil)
	waitUntil(t, "the narrator's model call", func() bool { return fake.Count("/v1/chat/completions") > 0 })
	c.kill9()

	afterKill.Store(true)
	c = env.start(t)
	a.base = c.base
	var narrators []struct {
		State string
		Steps int64
	}
	a.must("GET", fmt.Sprintf("/api/rooms/%d/narrators", tbl.Room.ID), nil, &narrators)
	if len(narrators) != 1 || narrators[0].State == "thinking" || narrators[0].Steps != 0 {
		t.Fatalf("after the restart the narrator is %+v: a dead step is left claimed or counted", narrators)
	}
	var resume struct{ Session struct{ Status string } }
	a.must("GET", fmt.Sprintf("/api/sessions/%d", tbl.Session.ID), nil, &resume)
	if resume.Session.Status != "lobby" {
		t.Fatalf("the killed step changed the session: %q", resume.Session.Status)
	}
	a.must("POST", fmt.Sprintf("/api/seats/%d/narrator/control", dm), map[string]any{"action": "act_now"}, nil)
	waitUntil(t, "the narration after the restart", func() bool {
		var page struct {
			Events []struct {
				Kind    string
				Payload map[string]any
			}
		}
		a.must("GET", fmt.Sprintf("/api/sessions/%d/events?after=0", tbl.Session.ID), nil, &page)
		for _, e := range page.Events {
			if e.Kind == "message.posted" && strings.Contains(fmt.Sprint(e.Payload), "Thunder rolls") {
				return true
			}
		}
		return false
	})
	// The step is recorded just after its narration is posted.
	waitUntil(t, "the step recorded", func() bool {
		a.must("GET", fmt.Sprintf("/api/rooms/%d/narrators", tbl.Room.ID), nil, &narrators)
		return narrators[0].State != "thinking"
	})
	if narrators[0].Steps != 1 || narrators[0].State != "idle" {
		t.Fatalf("after the step: %+v", narrators)
	}
}

// waitUntil polls cond until it holds; it fails the test after a minute
// (a bound for a busy machine, not a measure of speed).
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited a minute for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
