package llmtest

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
)

// Stall is where a Hang endpoint stops talking.
type Stall int

// Stall points.
const (
	// StallBeforeHeaders reads the request and never answers.
	StallBeforeHeaders Stall = iota
	// StallAfterHeaders answers 200 with event-stream headers, then nothing.
	StallAfterHeaders
	// StallAfterChunk sends the role chunk and one content chunk, then nothing.
	StallAfterChunk
)

// Hang starts an endpoint that stalls every request at the given point until
// the client goes away or the test ends, and returns its base URL (ending in
// /v1).
func Hang(t testing.TB, at Stall) string {
	t.Helper()
	done := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		if at >= StallAfterHeaders {
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			if at == StallAfterChunk {
				_, _ = io.WriteString(w, `data: {"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"The door "},"finish_reason":null}]}`+"\n\n")
			}
			w.(http.Flusher).Flush()
		}
		select {
		case <-r.Context().Done():
		case <-done:
		}
	}))
	// Cleanups run last-registered first: the handlers are released before
	// Close waits for them.
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(done) })
	return srv.URL + "/v1"
}

// Silent starts a TCP listener that accepts connections and never speaks,
// and returns an https:// base URL to it: a client's TLS handshake never
// completes, so the connection is never established.
func Silent(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var conns []net.Conn
	accepted := make(chan struct{})
	go func() {
		defer close(accepted)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c)
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		<-accepted
		for _, c := range conns {
			c.Close()
		}
	})
	return "https://" + ln.Addr().String() + "/v1"
}

// Reset starts an endpoint that streams chunks and then resets the TCP
// connection, without a finish reason or [DONE], and returns its base URL.
func Reset(t testing.TB, chunks ...string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		for _, c := range chunks {
			b, _ := json.Marshal(map[string]any{"id": "x", "object": "chat.completion.chunk", "created": 1, "model": "m",
				"choices": []any{map[string]any{"index": 0, "delta": map[string]any{"content": c}, "finish_reason": nil}}})
			_, _ = io.WriteString(w, "data: "+string(b)+"\n\n")
		}
		w.(http.Flusher).Flush()
		conn, _, err := http.NewResponseController(w).Hijack()
		if err != nil {
			return
		}
		if tc, ok := conn.(*net.TCPConn); ok {
			_ = tc.SetLinger(0) // close with RST
		}
		conn.Close()
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1"
}

// Repeat starts an endpoint that answers every chat-completions request
// with r (a Fake answers each queued reply once), and returns its base URL.
// Requests are not recorded.
func Repeat(t testing.TB, r Reply) string {
	t.Helper()
	f := &Fake{t: t}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Method != http.MethodPost || req.URL.Path != "/v1/chat/completions" {
			http.NotFound(w, req)
			return
		}
		var wr wireRequest
		body, _ := io.ReadAll(req.Body)
		_ = json.Unmarshal(body, &wr)
		if r.Status != 0 && r.Status != http.StatusOK {
			writeError(w, r.Status, r.ErrorBody)
			return
		}
		f.stream(w, req, Request{Model: wr.Model, Stream: wr.Stream, StreamOptions: wr.StreamOptions}, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1"
}
