// Command atload puts many waiting clients on a running adventure-table
// server, from another process and over the same doors real clients use
// (the JSON API with a browser cookie, MCP tools/call with a bearer
// grant), and measures what they cost.
//
// It sets up S sessions through the API (the owner is the human DM; a few
// guest identities join and play a seat each; AI seats get a grant from
// "adventure-table grant"), then:
//
//   - probes unrelated requests (GET /api/me, GET /api/sessions/{id}) for
//     a baseline;
//   - starts N HTTP waiters (-http-mode: GET /api/sessions/{id}/events/stream
//     as the web app does, GET .../events/wait long polls re-polling from
//     their cursor as a browser without EventSource does, or half each) and M MCP
//     wait_for_event calls, and reads the server's RSS, open files and, on
//     PostgreSQL, its connections (pg_stat_activity) with the waiters idle;
//   - posts messages as the DM at a set rate (HTTP, or MCP post_message
//     with -writer mcp), each carrying its send time, so every waiter's wake
//     latency is measured on one clock; two whispers check that only their
//     seat's waiters see them;
//   - measures the database's raw single-row INSERT+COMMIT ceiling on the
//     same database, and MCP post_message throughput with C workers on one
//     session and spread over C sessions.
//
// It starts the binary itself (-bin, a temporary data dir; -pg DSN to run
// it on a fresh PostgreSQL database that is dropped afterwards), or
// attaches to one (-url, with -pid for memory, -data-dir and
// -database-url so that grants and the ceiling use the server's database).
// -smoke is a small bounded run that fails on any missed, duplicated or
// forbidden event and on any error. See README "Load testing".
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
)

// config is the run, from flags.
type config struct {
	bin, url, dataDir, dbURL, pg string
	pid                          int
	sessions, httpWaiters        int
	mcpWaiters, humans, aiSeats  int
	posts                        int
	rate                         float64
	writer, httpMode             string
	waitTimeout                  time.Duration
	settle, probe, grace         time.Duration
	workers                      int
	tput                         time.Duration
	smoke, jsonOut, keep         bool
	// floor (floorMCP): measure the bare SSE fan-out floor with this many
	// streams (the bare go-sdk floor with this many wait_for_event calls)
	// instead of the server.
	floor, floorMCP int
	// soak: the deployment under load with faults (soak.go); off when its
	// duration is 0
	soak soakConfig
}

func main() {
	if addr := os.Getenv(floorServerEnv); addr != "" {
		if err := serveFloor(addr); err != nil {
			fmt.Fprintln(os.Stderr, "atload floor server:", err)
			os.Exit(1)
		}
		return
	}
	cfg, err := parseFlags(os.Args[1:], os.Stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(0)
		}
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if cfg.floor > 0 || cfg.floorMCP > 0 {
		n, what := cfg.floor, "bare SSE streams (no database, one frame encoded once per post)"
		if cfg.floorMCP > 0 {
			n, what = cfg.floorMCP, "bare go-sdk wait_for_event calls (no database, stateless, as ours)"
		}
		res, err := runFloor(ctx, n, cfg.posts, cfg.rate, cfg.floorMCP > 0, func(format string, args ...any) {
			fmt.Fprintf(os.Stderr, "atload %s "+format+"\n", append([]any{time.Now().Format("15:04:05.000")}, args...)...)
		})
		if err != nil {
			fmt.Fprintln(os.Stderr, "atload floor:", err)
			os.Exit(1)
		}
		fmt.Printf("floor: %d %s: wake p50 %.2fms p90 %.2fms p99 %.2fms max %.2fms over %d deliveries, %d missed; %.1f KiB RSS per waiter\n",
			res.Streams, what, res.Wake.P50, res.Wake.P90, res.Wake.P99, res.Wake.Max, res.Wake.N, res.Missed, res.RSSPerStreamKiB)
		if res.Missed > 0 {
			os.Exit(1)
		}
		return
	}
	if cfg.soak.duration > 0 {
		rep, err := runSoak(ctx, cfg, func(format string, args ...any) {
			fmt.Fprintf(os.Stderr, "atload %s "+format+"\n", append([]any{time.Now().Format("15:04:05.000")}, args...)...)
		})
		if err != nil {
			rep.Problems = append(rep.Problems, "the soak stopped early: "+err.Error())
		}
		emit(cfg.jsonOut, rep, rep.print)
		if len(rep.Problems) > 0 {
			os.Exit(1)
		}
		return
	}
	rep, err := run(ctx, cfg, os.Stderr)
	if err != nil {
		rep.problem("the run stopped early: %v", err)
	}
	if rep != nil {
		emit(cfg.jsonOut, rep, rep.print)
	}
	if len(rep.Problems) > 0 {
		os.Exit(1)
	}
}

// emit prints a report on stdout: indented JSON with -json, else as text.
func emit(jsonOut bool, rep any, text func(io.Writer)) {
	if jsonOut {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(rep)
		return
	}
	text(os.Stdout)
}

func parseFlags(args []string, stderr io.Writer) (config, error) {
	var c config
	fs := flag.NewFlagSet("atload", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.bin, "bin", "bin/adventure-table", "the server binary: started unless -url is given; always used for \"grant\"")
	fs.StringVar(&c.url, "url", "", "attach to a running server at this base URL instead of starting one")
	fs.IntVar(&c.pid, "pid", 0, "with -url: the server's process id, for RSS, open files and limits")
	fs.StringVar(&c.dataDir, "data-dir", "", "the server's AT_DATA_DIR (with -url: required, for grants and the SQLite file); default a temporary one")
	fs.StringVar(&c.dbURL, "database-url", "", "the server's AT_DATABASE_URL (PostgreSQL); empty: SQLite in the data dir")
	fs.StringVar(&c.pg, "pg", "", "start the server on a fresh database created on this PostgreSQL server (a postgres:// URL), dropped afterwards")
	fs.IntVar(&c.sessions, "sessions", 1, "sessions the waiters are spread over (S)")
	fs.IntVar(&c.httpWaiters, "http", 1000, "HTTP waiters (N)")
	fs.StringVar(&c.httpMode, "http-mode", "stream", "how the HTTP waiters follow events: stream (GET events/stream, Server-Sent Events, as the web app does), poll (GET events/wait long polls) or mixed (half each)")
	fs.IntVar(&c.mcpWaiters, "mcp", 100, "MCP wait_for_event calls (M)")
	fs.IntVar(&c.humans, "identities", 4, "guest identities per session that play a seat each; the HTTP waiters share them")
	fs.IntVar(&c.aiSeats, "ai-seats", 4, "AI seats (one grant each) per session; the MCP waiters share them")
	fs.IntVar(&c.posts, "posts", 30, "messages the writer posts (round-robin over the sessions)")
	fs.Float64Var(&c.rate, "rate", 2, "posts per second")
	fs.StringVar(&c.writer, "writer", "http", "how the writer posts: http (POST /api/sessions/{id}/messages as the DM) or mcp (post_message with an AI seat's grant)")
	fs.DurationVar(&c.waitTimeout, "wait-timeout", 25*time.Second, "timeout of each long poll (1s-60s)")
	fs.DurationVar(&c.settle, "settle", 3*time.Second, "pause after the waiters are out, before measuring them idle")
	fs.DurationVar(&c.probe, "probe", 5*time.Second, "how long each unrelated-request probe phase lasts")
	fs.DurationVar(&c.grace, "grace", 10*time.Second, "after the last post, how long waiters may take to receive everything")
	fs.IntVar(&c.workers, "c", 8, "workers for the commit ceiling and the post_message throughput (C)")
	fs.DurationVar(&c.tput, "tput", 5*time.Second, "duration of each ceiling/throughput measure (0: skip them)")
	fs.BoolVar(&c.smoke, "smoke", false, "small bounded run (1 session, 200 HTTP + 50 MCP waiters, 20 posts) that fails on any missed or forbidden event or error")
	fs.BoolVar(&c.jsonOut, "json", false, "print the report as JSON")
	fs.IntVar(&c.floor, "floor", 0, "instead of the server, measure the floor: this many bare SSE streams on a minimal fan-out server (no database, one frame encoded once per post), with the same client, -posts and -rate")
	fs.IntVar(&c.floorMCP, "floor-mcp", 0, "instead of the server, measure the MCP floor: this many wait_for_event calls on a bare go-sdk server (stateless, no database; the tool answers each post), with the MCP waiters' client, -posts and -rate")
	fs.BoolVar(&c.keep, "keep", false, "keep the temporary data dir (server log) afterwards")
	fs.DurationVar(&c.soak.duration, "soak", 0, "instead: the soak, this long (e.g. 10m): two processes behind Caddy on a fresh -pg database, tables and solo players playing, a process killed every -soak-kill-every, PostgreSQL restarted once (-soak-pg-restart)")
	fs.IntVar(&c.soak.tables, "soak-tables", 20, "soak: tables (3 streaming humans and 1 MCP agent each)")
	fs.IntVar(&c.soak.solo, "soak-solo", 5, "soak: solo adventures playing turns against a fake model")
	fs.Float64Var(&c.soak.rate, "soak-rate", 0.5, "soak: posts per second per table")
	fs.DurationVar(&c.soak.killEvery, "soak-kill-every", time.Minute, "soak: how often a server process is killed with SIGKILL and restarted")
	fs.StringVar(&c.soak.pgRestart, "soak-pg-restart", "", `soak: "VERSION CLUSTER" (pg_ctlcluster) to restart PostgreSQL once, halfway; empty: no restart`)
	fs.StringVar(&c.soak.caddyfile, "caddyfile", "deploy/Caddyfile", "soak: the proxy's Caddyfile")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if c.smoke {
		set := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
		def := func(name string, apply func()) {
			if !set[name] {
				apply()
			}
		}
		def("sessions", func() { c.sessions = 1 })
		def("http", func() { c.httpWaiters = 200 })
		def("mcp", func() { c.mcpWaiters = 50 })
		def("posts", func() { c.posts = 20 })
		def("rate", func() { c.rate = 20 })
		def("settle", func() { c.settle = time.Second })
		def("probe", func() { c.probe = time.Second })
		def("grace", func() { c.grace = 5 * time.Second })
		def("c", func() { c.workers = 2 })
		def("http-mode", func() { c.httpMode = "mixed" })
		def("tput", func() { c.tput = time.Second })
	}
	var bad []string
	if c.sessions < 1 || c.humans < 0 || c.aiSeats < 0 || c.httpWaiters < 0 || c.mcpWaiters < 0 || c.workers < 1 {
		bad = append(bad, "-sessions and -c must be at least 1, counts not negative")
	}
	if c.httpWaiters > 0 && c.humans == 0 {
		bad = append(bad, "-http needs -identities > 0")
	}
	if (c.mcpWaiters > 0 || c.writer == "mcp") && c.aiSeats == 0 {
		bad = append(bad, "-mcp and -writer mcp need -ai-seats > 0")
	}
	if c.posts < 1 || c.rate <= 0 {
		bad = append(bad, "-posts and -rate must be positive")
	}
	if c.writer != "http" && c.writer != "mcp" {
		bad = append(bad, "-writer is http or mcp")
	}
	if c.httpMode != "stream" && c.httpMode != "poll" && c.httpMode != "mixed" {
		bad = append(bad, "-http-mode is stream, poll or mixed")
	}
	if c.waitTimeout < time.Second || c.waitTimeout > 60*time.Second {
		bad = append(bad, "-wait-timeout is 1s to 60s")
	}
	if c.url != "" && c.dataDir == "" {
		bad = append(bad, "-url needs -data-dir (the server's AT_DATA_DIR) so that grants open its database")
	}
	if c.url != "" && c.pg != "" {
		bad = append(bad, "-pg starts a server; with -url give -database-url")
	}
	if c.pg != "" && c.dbURL != "" {
		bad = append(bad, "give -pg or -database-url, not both")
	}
	if len(bad) > 0 {
		fmt.Fprintln(stderr, "atload:", strings.Join(bad, "; "))
		return c, errors.New("bad flags")
	}
	return c, nil
}

// run performs the whole measurement. The report is returned even when a
// phase fails, with what was measured so far.
func run(ctx context.Context, cfg config, logw io.Writer) (rep *report, err error) {
	logf := func(format string, args ...any) {
		fmt.Fprintf(logw, "atload %s "+format+"\n", append([]any{time.Now().Format("15:04:05.000")}, args...)...)
	}
	rep = &report{Config: reportConfig{Sessions: cfg.sessions, HTTPWaiters: cfg.httpWaiters, HTTPMode: cfg.httpMode, MCPWaiters: cfg.mcpWaiters,
		Identities: cfg.humans, AISeats: cfg.aiSeats, Posts: cfg.posts, Rate: cfg.rate, Writer: cfg.writer,
		WaitTimeoutS: int(cfg.waitTimeout / time.Second), Workers: cfg.workers, Smoke: cfg.smoke, GOMAXPROCS: runtime.GOMAXPROCS(0)},
		Problems: []string{}}
	waiters := cfg.httpWaiters + cfg.mcpWaiters

	// Every waiter is a socket here and one on the server.
	soft, hard, err := raiseFDLimit()
	if err != nil {
		return rep, fmt.Errorf("raise the open-file limit: %w", err)
	}
	rep.FDs.LoadSoft, rep.FDs.LoadHard = soft, hard
	need := uint64(waiters + 2*cfg.workers + 128)
	rep.FDs.Needed = need
	if soft < need {
		return rep, fmt.Errorf("this process may open %d files (hard limit %d) but %d waiters need about %d: raise the hard limit (ulimit -Hn, as root) first", soft, hard, waiters, need)
	}

	srv := &server{bin: cfg.bin, base: strings.TrimRight(cfg.url, "/"), pid: cfg.pid, dataDir: cfg.dataDir, dbURL: cfg.dbURL}
	workDir := ""
	if cfg.url == "" {
		if workDir, err = os.MkdirTemp("", "atload-"); err != nil {
			return rep, err
		}
		if srv.dataDir == "" {
			srv.dataDir = workDir + "/data"
		}
		defer func() {
			if cfg.keep || err != nil {
				logf("kept %s (server log: %s)", workDir, srv.logPath)
				return
			}
			os.RemoveAll(workDir)
		}()
		if cfg.pg != "" {
			db, err := createPGDatabase(ctx, cfg.pg)
			if err != nil {
				return rep, err
			}
			logf("created PostgreSQL database %s", db.name)
			srv.dbURL = db.url
			defer func() {
				if err := db.drop(context.WithoutCancel(ctx)); err != nil {
					logf("drop database %s: %v", db.name, err)
				} else {
					logf("dropped PostgreSQL database %s", db.name)
				}
			}()
		}
		if err := srv.start(ctx, workDir); err != nil {
			return rep, err
		}
		defer srv.stop()
		logf("started %s (pid %d) at %s", cfg.bin, srv.pid, srv.base)
	}
	rep.Server = reportServer{URL: srv.base, PID: srv.pid, Database: "sqlite"}
	if srv.dbURL != "" {
		rep.Server.Database = "postgres"
	}
	if srv.pid != 0 {
		s, h, err := procFDLimit(srv.pid)
		if err == nil {
			rep.FDs.ServerSoft, rep.FDs.ServerHard = s, h
			if s >= 0 && s < int64(waiters+128) {
				rep.FDs.Advice = fmt.Sprintf("the server may open %d files; %d waiters need about %d: start it after `ulimit -n %d` (systemd: LimitNOFILE=%d)", s, waiters, waiters+128, waiters+1024, waiters+1024)
				logf("%s", rep.FDs.Advice)
			}
		}
	}

	// Set up the tables.
	setupStart := time.Now()
	client := &http.Client{Transport: newTransport(64)}
	owner := newAPI(srv.base, client)
	if err := owner.do(ctx, "GET", "/api/me", nil, nil); err != nil {
		return rep, err
	}
	humans := make([]*api, cfg.humans)
	for i := range humans {
		humans[i] = newAPI(srv.base, client)
		if err := humans[i].do(ctx, "GET", "/api/me", nil, nil); err != nil {
			return rep, err
		}
	}
	tables := make([]*table, cfg.sessions)
	for i := range tables {
		if tables[i], err = setupTable(ctx, srv, owner, humans, cfg.aiSeats, fmt.Sprintf("atload %d", i+1)); err != nil {
			return rep, fmt.Errorf("set up session %d: %w", i+1, err)
		}
	}
	var tputTables []*table
	if cfg.tput > 0 {
		for i := range cfg.workers {
			t, err := setupTable(ctx, srv, owner, nil, 1, fmt.Sprintf("atload throughput %d", i+1))
			if err != nil {
				return rep, fmt.Errorf("set up throughput session %d: %w", i+1, err)
			}
			tputTables = append(tputTables, t)
		}
	}
	rep.SetupSeconds = time.Since(setupStart).Seconds()
	logf("set up %d session(s) (+%d for throughput) in %.1fs", len(tables), len(tputTables), rep.SetupSeconds)

	// Baseline: no waiters.
	probeClient := &http.Client{Transport: newTransport(4)}
	pr := &prober{a: &api{base: srv.base, client: probeClient, cookie: owner.cookie}, sessionID: tables[0].sessionID, every: 10 * time.Millisecond}
	rep.Unrelated.Baseline, rep.Unrelated.BaselineErrors, err = pr.probeFor(ctx, cfg.probe)
	if err != nil {
		rep.problem("unrelated request failed (baseline): %v", err)
	}
	before := sample(ctx, srv)
	rep.Idle.Before = before
	logf("baseline: unrelated p99 %.2fms, server RSS %d KiB", rep.Unrelated.Baseline.P99, before.RSSKiB)

	// The waiters.
	posts := &postLog{}
	pc := pollConfig{base: srv.base, timeoutS: int(cfg.waitTimeout / time.Second)}
	waitClient := &http.Client{Transport: newTransport(waiters)}
	wctx, stopWaiters := context.WithCancel(ctx)
	defer stopWaiters()
	var wg sync.WaitGroup
	all := make([]*waiter, 0, waiters)
	for i := range cfg.httpWaiters {
		t := i % cfg.sessions
		stream := cfg.httpMode == "stream" || (cfg.httpMode == "mixed" && i%2 == 0)
		all = append(all, &waiter{kind: "http", stream: stream, table: t, who: (i / cfg.sessions) % cfg.humans, cursor: tables[t].cursor})
	}
	for i := range cfg.mcpWaiters {
		t := i % cfg.sessions
		all = append(all, &waiter{kind: "mcp", table: t, who: (i / cfg.sessions) % cfg.aiSeats, cursor: tables[t].cursor})
	}
	waitStart := time.Now()
	for i, w := range all {
		w.posts, w.whispers = map[int]time.Time{}, map[int]bool{}
		t := tables[w.table]
		wg.Go(func() {
			switch {
			case w.kind == "http" && w.stream:
				w.runStream(wctx, pc, waitClient, humans[w.who].cookie, t.sessionID, posts)
			case w.kind == "http":
				w.runHTTP(wctx, pc, waitClient, humans[w.who].cookie, t.sessionID, posts)
			default:
				w.runMCP(wctx, pc, &mcpClient{url: srv.base + "/mcp", token: t.grants[w.who], client: waitClient}, posts)
			}
		})
		// Ramp up in steps so the listen backlog never overflows.
		if i%200 == 199 {
			time.Sleep(20 * time.Millisecond)
		}
	}
	for _, w := range all {
		for !w.started.Load() && ctx.Err() == nil {
			time.Sleep(5 * time.Millisecond)
		}
	}
	select {
	case <-time.After(cfg.settle):
	case <-ctx.Done():
		return rep, ctx.Err()
	}
	// Idle means idle: with many waiters the first polls' reads can still
	// be queued after -settle, so wait (up to a minute) until the server
	// uses under 5% of a core.
	if srv.pid != 0 {
		for quiet := time.Now().Add(time.Minute); time.Now().Before(quiet) && ctx.Err() == nil; {
			m := startCPU(srv.pid)
			time.Sleep(500 * time.Millisecond)
			if u := m.stop(); u.ServerSeconds < 0.05*u.Seconds {
				break
			}
		}
	}
	rep.Idle.RampSeconds = time.Since(waitStart).Seconds()
	idle := sample(ctx, srv)
	rep.Idle.With = idle
	if before.RSSKiB > 0 && waiters > 0 {
		rep.Idle.RSSPerWaiterKiB = float64(idle.RSSKiB-before.RSSKiB) / float64(waiters)
	}
	logf("%d waiters out: server RSS %d KiB (%+.1f KiB each), %d open files", waiters, idle.RSSKiB, rep.Idle.RSSPerWaiterKiB, idle.OpenFiles)
	idleCPU := startCPU(srv.pid)
	rep.Unrelated.Idle, rep.Unrelated.IdleErrors, err = pr.probeFor(ctx, cfg.probe)
	rep.CPU.Idle = idleCPU.stop()
	if err != nil {
		rep.problem("unrelated request failed (waiters idle): %v", err)
	}

	// The writer, with the prober running alongside.
	pctx, stopProbe := context.WithCancel(ctx)
	probed := make(chan struct{})
	go func() {
		defer close(probed)
		lat, errs, err := pr.run(pctx)
		rep.Unrelated.Posting, rep.Unrelated.PostingErrors = summarize(lat), errs
		if err != nil {
			rep.problem("unrelated request failed (while posting): %v", err)
		}
	}()
	postCPU := startCPU(srv.pid)
	postLat, postErrs := write(ctx, cfg, srv, owner, client, tables, posts, logf)
	stopProbe()
	<-probed
	rep.Posts = summarize(postLat)
	if postErrs > 0 {
		rep.problem("%d posts failed", postErrs)
	}

	// Everyone should now receive everything they may see.
	deadline := time.Now().Add(cfg.grace)
	for time.Now().Before(deadline) && !allReceived(all, posts) && ctx.Err() == nil {
		time.Sleep(50 * time.Millisecond)
	}
	rep.CPU.Posting = postCPU.stop()
	stopWaiters()
	wg.Wait()
	waitClient.CloseIdleConnections()
	rep.Wake = tally(all, posts, rep)
	logf("wake latency p50 %.2fms p99 %.2fms over %d deliveries", rep.Wake.All.P50, rep.Wake.All.P99, rep.Wake.All.N)

	// The write path against the database, once the waiters are gone.
	if cfg.tput > 0 {
		time.Sleep(time.Second)
		warm := min(cfg.tput/4, time.Second)
		c1, err := commitCeiling(ctx, srv, 1, warm, cfg.tput)
		if err != nil {
			return rep, fmt.Errorf("commit ceiling: %w", err)
		}
		cN, err := commitCeiling(ctx, srv, cfg.workers, warm, cfg.tput)
		if err != nil {
			return rep, fmt.Errorf("commit ceiling: %w", err)
		}
		rep.Write.Ceiling1, rep.Write.CeilingC = c1, cN
		tc := &http.Client{Transport: newTransport(cfg.workers)}
		mcpOn := func(t *table) *mcpClient {
			return &mcpClient{url: srv.base + "/mcp", token: t.grants[0], client: tc}
		}
		post := func(spread bool) rate {
			return closedLoop(ctx, cfg.workers, warm, cfg.tput, func(ctx context.Context, w int, i int64) error {
				t := tputTables[0]
				if spread {
					t = tputTables[w]
				}
				return mcpOn(t).call(ctx, i, "post_message", map[string]string{"text": fmt.Sprintf("atload throughput %d/%d", w, i)}, nil)
			})
		}
		rep.Write.OneSession = post(false)
		rep.Write.Spread = post(true)
		for _, r := range []rate{c1, cN, rep.Write.OneSession, rep.Write.Spread} {
			if r.Errors > 0 {
				rep.problem("%d errors in a write measure: %s", r.Errors, r.FirstErr)
			}
		}
		if cN.PerSec > 0 {
			rep.Write.OneSessionRatio = rep.Write.OneSession.PerSec / cN.PerSec
			rep.Write.SpreadRatio = rep.Write.Spread.PerSec / cN.PerSec
		}
		logf("commit ceiling %.0f/s (1) %.0f/s (%d); post_message %.0f/s one session, %.0f/s spread", c1.PerSec, cN.PerSec, cfg.workers, rep.Write.OneSession.PerSec, rep.Write.Spread.PerSec)
	}
	return rep, nil
}

// sample reads the server's memory, files and database connections.
func sample(ctx context.Context, srv *server) processSample {
	var s processSample
	if srv.pid != 0 {
		// RSS moves with the garbage collector: the median of a few reads.
		var rss []int64
		for i := range 5 {
			if i > 0 {
				time.Sleep(100 * time.Millisecond)
			}
			if v, err := procRSS(srv.pid); err == nil {
				rss = append(rss, v)
			}
		}
		if len(rss) > 0 {
			slices.Sort(rss)
			s.RSSKiB = rss[len(rss)/2]
		}
		s.OpenFiles, _ = procFDs(srv.pid)
	}
	if srv.dbURL != "" {
		c, err := countPGConns(ctx, srv.dbURL)
		if err == nil {
			s.DBConns = &c
		}
	}
	return s
}

// write posts cfg.posts messages at cfg.rate, round-robin over the
// tables, and two whispers halfway: one to a human seat, one to an AI
// seat of the first table.
func write(ctx context.Context, cfg config, srv *server, owner *api, client *http.Client, tables []*table, posts *postLog,
	logf func(string, ...any)) (lat []time.Duration, errs int) {
	tick := time.NewTicker(time.Duration(float64(time.Second) / cfg.rate))
	defer tick.Stop()
	mcps := make([]*mcpClient, len(tables))
	for i, t := range tables {
		if len(t.grants) > 0 {
			mcps[i] = &mcpClient{url: srv.base + "/mcp", token: t.grants[0], client: client}
		}
	}
	whisperTo := func(w whisper, seat int64) {
		n := posts.addWhisper(w)
		text := marker{kind: 'w', n: n, sent: time.Now()}.String()
		err := owner.do(ctx, "POST", fmt.Sprintf("/api/sessions/%d/messages", tables[0].sessionID),
			map[string]any{"kind": "whisper_dm", "text": text, "to_seat_id": seat}, nil)
		if err != nil {
			errs++
			logf("whisper: %v", err)
		}
	}
	for i := range cfg.posts {
		if i > 0 {
			select {
			case <-tick.C:
			case <-ctx.Done():
				return lat, errs
			}
		}
		if i == cfg.posts/2 {
			if cfg.humans > 0 {
				whisperTo(whisper{table: 0, kind: "http", who: 0}, tables[0].humanSeats[0])
			}
			if cfg.aiSeats > 0 {
				whisperTo(whisper{table: 0, kind: "mcp", who: 0}, tables[0].aiSeats[0])
			}
		}
		ti := i % len(tables)
		t0 := time.Now()
		n := posts.add(ti, t0)
		text := marker{kind: 'p', n: n, sent: t0}.String()
		var err error
		if cfg.writer == "mcp" {
			err = mcps[ti].call(ctx, int64(n), "post_message", map[string]string{"text": text}, nil)
		} else {
			err = owner.do(ctx, "POST", fmt.Sprintf("/api/sessions/%d/messages", tables[ti].sessionID),
				map[string]string{"kind": "narration", "text": text}, nil)
		}
		posts.done(n, time.Now())
		if err != nil {
			errs++
			logf("post %d: %v", n, err)
			continue
		}
		lat = append(lat, time.Since(t0))
	}
	return lat, errs
}

// expected is what a waiter must receive: every acknowledged post of its
// table and the acknowledged whispers to its seat.
func expected(w *waiter, posts *postLog) (nPosts, nWhispers int) {
	posts.mu.RLock()
	defer posts.mu.RUnlock()
	for n, t := range posts.table {
		if t == w.table && !posts.failed[n] {
			nPosts++
		}
	}
	for n, x := range posts.whispers {
		if x.table == w.table && x.kind == w.kind && x.who == w.who && !posts.failedWhispers[n] {
			nWhispers++
		}
	}
	return nPosts, nWhispers
}

func allReceived(all []*waiter, posts *postLog) bool {
	for _, w := range all {
		np, nw := expected(w, posts)
		w.mu.Lock()
		ok := len(w.posts) >= np && len(w.whispers) >= nw
		w.mu.Unlock()
		if !ok {
			return false
		}
	}
	return true
}

// tally adds up the waiters and records every miss, duplicate, forbidden
// event and error as a problem.
func tally(all []*waiter, posts *postLog, rep *report) wakeReport {
	var out wakeReport
	var lat, latHTTP, latMCP, fromResp []time.Duration
	var missed, missedWhispers, dups, errs, polls int
	var foreign []string
	var firstErr error
	posts.mu.RLock()
	returned := append([]time.Time(nil), posts.returned...)
	posts.mu.RUnlock()
	for _, w := range all {
		np, nw := expected(w, posts)
		w.mu.Lock()
		missed += max(np-len(w.posts), 0)
		missedWhispers += max(nw-len(w.whispers), 0)
		dups += w.dups
		errs += w.errs
		polls += w.polls
		foreign = append(foreign, w.foreign...)
		if firstErr == nil {
			firstErr = w.firstErr
		}
		lat = append(lat, w.lat...)
		if w.kind == "http" {
			latHTTP = append(latHTTP, w.lat...)
		} else {
			latMCP = append(latMCP, w.lat...)
		}
		for n, recv := range w.posts {
			if n < len(returned) && !returned[n].IsZero() {
				fromResp = append(fromResp, recv.Sub(returned[n]))
			}
		}
		w.mu.Unlock()
	}
	out.All, out.HTTP, out.MCP = summarize(lat), summarize(latHTTP), summarize(latMCP)
	out.AfterPostReturned = summarize(fromResp)
	out.Missed, out.MissedWhispers, out.Duplicates, out.Forbidden, out.Errors, out.Polls = missed, missedWhispers, dups, len(foreign), errs, polls
	if missed > 0 {
		rep.problem("%d post deliveries missed", missed)
	}
	if missedWhispers > 0 {
		rep.problem("%d whisper deliveries missed", missedWhispers)
	}
	if dups > 0 {
		rep.problem("%d events delivered twice", dups)
	}
	if len(foreign) > 0 {
		rep.problem("%d events seen by a waiter that must not see them, e.g. %s", len(foreign), foreign[0])
	}
	if errs > 0 {
		rep.problem("%d waiter errors, first: %v", errs, firstErr)
	}
	return out
}
