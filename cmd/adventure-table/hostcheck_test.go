package main

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestLocalModeAnswersOnlyLoopbackHosts: the real server in local mode
// refuses a request naming another host (DNS rebinding), answers
// localhost and 127.0.0.1, and sends the security headers; hosted mode
// and a server behind a TLS proxy take any Host.
func TestLocalModeAnswersOnlyLoopbackHosts(t *testing.T) {
	hostedEnv := map[string]string{"AT_MODE": "hosted", "AT_SECRET": strings.Repeat("s", 40), "AT_TLS_PROXY": "1"}
	proxyEnv := map[string]string{"AT_TLS_PROXY": "1"}
	for _, tt := range []struct {
		name   string
		env    map[string]string
		host   string
		status int
	}{
		{"OKLocalhost", nil, "localhost", http.StatusOK},
		{"OKLoopbackAddress", nil, "127.0.0.1", http.StatusOK},
		{"ErrRebindingName", nil, "rebind.example", http.StatusForbidden},
		{"OKHostedAnyName", hostedEnv, "table.example.org", http.StatusOK},
		{"OKBehindTLSProxy", proxyEnv, "table.example.org", http.StatusOK},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rs := mustServe(t, tt.env)
			req, _ := http.NewRequest("GET", "http://"+rs.addr+"/api/health", nil)
			req.Host = tt.host
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tt.status || tt.status == http.StatusForbidden && !strings.Contains(string(body), `"code":"origin_forbidden"`) {
				t.Fatalf("Host %s: got %d %s, want %d", tt.host, resp.StatusCode, body, tt.status)
			}
			if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "frame-ancestors 'none'") {
				t.Fatalf("CSP = %q", csp)
			}
		})
	}
}
