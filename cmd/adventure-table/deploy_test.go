package main

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/adventure-table/adventure-table/gameplay/llm/llmtest"
	"github.com/adventure-table/adventure-table/models"
	"github.com/adventure-table/adventure-table/models/modelstest"
)

// proxy is Caddy running deploy/Caddyfile, with its own CA (tls internal).
type proxy struct {
	base   string
	client *http.Client // trusts the proxy's CA, keeps cookies
}

// startCaddy runs Caddy with the repository's deploy/Caddyfile in front of
// upstreams (host:port), over HTTPS with Caddy's internal CA, and waits
// until it serves /api/health. Without Caddy the test is skipped, unless
// AT_TEST_REQUIRE contains "proxy" (CI installs it from Debian).
func startCaddy(t *testing.T, upstreams ...string) proxy {
	t.Helper()
	caddy, err := exec.LookPath("caddy")
	if err != nil {
		if strings.Contains(","+os.Getenv("AT_TEST_REQUIRE")+",", ",proxy,") {
			t.Fatal("the deployment tests are required (AT_TEST_REQUIRE contains proxy) but caddy is not installed: apt-get install -y caddy")
		}
		t.Skip("caddy is not installed (apt-get install -y caddy)")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	home := t.TempDir()
	cmd := exec.Command(caddy, "run", "--config", filepath.Join("..", "..", "deploy", "Caddyfile"), "--adapter", "caddyfile")
	cmd.Env = append(os.Environ(), "XDG_DATA_HOME="+filepath.Join(home, "data"), "XDG_CONFIG_HOME="+filepath.Join(home, "config"),
		"HOME="+home, "AT_SITE=localhost", fmt.Sprintf("AT_PROXY_PORT=%d", port), "AT_TLS=tls internal",
		"AT_UPSTREAMS="+strings.Join(upstreams, " "))
	logs := &syncWriter{}
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
	})
	rootCA := filepath.Join(home, "data", "caddy", "pki", "authorities", "local", "root.crt")
	p := proxy{base: fmt.Sprintf("https://localhost:%d", port)}
	waitUntil(t, "Caddy serving /api/health", func() bool {
		select {
		case <-exited:
			t.Fatalf("caddy exited:\n%s", logs)
		default:
		}
		pem, err := os.ReadFile(rootCA)
		if err != nil {
			return false
		}
		pool := x509.NewCertPool()
		pool.AppendCertsFromPEM(pem)
		jar, _ := cookiejar.New(nil)
		p.client = &http.Client{Jar: jar, Timeout: 60 * time.Second,
			Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
		resp, err := p.client.Get(p.base + "/api/health")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
	return p
}

// requestLines counts the requests a server process logged.
func requestLines(c *child) int {
	return strings.Count(c.stderr.String(), `msg="http request"`)
}

// TestBehindTheProxy, on PostgreSQL: two server processes behind Caddy
// (deploy/Caddyfile: round-robin, no stickiness, the proxy's own CA). A
// player sets up the narrator and plays solo turns through the proxy, the
// reply streamed through it; the requests land on both processes, and the
// story reads the same through either.
func TestBehindTheProxy(t *testing.T) {
	if modelstest.Dialect() != models.Postgres {
		t.Skip("several server processes share a PostgreSQL database only")
	}
	fake := llmtest.New(t)
	var turn atomic.Int64
	fake.Respond(func(r llmtest.Request) llmtest.Reply {
		if len(r.Messages) > 0 && strings.HasPrefix(r.Messages[0].Content, "You keep the") {
			return llmtest.Reply{Chunks: []string{"A memory of the lantern."}, FinishReason: "stop"} // the memory bank's work
		}
		return llmtest.Reply{Chunks: []string{"The lantern ", fmt.Sprintf("flickers (%d).", turn.Add(1))}, FinishReason: "stop"}
	})
	env := newChildEnv(t, "AT_TLS_PROXY=1", "AT_TRUSTED_PROXIES=127.0.0.1", "AT_SECRET=behind-the-proxy-test-secret-0123456789ab")
	first, second := env.start(t), env.start(t)
	p := startCaddy(t, strings.TrimPrefix(first.base, "http://"), strings.TrimPrefix(second.base, "http://"))

	player := &api{t: t, http: p.client, base: p.base}
	player.setModel(fake.URL())
	adv := player.newAdventure()
	for i := range 4 {
		events := player.playTurn(adv, fmt.Sprintf("look around %d", i))
		chunks := 0
		for _, e := range events {
			if e.Type == "chunk" {
				chunks++
			}
		}
		if chunks < 2 {
			t.Fatalf("turn %d reached the player in %d chunks through the proxy, want the stream's 2: %+v", i, chunks, events)
		}
	}
	for range 6 { // the story, read through whichever process the proxy picks
		if got := player.adventure(adv); got.Adventure.HeadDepth < 8 || got.Adventure.TurnInProgress {
			t.Fatalf("the story read through the proxy is at depth %d, want 4 turns (an action and a narration each)", got.Adventure.HeadDepth)
		}
	}
	a, b := requestLines(first), requestLines(second)
	t.Logf("requests served: %d by the first process, %d by the second", a, b)
	if a < 5 || b < 5 {
		t.Errorf("round-robin: %d and %d requests, want both processes serving", a, b)
	}
}

// TestSpoofedForwardedFor: a hosted server behind Caddy believes the
// proxy's X-Forwarded-For (AT_TRUSTED_PROXIES=127.0.0.1); a client that
// writes its own left-most address into the header still spends its own
// bucket, not a fresh one per made-up address.
func TestSpoofedForwardedFor(t *testing.T) {
	env := newChildEnv(t, "AT_MODE=hosted", "AT_TLS_PROXY=1", "AT_TRUSTED_PROXIES=127.0.0.1",
		"AT_SECRET=spoofed-forwarded-for-secret-0123456789ab", "AT_LIMITS=ip=5/1m")
	server := env.start(t)
	p := startCaddy(t, strings.TrimPrefix(server.base, "http://"))
	allowed := 0
	for i := range 15 {
		req, _ := http.NewRequest("GET", p.base+"/api/health", nil)
		req.Header.Set("X-Forwarded-For", fmt.Sprintf("203.0.113.%d", i+1))
		resp, err := p.client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			allowed++
		}
	}
	// Caddy's own requests (its health checks) come from the proxy too
	if allowed > 5 {
		t.Errorf("%d of 15 requests with made-up X-Forwarded-For addresses were allowed, want at most the bucket's 5", allowed)
	}
	if ip := regexp.MustCompile(`client_ip=(\S+)`).FindAllStringSubmatch(server.stderr.String(), -1); len(ip) == 0 || ip[len(ip)-1][1] != "127.0.0.1" {
		t.Errorf("the server took the client for %v, want 127.0.0.1 (Caddy replaces what the client wrote)", ip)
	}
}
