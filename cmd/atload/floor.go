package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The floor: what this machine gives the simplest Server-Sent Events fan-out
// there is, measured the way atload measures the real server. A child
// process (atload itself, with ATLOAD_SERVE_FLOOR set) holds N streams with no database, no
// identity and no filtering, and writes one pre-encoded frame to each on
// every post; this process reads them with the stream waiters' own parsing.
// The real server's wake latency and memory per stream are judged against
// it: nothing built on net/http's goroutine per stream does better here.
//
// The MCP floor (-floor-mcp) is the same for wait_for_event: the child also
// serves a bare go-sdk server (stateless, as ours) whose one tool blocks
// until the next post and answers with it, called by the MCP waiters' own
// client. What the SDK costs per call is in it; nothing of ours is.

// floorServerEnv makes atload (or its test binary) the floor's child
// server, listening at the address it names.
const floorServerEnv = "ATLOAD_SERVE_FLOOR"

// floorServer is the child: GET /stream follows, POST /mcp waits (the
// wait_for_event tool), POST /post?text= wakes both.
type floorServer struct {
	mu      sync.Mutex
	streams map[chan []byte]struct{}
	// texts[i] is post i+1's text; next is closed (and replaced) by a post.
	texts []string
	next  chan struct{}
}

func serveFloor(addr string) error {
	f := &floorServer{streams: map[chan []byte]struct{}{}, next: make(chan struct{})}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /stream", f.stream)
	mux.HandleFunc("POST /post", f.post)
	server := mcpsdk.NewServer(&mcpsdk.Implementation{Name: "atload-floor", Version: "v1"}, nil)
	mcpsdk.AddTool(server, &mcpsdk.Tool{Name: "wait_for_event", Description: "wait for the next post"}, f.wait)
	mux.Handle("POST /mcp", mcpsdk.NewStreamableHTTPHandler(func(*http.Request) *mcpsdk.Server { return server },
		&mcpsdk.StreamableHTTPOptions{Stateless: true}))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	fmt.Println("listening", ln.Addr())
	return (&http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}).Serve(ln)
}

func (f *floorServer) stream(w http.ResponseWriter, r *http.Request) {
	out := make(chan []byte, 4)
	f.mu.Lock()
	f.streams[out] = struct{}{}
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		delete(f.streams, out)
		f.mu.Unlock()
	}()
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	flusher := w.(http.Flusher)
	flusher.Flush()
	for {
		select {
		case <-r.Context().Done():
			return
		case frame := <-out:
			if _, err := w.Write(frame); err != nil {
				return
			}
			flusher.Flush()
		}
	}
}

type floorWaitIn struct {
	After          int64 `json:"after"`
	TimeoutSeconds int   `json:"timeout_seconds"`
}

type floorEvent struct {
	Text string `json:"text"`
}

type floorPage struct {
	Events []floorEvent `json:"events"`
	Cursor int64        `json:"cursor"`
}

// wait answers with the posts after in.After, waiting for the next one
// (or the timeout) when there are none.
func (f *floorServer) wait(ctx context.Context, _ *mcpsdk.CallToolRequest, in floorWaitIn) (*mcpsdk.CallToolResult, floorPage, error) {
	timeout := time.NewTimer(time.Duration(max(in.TimeoutSeconds, 1)) * time.Second)
	defer timeout.Stop()
	for {
		f.mu.Lock()
		page := floorPage{Events: []floorEvent{}, Cursor: int64(len(f.texts))}
		for _, t := range f.texts[min(max(in.After, 0), int64(len(f.texts))):] {
			page.Events = append(page.Events, floorEvent{Text: t})
		}
		next := f.next
		f.mu.Unlock()
		if len(page.Events) > 0 {
			return nil, page, nil
		}
		select {
		case <-next:
		case <-timeout.C:
			return nil, page, nil
		case <-ctx.Done():
			return nil, page, ctx.Err()
		}
	}
}

// post encodes one event page once and hands it to every stream and wait.
func (f *floorServer) post(w http.ResponseWriter, r *http.Request) {
	text := r.URL.Query().Get("text")
	f.mu.Lock()
	f.texts = append(f.texts, text)
	seq := int64(len(f.texts))
	close(f.next)
	f.next = make(chan struct{})
	page, _ := json.Marshal(map[string]any{"events": []any{map[string]any{"payload": map[string]string{"text": text}}}, "cursor": seq})
	frame := []byte(fmt.Sprintf("id: %d\ndata: %s\n\n", seq, page))
	for out := range f.streams {
		select {
		case out <- frame:
		default: // a stream this far behind is not the floor's concern
		}
	}
	f.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

// floorResult is the floor's wake latency and memory.
type floorResult struct {
	Kind            string  `json:"kind"` // "sse" streams or "mcp" wait_for_event calls
	Streams         int     `json:"streams"`
	Wake            dist    `json:"wake"`
	Missed          int     `json:"missed"`
	RSSPerStreamKiB float64 `json:"rss_per_stream_kib"`
}

// runFloor starts the child, opens n streams (or, with mcp, keeps n
// wait_for_event calls waiting), posts `posts` frames at `rate` per second
// and measures each delivery from send to receipt.
func runFloor(ctx context.Context, n, posts int, rate float64, mcp bool, logf func(string, ...any)) (floorResult, error) {
	res := floorResult{Kind: "sse", Streams: n}
	if mcp {
		res.Kind = "mcp"
	}
	if _, _, err := raiseFDLimit(); err != nil {
		return res, err
	}
	self, err := os.Executable()
	if err != nil {
		return res, err
	}
	cmd := exec.CommandContext(ctx, self)
	cmd.Env = append(os.Environ(), floorServerEnv+"=127.0.0.1:0")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return res, err
	}
	if err := cmd.Start(); err != nil {
		return res, err
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		return res, fmt.Errorf("the floor server did not start: %w", err)
	}
	base := "http://" + strings.TrimSpace(strings.TrimPrefix(line, "listening "))
	go func() { _, _ = io.Copy(io.Discard, stdout) }()
	before, _ := procRSS(cmd.Process.Pid)

	client := &http.Client{Transport: newTransport(n)}
	posted := &postLog{}
	all := make([]*waiter, n)
	sctx, stop := context.WithCancel(ctx)
	defer stop()
	var wg sync.WaitGroup
	for i := range all {
		w := &waiter{kind: "http", stream: true, posts: map[int]time.Time{}, whispers: map[int]bool{}}
		all[i] = w
		if mcp {
			w.kind, w.stream = "mcp", false
			mc := &mcpClient{url: base + "/mcp", token: "floor", client: client}
			wg.Go(func() { w.runMCP(sctx, pollConfig{base: base, timeoutS: 25}, mc, posted) })
			continue
		}
		wg.Go(func() { _ = w.follow(sctx, client, base+"/stream", "", posted) })
		if i%200 == 199 {
			time.Sleep(20 * time.Millisecond) // never overflow the listen backlog
		}
	}
	for _, w := range all {
		for !w.started.Load() && ctx.Err() == nil {
			time.Sleep(5 * time.Millisecond)
		}
	}
	time.Sleep(time.Second)
	if idle, err := procRSS(cmd.Process.Pid); err == nil && n > 0 {
		res.RSSPerStreamKiB = float64(idle-before) / float64(n)
	}
	logf("floor: %d %s waiters out, %.1f KiB each", n, res.Kind, res.RSSPerStreamKiB)
	tick := time.NewTicker(time.Duration(float64(time.Second) / rate))
	defer tick.Stop()
	for range posts {
		<-tick.C
		sent := time.Now()
		p := posted.add(0, sent)
		resp, err := client.Post(base+"/post?text="+url.QueryEscape(marker{kind: 'p', n: p, sent: sent}.String()), "text/plain", nil)
		if err != nil {
			return res, err
		}
		resp.Body.Close()
	}
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) && !allReceived(all, posted) {
		time.Sleep(50 * time.Millisecond)
	}
	stop()
	wg.Wait()
	var lat []time.Duration
	for _, w := range all {
		w.mu.Lock()
		lat = append(lat, w.lat...)
		res.Missed += posts - len(w.posts)
		w.mu.Unlock()
	}
	res.Wake = summarize(lat)
	return res, nil
}
