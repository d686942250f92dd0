package llm_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/adventure-table/adventure-table/gameplay/llm"
	"github.com/adventure-table/adventure-table/gameplay/llm/llmtest"
)

func TestModels(t *testing.T) {
	t.Run("OK", func(t *testing.T) {
		f := llmtest.New(t)
		f.SetModels(
			map[string]any{"id": "zeta"},
			map[string]any{"id": "vllm-model", "max_model_len": 32768},
			map[string]any{"id": "router-model", "context_length": 128000},
			map[string]any{"id": "groq-model", "context_window": 8192},
			map[string]any{"id": "zeta"}, // repeated: listed once
		)
		got, err := llm.NewOpenAI(nil).Models(context.Background(), llm.Settings{BaseURL: f.URL(), APIKey: secretKey})
		if err != nil {
			t.Fatal(err)
		}
		want := []llm.ModelInfo{{ID: "groq-model", ContextLength: 8192}, {ID: "router-model", ContextLength: 128000},
			{ID: "vllm-model", ContextLength: 32768}, {ID: "zeta"}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("models (-want +got):\n%s", diff)
		}
		reqs := f.Requests()
		if len(reqs) != 1 || reqs[0].Path != "/v1/models" || reqs[0].Authorization != "Bearer "+secretKey {
			t.Errorf("requests = %+v, want one GET /v1/models with the key", reqs)
		}
	})
	t.Run("ErrUnauthorized", func(t *testing.T) {
		f := llmtest.New(t)
		f.FailModels(http.StatusUnauthorized)
		_, err := llm.NewOpenAI(nil).Models(context.Background(), llm.Settings{BaseURL: f.URL(), APIKey: secretKey})
		wantError(t, err, llm.KindAuth)
	})
	t.Run("ErrNotAList", func(t *testing.T) {
		url := embedServer(t, http.StatusOK, "<html>not an API</html>")
		_, err := llm.NewOpenAI(nil).Models(context.Background(), llm.Settings{BaseURL: url, APIKey: secretKey})
		wantError(t, err, llm.KindUnavailable)
	})
	t.Run("ErrUnreachable", func(t *testing.T) {
		f := llmtest.New(t)
		url := f.URL()
		f.Close()
		_, err := llm.NewOpenAI(nil).Models(context.Background(), llm.Settings{BaseURL: url, APIKey: secretKey})
		wantError(t, err, llm.KindUnavailable)
	})
	t.Run("ErrTimeout", func(t *testing.T) {
		url := llmtest.Hang(t, llmtest.StallBeforeHeaders)
		p := llm.NewOpenAIWithTimeouts(nil, llm.Timeouts{Headers: 100 * time.Millisecond})
		_, err := p.Models(context.Background(), llm.Settings{BaseURL: url, APIKey: secretKey})
		wantError(t, err, llm.KindHeadersTimeout)
	})
}

func TestPing(t *testing.T) {
	t.Run("OK", func(t *testing.T) {
		f := llmtest.New(t)
		f.Push(llmtest.Reply{Chunks: []string{"Hi"}, FinishReason: "length"})
		got, err := llm.NewOpenAI(nil).Ping(context.Background(), llm.Settings{BaseURL: f.URL(), APIKey: secretKey, Model: "m1", MaxOutputTokens: 600})
		if err != nil {
			t.Fatal(err)
		}
		if got.Model != "m1" || got.Latency <= 0 {
			t.Errorf("ping = %+v, want model m1 and a latency", got)
		}
		reqs := f.Requests()
		if len(reqs) != 1 || reqs[0].Stream || reqs[0].MaxTokens == nil || *reqs[0].MaxTokens != 1 || reqs[0].Model != "m1" {
			t.Fatalf("requests = %+v, want one unstreamed completion of max_tokens 1 to m1", reqs)
		}
	})
	t.Run("ErrModelNotFound", func(t *testing.T) {
		f := llmtest.New(t)
		f.Push(llmtest.Reply{Status: http.StatusNotFound, ErrorBody: `{"error":{"message":"model 'nope' not found, key ` + secretKey + `"}}`})
		_, err := llm.NewOpenAI(nil).Ping(context.Background(), llm.Settings{BaseURL: f.URL(), APIKey: secretKey, Model: "nope"})
		if le := wantError(t, err, llm.KindBadRequest); le.Status != http.StatusNotFound {
			t.Errorf("status = %d, want 404", le.Status)
		}
		if strings.Contains(err.Error(), secretKey) {
			t.Errorf("error leaks the key: %v", err)
		}
	})
	t.Run("ErrUnauthorized", func(t *testing.T) {
		f := llmtest.New(t)
		f.Push(llmtest.Reply{Status: http.StatusUnauthorized})
		_, err := llm.NewOpenAI(nil).Ping(context.Background(), llm.Settings{BaseURL: f.URL(), APIKey: secretKey, Model: "m1"})
		wantError(t, err, llm.KindAuth)
	})
	t.Run("ErrTimeout", func(t *testing.T) {
		url := llmtest.Hang(t, llmtest.StallBeforeHeaders)
		p := llm.NewOpenAIWithTimeouts(nil, llm.Timeouts{Headers: 100 * time.Millisecond})
		_, err := p.Ping(context.Background(), llm.Settings{BaseURL: url, APIKey: secretKey, Model: "m1"})
		wantError(t, err, llm.KindHeadersTimeout)
	})
}
