package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// waiter is one client that follows a session's events from its cursor,
// one long poll after another, as the web app (HTTP) or an agent (MCP
// wait_for_event) does.
type waiter struct {
	kind    string // "http" or "mcp"
	stream  bool   // http: follows events/stream instead of long-polling
	table   int    // index into the waited tables
	who     int    // identity (http) or AI seat (mcp) within the table
	cursor  int64
	started atomic.Bool // the first poll is out

	mu       sync.Mutex
	posts    map[int]time.Time // post -> received
	whispers map[int]bool
	lat      []time.Duration // received - sent, per post
	polls    int
	dups     int
	foreign  []string // events it must not have seen
	errs     int
	firstErr error
}

func (w *waiter) fail(err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.errs++
	if w.firstErr == nil {
		w.firstErr = err
	}
}

// observe records the texts of one page of events received at recv.
func (w *waiter) observe(texts []string, recv time.Time, posts *postLog) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.polls++
	for _, text := range texts {
		m, ok := parseMarker(text)
		if !ok {
			continue
		}
		switch m.kind {
		case 'p':
			if tbl, ok := posts.tableOf(m.n); !ok || tbl != w.table {
				w.foreign = append(w.foreign, fmt.Sprintf("post %d of table %d", m.n, tbl))
				continue
			}
			if _, seen := w.posts[m.n]; seen {
				w.dups++
				continue
			}
			w.posts[m.n] = recv
			w.lat = append(w.lat, recv.Sub(m.sent))
		case 'w':
			if !posts.whisperFor(m.n, w) {
				w.foreign = append(w.foreign, fmt.Sprintf("whisper %d", m.n))
				continue
			}
			if w.whispers[m.n] {
				w.dups++
				continue
			}
			w.whispers[m.n] = true
		}
	}
}

// pollTimeout is how long one long poll may wait, in seconds.
type pollConfig struct {
	base     string
	timeoutS int
}

// runHTTP long-polls GET /api/sessions/{id}/events/wait until ctx ends.
func (w *waiter) runHTTP(ctx context.Context, pc pollConfig, client *http.Client, cookie string, sessionID int64, posts *postLog) {
	a := &api{base: pc.base, client: client, cookie: cookie}
	for ctx.Err() == nil {
		var page eventPage
		path := fmt.Sprintf("/api/sessions/%d/events/wait?after=%d&timeout=%d", sessionID, w.cursor, pc.timeoutS)
		w.started.Store(true)
		err := a.do(ctx, "GET", path, nil, &page)
		recv := time.Now()
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			w.fail(err)
			time.Sleep(200 * time.Millisecond) // never spin on a failing server
			continue
		}
		texts := make([]string, len(page.Events))
		for i, e := range page.Events {
			texts[i] = e.Payload.Text
		}
		w.observe(texts, recv, posts)
		w.cursor = page.Cursor
	}
}

// eventPage is the part of an event page the waiters read.
type eventPage struct {
	Events []struct {
		Payload struct {
			Text string `json:"text"`
		} `json:"payload"`
	} `json:"events"`
	Cursor int64 `json:"cursor"`
}

// runStream follows GET /api/sessions/{id}/events/stream (Server-Sent
// Events) as the web app does, reconnecting from its cursor when the stream
// ends, until ctx ends.
func (w *waiter) runStream(ctx context.Context, pc pollConfig, client *http.Client, cookie string, sessionID int64, posts *postLog) {
	for ctx.Err() == nil {
		err := w.streamOnce(ctx, pc, client, cookie, sessionID, posts)
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			w.fail(err)
		}
		time.Sleep(200 * time.Millisecond) // never spin on a failing server
	}
}

// streamOnce reads one stream until it ends; a "refused" event is an error.
func (w *waiter) streamOnce(ctx context.Context, pc pollConfig, client *http.Client, cookie string, sessionID int64, posts *postLog) error {
	return w.follow(ctx, client, pc.base+fmt.Sprintf("/api/sessions/%d/events/stream?after=%d", sessionID, w.cursor), cookie, posts)
}

// follow reads the Server-Sent Events at url until the stream ends.
func (w *waiter) follow(ctx context.Context, client *http.Client, url, cookie string, posts *postLog) error {
	req, err := http.NewRequestWithContext(ctx, "GET", url, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "text/event-stream")
	if cookie != "" {
		req.Header.Set("Cookie", cookie)
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return &apiError{Method: "GET", Path: req.URL.Path, Status: resp.StatusCode}
	}
	w.started.Store(true)
	// The client is lean so that it measures the server: on a small
	// machine 10,000 streams' reads share the cores with the server, and
	// a decode per page would delay the streams read after it. A line is
	// read in place, and a page's markers are found in its text (its JSON
	// encoding is the server's tests' business).
	r := bufio.NewReaderSize(resp.Body, 16<<10)
	event := ""
	var long []byte
	for {
		line, err := r.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			long = append(long, line...)
			continue
		}
		if err != nil {
			return err
		}
		recv := time.Now()
		if long != nil {
			line, long = append(long, line...), nil
		}
		line = bytes.TrimSuffix(line, []byte("\n"))
		switch {
		case len(line) == 0:
			event = ""
		case bytes.HasPrefix(line, []byte("event: ")):
			event = string(line[len("event: "):])
		case bytes.HasPrefix(line, []byte("id: ")):
			if c, err := strconv.ParseInt(string(line[len("id: "):]), 10, 64); err == nil {
				w.cursor = c
			}
		case bytes.HasPrefix(line, []byte("data: ")):
			data := line[len("data: "):]
			if event == "refused" {
				return errors.New("stream refused: " + string(data))
			}
			w.observe(markerTexts(data), recv, posts)
		}
	}
}

// markerTexts finds the markers in a page as it was sent: each is a
// message's whole text, a JSON string with nothing to escape.
func markerTexts(page []byte) []string {
	var out []string
	for {
		i := bytes.Index(page, []byte("atload "))
		if i < 0 {
			return out
		}
		page = page[i:]
		end := bytes.IndexByte(page, '"')
		if end < 0 {
			end = len(page)
		}
		out = append(out, string(page[:end]))
		page = page[end:]
	}
}

// runMCP calls wait_for_event in a loop until ctx ends.
func (w *waiter) runMCP(ctx context.Context, pc pollConfig, mc *mcpClient, posts *postLog) {
	for i := int64(1); ctx.Err() == nil; i++ {
		var page struct {
			Events []struct {
				Text string `json:"text"`
			} `json:"events"`
			Cursor int64 `json:"cursor"`
		}
		w.started.Store(true)
		err := mc.call(ctx, i, "wait_for_event", map[string]any{"after": w.cursor, "timeout_seconds": pc.timeoutS}, &page)
		recv := time.Now()
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			w.fail(err)
			time.Sleep(200 * time.Millisecond)
			continue
		}
		texts := make([]string, len(page.Events))
		for i, e := range page.Events {
			texts[i] = e.Text
		}
		w.observe(texts, recv, posts)
		w.cursor = page.Cursor
	}
}

// postLog is what the writer posted, read by the waiters.
type postLog struct {
	mu       sync.RWMutex
	table    []int // post -> table index
	sent     []time.Time
	returned []time.Time
	whispers []whisper
	// failed are the posts and whispers whose request failed: they may or
	// may not have been written, so nobody must receive them (nor must
	// not: they are not foreign either).
	failed, failedWhispers map[int]bool
}

// fail marks post n as not acknowledged.
func (p *postLog) fail(n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.failed == nil {
		p.failed = map[int]bool{}
	}
	p.failed[n] = true
}

// failWhisper marks whisper n as not acknowledged.
func (p *postLog) failWhisper(n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.failedWhispers == nil {
		p.failedWhispers = map[int]bool{}
	}
	p.failedWhispers[n] = true
}

// whisper is a private message to one seat: only the waiters of that
// seat (and the DM, who does not wait here) may see it.
type whisper struct {
	table int
	kind  string // the waiters that may see it: "http" or "mcp"
	who   int
}

func (p *postLog) add(table int, sent time.Time) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.table = append(p.table, table)
	p.sent = append(p.sent, sent)
	p.returned = append(p.returned, time.Time{})
	return len(p.table) - 1
}

func (p *postLog) done(n int, at time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.returned[n] = at
}

func (p *postLog) addWhisper(w whisper) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.whispers = append(p.whispers, w)
	return len(p.whispers) - 1
}

func (p *postLog) tableOf(n int) (int, bool) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	if n < 0 || n >= len(p.table) {
		return -1, false
	}
	return p.table[n], true
}

func (p *postLog) whisperFor(n int, w *waiter) bool {
	p.mu.RLock()
	defer p.mu.RUnlock()
	if n < 0 || n >= len(p.whispers) {
		return false
	}
	x := p.whispers[n]
	return x.table == w.table && x.kind == w.kind && x.who == w.who
}

// prober sends unrelated requests (who am I, a session read) back to back
// at a steady pace and records their latency.
type prober struct {
	a         *api
	sessionID int64
	every     time.Duration
}

// run probes until ctx ends and returns the latencies and error count.
func (p *prober) run(ctx context.Context) (lat []time.Duration, errs int, firstErr error) {
	tick := time.NewTicker(p.every)
	defer tick.Stop()
	for i := 0; ; i++ {
		select {
		case <-ctx.Done():
			return lat, errs, firstErr
		case <-tick.C:
		}
		path := "/api/me"
		if i%2 == 1 {
			path = fmt.Sprintf("/api/sessions/%d", p.sessionID)
		}
		t0 := time.Now()
		err := p.a.do(context.WithoutCancel(ctx), "GET", path, nil, nil)
		if err != nil {
			errs++
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		lat = append(lat, time.Since(t0))
	}
}

// probeFor runs a prober for d.
func (p *prober) probeFor(ctx context.Context, d time.Duration) (dist, int, error) {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	lat, errs, err := p.run(ctx)
	return summarize(lat), errs, err
}
