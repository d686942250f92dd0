package webui_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/adventure-table/adventure-table/gameplay/llm/llmtest"
	"github.com/adventure-table/adventure-table/gameplay/table/tabletest"
)

// Stop over HTTP: the stream that was running ends with stopped (player)
// and done carrying the partial take; a stop with nothing running answers
// stopped false; another user's adventure is not found.
func TestSoloStopOverHTTP(t *testing.T) {
	f := newFixture(t, withSecret)
	srv := httptest.NewServer(f.handler)
	defer srv.Close()
	fake := llmtest.New(t)
	me := tabletest.NewUser(t, f.services.Table, "Solo")
	narrateWith(t, srv, me, fake.URL(), map[string]any{"api_key": "sk-x"})
	sc := decode[struct{ ID int64 }](t, send(t, srv, me, "POST", "/api/scenarios",
		`{"title":"Keep","premise":"A keep.","plot_essentials":"","ai_instructions":"","authors_note":"","opening":"The gate is shut.","stat_schema":{},"cards":[]}`), 201)
	page := decode[struct {
		Adventure struct{ ID int64 } `json:"adventure"`
	}](t, send(t, srv, me, "POST", fmt.Sprintf("/api/scenarios/%d/play", sc.ID), `{"persona_name":"Ash","persona_pronouns":"","persona_desc":""}`), 201)
	adv := page.Adventure.ID
	stop := fmt.Sprintf("/api/adventures/%d/turn/stop", adv)

	if got := decode[struct{ Stopped bool }](t, send(t, srv, me, "POST", stop, `{}`), 200); got.Stopped {
		t.Fatal("a stop with nothing running answered stopped true")
	}
	fake.Push(llmtest.Reply{Chunks: []string{"The gate ", "creaks ", "open ", "slowly."}, FinishReason: "stop", Delay: 300 * time.Millisecond})
	res := send(t, srv, me, "POST", fmt.Sprintf("/api/adventures/%d/turns", adv), `{"mode":"do","text":"push the gate"}`)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("turn status %d", res.StatusCode)
	}
	time.Sleep(450 * time.Millisecond) // the first chunk has arrived
	if got := decode[struct{ Stopped bool }](t, send(t, srv, me, "POST", stop, `{}`), 200); !got.Stopped {
		t.Fatal("the stop of a running turn answered stopped false")
	}
	events := readSSE(t, res)
	n := len(events)
	if n < 2 || events[n-2].Type != "stopped" || events[n-2].Reason != "player" || events[n-1].Type != "done" || events[n-1].Action == nil {
		t.Fatalf("events %+v, want ... stopped(player), done with the take", events)
	}
	if got := events[n-1].Action.Text; got == "" || got == "The gate creaks open slowly." {
		t.Fatalf("stopped take %q, want the part streamed before the stop", got)
	}

	other := tabletest.NewUser(t, f.services.Table, "Other")
	if res := send(t, srv, other, "POST", stop, `{}`); res.StatusCode != http.StatusNotFound {
		t.Fatalf("another user's stop: status %d, want 404", res.StatusCode)
	}
}
