package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/adventure-table/adventure-table/models/apperr"
)

const goodToken = "at_ai_test_0123456789abcdef0123456789abcdef"

func acceptGood(_ context.Context, tok string) (Principal, error) {
	if tok == goodToken {
		return Principal{GrantID: 7}, nil
	}
	return NoGrants(context.Background(), tok)
}

func newTestServer(t *testing.T, opts Options) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(NewHandler(opts))
	t.Cleanup(srv.Close)
	return srv
}

// discoverRequest is a server/discover call in the 2026-07-28 wire format:
// protocol version and method in headers, and _meta in the body.
func discoverRequest(t *testing.T, url, token string) *http.Request {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{` +
		`"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
		`"io.modelcontextprotocol/clientCapabilities":{},` +
		`"io.modelcontextprotocol/clientInfo":{"name":"test","version":"1"}}}}`
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", ProtocolVersion)
	req.Header.Set("Mcp-Method", "server/discover")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	return req
}

// rpcResult reads a JSON-RPC reply sent as JSON or as one SSE event.
func rpcResult(t *testing.T, resp *http.Response) map[string]any {
	t.Helper()
	raw, _ := io.ReadAll(resp.Body)
	payload := raw
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		sc := bufio.NewScanner(strings.NewReader(string(raw)))
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				payload = []byte(d)
			}
		}
	}
	var msg map[string]any
	if err := json.Unmarshal(payload, &msg); err != nil {
		t.Fatalf("reply is not JSON-RPC: %v\n%s", err, raw)
	}
	return msg
}

func errorCode(t *testing.T, resp *http.Response) string {
	t.Helper()
	var body struct {
		Error ToolError `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatalf("error body is not JSON: %v", err)
	}
	return string(body.Error.Code)
}

func TestDiscoverWithValidToken(t *testing.T) {
	srv := newTestServer(t, Options{Version: "test", Verify: acceptGood})
	resp, err := http.DefaultClient.Do(discoverRequest(t, srv.URL, goodToken))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("got %d %s, want 200", resp.StatusCode, b)
	}
	msg := rpcResult(t, resp)
	result, _ := msg["result"].(map[string]any)
	if result == nil {
		t.Fatalf("no result in %v", msg)
	}
	versions, _ := result["supportedVersions"].([]any)
	if !slices.Contains(versions, any(ProtocolVersion)) {
		t.Errorf("supportedVersions %v lacks %s", versions, ProtocolVersion)
	}
	if result["instructions"] != Instructions {
		t.Errorf("got instructions %q, want ours", result["instructions"])
	}
	if result["ttlMs"] != float64(60000) || result["cacheScope"] != "private" {
		t.Errorf("got ttlMs %v cacheScope %v, want 60000 private", result["ttlMs"], result["cacheScope"])
	}
}

func TestUnauthenticated(t *testing.T) {
	srv := newTestServer(t, Options{Version: "test", Verify: acceptGood})
	tests := []struct {
		name, token, wantAuthenticate string
	}{
		{"ErrNoToken", "", `Bearer realm="adventure-table"`},
		{"ErrWrongToken", "at_ai_nope_nope", `Bearer realm="adventure-table", error="invalid_token"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := http.DefaultClient.Do(discoverRequest(t, srv.URL, tt.token))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if resp.StatusCode != http.StatusUnauthorized {
				t.Fatalf("got %d, want 401", resp.StatusCode)
			}
			if got := resp.Header.Get("WWW-Authenticate"); got != tt.wantAuthenticate {
				t.Errorf("got WWW-Authenticate %q, want %q", got, tt.wantAuthenticate)
			}
			if got := errorCode(t, resp); got != "unauthorized" {
				t.Errorf("got code %q, want unauthorized", got)
			}
		})
	}
}

// TestNoGrantsRefusesEverything: the production verifier of a build without
// grants accepts no token at all.
func TestNoGrantsRefusesEverything(t *testing.T) {
	srv := newTestServer(t, Options{Version: "test"})
	resp, err := http.DefaultClient.Do(discoverRequest(t, srv.URL, goodToken))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("got %d, want 401", resp.StatusCode)
	}
}

func TestVerifierFailureIsNotUnauthorized(t *testing.T) {
	srv := newTestServer(t, Options{Version: "test", Verify: func(context.Context, string) (Principal, error) {
		return Principal{}, errors.New("connection refused")
	}})
	resp, err := http.DefaultClient.Do(discoverRequest(t, srv.URL, goodToken))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || errorCode(t, resp) != "database_unavailable" {
		t.Fatalf("got %d, want 503 database_unavailable", resp.StatusCode)
	}
}

func TestForeignOriginForbidden(t *testing.T) {
	srv := newTestServer(t, Options{Version: "test", Verify: acceptGood})
	req := discoverRequest(t, srv.URL, goodToken)
	req.Header.Set("Origin", "https://evil.example")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("got %d, want 403", resp.StatusCode)
	}
	if got := errorCode(t, resp); got != "origin_forbidden" {
		t.Errorf("got code %q, want origin_forbidden", got)
	}
	// A page on this machine (another localhost port) is not foreign.
	req = discoverRequest(t, srv.URL, goodToken)
	req.Header.Set("Origin", "http://localhost:3000")
	local, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	local.Body.Close()
	if local.StatusCode != http.StatusOK {
		t.Fatalf("localhost origin: got %d, want 200", local.StatusCode)
	}
	// The same request from the server's own origin goes through.
	req = discoverRequest(t, srv.URL, goodToken)
	req.Header.Set("Origin", srv.URL)
	resp2, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp2.Body.Close()
	if resp2.StatusCode != http.StatusOK {
		t.Fatalf("same origin: got %d, want 200", resp2.StatusCode)
	}
}

// TestDNSRebindingGuard documents go-sdk's guard: a request reaching a
// loopback listener with a foreign Host is refused, which is also what a
// local reverse proxy forwards; BehindLocalProxy lets such requests in.
func TestDNSRebindingGuard(t *testing.T) {
	for _, tt := range []struct {
		name        string
		behindProxy bool
		want        int
	}{
		{"ErrForeignHostOnLoopback", false, http.StatusForbidden},
		{"OKBehindDeclaredProxy", true, http.StatusOK},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := newTestServer(t, Options{Version: "test", Verify: acceptGood, BehindLocalProxy: tt.behindProxy})
			req := discoverRequest(t, srv.URL, goodToken)
			req.Host = "rpg.example.com"
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tt.want {
				t.Fatalf("got %d, want %d", resp.StatusCode, tt.want)
			}
		})
	}
}

type bearerTransport struct{ token string }

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// TestGoSDKClientConnects connects the official go-sdk client, which speaks
// 2026-07-28 and starts with server/discover.
func TestGoSDKClientConnects(t *testing.T) {
	srv := newTestServer(t, Options{Version: "test", Verify: acceptGood})
	client := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "test-client", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcpsdk.StreamableClientTransport{
		Endpoint:   srv.URL,
		HTTPClient: &http.Client{Transport: bearerTransport{goodToken}},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if got := cs.InitializeResult(); got == nil || got.Instructions != Instructions {
		t.Fatalf("got %+v, want our instructions", got)
	}
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(tools.Tools) != 0 {
		t.Fatalf("got %d tools, want none before table tools exist", len(tools.Tools))
	}
}

func TestErrorResult(t *testing.T) {
	var logs strings.Builder
	logger := slog.New(slog.NewTextHandler(&logs, nil))

	res := errorResult(logger, "roll", apperr.E(apperr.InvalidRequest, "Bad dice.").WithField("formula", "unparseable"))
	te := res.StructuredContent.(map[string]any)["error"].(ToolError)
	if !res.IsError || te.Code != apperr.InvalidRequest || te.Fields["formula"] != "unparseable" {
		t.Fatalf("got %+v", te)
	}
	if text := res.Content[0].(*mcpsdk.TextContent).Text; text != "invalid_request: Bad dice." {
		t.Fatalf("got text %q", text)
	}
	if strings.Contains(logs.String(), "level=ERROR") || !strings.Contains(logs.String(), "level=INFO") {
		t.Fatalf("a client mistake is logged at INFO, never ERROR: %s", logs.String())
	}

	res = errorResult(logger, "roll", fmt.Errorf("query: %w", errors.New("secret DSN postgres://u:pw@h")))
	te = res.StructuredContent.(map[string]any)["error"].(ToolError)
	text := res.Content[0].(*mcpsdk.TextContent).Text
	if te.Code != apperr.Internal || strings.Contains(text, "pw@") || text != "internal: Internal error." {
		t.Fatalf("internal error leaked or mis-mapped: %+v %q", te, text)
	}
	if !strings.Contains(logs.String(), "mcp tool failed") {
		t.Fatal("internal error was not logged")
	}
}

// TestWireFormat2026: the server speaks 2026-07-28 strictly — headers must
// match the body, none may be missing — and discover needs no prior state.
func TestWireFormat2026(t *testing.T) {
	srv := newTestServer(t, Options{Version: "test", Verify: acceptGood})
	tests := []struct {
		name   string
		mutate func(r *http.Request)
		want   int
	}{
		{"OKDiscoverWithoutState", func(r *http.Request) {}, http.StatusOK},
		{"ErrVersionHeaderMismatch", func(r *http.Request) { r.Header.Set("MCP-Protocol-Version", "2025-11-25") }, http.StatusBadRequest},
		{"ErrMissingVersionHeader", func(r *http.Request) { r.Header.Del("MCP-Protocol-Version") }, http.StatusBadRequest},
		{"ErrMissingMethodHeader", func(r *http.Request) { r.Header.Del("Mcp-Method") }, http.StatusBadRequest},
		{"ErrMethodHeaderMismatch", func(r *http.Request) { r.Header.Set("Mcp-Method", "tools/list") }, http.StatusBadRequest},
		{"ErrUnknownVersion", func(r *http.Request) { r.Header.Set("MCP-Protocol-Version", "1999-01-01") }, http.StatusBadRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := discoverRequest(t, srv.URL, goodToken)
			tt.mutate(req)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tt.want {
				t.Fatalf("got %d, want %d", resp.StatusCode, tt.want)
			}
		})
	}
}
