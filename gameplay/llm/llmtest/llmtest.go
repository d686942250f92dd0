// Package llmtest is a scripted fake OpenAI-compatible chat-completions
// server for tests. It never talks to a real model.
package llmtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// Usage is the token accounting the fake reports in its final usage chunk.
type Usage struct {
	Prompt, Completion, Cached int
}

// Reply scripts one response of the fake.
type Reply struct {
	// Chunks are sent as delta.content, in order.
	Chunks []string
	// Reasoning pieces are sent as delta.reasoning_content (or
	// delta.<ReasoningField>) before the content chunks.
	Reasoning      []string
	ReasoningField string // "" means "reasoning_content"; Ollama uses "reasoning"
	// FinishReason is put on a final choice chunk; "" sends none.
	FinishReason string
	// Usage, when non-nil and the request asked for include_usage, is sent in
	// an extra chunk with "choices": [] after the finish chunk.
	Usage *Usage
	// Status, when non-zero and not 200, answers with that HTTP status and
	// ErrorBody (a default OpenAI-style error body when empty).
	Status    int
	ErrorBody string
	// MidStreamError sends `data: {"error":{...}}` after the chunks and ends
	// the stream. ErrorBody, when set, is used as the error message.
	MidStreamError bool
	// DropWithoutDone ends the response after the chunks: no finish_reason,
	// no usage, no [DONE].
	DropWithoutDone bool
	// KeepAlive writes a ": keep-alive" comment line before every event.
	KeepAlive bool
	// Delay is waited before every chunk (stops early when the client goes away).
	Delay time.Duration
}

// Message is one recorded request message.
type Message struct {
	Role    string
	Content string
}

// StreamOptions is the recorded stream_options.
type StreamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

// Request is one recorded request body, parsed.
type Request struct {
	Path                string
	Authorization       string // the Authorization header
	Model               string
	Messages            []Message
	Stream              bool
	Temperature         *float64
	TopP                *float64
	MaxTokens           *int
	MaxCompletionTokens *int
	StreamOptions       *StreamOptions
	Raw                 []byte
}

// Fake is the scripted server. Create it with New.
type Fake struct {
	t   testing.TB
	srv *httptest.Server

	mu       sync.Mutex
	replies  []Reply
	requests []Request
}

// New starts a fake server that is closed when the test ends.
func New(t testing.TB) *Fake {
	t.Helper()
	f := &Fake{t: t}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

// URL returns the base URL, ending in /v1.
func (f *Fake) URL() string { return f.srv.URL + "/v1" }

// Push queues a reply; each chat-completions request consumes one, in order.
func (f *Fake) Push(r Reply) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.replies = append(f.replies, r)
}

// Requests returns a copy of the recorded requests, in arrival order.
func (f *Fake) Requests() []Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Request(nil), f.requests...)
}

type wireMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

type wireRequest struct {
	Model               string         `json:"model"`
	Messages            []wireMessage  `json:"messages"`
	Stream              bool           `json:"stream"`
	Temperature         *float64       `json:"temperature"`
	TopP                *float64       `json:"top_p"`
	MaxTokens           *int           `json:"max_tokens"`
	MaxCompletionTokens *int           `json:"max_completion_tokens"`
	StreamOptions       *StreamOptions `json:"stream_options"`
}

// content accepts a string or an array of {type:"text", text} parts.
func content(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) == nil {
		for _, p := range parts {
			s += p.Text
		}
	}
	return s
}

func (f *Fake) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		http.NotFound(w, r)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var wr wireRequest
	if err := json.Unmarshal(body, &wr); err != nil {
		f.t.Errorf("llmtest: bad request body: %v", err)
		writeError(w, http.StatusBadRequest, "")
		return
	}
	rec := Request{
		Path:                r.URL.Path,
		Authorization:       r.Header.Get("Authorization"),
		Model:               wr.Model,
		Stream:              wr.Stream,
		Temperature:         wr.Temperature,
		TopP:                wr.TopP,
		MaxTokens:           wr.MaxTokens,
		MaxCompletionTokens: wr.MaxCompletionTokens,
		StreamOptions:       wr.StreamOptions,
		Raw:                 body,
	}
	for _, m := range wr.Messages {
		rec.Messages = append(rec.Messages, Message{Role: m.Role, Content: content(m.Content)})
	}

	f.mu.Lock()
	f.requests = append(f.requests, rec)
	var reply Reply
	ok := len(f.replies) > 0
	if ok {
		reply = f.replies[0]
		f.replies = f.replies[1:]
	}
	f.mu.Unlock()
	if !ok {
		f.t.Errorf("llmtest: request %d arrived with no reply queued", len(f.Requests()))
		writeError(w, http.StatusInternalServerError, "")
		return
	}
	if reply.Status != 0 && reply.Status != http.StatusOK {
		writeError(w, reply.Status, reply.ErrorBody)
		return
	}
	f.stream(w, r, rec, reply)
}

func writeError(w http.ResponseWriter, status int, body string) {
	if body == "" {
		b, _ := json.Marshal(map[string]any{"error": map[string]any{
			"message": fmt.Sprintf("llmtest: scripted %d", status),
			"type":    "llmtest_error",
			"param":   nil,
			"code":    fmt.Sprint(status),
		}})
		body = string(b)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
}

func (f *Fake) stream(w http.ResponseWriter, r *http.Request, req Request, reply Reply) {
	flusher, _ := w.(http.Flusher)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	includeUsage := req.StreamOptions != nil && req.StreamOptions.IncludeUsage

	send := func(data string) bool {
		if reply.KeepAlive {
			if _, err := io.WriteString(w, ": keep-alive\n\n"); err != nil {
				return false
			}
		}
		if _, err := io.WriteString(w, "data: "+data+"\n\n"); err != nil {
			return false
		}
		if flusher != nil {
			flusher.Flush()
		}
		return true
	}
	wait := func() bool {
		if reply.Delay <= 0 {
			return r.Context().Err() == nil
		}
		timer := time.NewTimer(reply.Delay)
		defer timer.Stop()
		select {
		case <-r.Context().Done():
			return false
		case <-timer.C:
			return true
		}
	}
	chunk := func(delta map[string]any, finish string) string {
		var fr any
		if finish != "" {
			fr = finish
		}
		c := map[string]any{
			"id":      "chatcmpl-llmtest",
			"object":  "chat.completion.chunk",
			"created": 1700000000,
			"model":   req.Model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": fr}},
		}
		if includeUsage {
			c["usage"] = nil
		}
		b, _ := json.Marshal(c)
		return string(b)
	}

	if !send(chunk(map[string]any{"role": "assistant", "content": ""}, "")) {
		return
	}
	field := reply.ReasoningField
	if field == "" {
		field = "reasoning_content"
	}
	for _, piece := range reply.Reasoning {
		if !wait() || !send(chunk(map[string]any{field: piece}, "")) {
			return
		}
	}
	for _, piece := range reply.Chunks {
		if !wait() || !send(chunk(map[string]any{"content": piece}, "")) {
			return
		}
	}
	if reply.MidStreamError {
		msg := reply.ErrorBody
		if msg == "" {
			msg = "llmtest: scripted mid-stream error"
		}
		b, _ := json.Marshal(map[string]any{"error": map[string]any{
			"message": msg, "type": "server_error", "code": "llmtest",
		}})
		send(string(b))
		return
	}
	if reply.DropWithoutDone {
		return
	}
	if reply.FinishReason != "" {
		if !send(chunk(map[string]any{}, reply.FinishReason)) {
			return
		}
	}
	if includeUsage && reply.Usage != nil {
		u := reply.Usage
		b, _ := json.Marshal(map[string]any{
			"id":      "chatcmpl-llmtest",
			"object":  "chat.completion.chunk",
			"created": 1700000000,
			"model":   req.Model,
			"choices": []any{},
			"usage": map[string]any{
				"prompt_tokens":         u.Prompt,
				"completion_tokens":     u.Completion,
				"total_tokens":          u.Prompt + u.Completion,
				"prompt_tokens_details": map[string]any{"cached_tokens": u.Cached},
			},
		})
		if !send(string(b)) {
			return
		}
	}
	send("[DONE]")
}

// Close stops the server early (it is closed automatically when the test
// ends); useful for connection-refused tests.
func (f *Fake) Close() { f.srv.Close() }
