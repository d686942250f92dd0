package llm

import (
	"context"
	"encoding/json"
	"errors"
	"sort"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// ProbeTimeouts bound the settings screen's calls (Models and Ping): a
// person is waiting on a button, so they are shorter than a turn's, with
// room for a local model that loads on its first request.
var ProbeTimeouts = Timeouts{Connect: 5 * time.Second, Headers: 30 * time.Second, Idle: 30 * time.Second, Total: 40 * time.Second}

// ModelInfo is one model an endpoint lists.
type ModelInfo struct {
	ID string
	// ContextLength is the model's context window in tokens where the
	// endpoint says it (context_length: OpenRouter, LM Studio;
	// max_model_len: vLLM; context_window: Groq); 0 when it does not.
	ContextLength int
}

// PingResult is a connection test's answer.
type PingResult struct {
	// Model is the model that answered, as the endpoint names it (the
	// requested one when the answer names none).
	Model   string
	Latency time.Duration
}

// Prober is the optional side of a Provider that the settings screen uses.
type Prober interface {
	// Models lists the endpoint's models (GET /models).
	Models(ctx context.Context, s Settings) ([]ModelInfo, error)
	// Ping sends one tiny chat completion (max_tokens 1) and times it.
	Ping(ctx context.Context, s Settings) (PingResult, error)
}

var _ Prober = (*OpenAI)(nil)

// wireModel is one entry of an OpenAI-format model list, with the context
// fields some servers add.
type wireModel struct {
	ID            string `json:"id"`
	ContextLength *int   `json:"context_length"`
	MaxModelLen   *int   `json:"max_model_len"`
	ContextWindow *int   `json:"context_window"`
}

// probe runs call under ProbeTimeouts (or the provider's own, whichever is
// shorter) and maps its error like Stream's.
func (o *OpenAI) probe(ctx context.Context, s Settings, call func(ctx context.Context, c openai.Client, mw option.RequestOption) error) error {
	limits := ProbeTimeouts
	limits.Connect = min(limits.Connect, o.timeouts.Connect)
	limits.Headers = min(limits.Headers, o.timeouts.Headers)
	limits.Total = min(limits.Total, o.timeouts.Total)
	callCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	wd := newWatchdog(limits, cancel)
	defer wd.stop()
	if err := call(callCtx, o.client(s), option.WithMiddleware(wd.middleware)); err != nil {
		var own *Error
		if errors.As(err, &own) {
			return own
		}
		if te := wd.timedOut(); te != nil && ctx.Err() == nil {
			return te
		}
		return mapError(ctx, err, s.APIKey, false)
	}
	return nil
}

// Models lists the endpoint's models from its OpenAI-format GET /models
// ({data:[{id, …}]}), sorted by id, with the context length where the
// endpoint gives one. Errors are mapped as Stream's; an answer that is not
// a model list is KindUnavailable.
func (o *OpenAI) Models(ctx context.Context, s Settings) ([]ModelInfo, error) {
	var body struct {
		Data []wireModel `json:"data"`
	}
	err := o.probe(ctx, s, func(ctx context.Context, c openai.Client, mw option.RequestOption) error {
		err := c.Get(ctx, "models", nil, &body, mw)
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		if errors.As(err, &se) || errors.As(err, &te) {
			return &Error{Kind: KindUnavailable, Message: "the endpoint's model list is not OpenAI-format JSON"}
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	out := make([]ModelInfo, 0, len(body.Data))
	seen := map[string]bool{}
	for _, m := range body.Data {
		if m.ID == "" || seen[m.ID] {
			continue
		}
		seen[m.ID] = true
		info := ModelInfo{ID: m.ID}
		for _, n := range []*int{m.ContextLength, m.MaxModelLen, m.ContextWindow} {
			if n != nil && *n > 0 {
				info.ContextLength = *n
				break
			}
		}
		out = append(out, info)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

// Ping sends one non-streamed chat completion of max_tokens 1 to s.Model
// and reports how long the answer took and which model gave it. Errors are
// mapped as Stream's (an unknown model is usually KindBadRequest with
// Status 404).
func (o *OpenAI) Ping(ctx context.Context, s Settings) (PingResult, error) {
	if s.Model == "" {
		return PingResult{}, &Error{Kind: KindBadRequest, Message: "no model set"}
	}
	var res PingResult
	start := time.Now()
	err := o.probe(ctx, s, func(ctx context.Context, c openai.Client, mw option.RequestOption) error {
		cc, err := c.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{
			Model:     s.Model,
			Messages:  []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Hi")},
			MaxTokens: openai.Int(1),
		}, mw)
		if err != nil {
			return err
		}
		res.Latency = time.Since(start)
		res.Model = cc.Model
		return nil
	})
	if err != nil {
		return PingResult{}, err
	}
	if res.Model == "" {
		res.Model = s.Model
	}
	return res, nil
}
