// Package llmtest is a scripted fake OpenAI-compatible chat-completions and
// embeddings server for tests. It never talks to a real model.
package llmtest

import (
	"cmp"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"
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
	// Streamed requests only.
	MidStreamError bool
	// DropWithoutDone ends the response after the chunks: no finish_reason,
	// no usage, no [DONE]. Streamed requests only.
	DropWithoutDone bool
	// KeepAlive writes a ": keep-alive" comment line before every event.
	// Streamed requests only.
	KeepAlive bool
	// Delay is waited before every chunk (stops early when the client goes away).
	Delay time.Duration
	// ToolCalls are sent after the content chunks as delta.tool_calls, each
	// in two pieces (its id and name, then its arguments in halves), as
	// real endpoints stream them. Give FinishReason "tool_calls" with them.
	ToolCalls []ToolCall
	// Hold, when non-nil, stops the stream after HoldAfter content chunks
	// until it is closed (or the client goes away): a test reads what the
	// server did with the text so far, with no timing involved.
	Hold      <-chan struct{}
	HoldAfter int
}

// ToolCall is one scripted (or recorded) function call.
type ToolCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// Message is one recorded request message.
type Message struct {
	Role    string
	Content string
	// ToolCalls are an assistant message's calls; ToolCallID the call a
	// tool message answers.
	ToolCalls  []ToolCall
	ToolCallID string
}

// StreamOptions is the recorded stream_options.
type StreamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

// Request is one recorded request body, parsed.
type Request struct {
	Path                string // "/v1/chat/completions", "/v1/embeddings" or "/v1/models"
	Authorization       string // the Authorization header
	Model               string
	Messages            []Message
	Inputs              []string // the texts of an embeddings request
	Stream              bool
	Temperature         *float64
	TopP                *float64
	MaxTokens           *int
	MaxCompletionTokens *int
	// ReasoningEffort is the request's reasoning_effort; "" when absent.
	ReasoningEffort string
	StreamOptions   *StreamOptions
	// Tools are the names of the functions offered (native tool calling),
	// ToolSchemas their parameter schemas by name.
	Tools       []string
	ToolSchemas map[string]json.RawMessage
	Raw         []byte
}

// Fake is the scripted server. Create it with New.
type Fake struct {
	t   testing.TB
	srv *httptest.Server

	mu            sync.Mutex
	replies       []Reply
	respond       func(Request) Reply
	requests      []Request
	embeddingDims int // 0 means EmbeddingDims
	embedFailure  int // HTTP status every embeddings request gets; 0 answers
	models        []map[string]any
	modelsFailure int // HTTP status every models request gets; 0 answers
	// inFlight keys chat-completions requests (TrackInFlight); busy is how
	// many of each key are being answered now, most the highest it reached.
	inFlight   func(Request) string
	busy, most map[string]int
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

// Respond sets the responder that answers a chat-completions request when
// no pushed reply is queued, so a test can script a long game (turns and
// background calls interleaved) by looking at each request's messages.
// Pushed replies still go first. fn runs on the server's goroutines, possibly
// several at once. Without a responder, a request finding the queue empty
// fails the test and is answered 500.
func (f *Fake) Respond(fn func(Request) Reply) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.respond = fn
}

// TrackInFlight counts the chat-completions requests being answered at
// once under the key that key gives each (a seat, a table), from their
// arrival until their answer is written; MaxInFlight reports the highest
// counts. key runs under the fake's lock: it must not call the fake.
func (f *Fake) TrackInFlight(key func(Request) string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.inFlight, f.busy, f.most = key, map[string]int{}, map[string]int{}
}

// MaxInFlight returns, per key of TrackInFlight, the most requests that
// were being answered at once.
func (f *Fake) MaxInFlight() map[string]int {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make(map[string]int, len(f.most))
	for k, n := range f.most {
		out[k] = n
	}
	return out
}

// Count returns how many requests arrived for path, such as
// "/v1/chat/completions" or "/v1/embeddings".
func (f *Fake) Count(path string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, r := range f.requests {
		if r.Path == path {
			n++
		}
	}
	return n
}

// Requests returns a copy of the recorded requests, in arrival order.
func (f *Fake) Requests() []Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Request(nil), f.requests...)
}

type wireMessage struct {
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	ToolCalls []struct {
		ID       string `json:"id"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
	ToolCallID string `json:"tool_call_id"`
}

type wireTool struct {
	Function struct {
		Name       string          `json:"name"`
		Parameters json.RawMessage `json:"parameters"`
	} `json:"function"`
}

type wireRequest struct {
	Model               string         `json:"model"`
	Messages            []wireMessage  `json:"messages"`
	Stream              bool           `json:"stream"`
	Temperature         *float64       `json:"temperature"`
	TopP                *float64       `json:"top_p"`
	MaxTokens           *int           `json:"max_tokens"`
	MaxCompletionTokens *int           `json:"max_completion_tokens"`
	ReasoningEffort     string         `json:"reasoning_effort"`
	StreamOptions       *StreamOptions `json:"stream_options"`
	Tools               []wireTool     `json:"tools"`
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
	if r.Method == http.MethodPost && r.URL.Path == "/v1/embeddings" {
		f.embeddings(w, r)
		return
	}
	if r.Method == http.MethodGet && r.URL.Path == "/v1/models" {
		f.listModels(w, r)
		return
	}
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
		ReasoningEffort:     wr.ReasoningEffort,
		StreamOptions:       wr.StreamOptions,
		Raw:                 body,
	}
	for _, m := range wr.Messages {
		msg := Message{Role: m.Role, Content: content(m.Content), ToolCallID: m.ToolCallID}
		for _, tc := range m.ToolCalls {
			msg.ToolCalls = append(msg.ToolCalls, ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
		}
		rec.Messages = append(rec.Messages, msg)
	}
	for _, t := range wr.Tools {
		if rec.ToolSchemas == nil {
			rec.ToolSchemas = map[string]json.RawMessage{}
		}
		rec.Tools = append(rec.Tools, t.Function.Name)
		rec.ToolSchemas[t.Function.Name] = t.Function.Parameters
	}

	f.mu.Lock()
	f.requests = append(f.requests, rec)
	var reply Reply
	ok := len(f.replies) > 0
	if ok {
		reply = f.replies[0]
		f.replies = f.replies[1:]
	}
	respond := f.respond
	if f.inFlight != nil {
		key := f.inFlight(rec)
		f.busy[key]++
		f.most[key] = max(f.most[key], f.busy[key])
		defer func() {
			f.mu.Lock()
			f.busy[key]--
			f.mu.Unlock()
		}()
	}
	f.mu.Unlock()
	if !ok && respond != nil {
		// Outside the lock: the responder may call Requests or Count.
		reply, ok = respond(rec), true
	}
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

// stream answers a chat-completions request with reply: as server-sent
// events, or as one JSON body when the request did not ask for a stream
// (deciding here lets Repeat answer both kinds too).
func (f *Fake) stream(w http.ResponseWriter, r *http.Request, req Request, reply Reply) {
	if !req.Stream {
		f.complete(w, r, req, reply)
		return
	}
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
	wait := func() bool { return sleep(r, reply.Delay) }
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
	hold := func() bool {
		select {
		case <-r.Context().Done():
			return false
		case <-reply.Hold:
			return true
		}
	}
	for i, piece := range reply.Chunks {
		if reply.Hold != nil && i == reply.HoldAfter && !hold() {
			return
		}
		if !wait() || !send(chunk(map[string]any{"content": piece}, "")) {
			return
		}
	}
	if reply.Hold != nil && reply.HoldAfter >= len(reply.Chunks) && !hold() {
		return
	}
	for i, tc := range reply.ToolCalls {
		half := len(tc.Arguments) / 2
		pieces := []map[string]any{
			{"index": i, "id": tc.ID, "type": "function", "function": map[string]any{"name": tc.Name, "arguments": tc.Arguments[:half]}},
			{"index": i, "function": map[string]any{"arguments": tc.Arguments[half:]}},
		}
		for _, p := range pieces {
			if !wait() || !send(chunk(map[string]any{"tool_calls": []any{p}}, "")) {
				return
			}
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
		b, _ := json.Marshal(map[string]any{
			"id":      "chatcmpl-llmtest",
			"object":  "chat.completion.chunk",
			"created": 1700000000,
			"model":   req.Model,
			"choices": []any{},
			"usage":   usageJSON(*reply.Usage),
		})
		if !send(string(b)) {
			return
		}
	}
	send("[DONE]")
}

func usageJSON(u Usage) map[string]any {
	return map[string]any{
		"prompt_tokens":         u.Prompt,
		"completion_tokens":     u.Completion,
		"total_tokens":          u.Prompt + u.Completion,
		"prompt_tokens_details": map[string]any{"cached_tokens": u.Cached},
	}
}

// complete answers a non-streamed chat-completions request: the chunks
// joined as one message (the reasoning joined beside it), after the Delay a
// stream of them would have taken. Usage is always sent, as OpenAI does;
// zeros when the reply has none.
func (f *Fake) complete(w http.ResponseWriter, r *http.Request, req Request, reply Reply) {
	for range len(reply.Reasoning) + len(reply.Chunks) {
		if !sleep(r, reply.Delay) {
			return
		}
	}
	msg := map[string]any{"role": "assistant", "content": strings.Join(reply.Chunks, "")}
	if len(reply.Reasoning) > 0 {
		field := reply.ReasoningField
		if field == "" {
			field = "reasoning_content"
		}
		msg[field] = strings.Join(reply.Reasoning, "")
	}
	var finish any
	if reply.FinishReason != "" {
		finish = reply.FinishReason
	}
	var u Usage
	if reply.Usage != nil {
		u = *reply.Usage
	}
	writeJSON(w, map[string]any{
		"id":      "chatcmpl-llmtest",
		"object":  "chat.completion",
		"created": 1700000000,
		"model":   req.Model,
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish, "logprobs": nil}},
		"usage":   usageJSON(u),
	})
}

// sleep waits d, and reports false when the client went away first.
func sleep(r *http.Request, d time.Duration) bool {
	if d <= 0 {
		return r.Context().Err() == nil
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-r.Context().Done():
		return false
	case <-timer.C:
		return true
	}
}

func writeJSON(w http.ResponseWriter, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only the fake's own maps are marshalled
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(b)
}

// EmbeddingDims is the default length of the fake's embedding vectors.
const EmbeddingDims = 64

// SetEmbeddingDims sets the length of the vectors later embeddings requests
// get; n <= 0 restores EmbeddingDims.
func (f *Fake) SetEmbeddingDims(n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.embeddingDims = max(n, 0)
}

// FailEmbeddings makes later embeddings requests answer status with an
// OpenAI-style error body (they are still recorded); 0 restores answers.
func (f *Fake) FailEmbeddings(status int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.embedFailure = status
}

// stopwords carry no topic, so two texts do not look related for sharing them.
var stopwords = map[string]bool{
	"a": true, "an": true, "the": true, "and": true, "or": true, "but": true,
	"of": true, "to": true, "in": true, "on": true, "at": true, "for": true,
	"with": true, "by": true, "from": true, "is": true, "are": true, "was": true,
	"were": true, "be": true, "it": true, "its": true, "this": true, "that": true,
	"i": true, "you": true, "he": true, "she": true, "we": true, "they": true,
}

// words splits text into lowercased runs of letters and digits.
func words(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// Embedding is the vector the fake answers for text: every word that is not
// a stopword adds 1 at FNV-1a(word) mod dims, and the sum is scaled to
// length 1 (a text without such words gives the zero vector). Texts sharing
// content words therefore have a higher cosine than unrelated ones; a test
// can compute the vectors it expects with it.
func Embedding(text string, dims int) []float64 {
	v := make([]float64, dims)
	for _, w := range words(text) {
		if stopwords[w] {
			continue
		}
		h := fnv.New32a()
		_, _ = h.Write([]byte(w))
		v[h.Sum32()%uint32(dims)]++
	}
	var sq float64
	for _, x := range v {
		sq += x * x
	}
	if sq > 0 {
		n := math.Sqrt(sq)
		for i := range v {
			v[i] /= n
		}
	}
	return v
}

// embeddings answers POST /v1/embeddings in the OpenAI shape, with input a
// string or an array of strings.
func (f *Fake) embeddings(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var wr struct {
		Model string          `json:"model"`
		Input json.RawMessage `json:"input"`
	}
	if err := json.Unmarshal(body, &wr); err != nil {
		f.t.Errorf("llmtest: bad embeddings request body: %v", err)
		writeError(w, http.StatusBadRequest, "")
		return
	}
	var inputs []string
	var one string
	okInput := json.Unmarshal(wr.Input, &inputs) == nil
	if !okInput && json.Unmarshal(wr.Input, &one) == nil {
		inputs, okInput = []string{one}, true
	}

	f.mu.Lock()
	f.requests = append(f.requests, Request{
		Path:          r.URL.Path,
		Authorization: r.Header.Get("Authorization"),
		Model:         wr.Model,
		Inputs:        inputs,
		Raw:           body,
	})
	dims := cmp.Or(f.embeddingDims, EmbeddingDims)
	failure := f.embedFailure
	f.mu.Unlock()

	if failure != 0 {
		writeError(w, failure, "")
		return
	}
	if !okInput {
		// Token arrays are valid OpenAI input, but nothing here sends them.
		writeError(w, http.StatusBadRequest, `{"error":{"message":"llmtest: input must be a string or an array of strings","type":"invalid_request_error","param":"input","code":null}}`)
		return
	}
	data := make([]any, len(inputs))
	tokens := 0
	for i, text := range inputs {
		data[i] = map[string]any{"object": "embedding", "index": i, "embedding": Embedding(text, dims)}
		tokens += len(words(text))
	}
	writeJSON(w, map[string]any{
		"object": "list",
		"data":   data,
		"model":  wr.Model,
		"usage":  map[string]any{"prompt_tokens": tokens, "total_tokens": tokens},
	})
}

// SetModels sets the entries GET /v1/models lists, each an object of the
// OpenAI list ({"id": …}) with whatever extra fields a test wants
// (context_length, max_model_len, …); "object", "created" and "owned_by"
// are filled in when absent. None set lists no models.
func (f *Fake) SetModels(entries ...map[string]any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.models = entries
}

// FailModels makes later GET /v1/models requests answer status with an
// OpenAI-style error body (they are still recorded); 0 restores answers.
func (f *Fake) FailModels(status int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.modelsFailure = status
}

// listModels answers GET /v1/models in the OpenAI shape.
func (f *Fake) listModels(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.requests = append(f.requests, Request{Path: r.URL.Path, Authorization: r.Header.Get("Authorization")})
	failure := f.modelsFailure
	data := make([]any, 0, len(f.models))
	for _, m := range f.models {
		e := map[string]any{"object": "model", "created": 1700000000, "owned_by": "llmtest"}
		for k, v := range m {
			e[k] = v
		}
		data = append(data, e)
	}
	f.mu.Unlock()
	if failure != 0 {
		writeError(w, failure, "")
		return
	}
	writeJSON(w, map[string]any{"object": "list", "data": data})
}

// Close stops the server early (it is closed automatically when the test
// ends); useful for connection-refused tests.
func (f *Fake) Close() { f.srv.Close() }
