package main

import (
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
)

// lanIP is a non-loopback IPv4 address of this machine, or "" when it has none.
func lanIP() string {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return ""
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && !n.IP.IsLoopback() && n.IP.To4() != nil {
			return n.IP.String()
		}
	}
	return ""
}

// TestLocalModeOnLANWarns: local mode may listen beyond loopback
// (AT_ADDR=0.0.0.0:…, to play with friends) and says so at start-up: no
// login, anyone who reaches it plays as a guest, with the TLS advice. It
// answers to IP addresses but still refuses other names (DNS rebinding).
func TestLocalModeOnLANWarns(t *testing.T) {
	rs := mustServe(t, map[string]string{"AT_ADDR": "0.0.0.0:0"})
	_, port, _ := net.SplitHostPort(rs.addr)
	for _, want := range []string{"listening beyond loopback", "no login", "plays as a guest", "AT_TLS_DEV=1", "AT_MODE=hosted"} {
		if !strings.Contains(rs.stderr.String(), want) {
			t.Errorf("start-up log lacks %q:\n%s", want, rs.stderr)
		}
	}
	if !strings.Contains(rs.stdout.String(), "WARNING:") || !strings.Contains(rs.stdout.String(), "no login") {
		t.Errorf("banner lacks the warning:\n%s", rs.stdout)
	}
	// A friend's browser reaches the LAN address and names it in Host.
	dial := "127.0.0.1"
	hosts := map[string]int{"127.0.0.1": http.StatusOK, "localhost": http.StatusOK, "rebind.example": http.StatusForbidden}
	if ip := lanIP(); ip != "" {
		dial = ip
		hosts[ip] = http.StatusOK
	}
	for host, want := range hosts {
		req, _ := http.NewRequest("GET", "http://"+net.JoinHostPort(dial, port)+"/api/health", nil)
		req.Host = net.JoinHostPort(host, port)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("Host %s: %d %s, want %d", host, resp.StatusCode, body, want)
		}
	}
	// Bearer tokens never cross the network in clear: no /mcp here.
	var caps map[string]bool
	getJSON(t, "http://"+net.JoinHostPort("127.0.0.1", port)+"/api/meta/capabilities", &caps)
	if caps["mcp"] || caps["ai_actor"] || !caps["table"] || !caps["solo"] {
		t.Fatalf("capabilities on the LAN: %v", caps)
	}
}

// TestNoLANWarningOnLoopback: the default local server and hosted mode say nothing of it.
func TestNoLANWarningOnLoopback(t *testing.T) {
	for name, env := range map[string]map[string]string{
		"local":  nil,
		"hosted": {"AT_MODE": "hosted", "AT_SECRET": strings.Repeat("s", 40), "AT_TLS_PROXY": "1"},
	} {
		rs := mustServe(t, env)
		if strings.Contains(rs.stderr.String(), "beyond loopback (AT_ADDR") || strings.Contains(rs.stdout.String(), "WARNING:") {
			t.Errorf("%s: unexpected LAN warning:\n%s\n%s", name, rs.stderr, rs.stdout)
		}
	}
}

// TestLANWarningTexts: the TLS advice appears only on plain HTTP.
func TestLANWarningTexts(t *testing.T) {
	c := DefaultConfig()
	c.Mode, c.Addr = "local", "192.168.1.20:8080"
	if w := c.lanWarning("192.168.1.20"); !strings.Contains(w, "plain HTTP") || !strings.Contains(w, "AT_TLS_DEV=1") {
		t.Fatalf("plain: %q", w)
	}
	c.TLSDev = true
	if w := c.lanWarning("192.168.1.20"); w == "" || strings.Contains(w, "plain HTTP") {
		t.Fatalf("TLS: %q", w)
	}
	if w := c.lanWarning("127.0.0.1"); w != "" {
		t.Fatalf("loopback: %q", w)
	}
}
