package webui_test

import (
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/adventure-table/adventure-table/gameplay/table/tabletest"
	"github.com/adventure-table/adventure-table/webui"
)

// TestSecurityHeaders: every kind of answer (the app, an asset, an API
// answer, an API error, a refused cross-origin write, /mcp) carries the
// CSP, nosniff and Referrer-Policy; HSTS only over TLS and only when asked.
func TestSecurityHeaders(t *testing.T) {
	html := map[string]string{"Accept": "text/html"}
	requests := []struct {
		name         string
		method, path string
		headers      map[string]string
	}{
		{"AppRoot", "GET", "/", html},
		{"AppDeepLink", "GET", "/tables/42", html},
		{"APIDocs", "GET", "/api/docs", html},
		{"Asset", "GET", "/assets/index-abc123.js", nil},
		{"API", "GET", "/api/health", nil},
		{"APIError", "GET", "/api/nope", nil},
		{"CrossOriginWrite", "POST", "/api/rooms", map[string]string{"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"}},
		{"MCP", "POST", "/mcp", nil},
	}
	for _, mode := range []struct {
		name     string
		mutate   func(*webui.Options)
		tls      bool
		wantHSTS bool
	}{
		{"PlainHTTP", func(o *webui.Options) { o.HSTS = true }, false, false},
		{"TLS", func(o *webui.Options) { o.HSTS = true }, true, true},
		{"BehindTLSProxy", func(o *webui.Options) { o.HSTS, o.SecureCookies = true, true }, false, true},
		{"TLSLocalMode", nil, true, false},
	} {
		t.Run(mode.name, func(t *testing.T) {
			f := newFixture(t, mode.mutate)
			for _, tt := range requests {
				req := httptest.NewRequest(tt.method, tt.path, nil)
				for k, v := range tt.headers {
					req.Header.Set(k, v)
				}
				if mode.tls {
					req.TLS = &tls.ConnectionState{}
				}
				rec := httptest.NewRecorder()
				f.handler.ServeHTTP(rec, req)
				h := rec.Header()
				csp := h.Get("Content-Security-Policy")
				for _, want := range []string{"default-src 'self'", "script-src 'self';", "frame-ancestors 'none'", "object-src 'none'"} {
					if !strings.Contains(csp, want) {
						t.Errorf("%s: CSP %q lacks %q", tt.name, csp, want)
					}
				}
				if strings.Contains(csp, "unsafe-inline") || strings.Contains(csp, "unsafe-eval") {
					t.Errorf("%s: CSP %q allows inline script or eval", tt.name, csp)
				}
				if got := h.Get("X-Content-Type-Options"); got != "nosniff" {
					t.Errorf("%s: X-Content-Type-Options = %q", tt.name, got)
				}
				if got := h.Get("Referrer-Policy"); got != "no-referrer" {
					t.Errorf("%s: Referrer-Policy = %q", tt.name, got)
				}
				hsts := h.Get("Strict-Transport-Security")
				if mode.wantHSTS && !strings.Contains(hsts, "max-age=31536000") || !mode.wantHSTS && hsts != "" {
					t.Errorf("%s: Strict-Transport-Security = %q, want it %v", tt.name, hsts, mode.wantHSTS)
				}
			}
		})
	}
}

// withLocalAddr puts the connection's local address on a request, as
// net/http does for a real connection.
func withLocalAddr(req *http.Request, addr string) *http.Request {
	la, err := net.ResolveTCPAddr("tcp", addr)
	if err != nil {
		panic(err)
	}
	return req.WithContext(context.WithValue(req.Context(), http.LocalAddrContextKey, la))
}

// TestLoopbackHostOnly: in local mode a request must name this machine in
// its Host (DNS rebinding: an attacker's name rebound to 127.0.0.1 is not
// this site); hosted mode and a server behind a TLS proxy accept any Host.
func TestLoopbackHostOnly(t *testing.T) {
	html := map[string]string{"Accept": "text/html"}
	tests := []struct {
		name      string
		local     bool   // Options.LoopbackHostOnly
		localAddr string // the connection's local address; "" = unknown
		host      string
		method    string
		path      string
		headers   map[string]string
		wantOK    bool
	}{
		{"OKLocalhost", true, "127.0.0.1:8080", "localhost:8080", "GET", "/api/health", nil, true},
		{"OKLocalhostNoPort", true, "127.0.0.1:80", "localhost", "GET", "/api/health", nil, true},
		{"OKLocalhostUpperCase", true, "127.0.0.1:8080", "LOCALHOST:8080", "GET", "/api/health", nil, true},
		{"OKIPv4Loopback", true, "127.0.0.1:8080", "127.0.0.1:8080", "GET", "/api/health", nil, true},
		{"OKIPv6Loopback", true, "[::1]:8080", "[::1]:8080", "GET", "/api/health", nil, true},
		{"OKIPv6LoopbackNoPort", true, "[::1]:80", "[::1]", "GET", "/api/health", nil, true},
		{"OKUnknownConnection", true, "", "127.0.0.1:8080", "GET", "/api/health", nil, true},
		{"ErrRebindingName", true, "127.0.0.1:8080", "evil.example:8080", "GET", "/api/health", nil, false},
		{"ErrRebindingNameApp", true, "127.0.0.1:8080", "evil.example", "GET", "/", html, false},
		{"ErrRebindingNameWrite", true, "127.0.0.1:8080", "evil.example:8080", "POST", "/api/rooms", nil, false},
		{"ErrLocalhostSubdomainLookalike", true, "127.0.0.1:8080", "localhost.evil.example:8080", "GET", "/api/health", nil, false},
		{"ErrLANAddressOnLoopbackConnection", true, "127.0.0.1:8080", "192.168.1.5:8080", "GET", "/api/health", nil, false},
		{"ErrUnknownConnectionName", true, "", "evil.example", "GET", "/api/health", nil, false},
		// Local mode listening on every interface: LAN players come by address.
		{"OKLANAddressOnLANConnection", true, "192.168.1.5:8080", "192.168.1.5:8080", "GET", "/api/health", nil, true},
		{"ErrNameOnLANConnection", true, "192.168.1.5:8080", "evil.example:8080", "GET", "/api/health", nil, false},
		{"OKHostedAnyHost", false, "127.0.0.1:8080", "table.example.org", "GET", "/api/health", nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, func(o *webui.Options) { withSecret(o); o.LoopbackHostOnly = tt.local })
			req := httptest.NewRequest(tt.method, tt.path, nil)
			if tt.method == "POST" {
				req = httptest.NewRequest(tt.method, tt.path, strings.NewReader(`{"name":"Den"}`))
			}
			req.Host = tt.host
			for k, v := range tt.headers {
				req.Header.Set(k, v)
			}
			if tt.localAddr != "" {
				req = withLocalAddr(req, tt.localAddr)
			}
			rec := httptest.NewRecorder()
			f.handler.ServeHTTP(rec, req)
			refused := rec.Code == http.StatusForbidden && strings.Contains(rec.Body.String(), `"code":"origin_forbidden"`) &&
				strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json")
			if tt.wantOK && rec.Code >= 400 || !tt.wantOK && !refused {
				t.Fatalf("Host %q: got %d %s, want ok=%v (403 origin_forbidden when refused)", tt.host, rec.Code, rec.Body, tt.wantOK)
			}
		})
	}
}

// TestOversizedJSONBody: a JSON body over its route's limit answers 413
// (as an oversized image does), not 400; one under it is read as usual.
func TestOversizedJSONBody(t *testing.T) {
	f := newFixture(t, withSecret)
	u := tabletest.NewUser(t, f.services.Table, "Ann")
	for _, tt := range []struct {
		name, method, path string
		size               int
	}{
		{"Room", "POST", "/api/rooms", 1 << 20},
		{"DisplayName", "PATCH", "/api/me", 1 << 20},
		{"Scenario", "POST", "/api/scenarios", 6 << 20},
	} {
		t.Run(tt.name, func(t *testing.T) {
			body := `{"name":"` + strings.Repeat("a", tt.size) + `"}`
			rec := call(t, f.handler, u, tt.method, tt.path, body)
			if rec.Code != http.StatusRequestEntityTooLarge || !strings.Contains(rec.Body.String(), `"code":"invalid_request"`) {
				t.Fatalf("got %d %.300s, want 413 invalid_request", rec.Code, rec.Body)
			}
		})
	}
	// Bad JSON within the limit is still 400.
	if rec := call(t, f.handler, u, "POST", "/api/rooms", `{"name":`); rec.Code != http.StatusBadRequest {
		t.Fatalf("truncated JSON: got %d %s, want 400", rec.Code, rec.Body)
	}
}
