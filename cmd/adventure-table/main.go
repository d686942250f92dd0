// Command adventure-table is the Adventure Table server: one binary serving
// the browser app, the JSON API and the MCP endpoint for AI agents.
//
//	adventure-table [serve] [flags]   start the server (default)
//	adventure-table migrate [flags]   bring the database schema up to date
//	adventure-table certs [flags]     create development TLS certificates
//	adventure-table version           print the version
package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/adventure-table/adventure-table/gameplay"
	"github.com/adventure-table/adventure-table/gameplay/limits"
	"github.com/adventure-table/adventure-table/gameplay/llm"
	"github.com/adventure-table/adventure-table/gameplay/scripting"
	"github.com/adventure-table/adventure-table/mcp"
	"github.com/adventure-table/adventure-table/mcp/narrator"
	"github.com/adventure-table/adventure-table/models"
	"github.com/adventure-table/adventure-table/tlsdev"
	"github.com/adventure-table/adventure-table/webui"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is main without the process: it returns the exit code. 2 means bad
// configuration, 1 a failure while running.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	cmd := "serve"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "version":
		fmt.Fprintln(stdout, "adventure-table", version)
		return 0
	case "serve", "migrate", "certs", "grant":
	case "script":
		return runScriptCommand(ctx, args, stdout, stderr)
	case "memories":
		return runMemoriesCommand(ctx, args, getenv, stdout, stderr)
	case "stats":
		return runStatsCommand(ctx, args, getenv, stdout, stderr)
	case "snapshots":
		return runSnapshotsCommand(ctx, args, getenv, stdout, stderr)
	case "backup", "restore":
		return runBackupCommand(ctx, cmd, args, getenv, stdout, stderr)
	case "help":
		usage(stdout)
		return 0
	default:
		fmt.Fprintf(stderr, "adventure-table: unknown command %q\n", cmd)
		usage(stderr)
		return 2
	}
	if cmd == "grant" {
		target, rest, err := grantArgs(args)
		if err != nil {
			fmt.Fprintln(stderr, "adventure-table grant:", err)
			return 2
		}
		return runGrantCommand(ctx, getenv, rest, target, stdout, stderr)
	}
	cfg, err := LoadConfig(getenv, args)
	if err != nil {
		fmt.Fprintln(stderr, "adventure-table: configuration:", err)
		return 2
	}
	logger := newLogger(cfg, stderr)
	switch cmd {
	case "certs":
		err = runCerts(cfg, stdout)
	case "migrate":
		err = runMigrate(ctx, cfg, stdout)
	default:
		err = runServe(ctx, cfg, logger, stdout, nil)
	}
	if err != nil {
		var ce *configError
		if errors.As(err, &ce) {
			fmt.Fprintln(stderr, "adventure-table: configuration:", err)
			return 2
		}
		fmt.Fprintln(stderr, "adventure-table:", err)
		return 1
	}
	return 0
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: adventure-table [serve|migrate|certs|version] [flags]")
	fmt.Fprintln(w, "       adventure-table grant -seat <id> [flags]   (local mode: mint an AI token for a seat)")
	fmt.Fprintln(w, "       adventure-table script test --hook input|context|output --script <file> [--library <file>] --input <json or file>")
	fmt.Fprintln(w, "       adventure-table memories rewrite --adventure <id> [--dry-run] [flags]   (rewrite a memory bank through the current memory prompt)")
	fmt.Fprintln(w, "       adventure-table memories ab --adventure <id> --framing <file> [--json] [flags]   (compare the current framing rule with FILE's; saves nothing)")
	fmt.Fprintln(w, "       adventure-table stats [--days N] [--csv] [flags]   (the operator's dashboard in the terminal)")
	fmt.Fprintln(w, "       adventure-table snapshots recompress [flags]   (convert prompt snapshots stored before version 37 to deltas)")
	fmt.Fprintln(w, "       adventure-table backup <file> [flags]   (a consistent copy of the database while the server runs)")
	fmt.Fprintln(w, "       adventure-table restore <file> [flags]   (load a backup into an empty database)")
	fmt.Fprintln(w, "settings (environment variable, or the flag in brackets):")
	for _, v := range envVars {
		fmt.Fprintf(w, "  %-20s [-%s] %s\n", v.env, v.flag, v.help)
	}
}

func newLogger(cfg Config, w io.Writer) *slog.Logger {
	if cfg.LogFormat == "json" {
		return slog.New(slog.NewJSONHandler(w, nil))
	}
	return slog.New(slog.NewTextHandler(w, nil))
}

// openMigrated opens the configured database and brings its schema up to
// date; on error nothing is left open.
func openMigrated(ctx context.Context, cfg Config) (*models.Store, models.MigrateReport, error) {
	store, err := models.Open(ctx, models.Config{DatabaseURL: cfg.DatabaseURL, SQLitePath: cfg.SQLitePath()})
	if err != nil {
		return nil, models.MigrateReport{}, err
	}
	rep, err := store.Migrate(ctx)
	if err != nil {
		store.Close()
		return nil, rep, err
	}
	return store, rep, nil
}

func runMigrate(ctx context.Context, cfg Config, stdout io.Writer) error {
	store, rep, err := openMigrated(ctx, cfg)
	if err != nil {
		return err
	}
	defer store.Close()
	switch {
	case rep.Fresh:
		fmt.Fprintf(stdout, "created a fresh schema at version %d (%s %s)\n", rep.To, store.Dialect(), store.Location())
	case len(rep.Applied) > 0:
		fmt.Fprintf(stdout, "upgraded schema from version %d to %d (applied %v)\n", rep.From, rep.To, rep.Applied)
	default:
		fmt.Fprintf(stdout, "schema already at version %d\n", rep.To)
	}
	return nil
}

func runCerts(cfg Config, stdout io.Writer) error {
	res, err := tlsdev.EnsureCert(cfg.CertDir(), time.Now())
	if err != nil {
		return err
	}
	state := "reused"
	if res.CreatedLeaf {
		state = "created"
	}
	fmt.Fprintf(stdout, "Development certificate for %s %s: %s (valid until %s)\n",
		strings.Join(tlsdev.Hosts, ", "), state, res.Cert, res.NotAfter.Format(time.DateOnly))
	fmt.Fprint(stdout, tlsdev.TrustHelp(res.CA))
	fmt.Fprintln(stdout, "Serve HTTPS with: AT_TLS_DEV=1 make run")
	return nil
}

// shutdownGrace bounds how long a stopping server waits for requests in
// flight; turns and long polls end at once, so it is only reached by a
// request stuck elsewhere.
const shutdownGrace = 10 * time.Second

// ready is told the listening address; tests use it instead of the banner.
type ready func(addr net.Addr)

// runServe opens and migrates the database, builds the services and serves
// until ctx ends; then in-flight requests finish and the database closes.
func runServe(ctx context.Context, cfg Config, logger *slog.Logger, stdout io.Writer, onReady ready) error {
	if err := cfg.ensureLocalSecret(); err != nil {
		return err
	}
	store, rep, err := openMigrated(ctx, cfg)
	if err != nil {
		return err
	}
	defer store.Close()
	if rep.Fresh || len(rep.Applied) > 0 {
		logger.Info("database migrated", slog.Int("from", rep.From), slog.Int("to", rep.To), slog.Bool("fresh", rep.Fresh))
	}

	var tlsConfig *tls.Config
	if cfg.servesTLS() {
		if tlsConfig, err = loadTLS(cfg, logger); err != nil {
			return err
		}
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", cfg.Addr, err)
	}
	host, port, _ := net.SplitHostPort(ln.Addr().String())
	cfgHost, _, _ := net.SplitHostPort(cfg.Addr)
	if cfgHost == "localhost" {
		host = "localhost"
	}

	provider := modelProvider(cfg)
	// Scenario scripts run in QuickJS with a working directory of their own
	// that stays empty: no host file is reachable from a script.
	sandboxDir := filepath.Join(cfg.DataDir, "script-sandbox")
	if err := os.MkdirAll(sandboxDir, 0o700); err != nil {
		return fmt.Errorf("script sandbox: %w", err)
	}
	sandbox, err := scripting.New(scripting.Options{Timeout: cfg.ScriptTimeout, MemoryLimit: int64(cfg.ScriptMemoryMB) << 20, WorkDir: sandboxDir,
		EngineCacheDir: cfg.ScriptCacheDir, Logger: logger})
	if err != nil {
		return fmt.Errorf("script sandbox: %w", err)
	}
	defer sandbox.Close()
	processID, unlock, err := lockProcessID(cfg.DataDir)
	if err != nil {
		return err
	}
	defer unlock()
	if cfg.Demo != nil {
		logger.Info("demo narrator on for users without an endpoint of their own", slog.String("base_url", cfg.Demo.BaseURL),
			slog.Any("models", cfg.Demo.Models), slog.Int64("daily_tokens", cfg.Demo.DailyTokens))
	}
	services := gameplay.New(store, gameplay.Options{Mode: cfg.Mode, Secret: []byte(cfg.Secret), PreviousSecret: []byte(cfg.SecretPrevious), Demo: cfg.Demo,
		Provider: provider, Sandbox: sandbox, ProcessID: processID,
		Logger: logger, SnapshotKeep: keepAllAsNegative(cfg.SnapshotKeep), SnapshotMaxAge: keepAllAsNegative(cfg.SnapshotMaxAge),
		AdminEmails: cfg.AdminEmails})
	// Solo turns this process's previous run was writing when it died are
	// free at once, so Undo and the next turn work right after a restart.
	if n, err := services.Narrative.RecoverTurns(ctx); err != nil {
		return fmt.Errorf("recover turn claims: %w", err)
	} else if n > 0 {
		logger.Info("freed solo turns left by a stopped process", slog.Int64("count", n))
	}
	// Memory jobs this process's previous run had claimed resume at once;
	// the worker then runs them in the background (and those of other
	// processes that died), never on a turn's path.
	if _, err := services.Narrative.RecoverMemoryJobs(ctx); err != nil {
		return fmt.Errorf("recover memory jobs: %w", err)
	}
	go services.Narrative.RunMemoryWorker(ctx)
	// The same for the campaigns' memories (the table's events, by audience).
	if _, err := services.Table.RecoverCampaignMemoryJobs(ctx); err != nil {
		return fmt.Errorf("recover campaign memory jobs: %w", err)
	}
	go services.Table.RunCampaignMemoryWorker(ctx)
	if cfg.Mode == "hosted" && cfg.GuestRetention > 0 {
		go sweepGuests(ctx, services, cfg.GuestRetention, logger)
	}
	// On PostgreSQL several server processes may share the database: their
	// commits wake this process's long polls too.
	if err := services.Table.FollowOtherProcesses(ctx, func(err error) {
		logger.Warn("listening for other processes' events failed; waits fall back to their timeout until it reconnects", "err", err)
	}); err != nil {
		return fmt.Errorf("listen for session events: %w", err)
	}
	// A Stop asked in another process reaches the turns streaming here at
	// once (without it, at their next heartbeat).
	if err := services.Narrative.FollowStops(ctx, func(err error) {
		logger.Warn("listening for other processes' stops failed; turns hear of a stop at their next heartbeat until it reconnects", "err", err)
	}); err != nil {
		return fmt.Errorf("listen for turn stops: %w", err)
	}
	// One set of rate limits for the web app and MCP (nil: none, local mode).
	lim := limits.New(cfg.Limits)
	lim.CountRefusals(services.Analytics)
	if store.Dialect() == models.Postgres {
		// every process on one PostgreSQL spends the same buckets
		lim.ShareThrough(store, logger)
		go lim.Run(ctx)
	}
	logger.Info("rate limits", slog.String("limits", cfg.Limits.String()))
	lanWarning := cfg.lanWarning(host)
	if lanWarning != "" {
		logger.Warn(lanWarning)
	}
	// The server's own narrator serves the seats given to it, through the
	// same tools /mcp offers (mounted or not: it calls them in process).
	narrators := narrator.New(narrator.Options{Table: services.Table, Model: services.Narrative, ProcessID: processID, Logger: logger,
		Tools: mcp.NewToolbox(mcp.Options{Logger: logger, Table: services.Table, Limits: lim})})
	go narrators.Run(ctx)
	// The anonymous counters flush every minute; the last flush follows the
	// last request (below).
	go services.Analytics.Run(ctx, cfg.AnalyticsFlush)
	mountMCP, why := cfg.mcpDecision(host)
	var mcpHandler http.Handler
	if mountMCP {
		mcpHandler = mcp.NewHandler(mcp.Options{Version: version, Logger: logger, BehindLocalProxy: cfg.TLSProxy, Table: services.Table, Narrative: services.Narrative, Limits: lim,
			Verify: func(ctx context.Context, token string) (mcp.Principal, error) {
				c, err := services.Table.AuthenticateGrant(ctx, token)
				return mcp.Principal{GrantID: c.GrantID, Caller: c}, err
			}})
	} else {
		logger.Warn("MCP endpoint not mounted", slog.String("reason", why))
	}
	handler, err := webui.New(webui.Options{
		Services:       services,
		Version:        version,
		APIDocs:        cfg.Mode == "local",
		TrustedProxies: cfg.TrustedProxies,
		MCP:            mcpHandler,
		Logger:         logger,
		Secret:         []byte(cfg.Secret),
		PreviousSecret: []byte(cfg.SecretPrevious),
		SecureCookies:  cfg.TLSProxy,
		HSTS:           cfg.Mode == "hosted",
		Accounts:       cfg.Mode == "hosted",
		// DNS rebinding: local mode answers only to loopback names, unless a
		// TLS proxy forwards its own name (like /mcp, BehindLocalProxy).
		LoopbackHostOnly: cfg.Mode == "local" && !cfg.TLSProxy,
		Limits:           lim,
	})
	if err != nil {
		ln.Close()
		return &configError{"AT_TRUSTED_PROXIES", err.Error()}
	}
	srv := &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		TLSConfig:         tlsConfig,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}

	scheme := "http"
	if tlsConfig != nil {
		scheme = "https"
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host = "localhost"
	}
	base := fmt.Sprintf("%s://%s/", scheme, net.JoinHostPort(host, port))
	mcpLine := base + "mcp"
	if !mountMCP {
		mcpLine = "not mounted: " + why
	}
	fmt.Fprintf(stdout, "Adventure Table %s\n  URL:       %s\n  Mode:      %s\n  Database:  %s %s (schema v%d)\n  MCP:       %s\n",
		version, base, cfg.Mode, store.Dialect(), store.Location(), rep.To, mcpLine)
	if lanWarning != "" {
		fmt.Fprintf(stdout, "  WARNING:   %s\n", lanWarning)
	}
	if onReady != nil {
		onReady(ln.Addr())
	}

	serveErr := make(chan error, 1)
	go func() {
		if tlsConfig != nil {
			serveErr <- srv.ServeTLS(ln, "", "")
		} else {
			serveErr <- srv.Serve(ln)
		}
	}()
	select {
	case err := <-serveErr:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	// Streaming turns end (turn_interrupted) and long polls answer now,
	// so the requests in flight finish within moments.
	logger.Info("shutting down: ending streaming turns and long polls, waiting for requests in flight")
	services.Shutdown()
	shutdownCtx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		srv.Close()
		return fmt.Errorf("shutdown: requests still running after %v: %w", shutdownGrace, err)
	}
	if err := services.Analytics.Flush(shutdownCtx); err != nil {
		logger.Warn("analytics: the last flush failed", slog.Any("error", err))
	}
	logger.Info("stopped")
	return nil
}

// modelProvider is the model client with the configured time limits. A
// hosted server reaches only public model endpoints (no SSRF into its own
// network); a local one must reach Ollama on localhost.
func modelProvider(cfg Config) *llm.OpenAI {
	if cfg.Mode == "hosted" {
		return llm.NewOpenAIWithTimeouts(llm.PublicOnlyHTTPClient(), cfg.ModelTimeouts)
	}
	return llm.NewOpenAIWithTimeouts(nil, cfg.ModelTimeouts)
}

func loadTLS(cfg Config, logger *slog.Logger) (*tls.Config, error) {
	certFile, keyFile := cfg.TLSCert, cfg.TLSKey
	if cfg.TLSDev {
		res, err := tlsdev.EnsureCert(cfg.CertDir(), time.Now())
		if err != nil {
			return nil, err
		}
		certFile, keyFile = res.Cert, res.CertKey
		logger.Info("serving HTTPS with the development certificate", slog.String("ca", res.CA))
	}
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, &configError{"AT_TLS_CERT", fmt.Sprintf("cannot load the certificate pair: %v", err)}
	}
	return &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}, nil
}

// keepAllAsNegative turns the configuration's 0 ("keep all") into the
// services' negative ("off"), whose 0 means "the default".
func keepAllAsNegative[T int | time.Duration](v T) T {
	if v == 0 {
		return -1
	}
	return v
}

// guestSweepEvery is how often a hosted server deletes idle guests.
const guestSweepEvery = time.Hour

// sweepGuests deletes, at start and then hourly, the guests not seen for
// retention, with everything they own (one cascading DELETE). Several
// servers on one database may all sweep: the DELETE is idempotent.
func sweepGuests(ctx context.Context, services *gameplay.Services, retention time.Duration, logger *slog.Logger) {
	ticker := time.NewTicker(guestSweepEvery)
	defer ticker.Stop()
	for {
		if n, err := services.SweepIdleGuests(ctx, retention); err != nil {
			logger.Warn("sweeping idle guests failed; retrying in an hour", "err", err)
		} else if n > 0 {
			logger.Info("swept idle guests", slog.Int64("count", n))
		}
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
	}
}
