package webui_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/adventure-table/adventure-table/gameplay/llm/llmtest"
	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/gameplay/table/tabletest"
)

// send makes a real HTTP request as caller.
func send(t *testing.T, srv *httptest.Server, c table.Caller, method, path, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	addCookie(req, c)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// narrateWith saves me's narrator settings: the model endpoint at url with
// the tests' defaults (model "fake", a 4000-token budget…) and over's
// fields on top.
func narrateWith(t *testing.T, srv *httptest.Server, me table.Caller, url string, over map[string]any) {
	t.Helper()
	settings := map[string]any{"base_url": url, "model": "fake", "context_budget": 4000, "max_output_tokens": 300, "temperature": 0.8, "top_p": 0.9}
	maps.Copy(settings, over)
	body, err := json.Marshal(settings)
	if err != nil {
		t.Fatal(err)
	}
	decode[map[string]any](t, send(t, srv, me, "PUT", "/api/solo/settings", string(body)), 200)
}

func decode[T any](t *testing.T, res *http.Response, want int) T {
	t.Helper()
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != want {
		t.Fatalf("%s %s: %d %s", res.Request.Method, res.Request.URL.Path, res.StatusCode, b)
	}
	var v T
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("decode %s: %v", b, err)
	}
	return v
}

type sseEvent struct {
	Type   string `json:"type"`
	Text   string `json:"text"`
	Code   string `json:"code"`
	Reason string `json:"reason"`
	Action *struct {
		ID   int64  `json:"id"`
		Text string `json:"text"`
	} `json:"action"`
}

// readSSE parses a text/event-stream body into events.
func readSSE(t *testing.T, res *http.Response) []sseEvent {
	t.Helper()
	defer res.Body.Close()
	if ct := res.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	var events []sseEvent
	sc := bufio.NewScanner(res.Body)
	for sc.Scan() {
		line := sc.Text()
		if data, ok := strings.CutPrefix(line, "data: "); ok {
			var ev sseEvent
			if err := json.Unmarshal([]byte(data), &ev); err != nil {
				t.Fatalf("bad event %q: %v", data, err)
			}
			events = append(events, ev)
		} else if line != "" {
			t.Fatalf("unexpected line %q", line)
		}
	}
	return events
}

func TestSoloTurnOverHTTP(t *testing.T) {
	f := newFixture(t, withSecret)
	srv := httptest.NewServer(f.handler)
	defer srv.Close()
	fake := llmtest.New(t)
	me := tabletest.NewUser(t, f.services.Table, "Solo")
	key := "sk-http-SECRET-987654321"
	narrateWith(t, srv, me, fake.URL(), map[string]any{"api_key": key})
	sc := decode[struct{ ID int64 }](t, send(t, srv, me, "POST", "/api/scenarios",
		`{"title":"Keep","premise":"A keep.","plot_essentials":"","ai_instructions":"","authors_note":"","opening":"The gate is shut.","stat_schema":{"player.hp":{"min":0,"max":100,"initial":100,"bands":[[0,50,"hurt"],[50,100,"fine"]]}},"cards":[]}`), 201)
	page := decode[struct {
		Adventure struct{ ID int64 } `json:"adventure"`
	}](t, send(t, srv, me, "POST", fmt.Sprintf("/api/scenarios/%d/play", sc.ID), `{"persona_name":"Ash","persona_pronouns":"","persona_desc":""}`), 201)
	adv := page.Adventure.ID

	// Two simultaneous turns: the slow one streams, the other is refused
	// with 409 before any stream opens.
	fake.Push(llmtest.Reply{Reasoning: []string{"hmm"}, Chunks: []string{"The gate ", "creaks open.", "\n```state\n{\"player.hp\": -60}\n```"}, FinishReason: "length", Delay: 30 * time.Millisecond})
	var wg sync.WaitGroup
	results := make([]*http.Response, 2)
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = send(t, srv, me, "POST", fmt.Sprintf("/api/adventures/%d/turns", adv), `{"mode":"do","text":"push the gate"}`)
		}()
	}
	wg.Wait()
	var streamed []sseEvent
	var refused int
	for _, res := range results {
		if res.StatusCode == http.StatusConflict {
			body := decode[struct {
				Error struct{ Code string } `json:"error"`
			}](t, res, 409)
			if body.Error.Code != "turn_in_progress" || res.Header.Get("Content-Type") != "application/json; charset=utf-8" {
				t.Fatalf("refusal %+v %s", body, res.Header.Get("Content-Type"))
			}
			refused++
			continue
		}
		streamed = readSSE(t, res)
	}
	if refused != 1 || streamed == nil {
		t.Fatalf("refused %d, streamed %v", refused, streamed != nil)
	}
	var order []string
	for _, ev := range streamed {
		if len(order) == 0 || order[len(order)-1] != ev.Type {
			order = append(order, ev.Type)
		}
	}
	if got := strings.Join(order, ","); got != "player,reasoning,chunk,stopped,done" {
		t.Fatalf("SSE order %s", got)
	}
	done := streamed[len(streamed)-1]
	if done.Action == nil || done.Action.Text != "The gate creaks open." || streamed[len(streamed)-2].Reason != "length" {
		t.Fatalf("done %+v", done)
	}

	// Page, insights, branches, retry refused shapes.
	pg := decode[struct {
		Adventure struct {
			StateLine string `json:"state_line"`
		} `json:"adventure"`
		Story []struct {
			ID        int64 `json:"id"`
			Truncated bool  `json:"truncated"`
			HasPrompt bool  `json:"has_prompt"`
		} `json:"story"`
	}](t, send(t, srv, me, "GET", fmt.Sprintf("/api/adventures/%d", adv), ""), 200)
	if pg.Adventure.StateLine != "hp 40/100 (hurt)" || len(pg.Story) != 3 || !pg.Story[2].Truncated || !pg.Story[2].HasPrompt {
		t.Fatalf("page %+v", pg)
	}
	ins := decode[struct {
		Messages []struct{ Content string } `json:"messages"`
	}](t, send(t, srv, me, "GET", fmt.Sprintf("/api/actions/%d/insights", pg.Story[2].ID), ""), 200)
	if len(ins.Messages) < 2 {
		t.Fatalf("insights %+v", ins)
	}
	// Lists are arrays, never null, in every answer the screen reads.
	for _, path := range []string{fmt.Sprintf("/api/adventures/%d", adv), fmt.Sprintf("/api/actions/%d/insights", pg.Story[2].ID),
		fmt.Sprintf("/api/adventures/%d/branches", adv), fmt.Sprintf("/api/adventures/%d/refresh", adv), "/api/scenarios", "/api/adventures"} {
		res := send(t, srv, me, "GET", path, "")
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 || strings.Contains(string(b), ":null") && !strings.Contains(string(b), `"parent_branch_id":null`) {
			t.Fatalf("%s: %d %s", path, res.StatusCode, b)
		}
	}
	// Another user sees nothing of it.
	other := tabletest.NewUser(t, f.services.Table, "Other")
	for _, path := range []string{fmt.Sprintf("/api/adventures/%d", adv), fmt.Sprintf("/api/actions/%d/insights", pg.Story[2].ID), fmt.Sprintf("/api/scenarios/%d", sc.ID)} {
		if res := send(t, srv, other, "GET", path, ""); res.StatusCode != 404 {
			t.Fatalf("%s as another user: %d", path, res.StatusCode)
		}
	}
	if res := send(t, srv, other, "POST", fmt.Sprintf("/api/adventures/%d/turns", adv), `{"mode":"do","text":"x"}`); res.StatusCode != 404 {
		t.Fatalf("another user's turn: %d", res.StatusCode)
	}
	// Bad input changes nothing.
	for _, body := range []string{`{"mode":"do","text":""}`, `{"mode":"dance","text":"x"}`, `{"mode":"do","text":"x","extra":1}`} {
		res := send(t, srv, me, "POST", fmt.Sprintf("/api/adventures/%d/turns", adv), body)
		if res.StatusCode/100 != 4 || res.Header.Get("Content-Type") == "text/event-stream" {
			t.Fatalf("bad turn %s: %d", body, res.StatusCode)
		}
	}
	// The key never comes back and never reaches the logs.
	settings := send(t, srv, me, "GET", "/api/solo/settings", "")
	b, _ := io.ReadAll(settings.Body)
	if strings.Contains(string(b), key) || !strings.Contains(string(b), `"api_key_set":true`) {
		t.Fatalf("settings answer %s", b)
	}
	if strings.Contains(f.logs.String(), key) {
		t.Fatal("the API key is in the logs")
	}
}

// A scenario may carry a real-sized script library (up to 1 MiB a slot),
// beyond the 1 MiB limit of other bodies; larger ones are refused whole.
func TestScenarioScriptsOverHTTP(t *testing.T) {
	f := newFixture(t, withSecret)
	srv := httptest.NewServer(f.handler)
	defer srv.Close()
	me := tabletest.NewUser(t, f.services.Table, "Author")
	lib := "// " + strings.Repeat("x", 900<<10) + "\nfunction helper() { return 1 }"
	body := func(library string) string {
		b, _ := json.Marshal(map[string]any{"title": "Scripted", "premise": "", "plot_essentials": "", "ai_instructions": "", "authors_note": "",
			"opening": "Hi.", "stat_schema": map[string]any{}, "cards": []any{},
			"scripts": map[string]string{"library": library, "input": "modifier(text)", "context": "", "output": ""}})
		return string(b)
	}
	sc := decode[struct {
		ID      int64
		Scripts struct{ Library, Input string }
	}](t, send(t, srv, me, "POST", "/api/scenarios", body(lib)), 201)
	if sc.Scripts.Library != lib || sc.Scripts.Input != "modifier(text)" {
		t.Fatal("the scripts did not round-trip")
	}
	res := send(t, srv, me, "POST", "/api/scenarios", body(strings.Repeat("y", (1<<20)+1)))
	if res.StatusCode != 422 && res.StatusCode != 400 {
		t.Fatalf("a 1 MiB + 1 library: %d", res.StatusCode)
	}
	list := decode[struct{ Scenarios []struct{ ID int64 } }](t, send(t, srv, me, "GET", "/api/scenarios", ""), 200)
	if len(list.Scenarios) != 1 {
		t.Fatalf("%d scenarios after one refused create", len(list.Scenarios))
	}
	page := decode[struct {
		Adventure struct{ ID int64 } `json:"adventure"`
	}](t, send(t, srv, me, "POST", fmt.Sprintf("/api/scenarios/%d/play", sc.ID), `{"persona_name":"","persona_pronouns":"","persona_desc":""}`), 201)
	console := decode[struct{ Entries []any }](t, send(t, srv, me, "GET", fmt.Sprintf("/api/adventures/%d/console", page.Adventure.ID), ""), 200)
	if console.Entries == nil || len(console.Entries) != 0 {
		t.Fatalf("a new adventure's console: %+v", console)
	}
	other := tabletest.NewUser(t, f.services.Table, "Other")
	if res := send(t, srv, other, "GET", fmt.Sprintf("/api/adventures/%d/console", page.Adventure.ID), ""); res.StatusCode != 404 {
		t.Fatalf("another user's console read: %d", res.StatusCode)
	}
}
