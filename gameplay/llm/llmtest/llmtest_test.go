package llmtest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/adventure-table/adventure-table/gameplay/llm/llmtest"
)

type embeddingsAnswer struct {
	Object string `json:"object"`
	Data   []struct {
		Object    string    `json:"object"`
		Index     int       `json:"index"`
		Embedding []float64 `json:"embedding"`
	} `json:"data"`
	Model string `json:"model"`
	Usage struct {
		PromptTokens int `json:"prompt_tokens"`
		TotalTokens  int `json:"total_tokens"`
	} `json:"usage"`
}

// post sends body to the fake's path and decodes a 200 answer into out.
func post(t *testing.T, f *llmtest.Fake, path, body string, out any) int {
	t.Helper()
	resp, err := http.Post(strings.TrimSuffix(f.URL(), "/v1")+path, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusOK && out != nil {
		if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
			t.Fatal(err)
		}
	}
	return resp.StatusCode
}

func cosine(a, b []float64) float64 {
	var dot, na, nb float64
	for i := range a {
		dot += a[i] * b[i]
		na += a[i] * a[i]
		nb += b[i] * b[i]
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}

func TestEmbeddingIsDeterministicAndNormalised(t *testing.T) {
	a := llmtest.Embedding("The Goblin King guards the bridge!", 64)
	if !cmp.Equal(a, llmtest.Embedding("the goblin king, guards the bridge", 64)) {
		t.Error("case and punctuation change the vector")
	}
	if n := cosine(a, a); math.Abs(n-1) > 1e-9 {
		t.Errorf("self-cosine = %v", n)
	}
	var norm float64
	for _, x := range a {
		norm += x * x
	}
	if math.Abs(norm-1) > 1e-9 {
		t.Errorf("squared norm = %v, want 1", norm)
	}
	for _, text := range []string{"", "the of and", "?!"} {
		if v := llmtest.Embedding(text, 64); !cmp.Equal(v, make([]float64, 64)) {
			t.Errorf("Embedding(%q) = %v, want the zero vector", text, v)
		}
	}
}

func TestRelatedTextsAreCloser(t *testing.T) {
	goblin := llmtest.Embedding("The goblin king guards the old stone bridge.", 64)
	related := llmtest.Embedding("A goblin waits under the bridge.", 64)
	unrelated := llmtest.Embedding("Merchants sell fresh bread in the market square.", 64)
	if r, u := cosine(goblin, related), cosine(goblin, unrelated); r <= u {
		t.Errorf("cosine(related) = %v, cosine(unrelated) = %v; want related higher", r, u)
	}
}

func TestEmbeddingsEndpoint(t *testing.T) {
	f := llmtest.New(t)
	var got embeddingsAnswer
	if st := post(t, f, "/v1/embeddings", `{"model":"nomic","input":["The goblin sleeps.","Bread"]}`, &got); st != http.StatusOK {
		t.Fatalf("status %d", st)
	}
	if got.Object != "list" || got.Model != "nomic" || len(got.Data) != 2 {
		t.Fatalf("answer = %+v", got)
	}
	for i, text := range []string{"The goblin sleeps.", "Bread"} {
		d := got.Data[i]
		if d.Object != "embedding" || d.Index != i || !cmp.Equal(d.Embedding, llmtest.Embedding(text, llmtest.EmbeddingDims)) {
			t.Errorf("data[%d] = %+v", i, d)
		}
	}
	if got.Usage.PromptTokens != 4 || got.Usage.TotalTokens != 4 {
		t.Errorf("usage = %+v, want 4 words", got.Usage)
	}

	// A single string is one input; the length follows SetEmbeddingDims.
	f.SetEmbeddingDims(8)
	got = embeddingsAnswer{}
	post(t, f, "/v1/embeddings", `{"model":"nomic","input":"goblin"}`, &got)
	if len(got.Data) != 1 || !cmp.Equal(got.Data[0].Embedding, llmtest.Embedding("goblin", 8)) {
		t.Errorf("single input answer = %+v", got)
	}

	reqs := f.Requests()
	if len(reqs) != 2 || reqs[0].Path != "/v1/embeddings" || reqs[0].Model != "nomic" ||
		!cmp.Equal(reqs[0].Inputs, []string{"The goblin sleeps.", "Bread"}) || !cmp.Equal(reqs[1].Inputs, []string{"goblin"}) {
		t.Errorf("requests = %+v", reqs)
	}
	if n := f.Count("/v1/embeddings"); n != 2 {
		t.Errorf("Count(embeddings) = %d", n)
	}
	if n := f.Count("/v1/chat/completions"); n != 0 {
		t.Errorf("Count(chat) = %d", n)
	}
}

func TestFailEmbeddings(t *testing.T) {
	f := llmtest.New(t)
	f.FailEmbeddings(http.StatusServiceUnavailable)
	if st := post(t, f, "/v1/embeddings", `{"model":"m","input":["x"]}`, nil); st != http.StatusServiceUnavailable {
		t.Errorf("status %d, want 503", st)
	}
	f.FailEmbeddings(0)
	if st := post(t, f, "/v1/embeddings", `{"model":"m","input":["x"]}`, nil); st != http.StatusOK {
		t.Errorf("status %d after FailEmbeddings(0), want 200", st)
	}
	if n := f.Count("/v1/embeddings"); n != 2 {
		t.Errorf("Count = %d, want the failed request recorded too", n)
	}
}

func chat(f *llmtest.Fake) *openai.Client {
	c := openai.NewClient(option.WithBaseURL(f.URL()), option.WithAPIKey("k"), option.WithMaxRetries(0))
	return &c
}

// A non-streamed request gets the reply as one message that the SDK reads.
func TestNonStreamedCompletion(t *testing.T) {
	f := llmtest.New(t)
	f.Push(llmtest.Reply{Reasoning: []string{"hm"}, Chunks: []string{"The hall ", "is dark."}, FinishReason: "stop",
		Usage: &llmtest.Usage{Prompt: 12, Completion: 4}})
	res, err := chat(f).Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{
		Model: "m", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Look.")},
	})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	if len(res.Choices) != 1 || res.Choices[0].Message.Content != "The hall is dark." || res.Choices[0].FinishReason != "stop" {
		t.Fatalf("choices = %+v", res.Choices)
	}
	if res.Usage.PromptTokens != 12 || res.Usage.CompletionTokens != 4 {
		t.Errorf("usage = %+v", res.Usage)
	}
	if raw := res.Choices[0].Message.JSON.ExtraFields["reasoning_content"].Raw(); raw != `"hm"` {
		t.Errorf("reasoning_content = %s", raw)
	}
	if r := f.Requests()[0]; r.Stream {
		t.Errorf("recorded as streamed")
	}
}

// Pushed replies go first; the responder answers the rest, seeing each
// request's messages.
func TestRespondAfterQueue(t *testing.T) {
	f := llmtest.New(t)
	f.Push(llmtest.Reply{Chunks: []string{"pushed"}, FinishReason: "stop"})
	var mu sync.Mutex
	var seen []string
	f.Respond(func(r llmtest.Request) llmtest.Reply {
		last := r.Messages[len(r.Messages)-1].Content
		mu.Lock()
		seen = append(seen, last)
		mu.Unlock()
		return llmtest.Reply{Chunks: []string{"echo: " + last}, FinishReason: "stop"}
	})
	c := chat(f)
	for i, want := range []string{"pushed", "echo: turn 1", "echo: turn 2"} {
		res, err := c.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{
			Model: "m", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(fmt.Sprintf("turn %d", i))},
		})
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		if got := res.Choices[0].Message.Content; got != want {
			t.Errorf("request %d answered %q, want %q", i, got, want)
		}
	}
	if !cmp.Equal(seen, []string{"turn 1", "turn 2"}) {
		t.Errorf("responder saw %q", seen)
	}
	if n := f.Count("/v1/chat/completions"); n != 3 {
		t.Errorf("Count = %d, want 3", n)
	}
}

// errorsTB records Errorf instead of failing the test.
type errorsTB struct {
	testing.TB
	mu   sync.Mutex
	errs []string
}

func (e *errorsTB) Errorf(format string, args ...any) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.errs = append(e.errs, fmt.Sprintf(format, args...))
}

// Without a responder, an empty queue still fails the test and answers 500.
func TestEmptyQueueWithoutResponder(t *testing.T) {
	tb := &errorsTB{TB: t}
	f := llmtest.New(tb)
	if st := post(t, f, "/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"hi"}]}`, nil); st != http.StatusInternalServerError {
		t.Errorf("status %d, want 500", st)
	}
	tb.mu.Lock()
	defer tb.mu.Unlock()
	if len(tb.errs) != 1 || !strings.Contains(tb.errs[0], "no reply queued") {
		t.Errorf("test errors = %q", tb.errs)
	}
}

// TestTrackInFlight: two requests of one key answered at once count 2;
// a key whose requests come one after another counts 1.
func TestTrackInFlight(t *testing.T) {
	f := llmtest.New(t)
	f.TrackInFlight(func(r llmtest.Request) string { return r.Messages[0].Content })
	arrived := make(chan struct{}, 2)
	release := make(chan struct{})
	f.Respond(func(r llmtest.Request) llmtest.Reply {
		if r.Messages[0].Content == "a" {
			arrived <- struct{}{}
			<-release
		}
		return llmtest.Reply{Chunks: []string{"ok"}, FinishReason: "stop"}
	})
	c := chat(f)
	ask := func(key string) error {
		_, err := c.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{
			Model: "m", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(key)},
		})
		return err
	}
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	for range 2 {
		wg.Add(1)
		go func() { defer wg.Done(); errs <- ask("a") }()
	}
	<-arrived
	<-arrived // both "a" requests are being answered now
	for range 2 {
		if err := ask("b"); err != nil {
			t.Fatal(err)
		}
	}
	close(release)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if got := f.MaxInFlight(); !cmp.Equal(got, map[string]int{"a": 2, "b": 1}) {
		t.Errorf("MaxInFlight = %v", got)
	}
}
