package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/adventure-table/adventure-table/gameplay/llm/llmtest"
)

const demoTestKey = "sk-demo-cmd-SERVER-FUNDED-0123456789"

// The demo narrator's configuration: all of AT_DEMO_* or none, one line
// naming the variable at fault, and never the key in it.
func TestLoadConfigDemo(t *testing.T) {
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "demo-key")
	if err := os.WriteFile(keyFile, []byte(demoTestKey+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	secret := strings.Repeat("s", 40)
	full := func(extra map[string]string) map[string]string {
		env := map[string]string{"AT_DEMO_BASE_URL": "https://demo.example/v1", "AT_DEMO_MODELS": "small, large", "AT_DEMO_API_KEY": demoTestKey}
		for k, v := range extra {
			if v == "-" {
				delete(env, k)
			} else {
				env[k] = v
			}
		}
		return env
	}
	hosted := map[string]string{"AT_MODE": "hosted", "AT_SECRET": secret, "AT_TLS_PROXY": "1"}
	with := func(a, b map[string]string) map[string]string {
		out := map[string]string{}
		for k, v := range a {
			out[k] = v
		}
		for k, v := range b {
			out[k] = v
		}
		return out
	}
	tests := []struct {
		name    string
		env     map[string]string
		args    []string
		wantErr string
		check   func(t *testing.T, c Config)
	}{
		{name: "OKNone", env: nil, check: func(t *testing.T, c Config) {
			if c.Demo != nil {
				t.Fatalf("demo %v without AT_DEMO_*", c.Demo)
			}
		}},
		{name: "OKFull", env: full(nil), check: func(t *testing.T, c Config) {
			d := c.Demo
			if d == nil || d.BaseURL != "https://demo.example/v1" || strings.Join(d.Models, "|") != "small|large" || d.APIKey != demoTestKey || d.DailyTokens != 20000 {
				t.Fatalf("demo %+v", d)
			}
		}},
		{name: "OKKeyFileAndBudget", env: full(map[string]string{"AT_DEMO_API_KEY": "-", "AT_DEMO_API_KEY_FILE": keyFile, "AT_DEMO_DAILY_TOKENS": "5000"}), check: func(t *testing.T, c Config) {
			if c.Demo == nil || c.Demo.APIKey != demoTestKey || c.Demo.DailyTokens != 5000 {
				t.Fatalf("demo %v", c.Demo)
			}
		}},
		{name: "OKFlags", args: []string{"-demo-base-url", "https://demo.example/v1", "-demo-models", "m", "-demo-api-key-file", keyFile}, check: func(t *testing.T, c Config) {
			if c.Demo == nil || c.Demo.Models[0] != "m" || c.Demo.APIKey != demoTestKey {
				t.Fatalf("demo %v", c.Demo)
			}
		}},
		{name: "OKHostedHTTPS", env: with(hosted, full(nil)), check: func(t *testing.T, c Config) {
			if c.Demo == nil {
				t.Fatal("no demo")
			}
		}},
		{name: "OKLocalHTTP", env: full(map[string]string{"AT_DEMO_BASE_URL": "http://127.0.0.1:11434/v1"}), check: func(t *testing.T, c Config) {
			if c.Demo == nil || c.Demo.BaseURL != "http://127.0.0.1:11434/v1" {
				t.Fatalf("demo %v", c.Demo)
			}
		}},
		{name: "ErrOnlyBudget", env: map[string]string{"AT_DEMO_DAILY_TOKENS": "100"}, wantErr: "AT_DEMO_BASE_URL"},
		{name: "ErrOnlyKey", env: map[string]string{"AT_DEMO_API_KEY": demoTestKey}, wantErr: "AT_DEMO_BASE_URL"},
		{name: "ErrNoModels", env: full(map[string]string{"AT_DEMO_MODELS": "-"}), wantErr: "AT_DEMO_MODELS"},
		{name: "ErrNoKey", env: full(map[string]string{"AT_DEMO_API_KEY": "-"}), wantErr: "AT_DEMO_API_KEY"},
		{name: "ErrBothKeys", env: full(map[string]string{"AT_DEMO_API_KEY_FILE": keyFile}), wantErr: "AT_DEMO_API_KEY_FILE"},
		{name: "ErrKeyFileMissing", env: full(map[string]string{"AT_DEMO_API_KEY": "-", "AT_DEMO_API_KEY_FILE": filepath.Join(dir, "none")}), wantErr: "AT_DEMO_API_KEY_FILE"},
		{name: "ErrKeyFileEmpty", env: full(map[string]string{"AT_DEMO_API_KEY": "-", "AT_DEMO_API_KEY_FILE": empty}), wantErr: "AT_DEMO_API_KEY_FILE"},
		{name: "ErrKeyWithSpace", env: full(map[string]string{"AT_DEMO_API_KEY": demoTestKey + " x"}), wantErr: "AT_DEMO_API_KEY"},
		{name: "ErrURLScheme", env: full(map[string]string{"AT_DEMO_BASE_URL": "ftp://demo.example/v1"}), wantErr: "AT_DEMO_BASE_URL"},
		{name: "ErrURLCredentials", env: full(map[string]string{"AT_DEMO_BASE_URL": "https://user:" + demoTestKey + "@demo.example/v1"}), wantErr: "AT_DEMO_BASE_URL"},
		{name: "ErrURLQuery", env: full(map[string]string{"AT_DEMO_BASE_URL": "https://demo.example/v1?key=" + demoTestKey}), wantErr: "AT_DEMO_BASE_URL"},
		{name: "ErrURLNoHost", env: full(map[string]string{"AT_DEMO_BASE_URL": "https:///v1"}), wantErr: "AT_DEMO_BASE_URL"},
		{name: "ErrHostedPlainHTTP", env: with(hosted, full(map[string]string{"AT_DEMO_BASE_URL": "http://demo.example/v1"})), wantErr: "AT_DEMO_BASE_URL"},
		{name: "ErrModelsEmptyEntry", env: full(map[string]string{"AT_DEMO_MODELS": "small,,large"}), wantErr: "AT_DEMO_MODELS"},
		{name: "ErrModelsDuplicate", env: full(map[string]string{"AT_DEMO_MODELS": "small,small"}), wantErr: "AT_DEMO_MODELS"},
		{name: "ErrModelsSpace", env: full(map[string]string{"AT_DEMO_MODELS": "small model"}), wantErr: "AT_DEMO_MODELS"},
		{name: "ErrBudgetZero", env: full(map[string]string{"AT_DEMO_DAILY_TOKENS": "0"}), wantErr: "AT_DEMO_DAILY_TOKENS"},
		{name: "ErrBudgetWord", env: full(map[string]string{"AT_DEMO_DAILY_TOKENS": "lots"}), wantErr: "AT_DEMO_DAILY_TOKENS"},
		{name: "OKPreviousSecret", env: map[string]string{"AT_SECRET": secret, "AT_SECRET_PREVIOUS": strings.Repeat("p", 40)}, check: func(t *testing.T, c Config) {
			if c.SecretPrevious != strings.Repeat("p", 40) {
				t.Fatal("previous secret not kept")
			}
		}},
		{name: "ErrPreviousSecretShort", env: map[string]string{"AT_SECRET": secret, "AT_SECRET_PREVIOUS": "short"}, wantErr: "AT_SECRET_PREVIOUS"},
		{name: "ErrPreviousSecretSame", env: map[string]string{"AT_SECRET": secret, "AT_SECRET_PREVIOUS": secret}, wantErr: "AT_SECRET_PREVIOUS"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := LoadConfig(envFunc(tt.env), tt.args)
			if tt.wantErr != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tt.wantErr+":") {
					t.Fatalf("got %v, want an error naming %s", err, tt.wantErr)
				}
				if strings.ContainsAny(err.Error(), "\n\r") {
					t.Fatalf("error spans lines: %q", err)
				}
				if strings.Contains(err.Error(), demoTestKey) || strings.Contains(err.Error(), strings.Repeat("s", 40)) {
					t.Fatalf("the error shows a secret: %q", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s := fmt.Sprintf("%v %+v", c, c); strings.Contains(s, demoTestKey) {
				t.Fatalf("the printed config shows the demo key")
			}
			tt.check(t, c)
		})
	}
}

// demoClient is a browser: one cookie jar, JSON in and out.
type demoClient struct {
	t    *testing.T
	base string
	http *http.Client
	seen *strings.Builder // every response body and header, to search for the key
}

func (c *demoClient) do(method, path, body string) (*http.Response, []byte) {
	c.t.Helper()
	req, err := http.NewRequest(method, c.base+path, strings.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", c.base)
	res, err := c.http.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	fmt.Fprintf(c.seen, "%s %s -> %d %v\n%s\n", method, path, res.StatusCode, res.Header, b)
	return res, b
}

func (c *demoClient) json(method, path, body string, want int, v any) {
	c.t.Helper()
	res, b := c.do(method, path, body)
	if res.StatusCode != want {
		c.t.Fatalf("%s %s: %d %s", method, path, res.StatusCode, b)
	}
	if v != nil {
		if err := json.Unmarshal(b, v); err != nil {
			c.t.Fatalf("%s %s: %v in %s", method, path, err, b)
		}
	}
}

// turn plays a turn over the real route and returns the last event.
func (c *demoClient) turn(adv int64, text string) map[string]any {
	c.t.Helper()
	res, b := c.do("POST", fmt.Sprintf("/api/adventures/%d/turns", adv), fmt.Sprintf(`{"mode":"do","text":%q}`, text))
	if res.StatusCode != http.StatusOK {
		c.t.Fatalf("turn: %d %s", res.StatusCode, b)
	}
	var last map[string]any
	sc := bufio.NewScanner(strings.NewReader(string(b)))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			last = nil
			if err := json.Unmarshal([]byte(data), &last); err != nil {
				c.t.Fatal(err)
			}
		}
	}
	return last
}

// A server with a demo narrator, end to end: a new visitor plays on it
// with no key, the server's key reaches only the demo endpoint, the budget
// answers 429 with Retry-After, and the key is in no response, header or
// log line; the user's own key stays write-only in every settings answer.
func TestServeDemoNarrator(t *testing.T) {
	fake := llmtest.New(t)
	fake.Respond(func(r llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Chunks: []string{"The hall is cold and dark."}, FinishReason: "stop", Usage: &llmtest.Usage{Prompt: 300, Completion: 100}}
	})
	rs := mustServe(t, map[string]string{"AT_DEMO_BASE_URL": fake.URL(), "AT_DEMO_MODELS": "demo-small,demo-large",
		"AT_DEMO_API_KEY": demoTestKey, "AT_DEMO_DAILY_TOKENS": "500", "AT_LOG_FORMAT": "json"})
	jar, _ := cookiejar.New(nil)
	c := &demoClient{t: t, base: "http://" + rs.addr, http: &http.Client{Jar: jar}, seen: &strings.Builder{}}

	type demoView struct {
		Available   bool     `json:"available"`
		InUse       bool     `json:"in_use"`
		Models      []string `json:"models"`
		DailyTokens int64    `json:"daily_tokens"`
		UsedToday   int64    `json:"used_today"`
	}
	type settings struct {
		APIKeySet bool      `json:"api_key_set"`
		Model     string    `json:"model"`
		Demo      *demoView `json:"demo"`
	}
	var s settings
	c.json("GET", "/api/solo/settings", "", 200, &s)
	if s.Demo == nil || !s.Demo.Available || !s.Demo.InUse || s.Demo.DailyTokens != 500 || strings.Join(s.Demo.Models, ",") != "demo-small,demo-large" {
		t.Fatalf("settings %+v demo %+v", s, s.Demo)
	}
	var sc struct {
		ID int64 `json:"id"`
	}
	c.json("POST", "/api/scenarios", `{"title":"The Hall","premise":"A cold hall.","plot_essentials":"","ai_instructions":"","authors_note":"","opening":"You stand in a hall.","stat_schema":{},"cards":[],"scripts":{"library":"","input":"","context":"","output":""}}`, 201, &sc)
	var page struct {
		Adventure struct {
			ID int64 `json:"id"`
		} `json:"adventure"`
	}
	c.json("POST", fmt.Sprintf("/api/scenarios/%d/play", sc.ID), `{"persona_name":"Ash","persona_pronouns":"","persona_desc":""}`, 201, &page)
	adv := page.Adventure.ID

	for i, want := range []int64{400, 800} {
		if last := c.turn(adv, fmt.Sprintf("look %d", i)); last["type"] != "done" {
			t.Fatalf("turn %d: %v", i, last)
		}
		c.json("GET", "/api/solo/settings", "", 200, &s)
		if s.Demo.UsedToday != want {
			t.Fatalf("used today %d, want %d", s.Demo.UsedToday, want)
		}
	}
	for _, r := range fake.Requests() {
		if r.Authorization != "Bearer "+demoTestKey || r.Model != "demo-small" {
			t.Fatalf("demo request %q %q", r.Authorization, r.Model)
		}
	}
	// Over the budget: 429 before any stream, with Retry-After.
	res, b := c.do("POST", fmt.Sprintf("/api/adventures/%d/turns", adv), `{"mode":"do","text":"again"}`)
	var body struct {
		Error struct {
			Code    string         `json:"code"`
			Details map[string]any `json:"details"`
		} `json:"error"`
	}
	_ = json.Unmarshal(b, &body)
	wait, _ := strconv.Atoi(res.Header.Get("Retry-After"))
	if res.StatusCode != http.StatusTooManyRequests || body.Error.Code != "demo_budget_exhausted" || wait < 1 || wait > 86400 ||
		body.Error.Details["retry_after_seconds"] != float64(wait) {
		t.Fatalf("over budget: %d Retry-After %q %s", res.StatusCode, res.Header.Get("Retry-After"), b)
	}
	if n := len(fake.Requests()); n != 2 {
		t.Fatalf("the demo got %d requests, want 2", n)
	}
	res, b = c.do("POST", fmt.Sprintf("/api/adventures/%d/retry", adv), `{}`)
	if res.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("retry over budget: %d %s", res.StatusCode, b)
	}

	// The user's own key: write-only in every answer that carries settings.
	userKey := "sk-user-own-KEY-5555555555"
	c.json("PUT", "/api/solo/settings", fmt.Sprintf(`{"base_url":"http://127.0.0.1:11434/v1","model":"demo-large","api_key":%q,"context_budget":4000,"max_output_tokens":400,"temperature":0.8,"top_p":0.95}`, userKey), 200, &s)
	if !s.APIKeySet || s.Demo.InUse {
		t.Fatalf("after saving a key: %+v %+v", s, s.Demo)
	}
	c.json("GET", "/api/solo/settings", "", 200, &s)
	c.json("PUT", "/api/solo/settings", `{"base_url":"http://127.0.0.1:11434/v1","model":"demo-large","context_budget":4000,"max_output_tokens":400,"temperature":0.8,"top_p":0.95}`, 200, &s)
	if !s.APIKeySet {
		t.Fatal("omitting api_key cleared it")
	}
	if err := rs.stop(); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"responses": c.seen.String(), "stdout": rs.stdout.String(), "stderr": rs.stderr.String()} {
		for _, secret := range []string{demoTestKey, userKey, "SERVER-FUNDED", "enc2:"} {
			if strings.Contains(out, secret) {
				t.Fatalf("%s show %q", name, secret)
			}
		}
	}
	if !strings.Contains(rs.stderr.String(), "demo narrator on") {
		t.Fatalf("the log does not say the demo is on:\n%s", rs.stderr)
	}
}
