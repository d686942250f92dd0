package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/respjson"
	"github.com/openai/openai-go/v3/packages/ssestream"
)

// OpenAI implements Provider with github.com/openai/openai-go/v3 against any
// OpenAI-compatible endpoint. Automatic retries are disabled so a retry never
// double-bills a turn. Every call is bounded by its Timeouts. It is safe for
// concurrent use.
type OpenAI struct {
	httpClient *http.Client
	timeouts   Timeouts
}

var _ Provider = (*OpenAI)(nil)

// NewOpenAI returns a provider using httpClient (nil means http.DefaultClient)
// and DefaultTimeouts. Give the client no overall Timeout: the provider
// bounds each phase of a call itself.
func NewOpenAI(httpClient *http.Client) *OpenAI {
	return NewOpenAIWithTimeouts(httpClient, DefaultTimeouts)
}

// NewOpenAIWithTimeouts is NewOpenAI with the given time limits (a zero
// field takes its default).
func NewOpenAIWithTimeouts(httpClient *http.Client, t Timeouts) *OpenAI {
	if httpClient == nil {
		httpClient = http.DefaultClient
	}
	return &OpenAI{httpClient: httpClient, timeouts: t.withDefaults()}
}

func (o *OpenAI) client(s Settings) openai.Client {
	base := s.BaseURL
	if base == "" {
		base = DefaultBaseURL
	}
	return openai.NewClient(
		option.WithHTTPClient(o.httpClient),
		option.WithBaseURL(base),
		option.WithMaxRetries(0),
		// Settings override anything the SDK read from the environment, so a
		// server-wide OPENAI_API_KEY is never sent to a user's endpoint.
		option.WithAPIKey(s.APIKey),
		option.WithAdminAPIKey(""),
		option.WithHeaderDel("OpenAI-Organization"),
		option.WithHeaderDel("OpenAI-Project"),
	)
}

func params(s Settings, r Request) (openai.ChatCompletionNewParams, error) {
	msgs := make([]openai.ChatCompletionMessageParamUnion, 0, len(r.Messages))
	for i, m := range r.Messages {
		switch m.Role {
		case RoleSystem:
			msgs = append(msgs, openai.SystemMessage(m.Content))
		case RoleUser:
			msgs = append(msgs, openai.UserMessage(m.Content))
		case RoleAssistant:
			if len(m.ToolCalls) == 0 {
				msgs = append(msgs, openai.AssistantMessage(m.Content))
				continue
			}
			var a openai.ChatCompletionAssistantMessageParam
			if m.Content != "" {
				a.Content.OfString = openai.String(m.Content)
			}
			for _, tc := range m.ToolCalls {
				a.ToolCalls = append(a.ToolCalls, openai.ChatCompletionMessageToolCallUnionParam{OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
					ID: tc.ID, Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: tc.Name, Arguments: tc.Arguments}}})
			}
			msgs = append(msgs, openai.ChatCompletionMessageParamUnion{OfAssistant: &a})
		case RoleTool:
			msgs = append(msgs, openai.ToolMessage(m.Content, m.ToolCallID))
		default:
			return openai.ChatCompletionNewParams{}, &Error{Kind: KindBadRequest,
				Message: fmt.Sprintf("message %d has unknown role %q", i, m.Role)}
		}
	}
	var tools []openai.ChatCompletionToolUnionParam
	for _, t := range r.Tools {
		tools = append(tools, openai.ChatCompletionFunctionTool(openai.FunctionDefinitionParam{
			Name: t.Name, Description: openai.String(t.Description), Parameters: openai.FunctionParameters(t.Parameters)}))
	}
	return openai.ChatCompletionNewParams{
		Tools:       tools,
		Model:       s.Model,
		Messages:    msgs,
		Temperature: openai.Float(s.Temperature),
		TopP:        openai.Float(s.TopP),
		MaxTokens:   openai.Int(int64(s.MaxOutputTokens)),
		// omitted when "" (the field is omitzero)
		ReasoningEffort: openai.ReasoningEffort(s.ReasoningEffort),
		StreamOptions:   openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)},
	}, nil
}

// Stream streams one completion, calling onEvent (which may be nil) for each
// piece as it arrives, in order. The Result is filled with whatever arrived
// even when an error is returned. A stream that ends without a finish reason
// returns a Result with Truncated set and a nil error; an I/O failure while
// reading the body additionally returns an "unavailable" error. A time limit
// that ends the call returns its own kind (KindConnectTimeout, …).
func (o *OpenAI) Stream(ctx context.Context, s Settings, r Request, onEvent func(Event)) (Result, error) {
	if onEvent == nil {
		onEvent = func(Event) {}
	}
	p, err := params(s, r)
	if err != nil {
		return Result{}, err
	}
	callCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	wd := newWatchdog(o.timeouts, cancel)
	defer wd.stop()
	c := o.client(s)
	stream := c.Chat.Completions.NewStreaming(callCtx, p, option.WithMiddleware(wd.middleware))
	defer stream.Close()

	var (
		res             Result
		text, reasoning strings.Builder
		sawChunk        bool
		calls           toolCallParts
	)
	for stream.Next() {
		sawChunk = true
		chunk := stream.Current()
		for _, ch := range chunk.Choices {
			if ch.Index != 0 {
				continue
			}
			if rt := reasoningText(ch.Delta.JSON.ExtraFields); rt != "" {
				reasoning.WriteString(rt)
				onEvent(Event{Kind: EventReasoning, Text: rt})
			}
			if ch.Delta.Content != "" {
				text.WriteString(ch.Delta.Content)
				onEvent(Event{Kind: EventChunk, Text: ch.Delta.Content})
			}
			for _, tc := range ch.Delta.ToolCalls {
				calls.add(tc.Index, tc.ID, tc.Function.Name, tc.Function.Arguments)
				if tc.Function.Name != "" {
					onEvent(Event{Kind: EventToolCall, Text: tc.Function.Name})
				}
			}
			if ch.FinishReason != "" {
				res.FinishReason = ch.FinishReason
			}
		}
		if chunk.JSON.Usage.Valid() {
			u := chunk.Usage
			res.PromptTokens = int(u.PromptTokens)
			res.CompletionTokens = int(u.CompletionTokens)
			res.CachedPromptTokens = int(u.PromptTokensDetails.CachedTokens)
			if res.CachedPromptTokens == 0 {
				// DeepSeek reports cache hits in its own field.
				res.CachedPromptTokens = extraInt(u.JSON.ExtraFields, "prompt_cache_hit_tokens")
			}
		}
	}
	res.Text = text.String()
	res.Reasoning = reasoning.String()
	res.ToolCalls = calls.assemble()
	res.Truncated = res.FinishReason == "" || res.FinishReason == "length"

	if err := stream.Err(); err != nil {
		if te := wd.timedOut(); te != nil && ctx.Err() == nil {
			return res, te
		}
		return res, mapError(ctx, err, s.APIKey, sawChunk)
	}
	if ctxErr := ctx.Err(); ctxErr != nil {
		return res, contextError(ctxErr)
	}
	if te := wd.timedOut(); te != nil && res.FinishReason == "" {
		// Cut by a time limit, whatever the decoder made of the cut.
		return res, te
	}
	return res, nil
}

func reasoningText(extra map[string]respjson.Field) string {
	for _, name := range []string{"reasoning_content", "reasoning"} {
		f, ok := extra[name]
		if !ok || f.Raw() == "" {
			continue
		}
		var s string
		if json.Unmarshal([]byte(f.Raw()), &s) == nil && s != "" {
			return s
		}
	}
	return ""
}

func extraInt(extra map[string]respjson.Field, name string) int {
	f, ok := extra[name]
	if !ok || f.Raw() == "" {
		return 0
	}
	var n int
	if json.Unmarshal([]byte(f.Raw()), &n) != nil {
		return 0
	}
	return n
}

func contextError(err error) *Error {
	if errors.Is(err, context.DeadlineExceeded) {
		return &Error{Kind: KindUnavailable, Message: "timed out", cause: context.DeadlineExceeded}
	}
	return &Error{Kind: KindCanceled, Message: "canceled", cause: context.Canceled}
}

func mapError(ctx context.Context, err error, key string, midStream bool) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return contextError(ctxErr)
	}
	var apiErr *openai.Error
	if errors.As(err, &apiErr) {
		e := &Error{Status: apiErr.StatusCode}
		switch st := apiErr.StatusCode; {
		case st == http.StatusUnauthorized || st == http.StatusForbidden:
			e.Kind = KindAuth
		case st == http.StatusTooManyRequests:
			e.Kind = KindRateLimited
		case st >= 400 && st < 500:
			e.Kind = KindBadRequest
		default:
			e.Kind = KindUnavailable
		}
		msg := fmt.Sprintf("HTTP %d %s", apiErr.StatusCode, http.StatusText(apiErr.StatusCode))
		if apiErr.Message != "" {
			msg += ": " + apiErr.Message
		}
		e.Message = redact(msg, key)
		return e
	}
	var streamErr *ssestream.StreamError
	if errors.As(err, &streamErr) {
		return &Error{Kind: KindStream, Message: redact(streamErrorMessage(streamErr), key)}
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		// A deadline from the http.Client rather than the caller's context.
		return &Error{Kind: KindUnavailable, Message: "timed out"}
	}
	var netErr net.Error
	msg := "cannot reach the model endpoint"
	if errors.As(err, &netErr) && netErr.Timeout() {
		msg = "timed out"
	} else if midStream {
		msg = "connection failed mid-stream"
	}
	return &Error{Kind: KindUnavailable, Message: redact(msg+": "+err.Error(), key)}
}

// streamErrorMessage extracts error.message from the error event, falling
// back to the SDK's message.
func streamErrorMessage(e *ssestream.StreamError) string {
	var body struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(e.Event.Data, &body) == nil && len(body.Error) > 0 {
		var obj struct {
			Message string `json:"message"`
		}
		if json.Unmarshal(body.Error, &obj) == nil && obj.Message != "" {
			return obj.Message
		}
		var s string
		if json.Unmarshal(body.Error, &s) == nil && s != "" {
			return s
		}
	}
	return e.Message
}

// toolCallParts gathers streamed tool-call pieces: the first piece of a
// call carries its id and name, later ones append to its arguments; the
// index says which call a piece belongs to.
type toolCallParts struct {
	order []int64
	byIdx map[int64]*ToolCall
}

func (p *toolCallParts) add(index int64, id, name, args string) {
	if p.byIdx == nil {
		p.byIdx = map[int64]*ToolCall{}
	}
	tc, ok := p.byIdx[index]
	if !ok {
		tc = &ToolCall{}
		p.byIdx[index] = tc
		p.order = append(p.order, index)
	}
	if id != "" {
		tc.ID = id
	}
	if name != "" {
		tc.Name += name
	}
	tc.Arguments += args
}

func (p *toolCallParts) assemble() []ToolCall {
	out := make([]ToolCall, 0, len(p.order))
	for _, i := range p.order {
		out = append(out, *p.byIdx[i])
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
