package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// The soak (-soak DURATION): the production deployment under a steady
// load with faults. Two server processes on one fresh PostgreSQL database
// behind Caddy (deploy/Caddyfile, its internal CA); T tables, each with
// three human players following the event stream and one MCP agent
// waiting for events, the DM and the humans posting and the DM whispering
// to one seat; S solo adventures playing turns against a fake model. Every
// -soak-kill-every one process is killed with SIGKILL and started again;
// once, halfway, PostgreSQL itself restarts (-soak-pg-restart). At the end
// every acknowledged post must have reached every follower of its table
// once, no whisper may reach another seat, and every solo story must be
// whole. The figures: those counts, the error rate outside the fault
// windows, p99 per route with and without faults, and the recovery time
// after each fault.

// soakConfig is the soak's part of the flags.
type soakConfig struct {
	duration, killEvery time.Duration
	tables, solo        int
	rate                float64 // posts per second per table
	pgRestart           string  // "VERSION CLUSTER" for pg_ctlcluster, "" for none
	caddyfile           string
}

// faultWindow is how long after a fault a request under way counts as
// "during the fault" for the figures (its recovery is measured, not
// assumed).
const faultWindow = 15 * time.Second

// soakReport is what the soak found.
type soakReport struct {
	Duration        float64             `json:"duration_seconds"`
	Tables          int                 `json:"tables"`
	Solo            int                 `json:"solo_adventures"`
	Posts           int                 `json:"posts_acknowledged"`
	Lost            int                 `json:"events_lost"`
	Duplicated      int                 `json:"events_duplicated"`
	WrongWhispers   int                 `json:"whispers_seen_by_the_wrong_seat"`
	SoloTurns       int                 `json:"solo_turns"`
	HalfSaved       int                 `json:"solo_nodes_half_saved"`
	Faults          []soakFault         `json:"faults"`
	ErrorRateQuiet  float64             `json:"error_rate_outside_faults"`
	ErrorsQuiet     int                 `json:"errors_outside_faults"`
	ErrorsFault     int                 `json:"errors_during_faults"`
	Routes          map[string]soakPair `json:"routes"`
	Problems        []string            `json:"problems"`
	FirstQuietError string              `json:"first_error_outside_faults,omitempty"`
}

type soakFault struct {
	At       float64 `json:"at_seconds"`
	What     string  `json:"what"`
	Recovery float64 `json:"recovery_seconds"`
}

type soakPair struct {
	Quiet dist `json:"quiet"`
	Fault dist `json:"fault"`
}

// soakCalls records every request's route, start, latency and outcome.
type soakCalls struct {
	mu    sync.Mutex
	calls []soakCall
}

type soakCall struct {
	route string
	at    time.Time
	lat   time.Duration
	err   error
}

func (c *soakCalls) add(route string, at time.Time, err error) {
	c.mu.Lock()
	c.calls = append(c.calls, soakCall{route, at, time.Since(at), err})
	c.mu.Unlock()
}

// runSoak runs the soak; the report is returned with what was measured
// even when it stops early.
func runSoak(ctx context.Context, cfg config, logf func(string, ...any)) (rep *soakReport, err error) {
	sc := cfg.soak
	rep = &soakReport{Tables: sc.tables, Solo: sc.solo, Routes: map[string]soakPair{}, Problems: []string{}}
	if cfg.pg == "" {
		return rep, fmt.Errorf("-soak needs -pg: two processes share a PostgreSQL database")
	}
	caddy, err := exec.LookPath("caddy")
	if err != nil {
		return rep, fmt.Errorf("-soak needs caddy (apt-get install -y caddy)")
	}
	workDir, err := os.MkdirTemp("", "atload-soak-")
	if err != nil {
		return rep, err
	}
	defer func() {
		if cfg.keep || err != nil || len(rep.Problems) > 0 {
			logf("kept %s (server and proxy logs)", workDir)
			return
		}
		os.RemoveAll(workDir)
	}()
	db, err := createPGDatabase(ctx, cfg.pg)
	if err != nil {
		return rep, err
	}
	defer func() { _ = db.drop(context.WithoutCancel(ctx)) }()

	model, err := startFakeModel()
	if err != nil {
		return rep, err
	}
	defer model.Close()

	// the two processes: fixed ports (the proxy's upstreams), one secret
	secret := fmt.Sprintf("atload-soak-%d-0123456789abcdefghijklmnop", time.Now().UnixNano())
	procs := make([]*server, 2)
	var upstreams []string
	for i := range procs {
		addr, err := freeAddr()
		if err != nil {
			return rep, err
		}
		dir := filepath.Join(workDir, fmt.Sprintf("p%d", i+1))
		procs[i] = &server{bin: cfg.bin, dataDir: dir, dbURL: db.url, addr: addr,
			extraEnv: []string{"AT_SECRET=" + secret, "AT_TLS_PROXY=1", "AT_TRUSTED_PROXIES=127.0.0.1"}}
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return rep, err
		}
		if err := procs[i].start(ctx, dir); err != nil {
			return rep, err
		}
		defer procs[i].stop()
		upstreams = append(upstreams, addr)
	}
	proxyAddr, err := freeAddr()
	if err != nil {
		return rep, err
	}
	_, port, _ := net.SplitHostPort(proxyAddr)
	caddyHome := filepath.Join(workDir, "caddy")
	proxyCmd := exec.Command(caddy, "run", "--config", sc.caddyfile, "--adapter", "caddyfile")
	proxyCmd.Env = append(os.Environ(), "HOME="+caddyHome, "XDG_DATA_HOME="+filepath.Join(caddyHome, "data"),
		"XDG_CONFIG_HOME="+filepath.Join(caddyHome, "config"), "AT_SITE=localhost", "AT_PROXY_PORT="+port,
		"AT_TLS=tls internal", "AT_UPSTREAMS="+strings.Join(upstreams, " "))
	proxyLog, err := os.Create(filepath.Join(workDir, "caddy.log"))
	if err != nil {
		return rep, err
	}
	defer proxyLog.Close()
	proxyCmd.Stdout, proxyCmd.Stderr = proxyLog, proxyLog
	if err := proxyCmd.Start(); err != nil {
		return rep, err
	}
	defer func() { _ = proxyCmd.Process.Kill(); _ = proxyCmd.Wait() }()
	base := "https://localhost:" + port
	client, err := proxyClient(ctx, base, filepath.Join(caddyHome, "data", "caddy", "pki", "authorities", "local", "root.crt"))
	if err != nil {
		return rep, err
	}
	logf("soak: %s behind Caddy at %s, PostgreSQL database %s", strings.Join(upstreams, " and "), base, db.name)

	// the tables and the solo players, set up through the proxy
	grantSrv := procs[0] // "grant" opens the database, not a process
	owner := newAPI(base, client)
	if err := owner.do(ctx, "GET", "/api/me", nil, nil); err != nil {
		return rep, err
	}
	var tables []*table
	humansOf := make([][]*api, sc.tables)
	for i := range sc.tables {
		humans := make([]*api, 3)
		for h := range humans {
			humans[h] = newAPI(base, client)
			if err := humans[h].do(ctx, "GET", "/api/me", nil, nil); err != nil {
				return rep, err
			}
		}
		t, err := setupTable(ctx, grantSrv, owner, humans, 1, fmt.Sprintf("soak %d", i+1))
		if err != nil {
			return rep, fmt.Errorf("set up table %d: %w", i+1, err)
		}
		tables, humansOf[i] = append(tables, t), humans
	}
	players := make([]*api, sc.solo)
	adventures := make([]int64, sc.solo)
	for i := range players {
		players[i] = newAPI(base, client)
		if adventures[i], err = newSoloAdventure(ctx, players[i], model.URL()); err != nil {
			return rep, fmt.Errorf("solo player %d: %w", i+1, err)
		}
	}
	logf("soak: %d tables (3 humans and an MCP agent each), %d solo adventures", len(tables), len(players))

	// the followers
	posts := &postLog{}
	var followers []*waiter
	loadCtx, stopLoad := context.WithCancel(ctx)
	var wg sync.WaitGroup
	pc := pollConfig{base: base, timeoutS: 20}
	for ti, t := range tables {
		for h, human := range humansOf[ti] {
			w := &waiter{kind: "http", stream: true, table: ti, who: h, cursor: t.cursor, posts: map[int]time.Time{}, whispers: map[int]bool{}}
			followers = append(followers, w)
			wg.Go(func() { w.runStream(loadCtx, pc, client, human.cookie, t.sessionID, posts) })
		}
		w := &waiter{kind: "mcp", table: ti, who: 0, cursor: t.cursor, posts: map[int]time.Time{}, whispers: map[int]bool{}}
		followers = append(followers, w)
		mc := &mcpClient{url: base + "/mcp", token: t.grants[0], client: client}
		wg.Go(func() { w.runMCP(loadCtx, pc, mc, posts) })
	}

	// the writers: each table's DM and humans post in turn; the DM
	// whispers to one human now and then
	calls := &soakCalls{}
	var acked atomic.Int64
	for ti, t := range tables {
		wg.Go(func() {
			tick := time.NewTicker(time.Duration(float64(time.Second) / sc.rate))
			defer tick.Stop()
			for i := 0; ; i++ {
				select {
				case <-loadCtx.Done():
					return
				case <-tick.C:
				}
				who, seatIdx := owner, -1
				kind := "narration"
				if i%4 != 0 {
					who, kind = humansOf[ti][i%4-1], "say"
				}
				if i%10 == 5 {
					seatIdx = rand.IntN(3)
				}
				t0 := time.Now()
				body := map[string]any{"kind": kind}
				route := "POST messages"
				var n int
				if seatIdx >= 0 {
					n = posts.addWhisper(whisper{table: ti, kind: "http", who: seatIdx})
					body["kind"], body["to_seat_id"], who = "whisper_dm", t.humanSeats[seatIdx], owner
					body["text"] = marker{kind: 'w', n: n, sent: t0}.String()
					route = "POST messages (whisper)"
				} else {
					n = posts.add(ti, t0)
					body["text"] = marker{kind: 'p', n: n, sent: t0}.String()
				}
				err := who.do(loadCtx, "POST", fmt.Sprintf("/api/sessions/%d/messages", t.sessionID), body, nil)
				if loadCtx.Err() != nil {
					return
				}
				calls.add(route, t0, err)
				if seatIdx >= 0 {
					if err != nil {
						posts.failWhisper(n)
					}
					continue
				}
				posts.done(n, time.Now())
				if err != nil {
					posts.fail(n)
				} else {
					acked.Add(1)
				}
			}
		})
	}
	// the solo players: a turn, then the next, each streamed to its end
	var soloTurns atomic.Int64
	for i, p := range players {
		wg.Go(func() {
			for k := 0; loadCtx.Err() == nil; k++ {
				t0 := time.Now()
				err := playSoloTurn(loadCtx, p, adventures[i], fmt.Sprintf("I try door %d", k))
				if loadCtx.Err() != nil {
					return
				}
				calls.add("POST turns", t0, err)
				if err == nil {
					soloTurns.Add(1)
				}
				select {
				case <-loadCtx.Done():
					return
				case <-time.After(500 * time.Millisecond):
				}
			}
		})
	}
	// a steady reader, as a page load does
	wg.Go(func() {
		for loadCtx.Err() == nil {
			t0 := time.Now()
			err := owner.do(loadCtx, "GET", fmt.Sprintf("/api/sessions/%d", tables[0].sessionID), nil, nil)
			if loadCtx.Err() != nil {
				return
			}
			calls.add("GET session", t0, err)
			time.Sleep(100 * time.Millisecond)
		}
	})

	// the faults
	start := time.Now()
	var faults []time.Time
	killTick := time.NewTicker(sc.killEvery)
	defer killTick.Stop()
	deadline := time.After(sc.duration)
	pgRestarted := sc.pgRestart == ""
	victim := 0
loop:
	for {
		select {
		case <-ctx.Done():
			break loop
		case <-deadline:
			break loop
		case <-killTick.C:
		}
		at := time.Now()
		what := ""
		if !pgRestarted && at.Sub(start) >= sc.duration/2 {
			pgRestarted = true
			what = "PostgreSQL restarted"
			f := strings.Fields(sc.pgRestart)
			if out, err := exec.Command("pg_ctlcluster", "--skip-systemctl-redirect", f[0], f[1], "restart").CombinedOutput(); err != nil {
				rep.Problems = append(rep.Problems, fmt.Sprintf("pg_ctlcluster restart: %v: %s", err, out))
			}
		} else {
			p := procs[victim]
			victim = 1 - victim
			what = "kill -9 of " + p.addr
			_ = syscall.Kill(p.pid, syscall.SIGKILL)
			<-p.stopWait
			p.stopWait = nil
			if err := p.start(ctx, p.dataDir); err != nil {
				rep.Problems = append(rep.Problems, fmt.Sprintf("restart after kill: %v", err))
			}
		}
		faults = append(faults, at)
		rep.Faults = append(rep.Faults, soakFault{At: at.Sub(start).Seconds(), What: what})
		logf("soak: %s at %.0fs", what, at.Sub(start).Seconds())
	}
	stopWriting := time.Now()
	// the followers catch up, then everything stops
	stopLoad()
	wg.Wait()
	followCtx, stopFollowing := context.WithCancel(ctx)
	var fw sync.WaitGroup
	for _, w := range followers {
		fw.Go(func() {
			if w.kind == "http" {
				human := humansOf[w.table][w.who]
				w.runStream(followCtx, pc, client, human.cookie, tables[w.table].sessionID, posts)
			} else {
				w.runMCP(followCtx, pc, &mcpClient{url: base + "/mcp", token: tables[w.table].grants[0], client: client}, posts)
			}
		})
	}
	catchUp := time.Now().Add(60 * time.Second)
	for missing(followers, posts) > 0 && time.Now().Before(catchUp) {
		time.Sleep(200 * time.Millisecond)
	}
	stopFollowing()
	fw.Wait()
	rep.Duration = stopWriting.Sub(start).Seconds()

	// the counts
	rep.Posts, rep.SoloTurns = int(acked.Load()), int(soloTurns.Load())
	rep.Lost = missing(followers, posts)
	for _, w := range followers {
		w.mu.Lock()
		rep.Duplicated += w.dups
		rep.WrongWhispers += len(w.foreign)
		w.mu.Unlock()
	}
	for i, p := range players {
		half, err := halfSaved(ctx, p, adventures[i])
		if err != nil {
			rep.Problems = append(rep.Problems, fmt.Sprintf("solo adventure %d: %v", adventures[i], err))
		}
		rep.HalfSaved += len(half)
		for _, h := range half {
			rep.Problems = append(rep.Problems, fmt.Sprintf("solo adventure %d: %s", adventures[i], h))
		}
	}
	// the figures: quiet against fault windows, recovery per fault
	// a request is in a fault's window when it was under way at any time
	// of it: one cut short by a kill started before the kill
	inFault := func(c soakCall) bool {
		for _, f := range faults {
			if c.at.Before(f.Add(faultWindow)) && c.at.Add(c.lat).After(f) {
				return true
			}
		}
		return false
	}
	byRoute := map[string][2][]time.Duration{}
	quiet := 0
	for _, c := range calls.calls {
		fault := inFault(c)
		r := byRoute[c.route]
		if fault {
			r[1] = append(r[1], c.lat)
		} else {
			r[0] = append(r[0], c.lat)
			quiet++
		}
		byRoute[c.route] = r
		switch {
		case c.err != nil && fault:
			rep.ErrorsFault++
		case c.err != nil:
			rep.ErrorsQuiet++
			if rep.FirstQuietError == "" {
				rep.FirstQuietError = c.err.Error()
			}
		}
	}
	for route, r := range byRoute {
		rep.Routes[route] = soakPair{Quiet: summarize(r[0]), Fault: summarize(r[1])}
	}
	if quiet > 0 {
		rep.ErrorRateQuiet = float64(rep.ErrorsQuiet) / float64(quiet)
	}
	for i, f := range faults {
		// recovered: the first request that started after the fault and
		// succeeded, from then on with no failure for a second
		rep.Faults[i].Recovery = recovery(calls.calls, f).Seconds()
	}
	if rep.Lost > 0 || rep.Duplicated > 0 || rep.WrongWhispers > 0 || rep.HalfSaved > 0 {
		rep.Problems = append(rep.Problems, fmt.Sprintf("lost %d, duplicated %d, whispers to the wrong seat %d, solo nodes half-saved %d",
			rep.Lost, rep.Duplicated, rep.WrongWhispers, rep.HalfSaved))
	}
	if rep.ErrorsQuiet > 0 {
		rep.Problems = append(rep.Problems, fmt.Sprintf("%d errors outside the fault windows, first: %s", rep.ErrorsQuiet, rep.FirstQuietError))
	}
	if rep.Posts == 0 || rep.SoloTurns == 0 && sc.solo > 0 {
		rep.Problems = append(rep.Problems, "nothing was played")
	}
	return rep, nil
}

// missing counts the deliveries not made: each acknowledged post of a
// follower's table it has not received, each acknowledged whisper to its
// seat likewise.
func missing(followers []*waiter, posts *postLog) int {
	posts.mu.RLock()
	defer posts.mu.RUnlock()
	n := 0
	for _, w := range followers {
		w.mu.Lock()
		for p, t := range posts.table {
			if t == w.table && !posts.failed[p] {
				if _, ok := w.posts[p]; !ok {
					n++
				}
			}
		}
		for x, wh := range posts.whispers {
			if wh.table == w.table && wh.kind == w.kind && wh.who == w.who && !posts.failedWhispers[x] && !w.whispers[x] {
				n++
			}
		}
		w.mu.Unlock()
	}
	return n
}

// recovery is how long after a fault the service was whole again: until
// the end of the last failed request that started in the fault's window,
// or 0 when none failed.
func recovery(calls []soakCall, fault time.Time) time.Duration {
	var last time.Duration
	for _, c := range calls {
		if c.err != nil && !c.at.Before(fault.Add(-5*time.Second)) && c.at.Before(fault.Add(faultWindow)) {
			last = max(last, c.at.Add(c.lat).Sub(fault))
		}
	}
	return last
}

// proxyClient waits for the proxy's CA and /api/health and returns a
// client that trusts that CA.
func proxyClient(ctx context.Context, base, caFile string) (*http.Client, error) {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if pem, err := os.ReadFile(caFile); err == nil {
			pool := x509.NewCertPool()
			pool.AppendCertsFromPEM(pem)
			tr := newTransport(256)
			tr.TLSClientConfig = &tls.Config{RootCAs: pool}
			c := &http.Client{Transport: tr}
			req, _ := http.NewRequestWithContext(ctx, "GET", base+"/api/health", nil)
			if resp, err := c.Do(req); err == nil {
				resp.Body.Close()
				if resp.StatusCode == http.StatusOK {
					return c, nil
				}
			}
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	return nil, fmt.Errorf("the proxy at %s did not serve /api/health within 30 s", base)
}

// newSoloAdventure points the player's narrator at the fake model and
// starts an adventure of a new scenario.
func newSoloAdventure(ctx context.Context, p *api, modelURL string) (int64, error) {
	if err := p.do(ctx, "GET", "/api/me", nil, nil); err != nil {
		return 0, err
	}
	if err := p.do(ctx, "PUT", "/api/solo/settings", map[string]any{"base_url": modelURL, "model": "fake", "context_budget": 4000,
		"max_output_tokens": 400, "temperature": 0.8, "top_p": 0.95}, nil); err != nil {
		return 0, err
	}
	var sc struct{ ID int64 }
	if err := p.do(ctx, "POST", "/api/scenarios", map[string]any{"title": "The Crypt", "premise": "A damp crypt.",
		"opening": "You stand before the crypt door.", "stat_schema": map[string]any{}, "cards": []any{}}, &sc); err != nil {
		return 0, err
	}
	var page struct {
		Adventure struct{ ID int64 }
	}
	err := p.do(ctx, "POST", fmt.Sprintf("/api/scenarios/%d/play", sc.ID), map[string]any{"persona_name": "Ash"}, &page)
	return page.Adventure.ID, err
}

// soloState is what the play screen says of an adventure's line.
type soloState struct {
	Adventure struct {
		TurnInProgress bool `json:"turn_in_progress"`
	} `json:"adventure"`
	Story []struct {
		Kind  string `json:"kind"`
		Text  string `json:"text"`
		Depth int    `json:"depth"`
	} `json:"story"`
}

// playSoloTurn plays one turn and reads its stream to the end: nil when it
// ended with done. A turn waiting for narration (its process died) is
// retried.
func playSoloTurn(ctx context.Context, p *api, adv int64, text string) error {
	var state soloState
	if err := p.do(ctx, "GET", fmt.Sprintf("/api/adventures/%d", adv), nil, &state); err != nil {
		return err
	}
	path, body := fmt.Sprintf("/api/adventures/%d/turns", adv), any(map[string]string{"mode": "do", "text": text})
	if n := len(state.Story); n > 0 && state.Story[n-1].Kind == "player" {
		path, body = fmt.Sprintf("/api/adventures/%d/retry", adv), nil
	}
	b, _ := json.Marshal(body)
	req, _ := http.NewRequestWithContext(ctx, "POST", p.base+path, strings.NewReader(string(b)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Cookie", p.cookie)
	resp, err := p.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		raw, _ := io.ReadAll(resp.Body)
		return &apiError{Method: "POST", Path: path, Status: resp.StatusCode, Body: string(raw)}
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	last := ""
	for sc.Scan() {
		if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			var ev struct {
				Type string `json:"type"`
				Code string `json:"code"`
			}
			if json.Unmarshal([]byte(data), &ev) == nil {
				last = ev.Type
				if ev.Type == "error" {
					return fmt.Errorf("turn ended with %s", ev.Code)
				}
			}
		}
	}
	if last != "done" {
		return fmt.Errorf("turn stream ended with %q (%v)", last, sc.Err())
	}
	return nil
}

// halfSaved lists what is not whole in an adventure's line (its newest
// page): a depth skipped, a narration without its player's action before
// it or an empty one, and a turn still claimed once everything has
// stopped.
func halfSaved(ctx context.Context, p *api, adv int64) ([]string, error) {
	var state soloState
	// a claim from a killed process is freed by its restart
	for range 60 {
		if err := p.do(ctx, "GET", fmt.Sprintf("/api/adventures/%d", adv), nil, &state); err != nil {
			return nil, err
		}
		if !state.Adventure.TurnInProgress {
			break
		}
		time.Sleep(time.Second)
	}
	var bad []string
	if state.Adventure.TurnInProgress {
		bad = append(bad, "a turn is still in progress")
	}
	for i, n := range state.Story {
		if i > 0 && n.Depth != state.Story[i-1].Depth+1 {
			bad = append(bad, fmt.Sprintf("depth %d follows depth %d", n.Depth, state.Story[i-1].Depth))
		}
		// this soak never continues: each narration answers a player's
		// action (the line's first node may be a narration: a long story
		// is read from its newest page)
		if n.Kind == "narration" && (strings.TrimSpace(n.Text) == "" || i > 0 && state.Story[i-1].Kind != "player") {
			bad = append(bad, fmt.Sprintf("narration at depth %d (%d bytes) not after a player's action", n.Depth, len(n.Text)))
		}
	}
	return bad, nil
}

// fakeModel is the soak's language model: an OpenAI-compatible chat
// completions endpoint that streams a short reply to anything, with usage.
type fakeModel struct {
	srv *http.Server
	ln  net.Listener
}

func startFakeModel() (*fakeModel, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	m := &fakeModel{ln: ln}
	m.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		fl, _ := w.(http.Flusher)
		for i, piece := range []string{"The door ", "creaks open ", "onto a stair."} {
			chunk := map[string]any{"id": "soak", "object": "chat.completion.chunk", "created": 1700000000, "model": "fake",
				"choices": []any{map[string]any{"index": 0, "delta": map[string]string{"content": piece}}}}
			if i == 2 {
				chunk["choices"] = []any{map[string]any{"index": 0, "delta": map[string]string{"content": piece}, "finish_reason": "stop"}}
				chunk["usage"] = map[string]int{"prompt_tokens": 200, "completion_tokens": 12, "total_tokens": 212}
			}
			b, _ := json.Marshal(chunk)
			fmt.Fprintf(w, "data: %s\n\n", b)
			if fl != nil {
				fl.Flush()
			}
			time.Sleep(20 * time.Millisecond)
		}
		fmt.Fprint(w, "data: [DONE]\n\n")
	})}
	go func() { _ = m.srv.Serve(ln) }()
	return m, nil
}

func (m *fakeModel) URL() string { return "http://" + m.ln.Addr().String() + "/v1" }
func (m *fakeModel) Close()      { _ = m.srv.Close() }

// print writes the soak's figures.
func (r *soakReport) print(w io.Writer) {
	fmt.Fprintf(w, "soak: %.0f s, %d tables, %d solo adventures\n", r.Duration, r.Tables, r.Solo)
	fmt.Fprintf(w, "  posts acknowledged %d; events lost %d, duplicated %d; whispers seen by the wrong seat %d\n", r.Posts, r.Lost, r.Duplicated, r.WrongWhispers)
	fmt.Fprintf(w, "  solo turns %d; solo nodes half-saved %d\n", r.SoloTurns, r.HalfSaved)
	fmt.Fprintf(w, "  errors: %d outside the fault windows (rate %.4f), %d within them\n", r.ErrorsQuiet, r.ErrorRateQuiet, r.ErrorsFault)
	routes := make([]string, 0, len(r.Routes))
	for k := range r.Routes {
		routes = append(routes, k)
	}
	slices.Sort(routes)
	for _, k := range routes {
		p := r.Routes[k]
		fmt.Fprintf(w, "  %-26s quiet p50 %6.1f ms p99 %7.1f ms (n=%d) | faults p50 %6.1f ms p99 %7.1f ms (n=%d)\n", k,
			p.Quiet.P50, p.Quiet.P99, p.Quiet.N, p.Fault.P50, p.Fault.P99, p.Fault.N)
	}
	for _, f := range r.Faults {
		fmt.Fprintf(w, "  fault at %5.0f s: %-32s recovered in %.1f s\n", f.At, f.What, f.Recovery)
	}
	for _, p := range r.Problems {
		fmt.Fprintln(w, "  PROBLEM:", p)
	}
}
