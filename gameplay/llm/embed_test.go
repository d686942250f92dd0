package llm_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/adventure-table/adventure-table/gameplay/llm"
	"github.com/adventure-table/adventure-table/gameplay/llm/llmtest"
)

func embedSettings(baseURL string) llm.Settings {
	return llm.Settings{BaseURL: baseURL, Model: "embed-model", APIKey: secretKey}
}

func float32s(v []float64) []float32 {
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(x)
	}
	return out
}

// embedServer answers every embeddings request with body, whatever was asked.
func embedServer(t *testing.T, status int, body string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1"
}

func wantError(t *testing.T, err error, kind string) *llm.Error {
	t.Helper()
	var le *llm.Error
	if !errors.As(err, &le) || le.Kind != kind {
		t.Fatalf("err = %v, want an *llm.Error of kind %q", err, kind)
	}
	if strings.Contains(err.Error(), secretKey) {
		t.Fatalf("error leaks the API key: %v", err)
	}
	return le
}

func TestEmbedAgainstFake(t *testing.T) {
	f := llmtest.New(t)
	texts := []string{"The goblin guards the bridge.", "Bread at the market."}
	got, err := llm.NewOpenAI(nil).Embed(context.Background(), embedSettings(f.URL()), texts)
	if err != nil {
		t.Fatalf("Embed: %v", err)
	}
	want := [][]float32{
		float32s(llmtest.Embedding(texts[0], llmtest.EmbeddingDims)),
		float32s(llmtest.Embedding(texts[1], llmtest.EmbeddingDims)),
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("vectors (-want +got):\n%s", d)
	}
	reqs := f.Requests()
	if len(reqs) != 1 {
		t.Fatalf("got %d requests, want 1", len(reqs))
	}
	r := reqs[0]
	if r.Path != "/v1/embeddings" || r.Model != "embed-model" || !cmp.Equal(r.Inputs, texts) {
		t.Errorf("request path=%q model=%q inputs=%q", r.Path, r.Model, r.Inputs)
	}
	if r.Authorization != "Bearer "+secretKey {
		t.Errorf("authorization header not sent as bearer key")
	}
}

// The answer's order is the index field's, not the array's.
func TestEmbedOrdersByIndex(t *testing.T) {
	url := embedServer(t, http.StatusOK, `{"object":"list","model":"m","usage":{"prompt_tokens":3,"total_tokens":3},"data":[
		{"object":"embedding","index":2,"embedding":[2,2.5]},
		{"object":"embedding","index":0,"embedding":[0,0.5]},
		{"object":"embedding","index":1,"embedding":[1,1.5]}]}`)
	got, err := llm.NewOpenAI(nil).Embed(context.Background(), embedSettings(url), []string{"a", "b", "c"})
	if err != nil {
		t.Fatalf("Embed: %v", err)
	}
	if d := cmp.Diff([][]float32{{0, 0.5}, {1, 1.5}, {2, 2.5}}, got); d != "" {
		t.Errorf("vectors (-want +got):\n%s", d)
	}
}

func TestEmbedHTTPErrors(t *testing.T) {
	for _, tc := range []struct {
		status int
		kind   string
	}{
		{http.StatusUnauthorized, llm.KindAuth},
		{http.StatusTooManyRequests, llm.KindRateLimited},
		{http.StatusBadRequest, llm.KindBadRequest},
		{http.StatusInternalServerError, llm.KindUnavailable},
	} {
		f := llmtest.New(t)
		f.FailEmbeddings(tc.status)
		_, err := llm.NewOpenAI(nil).Embed(context.Background(), embedSettings(f.URL()), []string{"x"})
		if le := wantError(t, err, tc.kind); le.Status != tc.status {
			t.Errorf("status %d: Error.Status = %d", tc.status, le.Status)
		}
	}
}

// An endpoint that echoes the key in its error message does not get it into
// the error.
func TestEmbedErrorRedactsKey(t *testing.T) {
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": "Incorrect API key provided: " + secretKey}})
	url := embedServer(t, http.StatusUnauthorized, string(b))
	_, err := llm.NewOpenAI(nil).Embed(context.Background(), embedSettings(url), []string{"x"})
	le := wantError(t, err, llm.KindAuth)
	if !strings.Contains(le.Message, "[redacted]") {
		t.Errorf("message = %q, want the key redacted", le.Message)
	}
}

func TestEmbedMalformedAnswers(t *testing.T) {
	for name, data := range map[string]string{
		"too few":          `[{"object":"embedding","index":0,"embedding":[1]}]`,
		"repeated index":   `[{"object":"embedding","index":0,"embedding":[1]},{"object":"embedding","index":0,"embedding":[2]}]`,
		"index past end":   `[{"object":"embedding","index":0,"embedding":[1]},{"object":"embedding","index":2,"embedding":[2]}]`,
		"mixed dimensions": `[{"object":"embedding","index":0,"embedding":[1]},{"object":"embedding","index":1,"embedding":[2,3]}]`,
	} {
		t.Run(name, func(t *testing.T) {
			url := embedServer(t, http.StatusOK, `{"object":"list","model":"m","usage":{"prompt_tokens":2,"total_tokens":2},"data":`+data+`}`)
			got, err := llm.NewOpenAI(nil).Embed(context.Background(), embedSettings(url), []string{"a", "b"})
			wantError(t, err, llm.KindUnavailable)
			if got != nil {
				t.Errorf("got vectors %v with the error", got)
			}
		})
	}
}

func TestEmbedRefusesWithoutSending(t *testing.T) {
	f := llmtest.New(t)
	p := llm.NewOpenAI(nil)
	_, err := p.Embed(context.Background(), embedSettings(f.URL()), nil)
	wantError(t, err, llm.KindBadRequest)
	noModel := embedSettings(f.URL())
	noModel.Model = ""
	_, err = p.Embed(context.Background(), noModel, []string{"x"})
	wantError(t, err, llm.KindBadRequest)
	if n := len(f.Requests()); n != 0 {
		t.Fatalf("the fake received %d requests", n)
	}
}

func TestEmbedCanceled(t *testing.T) {
	url := llmtest.Hang(t, llmtest.StallBeforeHeaders)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	_, err := llm.NewOpenAI(nil).Embed(ctx, embedSettings(url), []string{"x"})
	wantError(t, err, llm.KindCanceled)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want it to wrap context.Canceled", err)
	}
}

// The call's own time limits bound an embedding as they bound a stream.
func TestEmbedHeadersTimeout(t *testing.T) {
	url := llmtest.Hang(t, llmtest.StallBeforeHeaders)
	p := llm.NewOpenAIWithTimeouts(nil, llm.Timeouts{Headers: 100 * time.Millisecond})
	_, err := p.Embed(context.Background(), embedSettings(url), []string{"x"})
	wantError(t, err, llm.KindHeadersTimeout)
}
