package webui_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/adventure-table/adventure-table/gameplay"
	"github.com/adventure-table/adventure-table/mcp"
	"github.com/adventure-table/adventure-table/models"
	"github.com/adventure-table/adventure-table/models/apperr"
	"github.com/adventure-table/adventure-table/models/modelstest"
	"github.com/adventure-table/adventure-table/webui"
)

// syncBuffer collects log output from concurrent handlers.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

var testApp = fstest.MapFS{
	"index.html":             {Data: []byte(`<!doctype html><div id="root"></div><script src="/assets/index-abc123.js"></script>`)},
	"assets/index-abc123.js": {Data: []byte(`console.log("app")`)},
	"favicon.svg":            {Data: []byte(`<svg/>`)},
}

type fixture struct {
	handler http.Handler
	// server is the handler without the contract checker (benchmarks).
	server   http.Handler
	logs     *syncBuffer
	store    *models.Store
	services *gameplay.Services
}

var ctx = context.Background()

func newFixture(t testing.TB, mutate func(*webui.Options)) fixture {
	t.Helper()
	return newFixtureOn(t, modelstest.MustOpen(t), mutate)
}

// newFixtureOn is newFixture on a given store.
func newFixtureOn(t testing.TB, store *models.Store, mutate func(*webui.Options)) fixture {
	t.Helper()
	logs := &syncBuffer{}
	logger := slog.New(slog.NewJSONHandler(logs, nil))
	services := gameplay.New(store, gameplay.Options{Mode: "local", Logger: logger})
	opts := webui.Options{
		Services: services,
		Version:  "test",
		APIDocs:  true,
		MCP:      mcp.NewHandler(mcp.Options{Version: "test", Logger: logger}),
		Logger:   logger,
		App:      testApp,
	}
	if mutate != nil {
		mutate(&opts)
	}
	srv, err := webui.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return fixture{handler: checkContract(t, srv), server: srv, logs: logs, store: store, services: services}
}

func (f fixture) do(t *testing.T, method, path string, headers map[string]string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, path, nil)
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	f.handler.ServeHTTP(rec, req)
	return rec
}

func TestRoutes(t *testing.T) {
	f := newFixture(t, nil)
	html := map[string]string{"Accept": "text/html,application/xhtml+xml"}
	tests := []struct {
		name         string
		method, path string
		headers      map[string]string
		wantStatus   int
		wantCode     string
		wantContains string
		wantCache    string
	}{
		{name: "OKHealth", method: "GET", path: "/api/health", wantStatus: 200, wantContains: fmt.Sprintf(`"schema_version":%d`, models.LatestVersion())},
		{name: "OKCapabilities", method: "GET", path: "/api/meta/capabilities", wantStatus: 200, wantContains: `"combat":true`},
		{name: "OKOpenAPI", method: "GET", path: "/api/openapi.json", wantStatus: 200, wantContains: `"title": "Adventure Table API"`},
		{name: "OKDocsIsTheApp", method: "GET", path: "/api/docs", headers: html, wantStatus: 200, wantContains: `<div id="root">`, wantCache: "no-cache"},
		{name: "ErrUnknownAPIRoute", method: "GET", path: "/api/nope", wantStatus: 404, wantCode: "route_not_found"},
		{name: "ErrUnknownAPIRouteWantsHTML", method: "GET", path: "/api/nope", headers: html, wantStatus: 404, wantCode: "route_not_found"},
		{name: "ErrMethodNotAllowed", method: "POST", path: "/api/health", wantStatus: 405, wantCode: "method_not_allowed"},
		{name: "ErrMCPWithoutToken", method: "POST", path: "/mcp", wantStatus: 401, wantCode: "unauthorized"},
		{name: "OKAppRoot", method: "GET", path: "/", headers: html, wantStatus: 200, wantContains: `<div id="root">`, wantCache: "no-cache"},
		{name: "OKAppDeepLinkFallsBack", method: "GET", path: "/tables/42", headers: html, wantStatus: 200, wantContains: `<div id="root">`, wantCache: "no-cache"},
		{name: "OKHashedAssetImmutable", method: "GET", path: "/assets/index-abc123.js", wantStatus: 200, wantContains: `console.log`, wantCache: "public, max-age=31536000, immutable"},
		{name: "OKTopLevelFileRevalidated", method: "GET", path: "/favicon.svg", wantStatus: 200, wantContains: `<svg/>`, wantCache: "no-cache"},
		{name: "ErrMissingAssetIsNotHTML", method: "GET", path: "/assets/index-old.js", headers: html, wantStatus: 404, wantContains: "404 page not found"},
		{name: "ErrPostToAppRoute", method: "POST", path: "/tables", wantStatus: 404, wantCode: "route_not_found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := f.do(t, tt.method, tt.path, tt.headers)
			if rec.Code != tt.wantStatus {
				t.Fatalf("got status %d, want %d; body %s", rec.Code, tt.wantStatus, rec.Body)
			}
			if tt.wantCode != "" {
				var body webui.ErrorBody
				if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
					t.Fatalf("body is not an error JSON: %s", rec.Body)
				}
				if body.Error.Code != tt.wantCode || body.Error.Message == "" {
					t.Fatalf("got error %+v, want code %s with a message", body.Error, tt.wantCode)
				}
			}
			if tt.wantContains != "" && !strings.Contains(rec.Body.String(), tt.wantContains) {
				t.Errorf("body %q lacks %q", rec.Body.String(), tt.wantContains)
			}
			if tt.wantCache != "" && rec.Header().Get("Cache-Control") != tt.wantCache {
				t.Errorf("got Cache-Control %q, want %q", rec.Header().Get("Cache-Control"), tt.wantCache)
			}
		})
	}
}

func TestHostedModeHasNoDocs(t *testing.T) {
	f := newFixture(t, func(o *webui.Options) { o.APIDocs = false })
	rec := f.do(t, "GET", "/api/docs", map[string]string{"Accept": "text/html"})
	if rec.Code != 404 || !strings.Contains(rec.Body.String(), "route_not_found") {
		t.Fatalf("got %d %s, want 404 route_not_found", rec.Code, rec.Body)
	}
	rec = f.do(t, "GET", "/api/meta/capabilities", nil)
	if !strings.Contains(rec.Body.String(), `"api_docs":false`) {
		t.Fatalf("capabilities %s still offer docs", rec.Body)
	}
}

func TestHealthWhenDatabaseIsDown(t *testing.T) {
	f := newFixture(t, nil)
	f.store.Close()
	rec := f.do(t, "GET", "/api/health", nil)
	if rec.Code != http.StatusServiceUnavailable || !strings.Contains(rec.Body.String(), `"code":"database_unavailable"`) {
		t.Fatalf("got %d %s, want 503 database_unavailable", rec.Code, rec.Body)
	}
}

func TestAppNotBuilt(t *testing.T) {
	f := newFixture(t, func(o *webui.Options) { o.App = fstest.MapFS{".gitkeep": {}} })
	rec := f.do(t, "GET", "/", map[string]string{"Accept": "text/html"})
	if rec.Code != http.StatusServiceUnavailable || !strings.Contains(rec.Body.String(), "make build") {
		t.Fatalf("got %d %s, want 503 saying how to build the app", rec.Code, rec.Body)
	}
}

// TestOpenAPICoversEveryRoute fails when an /api route is mounted without
// being described in the OpenAPI document.
func TestOpenAPICoversEveryRoute(t *testing.T) {
	f := newFixture(t, nil)
	var doc struct {
		OpenAPI    string                    `json:"openapi"`
		Paths      map[string]map[string]any `json:"paths"`
		Components struct {
			Schemas map[string]map[string]any `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(f.do(t, "GET", "/api/openapi.json", nil).Body.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.OpenAPI != "3.1.0" {
		t.Fatalf("got openapi %q", doc.OpenAPI)
	}
	for _, want := range []string{"/api/health", "/api/meta/capabilities"} {
		op, ok := doc.Paths[want]["get"].(map[string]any)
		if !ok {
			t.Fatalf("document lacks GET %s", want)
		}
		resp := op["responses"].(map[string]any)["200"].(map[string]any)
		schema := resp["content"].(map[string]any)["application/json"].(map[string]any)["schema"].(map[string]any)
		if ref, ok := schema["$ref"].(string); ok {
			schema = doc.Components.Schemas[strings.TrimPrefix(ref, "#/components/schemas/")]
		}
		if schema["type"] != "object" || schema["properties"] == nil {
			t.Fatalf("GET %s 200 schema is not generated from a Go type: %v", want, schema)
		}
	}
	health := doc.Paths["/api/health"]["get"].(map[string]any)["responses"].(map[string]any)
	if _, ok := health["503"]; !ok {
		t.Fatal("health does not document its 503 database_unavailable")
	}
}

// TestLogsNeverHoldSecrets sends a bearer token and a query secret; neither
// may appear in any log line.
func TestLogsNeverHoldSecrets(t *testing.T) {
	f := newFixture(t, nil)
	const secret = "at_ai_abc_SUPERSECRETVALUE"
	f.do(t, "POST", "/mcp?token="+secret, map[string]string{"Authorization": "Bearer " + secret})
	f.do(t, "GET", "/api/health?key="+secret, map[string]string{"Authorization": "Bearer " + secret, "Cookie": "s=" + secret})
	logs := f.logs.String()
	if !strings.Contains(logs, `"path":"/mcp"`) {
		t.Fatalf("access log missing: %s", logs)
	}
	if strings.Contains(logs, "SUPERSECRETVALUE") {
		t.Fatalf("a secret reached the logs:\n%s", logs)
	}
}

// TestTrustedProxies: X-Forwarded-For is ignored unless the peer is a
// configured proxy.
func TestTrustedProxies(t *testing.T) {
	for _, tt := range []struct {
		name    string
		proxies []string
		wantIP  string
	}{
		{"SpoofIgnoredByDefault", nil, "192.0.2.10"},
		{"ConfiguredProxyBelieved", []string{"192.0.2.0/24"}, "203.0.113.7"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, func(o *webui.Options) { o.TrustedProxies = tt.proxies })
			req := httptest.NewRequest("GET", "/api/health", nil)
			req.RemoteAddr = "192.0.2.10:5555"
			req.Header.Set("X-Forwarded-For", "203.0.113.7")
			f.handler.ServeHTTP(httptest.NewRecorder(), req)
			if want := `"client_ip":"` + tt.wantIP + `"`; !strings.Contains(f.logs.String(), want) {
				t.Fatalf("logs lack %s:\n%s", want, f.logs)
			}
		})
	}
}

func TestBadTrustedProxy(t *testing.T) {
	_, err := webui.New(webui.Options{TrustedProxies: []string{"not-an-ip"}})
	if err == nil {
		t.Fatal("got no error for a bad trusted proxy")
	}
}

// TestErrorMessageMapsMatchCodes: the web app's English and zh-TW message
// maps list exactly the codes declared in apperr.
func TestErrorMessageMapsMatchCodes(t *testing.T) {
	var want []string
	for _, c := range apperr.Codes() {
		want = append(want, string(c))
	}
	for _, lang := range []string{"en", "zh-TW"} {
		raw, err := os.ReadFile("app/src/i18n/errors." + lang + ".json")
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]string
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatalf("errors.%s.json: %v", lang, err)
		}
		var got []string
		for k, v := range m {
			got = append(got, k)
			if strings.TrimSpace(v) == "" {
				t.Errorf("errors.%s.json: %s has an empty message", lang, k)
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("errors.%s.json keys %v, want the apperr codes %v", lang, got, want)
		}
	}
}

func TestHealthBody(t *testing.T) {
	f := newFixture(t, nil)
	rec := f.do(t, "GET", "/api/health", nil)
	var h gameplay.Health
	body, _ := io.ReadAll(rec.Body)
	if err := json.Unmarshal(body, &h); err != nil {
		t.Fatal(err)
	}
	if h.Status != "ok" || h.Mode != "local" || h.SchemaVersion != models.LatestVersion() || !h.Database.Reachable {
		t.Fatalf("got %+v", h)
	}
}
