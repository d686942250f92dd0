package webui_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/models"
)

// frame is one Server-Sent Event of the live feed.
type frame struct {
	event, id string
	page      table.EventPage
	data      string
}

// eventStream reads a live feed opened over real HTTP.
type eventStream struct {
	res    *http.Response
	frames chan frame
}

// openStream opens GET /api/sessions/{id}/events/stream as c.
func openStream(t *testing.T, srv *httptest.Server, c table.Caller, sessionID, after int64, lastEventID string) *eventStream {
	t.Helper()
	req, err := http.NewRequest("GET", fmt.Sprintf("%s/api/sessions/%d/events/stream?after=%d", srv.URL, sessionID, after), nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "text/event-stream")
	if lastEventID != "" {
		req.Header.Set("Last-Event-ID", lastEventID)
	}
	addCookie(req, c)
	res, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { res.Body.Close() })
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("stream: %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	s := &eventStream{res: res, frames: make(chan frame, 64)}
	go func() {
		defer close(s.frames)
		sc := bufio.NewScanner(res.Body)
		var f frame
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if f.data != "" {
					if f.event == "" {
						_ = json.Unmarshal([]byte(f.data), &f.page)
					}
					s.frames <- f
				}
				f = frame{}
			case strings.HasPrefix(line, "event: "):
				f.event = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "id: "):
				f.id = strings.TrimPrefix(line, "id: ")
			case strings.HasPrefix(line, "data: "):
				f.data = strings.TrimPrefix(line, "data: ")
			}
		}
	}()
	return s
}

// next is the stream's next message; ok is false when the stream ended.
func (s *eventStream) next(t *testing.T) (frame, bool) {
	t.Helper()
	select {
	case f, ok := <-s.frames:
		return f, ok
	case <-time.After(20 * time.Second): // a hang guard, not a measure
		t.Fatal("no message on the stream")
		return frame{}, false
	}
}

// texts are the message texts of a page.
func texts(p table.EventPage) []string {
	var out []string
	for _, e := range p.Events {
		var m struct {
			Text string `json:"text"`
		}
		_ = json.Unmarshal(e.Payload, &m)
		if m.Text != "" {
			out = append(out, m.Text)
		}
	}
	return out
}

// nextText reads messages until one carries a chat line, and returns the
// lines with the message.
func (s *eventStream) nextText(t *testing.T) ([]string, frame) {
	t.Helper()
	for {
		f, ok := s.next(t)
		if !ok {
			t.Fatal("the stream ended")
		}
		if got := texts(f.page); len(got) > 0 || f.event != "" {
			return got, f
		}
	}
}

// TestEventStream: the live feed as Server-Sent Events carries what each
// viewer may see (the same audience rule as every other read), resumes
// from Last-Event-ID, refuses before it opens on bad input or no access,
// ends with a "refused" event when access is revoked while it is open, and
// ends when the server starts to stop. Both ways a stream is served are
// driven: HTTP/1.1, plain and over TLS, where the connection is taken over
// from net/http (hijacked) with the middleware's headers in its head, and
// HTTP/2 over TLS, where the handler serves it.
func TestEventStream(t *testing.T) {
	for _, transport := range []string{"http1", "https1", "http2"} {
		t.Run(transport, func(t *testing.T) {
			f := newFixture(t, withSecret)
			srv := httptest.NewUnstartedServer(f.server)
			var hijacked atomic.Int64
			srv.Config.ConnState = func(_ net.Conn, state http.ConnState) {
				if state == http.StateHijacked {
					hijacked.Add(1)
				}
			}
			switch transport {
			case "http2":
				srv.EnableHTTP2 = true
				srv.StartTLS()
			case "https1":
				srv.StartTLS() // HTTP/1.1 over TLS: the TLS connection is taken over
			default:
				srv.Start()
			}
			t.Cleanup(srv.Close) // after the streams close (cleanups run last first)
			testEventStream(t, f, srv)
			// Every stream opened above was taken over on HTTP/1.1 and
			// none on HTTP/2 (a refusal before the stream opens is not).
			if got, want := hijacked.Load(), map[string]int64{"http1": 4, "https1": 4, "http2": 0}[transport]; got != want {
				t.Errorf("%s: %d connections taken over, want %d", transport, got, want)
			}
		})
	}
}

func testEventStream(t *testing.T, f fixture, srv *httptest.Server) {
	tf := startedTable(t, f)
	p := fmt.Sprintf
	notifier := f.services.Table.Notifier()

	player := openStream(t, srv, tf.Seated, tf.LobbyID, 0, "")
	// The head carries what the middleware sets on every answer.
	for _, h := range []string{"Content-Security-Policy", "X-Content-Type-Options", "X-Request-Id"} {
		if player.res.Header.Get(h) == "" {
			t.Errorf("the stream's head has no %s: %v", h, player.res.Header)
		}
	}
	if got := player.res.Header.Get("Cache-Control"); got != "no-store" {
		t.Errorf("Cache-Control %q", got)
	}
	keyHolder := openStream(t, srv, tf.DMKey, tf.LobbyID, 0, "")
	// The backlog comes first, each message's id its cursor.
	if first, _ := player.next(t); first.id == "" || len(first.page.Events) == 0 {
		t.Fatalf("backlog: %+v", first)
	}
	keyHolder.next(t)
	for notifier.Waiters(tf.LobbyID) < 2 {
		time.Sleep(time.Millisecond) // waiting for both streams to wait, not for time to pass
	}

	call(t, f.handler, tf.Seated, "POST", p("/api/sessions/%d/input", tf.LobbyID), `{"text":"/whisper I keep the ring"}`)
	call(t, f.handler, tf.Seated, "POST", p("/api/sessions/%d/input", tf.LobbyID), `{"text":"hello all"}`)

	var seen []string
	for len(seen) < 2 {
		got, _ := player.nextText(t)
		seen = append(seen, got...)
	}
	if strings.Join(seen, "|") != "I keep the ring|hello all" {
		t.Fatalf("the player saw %q", seen)
	}
	got, fr := keyHolder.nextText(t)
	if strings.Join(got, "|") != "hello all" {
		t.Fatalf("the key holder (not the whisper's audience) saw %q", got)
	}
	cursor := fr.id

	// Resuming from the last id: nothing already seen comes again.
	call(t, f.handler, tf.Owner, "POST", p("/api/sessions/%d/messages", tf.LobbyID), `{"kind":"narration","text":"the door creaks"}`)
	again := openStream(t, srv, tf.DMKey, tf.LobbyID, 0, cursor)
	if got, _ := again.nextText(t); strings.Join(got, "|") != "the door creaks" {
		t.Fatalf("resumed from Last-Event-ID %s: %q", cursor, got)
	}

	// Revoked while open: one refused event, then the end.
	if _, err := f.services.Table.RevokeMember(ctx, tf.Owner, tf.RoomID, tf.SeatedAccess); err != nil {
		t.Fatal(err)
	}
	call(t, f.handler, tf.Owner, "POST", p("/api/sessions/%d/messages", tf.LobbyID), `{"kind":"narration","text":"after the revoke"}`)
	for {
		fr, ok := player.next(t)
		if !ok {
			t.Fatal("the stream ended without a refusal")
		}
		if strings.Contains(fr.data, "after the revoke") {
			t.Fatal("a revoked member was shown an event after the revoke")
		}
		if fr.event == "refused" {
			if !strings.Contains(fr.data, `"code":"room_access_revoked"`) {
				t.Fatalf("refusal: %s", fr.data)
			}
			break
		}
	}
	if _, ok := player.next(t); ok {
		t.Fatal("the stream went on after its refusal")
	}

	// Refusals before the stream opens are ordinary JSON errors.
	path := p("/api/sessions/%d/events/stream", tf.LobbyID)
	if rec := call(t, f.handler, tf.Stranger, "GET", path, ""); rec.Code != 404 || !strings.Contains(rec.Body.String(), `"code":"not_found"`) {
		t.Fatalf("stranger: %d %s", rec.Code, rec.Body)
	}
	if rec := call(t, f.handler, tf.Owner, "GET", path+"?after=x", ""); rec.Code != 400 {
		t.Fatalf("bad after: %d %s", rec.Code, rec.Body)
	}
	req := httptest.NewRequest("GET", path, nil)
	req.Header.Set("Last-Event-ID", "-3")
	addCookie(req, tf.Owner)
	rec := httptest.NewRecorder()
	f.handler.ServeHTTP(rec, req)
	if rec.Code != 400 || !strings.Contains(rec.Body.String(), `"code":"invalid_request"`) {
		t.Fatalf("bad Last-Event-ID: %d %s", rec.Code, rec.Body)
	}

	// The server starting to stop ends an open stream (the client
	// reconnects to the next one).
	last := openStream(t, srv, tf.Owner, tf.LobbyID, 0, "")
	last.next(t) // the backlog
	f.services.Table.Shutdown()
	for {
		if _, ok := last.next(t); !ok {
			break
		}
	}
}

// TestWokenStreamCostsNoQuery: a wake reaches an open stream with no
// statement run for it (the hub's one shared read serves every waiter).
func TestWokenStreamCostsNoQuery(t *testing.T) {
	f := newFixture(t, withSecret)
	tf := startedTable(t, f)
	counters := make(chan *atomic.Int64, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		qctx, n := models.WithQueryCounter(r.Context())
		counters <- n
		f.server.ServeHTTP(w, r.WithContext(qctx))
	}))
	t.Cleanup(srv.Close) // after the streams close (cleanups run last first)
	s := openStream(t, srv, tf.Owner, tf.LobbyID, 0, "")
	n := <-counters
	s.next(t) // the backlog
	for round := range 3 {
		for f.services.Table.Notifier().Waiters(tf.LobbyID) == 0 {
			time.Sleep(time.Millisecond) // waiting for the stream to wait, not for time to pass
		}
		before := n.Load()
		call(t, f.handler, tf.Seated, "POST", fmt.Sprintf("/api/sessions/%d/input", tf.LobbyID), fmt.Sprintf(`{"text":"round %d"}`, round))
		got, _ := s.nextText(t)
		if len(got) != 1 || got[0] != fmt.Sprintf("round %d", round) {
			t.Fatalf("round %d: %q", round, got)
		}
		for f.services.Table.Notifier().Waiters(tf.LobbyID) == 0 {
			time.Sleep(time.Millisecond)
		}
		if d := n.Load() - before; d != 0 {
			t.Errorf("round %d: the woken stream ran %d statements, want 0", round, d)
		}
	}
}
