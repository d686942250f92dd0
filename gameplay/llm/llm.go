// Package llm streams chat completions from, and asks for embeddings of, a
// user's model endpoint.
//
// The only implementation is OpenAI, which speaks the OpenAI-compatible
// chat-completions and embeddings protocol (OpenAI, Ollama's /v1, vLLM,
// OpenRouter, DeepSeek and similar) through github.com/openai/openai-go/v3.
package llm

import (
	"context"
	"strings"
)

// DefaultBaseURL is Ollama's OpenAI-compatible endpoint.
const DefaultBaseURL = "http://127.0.0.1:11434/v1"

// Settings of one user's model endpoint.
type Settings struct {
	BaseURL         string // "" means DefaultBaseURL
	Model           string
	APIKey          string // may be empty (Ollama ignores it)
	MaxOutputTokens int    // sent as max_tokens (Ollama's /v1 ignores max_completion_tokens)
	Temperature     float64
	TopP            float64
	// ReasoningEffort is sent as reasoning_effort (low, medium or high) to
	// models that think; "" sends nothing, leaving the endpoint's default.
	ReasoningEffort string
}

// Message roles.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
	// RoleTool carries a tool's result back to the model (ToolCallID says
	// which call it answers).
	RoleTool = "tool"
)

// Message is one chat message; Role is system, user, assistant or tool.
type Message struct {
	Role    string
	Content string
	// ToolCalls are the calls an assistant message made (native tool calling).
	ToolCalls []ToolCall
	// ToolCallID names the call a tool message answers.
	ToolCallID string
}

// Tool is a function the model may call: its name, what it does, and the
// JSON Schema of its arguments, sent as chat completions' `tools`.
type Tool struct {
	Name        string
	Description string
	Parameters  map[string]any
}

// ToolCall is one function call the model asked for. Arguments is the
// JSON text the model wrote, unchecked.
type ToolCall struct {
	ID        string
	Name      string
	Arguments string
}

// Request is one completion request.
type Request struct {
	Messages []Message
	// Tools, when present, are offered to the model (native tool calling).
	Tools []Tool
}

// Event kinds.
const (
	EventChunk     = "chunk"
	EventReasoning = "reasoning"
	// EventToolCall: the model began a tool call (Text is its name); text
	// streamed before it is not a reply to show.
	EventToolCall = "tool_call"
)

// Event is one streamed piece.
type Event struct {
	Kind string // EventChunk, EventReasoning or EventToolCall
	Text string
}

// Result is what one streamed completion produced.
type Result struct {
	Text      string
	Reasoning string
	// ToolCalls are the calls the model made, assembled from the stream's
	// pieces in the order of their index.
	ToolCalls []ToolCall
	// FinishReason is "stop", "length", ...; "" means the stream ended without one.
	FinishReason string
	// Truncated is true when FinishReason is "length" or when the stream ended
	// without any finish reason (connection dropped, no [DONE]).
	Truncated bool

	PromptTokens       int
	CompletionTokens   int
	CachedPromptTokens int
}

// Provider talks to one user's model endpoint.
type Provider interface {
	// Stream streams one completion, calling onEvent for each piece as it arrives.
	Stream(ctx context.Context, s Settings, r Request, onEvent func(Event)) (Result, error)
	// Embed returns one vector per text from the endpoint's /v1/embeddings
	// (OpenAI-compatible; Ollama serves it), using s.BaseURL, s.APIKey and
	// s.Model (the embedding model).
	Embed(ctx context.Context, s Settings, texts []string) ([][]float32, error)
}

// Error kinds.
const (
	KindAuth        = "auth"         // 401, 403
	KindRateLimited = "rate_limited" // 429
	KindBadRequest  = "bad_request"  // other 4xx, or a request rejected before sending
	KindUnavailable = "unavailable"  // 5xx, connection refused, timeout, I/O error mid-stream
	KindStream      = "stream"       // error event inside the stream
	KindCanceled    = "canceled"     // the caller's context was canceled
	// The call's own time limits (Timeouts).
	KindConnectTimeout = "connect_timeout" // no connection in time
	KindHeadersTimeout = "headers_timeout" // connected, no response headers in time
	KindIdleTimeout    = "idle_timeout"    // the streamed body went silent
	KindTotalTimeout   = "total_timeout"   // the whole call took too long
)

// Error is the only error type Stream and Embed return. Its message never contains the
// API key.
type Error struct {
	Kind   string // one of the Kind constants
	Status int    // HTTP status, 0 when there was none
	// Message is a human-readable, key-free description.
	Message string
	cause   error // only context errors are kept, so errors.Is works
}

func (e *Error) Error() string {
	if e.Message == "" {
		return "llm: " + e.Kind
	}
	return "llm: " + e.Kind + ": " + e.Message
}

// Unwrap returns context.Canceled or context.DeadlineExceeded when the error
// came from the caller's context, nil otherwise.
func (e *Error) Unwrap() error { return e.cause }

// redact removes the API key from s.
func redact(s, key string) string {
	if len(key) < 4 {
		return s
	}
	return strings.ReplaceAll(s, key, "[redacted]")
}
