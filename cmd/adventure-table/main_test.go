package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/adventure-table/adventure-table/models"
	"github.com/adventure-table/adventure-table/models/modelstest"
)

func envFunc(env map[string]string) func(string) string {
	return func(k string) string { return env[k] }
}

func TestLoadConfig(t *testing.T) {
	dir := t.TempDir()
	secret := strings.Repeat("s", 40)
	tests := []struct {
		name    string
		env     map[string]string
		args    []string
		wantErr string // variable named in the error; empty for success
		check   func(t *testing.T, c Config)
	}{
		{name: "OKDefaults", env: nil, check: func(t *testing.T, c Config) {
			if c.Mode != "local" || c.Addr != "127.0.0.1:8080" || c.DataDir != "./data" || c.DatabaseURL != "" {
				t.Fatalf("got %+v", c)
			}
		}},
		{name: "OKHostedWithSecret", env: map[string]string{"AT_MODE": "hosted", "AT_SECRET": secret, "AT_TLS_PROXY": "1"}, check: func(t *testing.T, c Config) {
			if c.Addr != ":8080" || c.Secret != secret {
				t.Fatalf("got addr %q", c.Addr)
			}
		}},
		{name: "OKFlagBeatsEnv", env: map[string]string{"AT_ADDR": "127.0.0.1:1"}, args: []string{"-addr", "127.0.0.1:2", "-data-dir", dir}, check: func(t *testing.T, c Config) {
			if c.Addr != "127.0.0.1:2" || c.DataDir != dir {
				t.Fatalf("got %+v", c)
			}
		}},
		{name: "OKTrustedProxies", env: map[string]string{"AT_TRUSTED_PROXIES": "10.0.0.1, 192.168.0.0/16"}, check: func(t *testing.T, c Config) {
			if len(c.TrustedProxies) != 2 || c.TrustedProxies[1] != "192.168.0.0/16" {
				t.Fatalf("got %v", c.TrustedProxies)
			}
		}},
		{name: "OKScriptCacheInDataDir", args: []string{"-data-dir", dir}, check: func(t *testing.T, c Config) {
			if c.ScriptCacheDir != filepath.Join(dir, "script-cache") {
				t.Fatalf("got script cache %q", c.ScriptCacheDir)
			}
		}},
		{name: "OKScriptCacheOff", env: map[string]string{"AT_SCRIPT_CACHE_DIR": "off"}, check: func(t *testing.T, c Config) {
			if c.ScriptCacheDir != "" {
				t.Fatalf("got script cache %q, want none", c.ScriptCacheDir)
			}
		}},
		{name: "OKScriptCacheFlag", args: []string{"-script-cache-dir", filepath.Join(dir, "engine")}, check: func(t *testing.T, c Config) {
			if c.ScriptCacheDir != filepath.Join(dir, "engine") {
				t.Fatalf("got script cache %q", c.ScriptCacheDir)
			}
		}},
		{name: "ErrMode", env: map[string]string{"AT_MODE": "cloud"}, wantErr: "AT_MODE"},
		{name: "ErrHostedWithoutSecret", env: map[string]string{"AT_MODE": "hosted"}, wantErr: "AT_SECRET"},
		{name: "ErrHostedOnPlainHTTP", env: map[string]string{"AT_MODE": "hosted", "AT_SECRET": secret}, wantErr: "AT_TLS_PROXY: a hosted server needs HTTPS"},
		{name: "ErrShortSecret", env: map[string]string{"AT_SECRET": "short"}, wantErr: "AT_SECRET"},
		{name: "ErrAddr", env: map[string]string{"AT_ADDR": "8080"}, wantErr: "AT_ADDR"},
		{name: "ErrPort", env: map[string]string{"AT_ADDR": "127.0.0.1:99999"}, wantErr: "AT_ADDR"},
		{name: "ErrDatabaseURL", env: map[string]string{"AT_DATABASE_URL": "mysql://x"}, wantErr: "AT_DATABASE_URL"},
		{name: "ErrTLSDevValue", env: map[string]string{"AT_TLS_DEV": "maybe"}, wantErr: "AT_TLS_DEV"},
		{name: "ErrCertWithoutKey", env: map[string]string{"AT_TLS_CERT": "c.pem"}, wantErr: "AT_TLS_CERT"},
		{name: "ErrMissingCertFile", env: map[string]string{"AT_TLS_CERT": filepath.Join(dir, "no.pem"), "AT_TLS_KEY": filepath.Join(dir, "no-key.pem")}, wantErr: "AT_TLS_CERT"},
		{name: "ErrTrustedProxy", env: map[string]string{"AT_TRUSTED_PROXIES": "proxy.example"}, wantErr: "AT_TRUSTED_PROXIES"},
		{name: "ErrLogFormat", env: map[string]string{"AT_LOG_FORMAT": "xml"}, wantErr: "AT_LOG_FORMAT"},
		{name: "ErrUnknownFlag", args: []string{"-nope"}, wantErr: "flags"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := LoadConfig(envFunc(tt.env), tt.args)
			if tt.wantErr != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tt.wantErr+":") {
					t.Fatalf("got %v, want an error naming %s", err, tt.wantErr)
				}
				if strings.Contains(err.Error(), "\n") {
					t.Fatalf("error spans lines: %q", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, c)
		})
	}
}

// syncWriter lets the test read what the server prints while it runs.
type syncWriter struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (w *syncWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *syncWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

type runningServer struct {
	addr   string
	stdout *syncWriter
	stderr *syncWriter
	stop   func() error
}

// mustServe runs the server in-process on a free port with a temp data dir
// (and the test database dialect) until the test ends.
func mustServe(t *testing.T, env map[string]string) runningServer {
	t.Helper()
	full := map[string]string{"AT_DATA_DIR": t.TempDir(), "AT_ADDR": "127.0.0.1:0"}
	if modelstest.Dialect() == "postgres" {
		full["AT_DATABASE_URL"] = modelstest.Config(t).DatabaseURL
	}
	for k, v := range env {
		full[k] = v
	}
	cfg, err := LoadConfig(envFunc(full), nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	rs := runningServer{stdout: &syncWriter{}, stderr: &syncWriter{}}
	addrCh := make(chan net.Addr, 1)
	done := make(chan error, 1)
	go func() {
		done <- runServe(ctx, cfg, newLogger(cfg, rs.stderr), rs.stdout, func(a net.Addr) { addrCh <- a })
	}()
	select {
	case a := <-addrCh:
		rs.addr = a.String()
	case err := <-done:
		cancel()
		t.Fatalf("server did not start: %v\n%s", err, rs.stderr)
	}
	var once sync.Once
	var stopErr error
	rs.stop = func() error {
		once.Do(func() { cancel(); stopErr = <-done })
		return stopErr
	}
	t.Cleanup(func() { rs.stop() })
	return rs
}

func getJSON(t *testing.T, url string, v any) int {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if v != nil {
		json.NewDecoder(resp.Body).Decode(v)
	}
	return resp.StatusCode
}

func TestServeLocal(t *testing.T) {
	rs := mustServe(t, nil)
	base := "http://" + rs.addr
	var health struct {
		Status        string `json:"status"`
		SchemaVersion int    `json:"schema_version"`
		Mode          string `json:"mode"`
	}
	if st := getJSON(t, base+"/api/health", &health); st != 200 || health.SchemaVersion != models.LatestVersion() || health.Mode != "local" {
		t.Fatalf("health: %d %+v", st, health)
	}
	for _, want := range []string{"URL:       " + base + "/", "Mode:      local", "MCP:       " + base + "/mcp", fmt.Sprintf("(schema v%d)", models.LatestVersion())} {
		if !strings.Contains(rs.stdout.String(), want) {
			t.Errorf("banner lacks %q:\n%s", want, rs.stdout)
		}
	}
	resp, err := http.Post(base+"/mcp", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
		t.Fatalf("POST /mcp without token: got %d %q, want 401 Bearer", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}
	if err := rs.stop(); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	if !strings.Contains(rs.stderr.String(), "stopped") {
		t.Fatalf("no clean stop in logs:\n%s", rs.stderr)
	}
	if _, err := http.Get(base + "/api/health"); err == nil {
		t.Fatal("server still answers after shutdown")
	}
}

// TestMCPNeedsTLSBeyondLoopback: listening on every interface without TLS,
// the MCP endpoint is not mounted, and the logs say why.
func TestMCPNeedsTLSBeyondLoopback(t *testing.T) {
	rs := mustServe(t, map[string]string{"AT_ADDR": "0.0.0.0:0"})
	_, port, _ := net.SplitHostPort(rs.addr)
	resp, err := http.Post("http://127.0.0.1:"+port+"/mcp", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound || !strings.Contains(string(body), "route_not_found") {
		t.Fatalf("got %d %s, want 404: /mcp must not be mounted", resp.StatusCode, body)
	}
	if !strings.Contains(rs.stderr.String(), "MCP endpoint not mounted") || !strings.Contains(rs.stdout.String(), "MCP:       not mounted") {
		t.Fatalf("the refusal is not explained:\n%s\n%s", rs.stdout, rs.stderr)
	}
	var caps map[string]bool
	getJSON(t, "http://127.0.0.1:"+port+"/api/meta/capabilities", &caps)
	if caps["mcp"] || caps["ai_actor"] {
		t.Fatal("capabilities claim MCP or AI seats while /mcp is not mounted")
	}
}

// TestServeTLSDev serves HTTPS with the development certificates: a client
// trusting the CA reaches /mcp (401 without a token), one without fails.
func TestServeTLSDev(t *testing.T) {
	dataDir := t.TempDir()
	rs := mustServe(t, map[string]string{"AT_TLS_DEV": "1", "AT_DATA_DIR": dataDir})
	if !strings.Contains(rs.stdout.String(), "URL:       https://") {
		t.Fatalf("banner does not show https:\n%s", rs.stdout)
	}
	caPEM, err := os.ReadFile(filepath.Join(dataDir, "tls", "ca.pem"))
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caPEM)
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	resp, err := client.Post("https://"+rs.addr+"/mcp", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("got %d, want 401", resp.StatusCode)
	}
	untrusting := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: x509.NewCertPool()}}}
	if _, err := untrusting.Get("https://" + rs.addr + "/api/health"); err == nil {
		t.Fatal("a client without the CA connected")
	}
}

func TestLocalSecretKept(t *testing.T) {
	dataDir := t.TempDir()
	rs := mustServe(t, map[string]string{"AT_DATA_DIR": dataDir})
	rs.stop()
	info, err := os.Stat(filepath.Join(dataDir, "secret"))
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Fatalf("secret mode %o, want 600", info.Mode().Perm())
	}
}

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// mustBuild compiles the real binary once per test run.
func mustBuild(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "at-bin-")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "adventure-table")
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			buildErr = err
			binPath = string(out)
		}
	})
	if buildErr != nil {
		t.Fatalf("build: %v\n%s", buildErr, binPath)
	}
	return binPath
}

func TestMain(m *testing.M) {
	code := m.Run()
	if binPath != "" && buildErr == nil {
		os.RemoveAll(filepath.Dir(binPath))
	}
	os.Exit(code)
}

// TestBinaryRefusesBadConfig runs the real binary: a bad setting gives one
// line naming the variable and a non-zero exit, before anything is created.
func TestBinaryRefusesBadConfig(t *testing.T) {
	bin := mustBuild(t)
	for _, tt := range []struct {
		name, env, want string
	}{
		{"ErrHostedWithoutSecret", "AT_MODE=hosted", "AT_SECRET: required in hosted mode"},
		{"ErrHostedOnPlainHTTP", "AT_MODE=hosted\nAT_SECRET=" + strings.Repeat("s", 40), "AT_TLS_PROXY: a hosted server needs HTTPS"},
		{"ErrBadMode", "AT_MODE=party", "AT_MODE: must be local or hosted"},
		{"ErrBadTLSDev", "AT_TLS_DEV=yes please", "AT_TLS_DEV: must be 1 or 0"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dataDir := t.TempDir()
			cmd := exec.Command(bin, "serve")
			cmd.Env = append(append(os.Environ(), strings.Split(tt.env, "\n")...), "AT_DATA_DIR="+dataDir, "AT_ADDR=127.0.0.1:0")
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			exitErr, ok := err.(*exec.ExitError)
			if !ok || exitErr.ExitCode() != 2 {
				t.Fatalf("got %v, want exit status 2", err)
			}
			lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
			if len(lines) != 1 || !strings.Contains(lines[0], tt.want) {
				t.Fatalf("got stderr %q, want one line with %q", stderr.String(), tt.want)
			}
			if entries, _ := os.ReadDir(dataDir); len(entries) != 0 {
				t.Fatalf("a refused start wrote %d files to the data dir", len(entries))
			}
		})
	}
}

// TestBinaryGracefulShutdown starts the real binary, waits for its banner,
// sends SIGTERM and expects a clean exit 0.
func TestBinaryGracefulShutdown(t *testing.T) {
	bin := mustBuild(t)
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "AT_DATA_DIR="+t.TempDir(), "AT_ADDR=127.0.0.1:0")
	stdout, _ := cmd.StdoutPipe()
	var stderr syncWriter
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var banner strings.Builder
	buf := make([]byte, 4096)
	for !strings.Contains(banner.String(), "MCP:") {
		n, err := stdout.Read(buf)
		if err != nil {
			cmd.Process.Kill()
			t.Fatalf("no banner: %v\n%s\n%s", err, banner.String(), stderr.String())
		}
		banner.Write(buf[:n])
	}
	url := strings.Fields(strings.SplitN(strings.SplitN(banner.String(), "URL:", 2)[1], "\n", 2)[0])[0]
	if st := getJSON(t, url+"api/health", nil); st != 200 {
		t.Fatalf("health: %d", st)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	errCh := make(chan error, 1)
	go func() { errCh <- cmd.Wait() }()
	select {
	case err := <-errCh:
		if err != nil {
			t.Fatalf("exit after SIGTERM: %v\n%s", err, stderr.String())
		}
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatal("server did not stop within 30s of SIGTERM")
	}
}

func TestBinaryCertsAndVersion(t *testing.T) {
	bin := mustBuild(t)
	dataDir := t.TempDir()
	out, err := exec.Command(bin, "certs", "-data-dir", dataDir).CombinedOutput()
	if err != nil {
		t.Fatalf("certs: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "NODE_EXTRA_CA_CERTS="+filepath.Join(dataDir, "tls", "ca.pem")) || !strings.Contains(string(out), "curl --cacert") {
		t.Fatalf("certs output lacks trust instructions:\n%s", out)
	}
	out, err = exec.Command(bin, "version").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "adventure-table ") {
		t.Fatalf("version: %v %q", err, out)
	}
	out, err = exec.Command(bin, "migrate", "-data-dir", dataDir).CombinedOutput()
	if err != nil || !strings.Contains(string(out), fmt.Sprintf("created a fresh schema at version %d", models.LatestVersion())) {
		t.Fatalf("migrate: %v %q", err, out)
	}
	out, err = exec.Command(bin, "migrate", "-data-dir", dataDir).CombinedOutput()
	if err != nil || !strings.Contains(string(out), fmt.Sprintf("schema already at version %d", models.LatestVersion())) {
		t.Fatalf("second migrate: %v %q", err, out)
	}
}

// TestCapabilitiesFollowMCP: AI seats are offered exactly when /mcp is mounted.
func TestCapabilitiesFollowMCP(t *testing.T) {
	rs := mustServe(t, nil)
	var caps map[string]bool
	getJSON(t, "http://"+rs.addr+"/api/meta/capabilities", &caps)
	if !caps["ai_actor"] || !caps["mcp"] || !caps["table"] {
		t.Fatalf("capabilities %v", caps)
	}
}
