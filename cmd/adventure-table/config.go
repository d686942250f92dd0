package main

import (
	"errors"
	"flag"
	"fmt"
	"net"
	"net/mail"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/adventure-table/adventure-table/auth"
	"github.com/adventure-table/adventure-table/gameplay/accounts"
	"github.com/adventure-table/adventure-table/gameplay/analytics"
	"github.com/adventure-table/adventure-table/gameplay/limits"
	"github.com/adventure-table/adventure-table/gameplay/llm"
	"github.com/adventure-table/adventure-table/gameplay/narrative"
)

// Config is everything the server is told at start-up: defaults, then AT_*
// environment variables, then flags, then Validate.
type Config struct {
	Mode           string   // local | hosted
	Addr           string   // listen address
	DatabaseURL    string   // empty: SQLite in DataDir
	DataDir        string   // SQLite file, local secret, dev certificates
	Secret         string   // signs sessions; never printed
	TLSCert        string   // certificate file for HTTPS
	TLSKey         string   // key file for HTTPS
	TLSDev         bool     // HTTPS with tlsdev certificates from DataDir
	TLSProxy       bool     // TLS is terminated by a proxy the operator runs
	TrustedProxies []string // proxies whose X-Forwarded-For is believed
	// Limits are the rate limits (AT_LIMITS): defaults when hosted, none
	// in local mode whatever AT_LIMITS says.
	Limits    limits.Config
	LogFormat string // text | json
	// ScriptTimeout and ScriptMemoryMB limit one scenario-script hook call.
	ScriptTimeout  time.Duration
	ScriptMemoryMB int
	// ScriptCacheDir keeps the compiled script engine between starts:
	// AT_SCRIPT_CACHE_DIR, default DataDir/script-cache; "" (off) compiles
	// it at every start.
	ScriptCacheDir string
	// ModelTimeouts bound each call to a model endpoint (llm.Timeouts).
	ModelTimeouts llm.Timeouts
	// SecretPrevious is the server secret before a rotation: the API keys
	// it sealed still open, and are sealed again with Secret. Never printed.
	SecretPrevious string
	// Demo is the server-funded demo narrator (AT_DEMO_*), nil for none;
	// its API key is never printed.
	Demo *narrative.DemoConfig
	// SnapshotKeep is how many of an adventure's newest prompt snapshots
	// are kept (0: all); SnapshotMaxAge drops older ones (0: any age).
	SnapshotKeep   int
	SnapshotMaxAge time.Duration
	// GuestRetention is how long a hosted server keeps a guest who does
	// not come back (0: forever); accounts are never swept.
	GuestRetention time.Duration
	// AdminEmails are the accounts that read a hosted server's dashboard.
	AdminEmails []string
	// AnalyticsFlush is how often the counters are written (default 60s).
	AnalyticsFlush time.Duration
}

// configError names the variable at fault, so the one line printed at exit
// says what to fix.
type configError struct{ name, problem string }

func (e *configError) Error() string { return e.name + ": " + e.problem }

// DefaultConfig is the local personality.
func DefaultConfig() Config {
	return Config{Mode: "local", DataDir: "./data", LogFormat: "text", ScriptTimeout: time.Second, ScriptMemoryMB: 64,
		ModelTimeouts: llm.DefaultTimeouts, SnapshotKeep: 100, SnapshotMaxAge: 90 * 24 * time.Hour,
		GuestRetention: 30 * 24 * time.Hour, AnalyticsFlush: analytics.FlushEvery}
}

// envVars lists each setting's variable, flag name and help once.
var envVars = []struct{ env, flag, help string }{
	{"AT_MODE", "mode", "local (default) or hosted"},
	{"AT_ADDR", "addr", "listen address (default 127.0.0.1:8080 local, :8080 hosted)"},
	{"AT_DATABASE_URL", "database-url", "postgres:// URL; empty means SQLite in the data dir"},
	{"AT_DATA_DIR", "data-dir", "data directory (default ./data)"},
	{"AT_SECRET", "secret", "server secret, at least 32 characters (hosted: required; local: generated)"},
	{"AT_SECRET_FILE", "secret-file", "file holding the server secret"},
	{"AT_SECRET_PREVIOUS", "secret-previous", "the server secret before a rotation: API keys it sealed still open and are sealed again with the current one"},
	{"AT_TLS_CERT", "tls-cert", "TLS certificate file"},
	{"AT_TLS_KEY", "tls-key", "TLS key file"},
	{"AT_TLS_DEV", "tls-dev", "1: serve HTTPS with development certificates (adventure-table certs)"},
	{"AT_TLS_PROXY", "tls-proxy", "1: a reverse proxy terminates TLS in front of this server"},
	{"AT_TRUSTED_PROXIES", "trusted-proxies", "comma-separated proxy IPs/CIDRs whose X-Forwarded-For is believed"},
	{"AT_LIMITS", "limits", "hosted rate limits: class=events/window[:burst] or class=off, comma-separated, over the defaults (e.g. join=20/10m,ip=600/1m:120), or off; local mode has none"},
	{"AT_LOG_FORMAT", "log-format", "text (default) or json"},
	{"AT_SCRIPT_TIMEOUT", "script-timeout", "time limit of one scenario-script hook, e.g. 1s (default), 10ms to 30s"},
	{"AT_SCRIPT_MEMORY_MB", "script-memory-mb", "memory limit of one scenario-script hook in MiB, 16 to 1024 (default 64)"},
	{"AT_SCRIPT_CACHE_DIR", "script-cache-dir", "directory keeping the compiled script engine between starts, only this server's (default <data dir>/script-cache), or off"},
	{"AT_MODEL_CONNECT_TIMEOUT", "model-connect-timeout", "time to connect to a model endpoint (TCP and TLS), default 10s"},
	{"AT_MODEL_HEADERS_TIMEOUT", "model-headers-timeout", "time from connecting to the model's response headers, default 60s"},
	{"AT_MODEL_IDLE_TIMEOUT", "model-idle-timeout", "longest silence inside a model's streamed reply, default 60s"},
	{"AT_MODEL_TOTAL_TIMEOUT", "model-total-timeout", "time limit of one whole model call, default 10m"},
	{"AT_SNAPSHOT_KEEP", "snapshot-keep", "prompt snapshots (Insights) kept per adventure, newest first, default 100; 0 keeps all"},
	{"AT_GUEST_RETENTION_DAYS", "guest-retention-days", "hosted: guests not seen for this many days are deleted with everything they own, default 30; 0 keeps them"},
	{"AT_SNAPSHOT_MAX_AGE", "snapshot-max-age", "prompt snapshots older than this are dropped, default 2160h (90 days); 0 keeps any age"},
	{"AT_DEMO_BASE_URL", "demo-base-url", "demo narrator: the OpenAI-compatible endpoint the server pays for (https:// when hosted)"},
	{"AT_DEMO_MODELS", "demo-models", "demo narrator: comma-separated model whitelist; the first is the default"},
	{"AT_DEMO_API_KEY", "demo-api-key", "demo narrator: the endpoint's API key (never printed)"},
	{"AT_DEMO_API_KEY_FILE", "demo-api-key-file", "demo narrator: file holding the endpoint's API key"},
	{"AT_DEMO_DAILY_TOKENS", "demo-daily-tokens", "demo narrator: tokens each user may spend per UTC day, default 20000"},
	{"AT_ADMIN_EMAILS", "admin-emails", "hosted: comma-separated account emails that see the operator's dashboard (/operator); local mode: whoever uses this machine"},
	{"AT_ANALYTICS_FLUSH", "analytics-flush", "how often the anonymous counters are written, 1s to 1h (default 60s)"},
}

// LoadConfig reads the environment, then args as flags, and validates.
func LoadConfig(getenv func(string) string, args []string) (Config, error) {
	raw := map[string]string{}
	for _, v := range envVars {
		if val := getenv(v.env); val != "" {
			raw[v.env] = val
		}
	}
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(new(strings.Builder))
	flagVals := map[string]*string{}
	for _, v := range envVars {
		flagVals[v.env] = fs.String(v.flag, "", v.help+" [$"+v.env+"]")
	}
	if err := fs.Parse(args); err != nil {
		return Config{}, &configError{"flags", err.Error()}
	}
	if fs.NArg() > 0 {
		return Config{}, &configError{"flags", fmt.Sprintf("unexpected argument %q", fs.Arg(0))}
	}
	fs.Visit(func(f *flag.Flag) {
		for _, v := range envVars {
			if v.flag == f.Name {
				raw[v.env] = *flagVals[v.env]
			}
		}
	})
	return configFrom(raw)
}

func configFrom(raw map[string]string) (Config, error) {
	c := DefaultConfig()
	if v, ok := raw["AT_MODE"]; ok {
		c.Mode = v
	}
	if c.Mode != "local" && c.Mode != "hosted" {
		return c, &configError{"AT_MODE", fmt.Sprintf("must be local or hosted, got %q", c.Mode)}
	}
	c.Addr = "127.0.0.1:8080"
	if c.Mode == "hosted" {
		c.Addr = ":8080"
	}
	if v, ok := raw["AT_ADDR"]; ok {
		c.Addr = v
	}
	if _, port, err := net.SplitHostPort(c.Addr); err != nil {
		return c, &configError{"AT_ADDR", fmt.Sprintf("must be host:port, got %q", c.Addr)}
	} else if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return c, &configError{"AT_ADDR", fmt.Sprintf("port must be a number from 0 to 65535, got %q", port)}
	}
	c.DatabaseURL = raw["AT_DATABASE_URL"]
	if c.DatabaseURL != "" && !strings.HasPrefix(c.DatabaseURL, "postgres://") && !strings.HasPrefix(c.DatabaseURL, "postgresql://") {
		return c, &configError{"AT_DATABASE_URL", "must start with postgres:// or postgresql:// (leave it empty for SQLite)"}
	}
	if v, ok := raw["AT_DATA_DIR"]; ok {
		c.DataDir = v
	}
	switch v := raw["AT_SCRIPT_CACHE_DIR"]; v {
	case "":
		c.ScriptCacheDir = filepath.Join(c.DataDir, "script-cache")
	case "off":
		c.ScriptCacheDir = ""
	default:
		c.ScriptCacheDir = v
	}
	var err error
	for _, b := range []struct {
		env string
		dst *bool
	}{{"AT_TLS_DEV", &c.TLSDev}, {"AT_TLS_PROXY", &c.TLSProxy}} {
		if *b.dst, err = parseBool(b.env, raw[b.env]); err != nil {
			return c, err
		}
	}
	c.TLSCert, c.TLSKey = raw["AT_TLS_CERT"], raw["AT_TLS_KEY"]
	if (c.TLSCert == "") != (c.TLSKey == "") {
		return c, &configError{"AT_TLS_CERT", "AT_TLS_CERT and AT_TLS_KEY must be set together"}
	}
	if c.TLSCert != "" && c.TLSDev {
		return c, &configError{"AT_TLS_DEV", "cannot be combined with AT_TLS_CERT/AT_TLS_KEY; choose one"}
	}
	for _, f := range []struct{ env, path string }{{"AT_TLS_CERT", c.TLSCert}, {"AT_TLS_KEY", c.TLSKey}} {
		if f.path != "" {
			if _, err := os.Stat(f.path); err != nil {
				return c, &configError{f.env, fmt.Sprintf("cannot read %s: %v", f.path, errors.Unwrap(err))}
			}
		}
	}
	if v, ok := raw["AT_SCRIPT_TIMEOUT"]; ok {
		d, err := time.ParseDuration(v)
		if err != nil || d < 10*time.Millisecond || d > 30*time.Second {
			return c, &configError{"AT_SCRIPT_TIMEOUT", fmt.Sprintf("must be a duration from 10ms to 30s, got %q", v)}
		}
		c.ScriptTimeout = d
	}
	for _, m := range []struct {
		env string
		dst *time.Duration
	}{{"AT_MODEL_CONNECT_TIMEOUT", &c.ModelTimeouts.Connect}, {"AT_MODEL_HEADERS_TIMEOUT", &c.ModelTimeouts.Headers},
		{"AT_MODEL_IDLE_TIMEOUT", &c.ModelTimeouts.Idle}, {"AT_MODEL_TOTAL_TIMEOUT", &c.ModelTimeouts.Total}} {
		if v, ok := raw[m.env]; ok {
			d, err := time.ParseDuration(v)
			if err != nil || d < 10*time.Millisecond || d > 24*time.Hour {
				return c, &configError{m.env, fmt.Sprintf("must be a duration from 10ms to 24h, got %q", v)}
			}
			*m.dst = d
		}
	}
	if v, ok := raw["AT_GUEST_RETENTION_DAYS"]; ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > 36500 {
			return c, &configError{"AT_GUEST_RETENTION_DAYS", fmt.Sprintf("must be a number of days from 0 (keep) to 36500, got %q", v)}
		}
		c.GuestRetention = time.Duration(n) * 24 * time.Hour
	}
	if v, ok := raw["AT_SNAPSHOT_KEEP"]; ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > 1_000_000 {
			return c, &configError{"AT_SNAPSHOT_KEEP", fmt.Sprintf("must be a number of snapshots from 0 (all) to 1000000, got %q", v)}
		}
		c.SnapshotKeep = n
	}
	if v, ok := raw["AT_SNAPSHOT_MAX_AGE"]; ok {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 || (d > 0 && d < time.Minute) {
			return c, &configError{"AT_SNAPSHOT_MAX_AGE", fmt.Sprintf("must be 0 (any age) or a duration of at least 1m such as 720h, got %q", v)}
		}
		c.SnapshotMaxAge = d
	}
	if v, ok := raw["AT_ANALYTICS_FLUSH"]; ok {
		d, err := time.ParseDuration(v)
		if err != nil || d < time.Second || d > time.Hour {
			return c, &configError{"AT_ANALYTICS_FLUSH", fmt.Sprintf("must be a duration from 1s to 1h, got %q", v)}
		}
		c.AnalyticsFlush = d
	}
	for _, e := range strings.Split(raw["AT_ADMIN_EMAILS"], ",") {
		if e = accounts.NormalizeEmail(e); e == "" {
			continue
		}
		if _, err := mail.ParseAddress(e); err != nil || strings.ContainsAny(e, "<> ") {
			return c, &configError{"AT_ADMIN_EMAILS", fmt.Sprintf("%q is not an email address", e)}
		}
		c.AdminEmails = append(c.AdminEmails, e)
	}
	if v, ok := raw["AT_SCRIPT_MEMORY_MB"]; ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < 16 || n > 1024 {
			return c, &configError{"AT_SCRIPT_MEMORY_MB", fmt.Sprintf("must be a number of MiB from 16 to 1024, got %q", v)}
		}
		c.ScriptMemoryMB = n
	}
	if v := raw["AT_TRUSTED_PROXIES"]; v != "" {
		for _, p := range strings.Split(v, ",") {
			p = strings.TrimSpace(p)
			if net.ParseIP(p) == nil {
				if _, _, err := net.ParseCIDR(p); err != nil {
					return c, &configError{"AT_TRUSTED_PROXIES", fmt.Sprintf("%q is neither an IP address nor a CIDR", p)}
				}
			}
			c.TrustedProxies = append(c.TrustedProxies, p)
		}
	}
	// Checked in any mode; applied only when hosted: a laptop user is never
	// throttled by their own app.
	if c.Limits, err = limits.Parse(raw["AT_LIMITS"]); err != nil {
		return c, &configError{"AT_LIMITS", err.Error()}
	}
	if c.Mode == "local" {
		c.Limits = nil
	}
	if v, ok := raw["AT_LOG_FORMAT"]; ok {
		if v != "text" && v != "json" {
			return c, &configError{"AT_LOG_FORMAT", fmt.Sprintf("must be text or json, got %q", v)}
		}
		c.LogFormat = v
	}
	if err := loadSecret(&c, raw); err != nil {
		return c, err
	}
	if err := loadPreviousSecret(&c, raw); err != nil {
		return c, err
	}
	if err := loadDemo(&c, raw); err != nil {
		return c, err
	}
	// A hosted server sends session cookies: never over plain HTTP, where
	// anyone on the path reads them.
	if c.Mode == "hosted" && c.TLSCert == "" && !c.TLSDev && !c.TLSProxy {
		return c, &configError{"AT_TLS_PROXY", "a hosted server needs HTTPS: set AT_TLS_CERT and AT_TLS_KEY (or AT_TLS_DEV=1 to try it), or AT_TLS_PROXY=1 when a reverse proxy terminates TLS in front of it"}
	}
	return c, nil
}

// loadSecret fills c.Secret: from AT_SECRET or AT_SECRET_FILE, required in
// hosted mode; in local mode generated once and kept in the data dir.
func loadSecret(c *Config, raw map[string]string) error {
	c.Secret = raw["AT_SECRET"]
	if path := raw["AT_SECRET_FILE"]; path != "" {
		if c.Secret != "" {
			return &configError{"AT_SECRET_FILE", "set AT_SECRET or AT_SECRET_FILE, not both"}
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return &configError{"AT_SECRET_FILE", fmt.Sprintf("cannot read %s: %v", path, errors.Unwrap(err))}
		}
		c.Secret = strings.TrimSpace(string(b))
	}
	if c.Secret != "" {
		if len(c.Secret) < auth.MinSecretLength {
			return &configError{"AT_SECRET", fmt.Sprintf("must be at least %d characters (try: openssl rand -hex 32)", auth.MinSecretLength)}
		}
		return nil
	}
	if c.Mode == "hosted" {
		return &configError{"AT_SECRET", "required in hosted mode: it signs browser sessions and must survive restarts and be the same on every server (try: openssl rand -hex 32)"}
	}
	return nil
}

// loadPreviousSecret fills c.SecretPrevious from AT_SECRET_PREVIOUS.
func loadPreviousSecret(c *Config, raw map[string]string) error {
	c.SecretPrevious = strings.TrimSpace(raw["AT_SECRET_PREVIOUS"])
	switch {
	case c.SecretPrevious == "":
		return nil
	case len(c.SecretPrevious) < auth.MinSecretLength:
		return &configError{"AT_SECRET_PREVIOUS", fmt.Sprintf("must be at least %d characters, like the secret it was", auth.MinSecretLength)}
	case c.SecretPrevious == c.Secret:
		return &configError{"AT_SECRET_PREVIOUS", "is the same as AT_SECRET: set it to the secret used before the rotation"}
	}
	return nil
}

// demoVars are the demo narrator's settings: all of them or none.
var demoVars = []string{"AT_DEMO_BASE_URL", "AT_DEMO_MODELS", "AT_DEMO_API_KEY", "AT_DEMO_API_KEY_FILE", "AT_DEMO_DAILY_TOKENS"}

// loadDemo fills c.Demo from AT_DEMO_*: none set means no demo narrator;
// any set means the endpoint, the whitelist and the key are all required.
// No message ever holds the key.
func loadDemo(c *Config, raw map[string]string) error {
	set := ""
	for _, name := range demoVars {
		if strings.TrimSpace(raw[name]) != "" && set == "" {
			set = name
		}
	}
	if set == "" {
		return nil
	}
	required := func(name, what string) error {
		return &configError{name, fmt.Sprintf("required because %s is set: %s (the demo narrator needs AT_DEMO_BASE_URL, AT_DEMO_MODELS and AT_DEMO_API_KEY or AT_DEMO_API_KEY_FILE)", set, what)}
	}
	d := &narrative.DemoConfig{DailyTokens: narrative.DefaultDemoDailyTokens}
	d.BaseURL = strings.TrimSpace(raw["AT_DEMO_BASE_URL"])
	if d.BaseURL == "" {
		return required("AT_DEMO_BASE_URL", "the OpenAI-compatible endpoint, such as https://openrouter.ai/api/v1")
	}
	u, err := url.Parse(d.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" || len(d.BaseURL) > 500 {
		return &configError{"AT_DEMO_BASE_URL", "must be an http:// or https:// URL with a host and no credentials, query or fragment, such as https://openrouter.ai/api/v1"}
	}
	if c.Mode == "hosted" && u.Scheme != "https" {
		return &configError{"AT_DEMO_BASE_URL", "must be https:// on a hosted server: the server's API key travels with every request"}
	}
	models := strings.TrimSpace(raw["AT_DEMO_MODELS"])
	if models == "" {
		return required("AT_DEMO_MODELS", "the comma-separated model whitelist, the default first")
	}
	for _, m := range strings.Split(models, ",") {
		m = strings.TrimSpace(m)
		switch {
		case m == "":
			return &configError{"AT_DEMO_MODELS", "has an empty entry: list model names separated by commas"}
		case len(m) > 200 || strings.ContainsFunc(m, func(r rune) bool { return r < 0x21 || r == 0x7f }):
			return &configError{"AT_DEMO_MODELS", fmt.Sprintf("%q is not a model name (up to 200 characters, no spaces)", m)}
		case slices.Contains(d.Models, m):
			return &configError{"AT_DEMO_MODELS", fmt.Sprintf("lists %q twice", m)}
		}
		d.Models = append(d.Models, m)
	}
	d.APIKey = strings.TrimSpace(raw["AT_DEMO_API_KEY"])
	if path := strings.TrimSpace(raw["AT_DEMO_API_KEY_FILE"]); path != "" {
		if d.APIKey != "" {
			return &configError{"AT_DEMO_API_KEY_FILE", "set AT_DEMO_API_KEY or AT_DEMO_API_KEY_FILE, not both"}
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return &configError{"AT_DEMO_API_KEY_FILE", fmt.Sprintf("cannot read %s: %v", path, errors.Unwrap(err))}
		}
		if d.APIKey = strings.TrimSpace(string(b)); d.APIKey == "" {
			return &configError{"AT_DEMO_API_KEY_FILE", fmt.Sprintf("%s is empty", path)}
		}
	}
	if d.APIKey == "" {
		return required("AT_DEMO_API_KEY", "the endpoint's API key (or AT_DEMO_API_KEY_FILE naming a file that holds it)")
	}
	if len(d.APIKey) > 1000 || strings.ContainsFunc(d.APIKey, func(r rune) bool { return r < 0x21 || r == 0x7f }) {
		return &configError{"AT_DEMO_API_KEY", "must be one line of up to 1000 characters without spaces or control characters (its value is not shown)"}
	}
	if v := strings.TrimSpace(raw["AT_DEMO_DAILY_TOKENS"]); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 1 || n > 1_000_000_000 {
			return &configError{"AT_DEMO_DAILY_TOKENS", fmt.Sprintf("must be a number of tokens from 1 to 1000000000, got %q", v)}
		}
		d.DailyTokens = n
	}
	c.Demo = d
	return nil
}

// ensureLocalSecret generates or reads the local secret; it touches the
// disk, so it runs at serve time, not while parsing.
func (c *Config) ensureLocalSecret() error {
	if c.Secret != "" {
		return nil
	}
	s, err := auth.LoadOrCreateSecret(c.DataDir)
	if err != nil {
		return &configError{"AT_SECRET", err.Error()}
	}
	c.Secret = string(s)
	return nil
}

func parseBool(name, v string) (bool, error) {
	switch strings.ToLower(v) {
	case "", "0", "false", "no":
		return false, nil
	case "1", "true", "yes":
		return true, nil
	}
	return false, &configError{name, fmt.Sprintf("must be 1 or 0, got %q", v)}
}

// SQLitePath is where the SQLite database lives.
func (c Config) SQLitePath() string { return filepath.Join(c.DataDir, "adventure.db") }

// CertDir is where development certificates live.
func (c Config) CertDir() string { return filepath.Join(c.DataDir, "tls") }

// servesTLS reports whether this process terminates TLS itself.
func (c Config) servesTLS() bool { return c.TLSDev || c.TLSCert != "" }

// mcpDecision says whether /mcp may be mounted and, if not, why. Agents'
// bearer tokens must not cross a network in clear text: plain HTTP is only
// allowed in local mode on a loopback address.
func (c Config) mcpDecision(listenHost string) (bool, string) {
	switch {
	case c.servesTLS():
		return true, "served over TLS"
	case c.TLSProxy:
		return true, "behind a TLS-terminating proxy (AT_TLS_PROXY=1)"
	case c.Mode == "local" && isLoopback(listenHost):
		return true, "plain HTTP on loopback, local mode"
	case c.Mode == "hosted":
		return false, "hosted mode without TLS: set AT_TLS_CERT/AT_TLS_KEY, or AT_TLS_PROXY=1 behind a TLS proxy"
	default:
		return false, "listening beyond loopback without TLS: set AT_TLS_DEV=1, AT_TLS_CERT/AT_TLS_KEY or AT_TLS_PROXY=1"
	}
}

// lanWarning is what local mode says at start-up when it listens beyond
// loopback (AT_ADDR=0.0.0.0:8080 or a LAN address, to play with friends):
// local mode has no login, so anyone who can reach the address plays as a
// guest. Empty on loopback, in hosted mode, and behind a TLS proxy (which
// decides who reaches the server).
func (c Config) lanWarning(listenHost string) string {
	if c.Mode != "local" || c.TLSProxy || isLoopback(listenHost) {
		return ""
	}
	w := "local mode is listening beyond loopback (AT_ADDR=" + c.Addr + ") with no login: anyone on the network who can reach this address plays as a guest. " +
		"Friends open http(s)://<this machine's LAN address>:<port>/ (names other than localhost are refused; use the IP address). "
	if !c.servesTLS() {
		w += "Traffic is plain HTTP: set AT_TLS_DEV=1 (or AT_TLS_CERT/AT_TLS_KEY) to encrypt it, or run hosted mode (AT_MODE=hosted) with TLS for accounts and rate limits."
	} else {
		w += "For accounts and rate limits, run hosted mode (AT_MODE=hosted)."
	}
	return w
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
