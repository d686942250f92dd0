package llm_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/adventure-table/adventure-table/gameplay/llm"
	"github.com/adventure-table/adventure-table/gameplay/llm/llmtest"
)

const secretKey = "sk-test-ZEBRA-7f3a9c1e-do-not-leak"

func settings(f *llmtest.Fake) llm.Settings {
	return llm.Settings{
		BaseURL:         f.URL(),
		Model:           "test-model",
		APIKey:          secretKey,
		MaxOutputTokens: 321,
		Temperature:     0.7,
		TopP:            0.9,
	}
}

var request = llm.Request{Messages: []llm.Message{
	{Role: "system", Content: "You are the narrator."},
	{Role: "user", Content: "I open the door."},
	{Role: "assistant", Content: "It creaks."},
	{Role: "user", Content: "I step through."},
}}

func collect(events *[]llm.Event) func(llm.Event) {
	return func(e llm.Event) { *events = append(*events, e) }
}

func TestStreamTextReasoningUsage(t *testing.T) {
	f := llmtest.New(t)
	f.Push(llmtest.Reply{
		Reasoning:    []string{"Think ", "hard."},
		Chunks:       []string{"The ", "hall ", "is dark."},
		FinishReason: "stop",
		Usage:        &llmtest.Usage{Prompt: 100, Completion: 7, Cached: 64},
		KeepAlive:    true,
	})
	var events []llm.Event
	res, err := llm.NewOpenAI(nil).Stream(context.Background(), settings(f), request, collect(&events))
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	wantEvents := []llm.Event{
		{Kind: "reasoning", Text: "Think "},
		{Kind: "reasoning", Text: "hard."},
		{Kind: "chunk", Text: "The "},
		{Kind: "chunk", Text: "hall "},
		{Kind: "chunk", Text: "is dark."},
	}
	if d := cmp.Diff(wantEvents, events); d != "" {
		t.Errorf("events (-want +got):\n%s", d)
	}
	want := llm.Result{
		Text: "The hall is dark.", Reasoning: "Think hard.", FinishReason: "stop",
		PromptTokens: 100, CompletionTokens: 7, CachedPromptTokens: 64,
	}
	if d := cmp.Diff(want, res); d != "" {
		t.Errorf("result (-want +got):\n%s", d)
	}
}

func TestOllamaReasoningField(t *testing.T) {
	f := llmtest.New(t)
	f.Push(llmtest.Reply{Reasoning: []string{"hmm"}, ReasoningField: "reasoning", Chunks: []string{"ok"}, FinishReason: "stop"})
	var events []llm.Event
	res, err := llm.NewOpenAI(nil).Stream(context.Background(), settings(f), request, collect(&events))
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	if res.Reasoning != "hmm" || res.Text != "ok" || res.Truncated {
		t.Errorf("got %+v", res)
	}
	if len(events) != 2 || events[0].Kind != llm.EventReasoning || events[1].Kind != llm.EventChunk {
		t.Errorf("events = %+v", events)
	}
}

func TestRequestCarriesSettings(t *testing.T) {
	f := llmtest.New(t)
	f.Push(llmtest.Reply{Chunks: []string{"x"}, FinishReason: "stop"})
	if _, err := llm.NewOpenAI(nil).Stream(context.Background(), settings(f), request, nil); err != nil {
		t.Fatalf("Stream: %v", err)
	}
	reqs := f.Requests()
	if len(reqs) != 1 {
		t.Fatalf("got %d requests, want 1", len(reqs))
	}
	r := reqs[0]
	if r.Model != "test-model" || !r.Stream {
		t.Errorf("model=%q stream=%v", r.Model, r.Stream)
	}
	if r.Temperature == nil || *r.Temperature != 0.7 {
		t.Errorf("temperature = %v", r.Temperature)
	}
	if r.TopP == nil || *r.TopP != 0.9 {
		t.Errorf("top_p = %v", r.TopP)
	}
	if r.MaxTokens == nil || *r.MaxTokens != 321 {
		t.Errorf("max_tokens = %v", r.MaxTokens)
	}
	if r.StreamOptions == nil || !r.StreamOptions.IncludeUsage {
		t.Errorf("stream_options = %+v", r.StreamOptions)
	}
	if r.Authorization != "Bearer "+secretKey {
		t.Errorf("authorization header not sent as bearer key")
	}
	wantMsgs := []llmtest.Message{
		{Role: "system", Content: "You are the narrator."},
		{Role: "user", Content: "I open the door."},
		{Role: "assistant", Content: "It creaks."},
		{Role: "user", Content: "I step through."},
	}
	if d := cmp.Diff(wantMsgs, r.Messages); d != "" {
		t.Errorf("messages (-want +got):\n%s", d)
	}
}

// reasoning_effort is sent when set and absent from the body when not, so
// endpoints that do not know it never see it.
func TestReasoningEffortSentOnlyWhenSet(t *testing.T) {
	for _, effort := range []string{"", "low", "high"} {
		t.Run("effort="+effort, func(t *testing.T) {
			f := llmtest.New(t)
			f.Push(llmtest.Reply{Chunks: []string{"x"}, FinishReason: "stop"})
			s := settings(f)
			s.ReasoningEffort = effort
			if _, err := llm.NewOpenAI(nil).Stream(context.Background(), s, request, nil); err != nil {
				t.Fatalf("Stream: %v", err)
			}
			r := f.Requests()[0]
			if r.ReasoningEffort != effort {
				t.Errorf("reasoning_effort = %q, want %q", r.ReasoningEffort, effort)
			}
			if sent := strings.Contains(string(r.Raw), `"reasoning_effort"`); sent != (effort != "") {
				t.Errorf("reasoning_effort in the body = %v, want %v: %s", sent, effort != "", r.Raw)
			}
		})
	}
}

func TestZeroSamplingValuesAreStillSent(t *testing.T) {
	f := llmtest.New(t)
	f.Push(llmtest.Reply{Chunks: []string{"x"}, FinishReason: "stop"})
	s := settings(f)
	s.Temperature, s.TopP = 0, 0
	if _, err := llm.NewOpenAI(nil).Stream(context.Background(), s, request, nil); err != nil {
		t.Fatalf("Stream: %v", err)
	}
	r := f.Requests()[0]
	if r.Temperature == nil || *r.Temperature != 0 || r.TopP == nil || *r.TopP != 0 {
		t.Errorf("temperature=%v top_p=%v, want both sent as 0", r.Temperature, r.TopP)
	}
}

func TestFinishLengthIsTruncated(t *testing.T) {
	f := llmtest.New(t)
	f.Push(llmtest.Reply{Chunks: []string{"Once upon"}, FinishReason: "length"})
	res, err := llm.NewOpenAI(nil).Stream(context.Background(), settings(f), request, nil)
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	if res.FinishReason != "length" || !res.Truncated || res.Text != "Once upon" {
		t.Errorf("got %+v", res)
	}
}

func TestDroppedStreamIsTruncated(t *testing.T) {
	f := llmtest.New(t)
	f.Push(llmtest.Reply{Chunks: []string{"Half ", "a story"}, DropWithoutDone: true, Usage: &llmtest.Usage{Prompt: 1}})
	var events []llm.Event
	res, err := llm.NewOpenAI(nil).Stream(context.Background(), settings(f), request, collect(&events))
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	if res.FinishReason != "" || !res.Truncated || res.Text != "Half a story" {
		t.Errorf("got %+v", res)
	}
	if len(events) != 2 {
		t.Errorf("events = %+v", events)
	}
}

func TestHTTPErrorKinds(t *testing.T) {
	cases := []struct {
		status int
		kind   string
	}{
		{http.StatusUnauthorized, llm.KindAuth},
		{http.StatusForbidden, llm.KindAuth},
		{http.StatusTooManyRequests, llm.KindRateLimited},
		{http.StatusBadRequest, llm.KindBadRequest},
		{http.StatusNotFound, llm.KindBadRequest},
		{http.StatusInternalServerError, llm.KindUnavailable},
		{http.StatusServiceUnavailable, llm.KindUnavailable},
	}
	for _, tc := range cases {
		t.Run(http.StatusText(tc.status), func(t *testing.T) {
			f := llmtest.New(t)
			// The provider echoes the key, as some real ones do.
			f.Push(llmtest.Reply{Status: tc.status,
				ErrorBody: `{"error":{"message":"Incorrect API key provided: ` + secretKey + `","type":"invalid_request_error","code":"x"}}`})
			res, err := llm.NewOpenAI(nil).Stream(context.Background(), settings(f), request, nil)
			var le *llm.Error
			if !errors.As(err, &le) {
				t.Fatalf("err = %v (%T), want *llm.Error", err, err)
			}
			if le.Kind != tc.kind || le.Status != tc.status {
				t.Errorf("kind=%q status=%d, want %q %d", le.Kind, le.Status, tc.kind, tc.status)
			}
			if strings.Contains(err.Error(), secretKey) || strings.Contains(err.Error(), "ZEBRA") {
				t.Errorf("error leaks the API key: %s", err)
			}
			if !strings.Contains(err.Error(), "Incorrect API key provided") {
				t.Errorf("error lost the provider message: %s", err)
			}
			if res.Text != "" {
				t.Errorf("result text = %q", res.Text)
			}
			if n := len(f.Requests()); n != 1 {
				t.Errorf("got %d HTTP requests, want exactly 1 (no retries)", n)
			}
		})
	}
}

func TestMidStreamError(t *testing.T) {
	f := llmtest.New(t)
	f.Push(llmtest.Reply{Chunks: []string{"partial"}, MidStreamError: true, ErrorBody: "overloaded, key " + secretKey})
	res, err := llm.NewOpenAI(nil).Stream(context.Background(), settings(f), request, nil)
	var le *llm.Error
	if !errors.As(err, &le) || le.Kind != llm.KindStream {
		t.Fatalf("err = %v, want kind stream", err)
	}
	if strings.Contains(err.Error(), secretKey) {
		t.Errorf("error leaks the API key: %s", err)
	}
	if !strings.Contains(err.Error(), "overloaded") {
		t.Errorf("error lost the provider message: %s", err)
	}
	if res.Text != "partial" || !res.Truncated {
		t.Errorf("partial result = %+v", res)
	}
	if n := len(f.Requests()); n != 1 {
		t.Errorf("got %d HTTP requests, want 1", n)
	}
}

func TestConnectionRefusedIsUnavailable(t *testing.T) {
	// A closed listener: start a server and close it immediately.
	dead := llmtest.New(t)
	s := settings(dead)
	dead.Close()
	_, err := llm.NewOpenAI(nil).Stream(context.Background(), s, request, nil)
	var le *llm.Error
	if !errors.As(err, &le) || le.Kind != llm.KindUnavailable {
		t.Fatalf("err = %v, want kind unavailable", err)
	}
	if strings.Contains(err.Error(), secretKey) {
		t.Errorf("error leaks the API key: %s", err)
	}
}

func TestCancellationStopsSlowStream(t *testing.T) {
	f := llmtest.New(t)
	chunks := make([]string, 200)
	for i := range chunks {
		chunks[i] = "word "
	}
	f.Push(llmtest.Reply{Chunks: chunks, Delay: 50 * time.Millisecond, FinishReason: "stop"}) // ~10 s uncancelled

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	first := make(chan struct{})
	var got int
	type out struct {
		res llm.Result
		err error
	}
	done := make(chan out, 1)
	go func() {
		res, err := llm.NewOpenAI(nil).Stream(ctx, settings(f), request, func(llm.Event) {
			got++
			if got == 1 {
				close(first)
			}
		})
		done <- out{res, err}
	}()
	select {
	case <-first:
	case <-time.After(10 * time.Second):
		t.Fatal("no chunk arrived")
	}
	cancel()
	select {
	case o := <-done:
		var le *llm.Error
		if !errors.As(o.err, &le) || le.Kind != llm.KindCanceled {
			t.Errorf("err = %v, want kind canceled", o.err)
		}
		if !errors.Is(o.err, context.Canceled) {
			t.Errorf("err = %v, want errors.Is context.Canceled", o.err)
		}
		if len(o.res.Text) == 0 || len(o.res.Text) >= len(chunks)*len("word ") {
			t.Errorf("partial text length %d", len(o.res.Text))
		}
	case <-time.After(2 * time.Second):
		t.Fatal("Stream did not return promptly after cancel")
	}
}

func TestUnknownRoleRejectedLocally(t *testing.T) {
	f := llmtest.New(t)
	_, err := llm.NewOpenAI(nil).Stream(context.Background(), settings(f),
		llm.Request{Messages: []llm.Message{{Role: "narrator", Content: "x"}}}, nil)
	var le *llm.Error
	if !errors.As(err, &le) || le.Kind != llm.KindBadRequest {
		t.Fatalf("err = %v, want kind bad_request", err)
	}
	if n := len(f.Requests()); n != 0 {
		t.Errorf("got %d requests, want 0", n)
	}
}

func TestEnvironmentKeyNotSent(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-from-environment")
	t.Setenv("OPENAI_ORG_ID", "org-env")
	f := llmtest.New(t)
	f.Push(llmtest.Reply{Chunks: []string{"x"}, FinishReason: "stop"})
	s := settings(f)
	s.APIKey = ""
	if _, err := llm.NewOpenAI(nil).Stream(context.Background(), s, request, nil); err != nil {
		t.Fatalf("Stream: %v", err)
	}
	if a := f.Requests()[0].Authorization; a != "" {
		t.Errorf("Authorization = %q, want none", a)
	}
}
