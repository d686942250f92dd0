package webui_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/adventure-table/adventure-table/gameplay/llm/llmtest"
	"github.com/adventure-table/adventure-table/gameplay/table/tabletest"
)

// TestProviderProbesOverHTTP lists models and tests the connection of the
// caller's endpoint against the fake, with the saved settings and with the
// form's unsaved ones, and checks that the key appears in no answer or log.
func TestProviderProbesOverHTTP(t *testing.T) {
	f := newFixture(t, withSecret)
	srv := httptest.NewServer(f.handler)
	defer srv.Close()
	fake := llmtest.New(t)
	fake.SetModels(map[string]any{"id": "small"}, map[string]any{"id": "big", "max_model_len": 32768})
	me := tabletest.NewUser(t, f.services.Table, "Prober")
	key := "sk-probe-SECRET-123456789"
	narrateWith(t, srv, me, fake.URL(), map[string]any{"model": "small", "api_key": key})

	type model struct {
		ID            string `json:"id"`
		ContextLength int    `json:"context_length"`
	}
	list := decode[struct{ Models []model }](t, send(t, srv, me, "POST", "/api/solo/settings/models", `{}`), 200)
	if diff := cmp.Diff([]model{{ID: "big", ContextLength: 32768}, {ID: "small"}}, list.Models); diff != "" {
		t.Errorf("models (-want +got):\n%s", diff)
	}

	fake.Push(llmtest.Reply{Chunks: []string{"H"}, FinishReason: "length"})
	res := decode[struct {
		Model     string `json:"model"`
		LatencyMS int64  `json:"latency_ms"`
	}](t, send(t, srv, me, "POST", "/api/solo/settings/test", `{}`), 200)
	if res.Model != "small" || res.LatencyMS < 1 {
		t.Errorf("test = %+v, want model small and a latency", res)
	}
	reqs := fake.Requests()
	last := reqs[len(reqs)-1]
	if last.Authorization != "Bearer "+key || last.MaxTokens == nil || *last.MaxTokens != 1 {
		t.Errorf("test request = %+v, want the stored key and max_tokens 1", last)
	}

	// The form's unsaved model and key win over the saved ones.
	fake.Push(llmtest.Reply{Chunks: []string{"H"}, FinishReason: "length"})
	res = decode[struct {
		Model     string `json:"model"`
		LatencyMS int64  `json:"latency_ms"`
	}](t, send(t, srv, me, "POST", "/api/solo/settings/test", `{"model":"big","api_key":"sk-form-key-0000"}`), 200)
	reqs = fake.Requests()
	if last = reqs[len(reqs)-1]; res.Model != "big" || last.Authorization != "Bearer sk-form-key-0000" {
		t.Errorf("test with the form's values = %+v, request %+v", res, last)
	}

	dead := llmtest.New(t)
	deadURL := dead.URL()
	dead.Close()
	tests := []struct {
		name     string
		path     string
		body     string
		setup    func()
		status   int
		code     string
		reason   string
		contains string
	}{
		{name: "ErrUnauthorized", path: "/api/solo/settings/test", body: `{}`, setup: func() { fake.Push(llmtest.Reply{Status: 401}) }, status: 503, code: "provider_auth_failed"},
		{name: "ErrModelNotFound", path: "/api/solo/settings/test", body: `{"model":"nope"}`,
			setup: func() {
				fake.Push(llmtest.Reply{Status: 404, ErrorBody: `{"error":{"message":"model nope not found for ` + key + `"}}`})
			},
			status: 503, code: "provider_rejected", reason: "model_not_found", contains: "nope"},
		{name: "ErrUnreachable", path: "/api/solo/settings/test", body: fmt.Sprintf(`{"base_url":%q}`, deadURL), status: 503, code: "provider_unavailable"},
		{name: "ErrModelsUnauthorized", path: "/api/solo/settings/models", body: `{}`, setup: func() { fake.FailModels(403) }, status: 503, code: "provider_auth_failed"},
		{name: "ErrNoModelList", path: "/api/solo/settings/models", body: `{}`, setup: func() { fake.FailModels(404) }, status: 503, code: "provider_rejected", reason: "no_model_list"},
		{name: "ErrModelsUnreachable", path: "/api/solo/settings/models", body: fmt.Sprintf(`{"base_url":%q}`, deadURL), status: 503, code: "provider_unavailable"},
		{name: "ErrBadBaseURL", path: "/api/solo/settings/models", body: `{"base_url":"ftp://x"}`, status: 400, code: "provider_settings_invalid"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.setup != nil {
				tt.setup()
			}
			defer fake.FailModels(0)
			r := send(t, srv, me, "POST", tt.path, tt.body)
			body := decode[struct {
				Error struct {
					Code    string         `json:"code"`
					Message string         `json:"message"`
					Details map[string]any `json:"details"`
				} `json:"error"`
			}](t, r, tt.status)
			if body.Error.Code != tt.code {
				t.Errorf("code = %q, want %q", body.Error.Code, tt.code)
			}
			if tt.reason != "" && body.Error.Details["reason"] != tt.reason {
				t.Errorf("details = %v, want reason %q", body.Error.Details, tt.reason)
			}
			if !strings.Contains(body.Error.Message, tt.contains) || strings.Contains(body.Error.Message, key) {
				t.Errorf("message = %q, want it to contain %q and not the key", body.Error.Message, tt.contains)
			}
		})
	}
	if strings.Contains(f.logs.String(), key) {
		t.Error("the API key appears in the server log")
	}
	r := send(t, srv, me, "GET", "/api/solo/settings", "")
	b, _ := io.ReadAll(r.Body)
	r.Body.Close()
	if r.StatusCode != http.StatusOK || strings.Contains(string(b), key) {
		t.Errorf("settings = %d %s", r.StatusCode, b)
	}
}
