package llm_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/adventure-table/adventure-table/gameplay/llm"
	"github.com/adventure-table/adventure-table/gameplay/llm/llmtest"
)

// Each way a model endpoint can go quiet ends the call with its own kind,
// within a generous bound of the configured limit (CI machines are loaded:
// the bounds only prove the call does not wait for the next limit).
func TestTimeouts(t *testing.T) {
	limits := llm.Timeouts{Connect: 300 * time.Millisecond, Headers: 400 * time.Millisecond, Idle: 500 * time.Millisecond, Total: 1500 * time.Millisecond}
	slow := llmtest.Repeat(t, llmtest.Reply{Chunks: []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n", "o"},
		Delay: 250 * time.Millisecond, FinishReason: "stop"})
	cases := []struct {
		name    string
		baseURL string
		want    string
	}{
		{"ConnectNoTLSHandshake", llmtest.Silent(t), llm.KindConnectTimeout},
		{"HeadersNeverSent", llmtest.Hang(t, llmtest.StallBeforeHeaders), llm.KindHeadersTimeout},
		{"SilenceAfterHeaders", llmtest.Hang(t, llmtest.StallAfterHeaders), llm.KindIdleTimeout},
		{"SilenceAfterAChunk", llmtest.Hang(t, llmtest.StallAfterChunk), llm.KindIdleTimeout},
		{"TotalWhileStillStreaming", slow, llm.KindTotalTimeout},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := llm.NewOpenAIWithTimeouts(nil, limits)
			start := time.Now()
			res, err := p.Stream(context.Background(), llm.Settings{BaseURL: tc.baseURL, Model: "m", MaxOutputTokens: 10}, request, nil)
			took := time.Since(start)
			var le *llm.Error
			if !errors.As(err, &le) || le.Kind != tc.want {
				t.Fatalf("got %v (result %+v), want kind %s", err, res, tc.want)
			}
			if took > 15*time.Second {
				t.Fatalf("the call took %v", took)
			}
			if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("a time limit reads as the caller's context: %v", err)
			}
		})
	}
}

// A reply that keeps streaming is not cut by the idle limit, however long
// it takes in all, and a slow first byte within the headers limit is fine.
func TestTimeoutsLetAnActiveStreamFinish(t *testing.T) {
	slow := llmtest.Repeat(t, llmtest.Reply{Chunks: []string{"The ", "hall ", "is ", "dark."}, Delay: 150 * time.Millisecond, FinishReason: "stop"})
	p := llm.NewOpenAIWithTimeouts(nil, llm.Timeouts{Connect: time.Second, Headers: time.Second, Idle: 400 * time.Millisecond, Total: 10 * time.Second})
	res, err := p.Stream(context.Background(), llm.Settings{BaseURL: slow, Model: "m", MaxOutputTokens: 10}, request, nil)
	if err != nil || res.Text != "The hall is dark." || res.FinishReason != "stop" {
		t.Fatalf("got %+v, %v", res, err)
	}
}

// The caller going away is still a cancellation, not a time limit.
func TestCallerCancelIsNotATimeout(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	p := llm.NewOpenAIWithTimeouts(nil, llm.Timeouts{Idle: 10 * time.Second})
	_, err := p.Stream(ctx, llm.Settings{BaseURL: llmtest.Hang(t, llmtest.StallAfterHeaders), Model: "m"}, request, nil)
	var le *llm.Error
	if !errors.As(err, &le) || le.Kind == llm.KindIdleTimeout || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %v, want the caller's deadline", err)
	}
}
