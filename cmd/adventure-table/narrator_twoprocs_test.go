package main

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/adventure-table/adventure-table/gameplay/llm/llmtest"
	"github.com/adventure-table/adventure-table/models"
	"github.com/adventure-table/adventure-table/models/modelstest"
)

// TestTwoProcessesOneStepPerSeat runs two real server processes on one
// PostgreSQL database, both serving narrator seats. Three tables have the
// narrator at their DM seat; a player sends many "@DM" messages, each one
// to both processes at once, round after round while steps are running.
// The fake model counts the requests it is answering per table (each held
// for a while, so two steps of one seat would overlap there): no seat ever
// has two in flight, every message reaches a step's context, and each
// table's last message is answered.
//
// PostgreSQL only: SQLite is one server process's database. Nothing wakes a
// second process on a commit in the file (FollowOtherProcesses is
// PostgreSQL's LISTEN/NOTIFY) and the README offers several processes on
// PostgreSQL only, so there is no two-process SQLite setup to test.
func TestTwoProcessesOneStepPerSeat(t *testing.T) {
	if modelstest.Dialect() != models.Postgres {
		t.Skip("two server processes share a PostgreSQL database only")
	}
	t.Parallel()
	const tables, rounds = 3, 8
	tableKey := regexp.MustCompile(`Tbl\d+`)
	const memoryJob = "the memory job"
	fake := llmtest.New(t)
	fake.TrackInFlight(func(r llmtest.Request) string {
		// The campaigns' memory job writes memories with the same model;
		// it is not a seat's step.
		if len(r.Messages) > 0 && strings.Contains(r.Messages[0].Content, "Each memory is read later on its own") {
			return memoryJob
		}
		for _, m := range r.Messages {
			if k := tableKey.FindString(m.Content); k != "" {
				return k
			}
		}
		return ""
	})
	fake.Respond(func(r llmtest.Request) llmtest.Reply {
		last := r.Messages[len(r.Messages)-1]
		if last.Role == "user" && strings.Contains(last.Content, `"ready_to_start":true`) {
			return llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "s", Name: "session", Arguments: `{"action":"start"}`}}, FinishReason: "tool_calls"}
		}
		// Held for a while: a second step of the same seat running beside
		// this one would be counted in flight with it.
		return llmtest.Reply{Chunks: []string{"The wind ", "answers ", "you."}, Delay: 100 * time.Millisecond, FinishReason: "stop"}
	})

	env := newChildEnv(t)
	procA := env.start(t)
	procB := env.start(t) // the same data dir: another process slot, the same cookie secret
	owner := newAPI(t, procA.base)
	owner.setModel(fake.URL())
	friendA := newAPI(t, procA.base)
	friendA.must("GET", "/api/me", nil, nil)
	friendB := &api{t: t, http: friendA.http, base: procB.base} // the same person through the other process

	type tableIDs struct{ room, session, dm int64 }
	var ids []tableIDs
	for k := range tables {
		var tv struct {
			Room struct {
				ID        int64
				Campaigns []struct{ Seats []struct{ ID int64 } }
			}
			Session    struct{ ID int64 }
			InviteCode string `json:"invite_code"`
		}
		owner.must("POST", "/api/tables", map[string]any{"name": fmt.Sprintf("Tbl%d", k), "seat_labels": []string{"One"}}, &tv)
		friendA.must("POST", "/api/tables/sit", map[string]any{"invite_code": tv.InviteCode, "display_name": "Bob", "template": "fighter"}, nil)
		dm := tv.Room.Campaigns[0].Seats[0].ID
		owner.must("POST", fmt.Sprintf("/api/seats/%d/narrator", dm), map[string]any{}, nil)
		owner.must("POST", fmt.Sprintf("/api/seats/%d/narrator/control", dm), map[string]any{"action": "act_now"}, nil)
		ids = append(ids, tableIDs{room: tv.Room.ID, session: tv.Session.ID, dm: dm})
	}
	for _, id := range ids {
		waitUntil(t, "the narrator starting the session", func() bool {
			var s struct{ Session struct{ Status string } }
			owner.must("GET", fmt.Sprintf("/api/sessions/%d", id.session), nil, &s)
			return s.Session.Status == "active"
		})
	}

	// seen says whether some model request's messages hold text.
	seen := func(text string) bool {
		for _, r := range fake.Requests() {
			for _, m := range r.Messages {
				if strings.Contains(m.Content, text) {
					return true
				}
			}
		}
		return false
	}
	for round := range rounds {
		var sent []string
		for k, id := range ids {
			for p, friend := range []*api{friendA, friendB} {
				text := fmt.Sprintf("@DM ping %d-%d-%d", k, round, p)
				friend.must("POST", fmt.Sprintf("/api/sessions/%d/messages", id.session), map[string]any{"kind": "say", "text": text}, nil)
				sent = append(sent, text)
			}
		}
		// The next round comes while these messages' steps are running.
		for _, text := range sent {
			waitUntil(t, "a step reading "+text, func() bool { return seen(text) })
		}
	}

	// Every table's last message is answered: the narration comes after it
	// and the narrator is idle, its trigger handled.
	for k, id := range ids {
		waitUntil(t, fmt.Sprintf("table %d's last message answered", k), func() bool {
			var page struct {
				Events []struct {
					Kind    string
					Payload struct{ Text string }
				}
			}
			owner.must("GET", fmt.Sprintf("/api/sessions/%d/events?after=0&limit=200", id.session), nil, &page)
			lastPing, lastAnswer := -1, -1
			for i, e := range page.Events {
				switch {
				case e.Kind == "message.posted" && strings.HasPrefix(e.Payload.Text, "@DM ping"):
					lastPing = i
				case e.Kind == "message.posted" && e.Payload.Text == "The wind answers you.":
					lastAnswer = i
				}
			}
			if lastPing < 0 || lastAnswer < lastPing {
				return false
			}
			var narrators []struct{ State string }
			owner.must("GET", fmt.Sprintf("/api/rooms/%d/narrators", id.room), nil, &narrators)
			return len(narrators) == 1 && narrators[0].State == "idle"
		})
	}
	most := fake.MaxInFlight()
	delete(most, memoryJob)
	for k := range tables {
		if n := most[fmt.Sprintf("Tbl%d", k)]; n != 1 {
			t.Errorf("table Tbl%d's seat had %d model requests in flight at once, want 1", k, n)
		}
	}
	if len(most) != tables {
		t.Errorf("requests in flight per table: %v (a request named no table, or an unknown one)", most)
	}
	for _, p := range []*child{procA, procB} {
		select {
		case <-p.exited:
			t.Fatalf("a server process died: %v\n%s", p.err, p.stderr)
		default:
		}
	}
}
