package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/cookiejar"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"gorm.io/driver/postgres"
	"gorm.io/driver/sqlite"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"github.com/adventure-table/adventure-table/gameplay/llm/llmtest"
	"github.com/adventure-table/adventure-table/models"
	"github.com/adventure-table/adventure-table/models/modelstest"
)

// child is the real binary running as a child process.
type child struct {
	t      *testing.T
	cmd    *exec.Cmd
	base   string // http://127.0.0.1:port
	stderr *syncWriter
	exited chan struct{} // closed when the process is gone
	err    error         // its exit, once exited is closed
}

// childEnv is the environment of a child server: a data dir and database
// that outlive each process, so a restart finds what the last one left.
type childEnv struct {
	dataDir, databaseURL string
	extra                []string
}

func newChildEnv(t *testing.T, extra ...string) childEnv {
	t.Helper()
	e := childEnv{dataDir: t.TempDir(), extra: extra}
	if modelstest.Dialect() == models.Postgres {
		e.databaseURL = modelstest.Config(t).DatabaseURL
	}
	return e
}

// start runs the binary and waits for its banner.
func (e childEnv) start(t *testing.T) *child {
	t.Helper()
	cmd := exec.Command(mustBuild(t), "serve")
	cmd.Env = append(os.Environ(), "AT_DATA_DIR="+e.dataDir, "AT_ADDR=127.0.0.1:0", "AT_DATABASE_URL="+e.databaseURL)
	cmd.Env = append(cmd.Env, e.extra...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	c := &child{t: t, cmd: cmd, stderr: &syncWriter{}, exited: make(chan struct{})}
	cmd.Stderr = c.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { c.err = cmd.Wait(); close(c.exited) }()
	t.Cleanup(c.kill9)
	lines := bufio.NewScanner(stdout)
	for lines.Scan() {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(lines.Text()), "URL:"); ok {
			c.base = strings.TrimSuffix(strings.TrimSpace(rest), "/")
			break
		}
	}
	if c.base == "" {
		c.kill9()
		t.Fatalf("no banner from the server:\n%s", c.stderr)
	}
	go func() { _, _ = io.Copy(io.Discard, stdout) }()
	return c
}

// terminate stops the process with SIGTERM, as an operator does, and
// fails the test unless it exits cleanly within 30 s; it returns how long
// the stop took.
func (c *child) terminate() time.Duration {
	c.t.Helper()
	start := time.Now()
	if err := c.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		c.t.Fatal(err)
	}
	select {
	case <-c.exited:
		if c.err != nil {
			c.t.Fatalf("exit after SIGTERM: %v (after %v)\n%s", c.err, time.Since(start), c.stderr)
		}
	case <-time.After(30 * time.Second):
		c.t.Fatalf("the server did not stop within 30 s of SIGTERM\n%s", c.stderr)
	}
	return time.Since(start)
}

// kill9 kills the process without warning and waits until it is gone.
func (c *child) kill9() {
	select {
	case <-c.exited:
		return
	default:
	}
	_ = c.cmd.Process.Signal(syscall.SIGKILL)
	select {
	case <-c.exited:
	case <-time.After(10 * time.Second):
		c.t.Errorf("process %d did not die after SIGKILL", c.cmd.Process.Pid)
	}
}

// api is a browser: the local user's cookie, kept across restarts (the
// cookie jar ignores the port, the server secret stays in the data dir).
type api struct {
	t    *testing.T
	http *http.Client
	base string
}

func newAPI(t *testing.T, base string) *api {
	jar, _ := cookiejar.New(nil)
	return &api{t: t, http: &http.Client{Jar: jar, Timeout: 60 * time.Second}, base: base}
}

// call sends a JSON request and decodes the answer into out (if not nil).
func (a *api) call(method, path string, body, out any) (int, string) {
	a.t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, a.base+path, rd)
	req.Header.Set("Content-Type", "application/json")
	resp, err := a.http.Do(req)
	if err != nil {
		a.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if out != nil && resp.StatusCode < 300 {
		if err := json.Unmarshal(raw, out); err != nil {
			a.t.Fatalf("%s %s: %v in %s", method, path, err, raw)
		}
	}
	return resp.StatusCode, string(raw)
}

// must is call that fails the test on a status of 300 or more.
func (a *api) must(method, path string, body, out any) {
	a.t.Helper()
	if st, raw := a.call(method, path, body, out); st >= 300 {
		a.t.Fatalf("%s %s: %d %s", method, path, st, raw)
	}
}

// turnEvent is one server-sent event of a turn.
type turnEvent struct {
	Type    string `json:"type"`
	Code    string `json:"code"`
	Message string `json:"message"`
}

// streamTurn posts a turn and sends its events to onEvent until the stream
// ends; it returns the status and, for a refusal, the body.
func (a *api) streamTurn(advID int64, text string, onEvent func(turnEvent)) (int, string, error) {
	b, _ := json.Marshal(map[string]string{"mode": "do", "text": text})
	req, _ := http.NewRequest("POST", fmt.Sprintf("%s/api/adventures/%d/turns", a.base, advID), bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	resp, err := a.http.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		raw, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(raw), nil
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			var ev turnEvent
			if err := json.Unmarshal([]byte(data), &ev); err != nil {
				return resp.StatusCode, "", err
			}
			onEvent(ev)
		}
	}
	return resp.StatusCode, "", sc.Err()
}

// playTurn plays a turn that must succeed and returns its events.
func (a *api) playTurn(advID int64, text string) []turnEvent {
	a.t.Helper()
	var events []turnEvent
	st, body, err := a.streamTurn(advID, text, func(ev turnEvent) { events = append(events, ev) })
	if err != nil || st != http.StatusOK {
		a.t.Fatalf("turn %q: status %d %s %v", text, st, body, err)
	}
	if len(events) == 0 || events[len(events)-1].Type != "done" {
		a.t.Fatalf("turn %q ended with %+v", text, events)
	}
	return events
}

// setModel points the local user's narrator at baseURL.
func (a *api) setModel(baseURL string) {
	a.t.Helper()
	a.must("PUT", "/api/solo/settings", map[string]any{"base_url": baseURL, "model": "fake", "context_budget": 4000,
		"max_output_tokens": 400, "temperature": 0.8, "top_p": 0.95}, nil)
}

// newAdventure creates a scenario and plays it; it returns the adventure id.
func (a *api) newAdventure() int64 {
	a.t.Helper()
	a.must("GET", "/api/me", nil, nil)
	var sc struct{ ID int64 }
	a.must("POST", "/api/scenarios", map[string]any{"title": "The Crypt", "premise": "A damp crypt under the old town.",
		"opening": "You stand before the crypt door.", "stat_schema": map[string]any{}, "cards": []any{}}, &sc)
	var page struct {
		Adventure struct{ ID int64 }
	}
	a.must("POST", fmt.Sprintf("/api/scenarios/%d/play", sc.ID), map[string]any{"persona_name": "Ash"}, &page)
	return page.Adventure.ID
}

// adventureState is what the play screen says about the head.
type adventureState struct {
	Adventure struct {
		HeadDepth      int  `json:"head_depth"`
		TurnInProgress bool `json:"turn_in_progress"`
	} `json:"adventure"`
	Story []struct {
		ID    int64  `json:"id"`
		Kind  string `json:"kind"`
		Text  string `json:"text"`
		Depth int    `json:"depth"`
	} `json:"story"`
}

func (a *api) adventure(advID int64) adventureState {
	a.t.Helper()
	var p adventureState
	a.must("GET", fmt.Sprintf("/api/adventures/%d", advID), nil, &p)
	return p
}

// openDB opens the child's database from the test process.
func (e childEnv) openDB(t *testing.T) *gorm.DB {
	t.Helper()
	var dial gorm.Dialector
	if e.databaseURL != "" {
		dial = postgres.Open(e.databaseURL)
	} else {
		dial = sqlite.Open(filepath.Join(e.dataDir, "adventure.db") + "?_busy_timeout=5000")
	}
	db, err := gorm.Open(dial, &gorm.Config{Logger: logger.Discard})
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// checkTree reads the story tree straight from the database and checks that
// a crash left it whole: every node hangs from a parent one level up, at
// most one node is live per coordinate, the head line is an unbroken chain
// from the opening to the head, and nothing live lies beyond the head (a
// narration saved without its head move would). It returns the head depth.
func checkTree(t *testing.T, db *gorm.DB, advID int64, iteration int) int {
	t.Helper()
	var adv struct {
		HeadBranchID int64
		HeadDepth    int
	}
	if err := db.Raw("SELECT head_branch_id, head_depth FROM adventures WHERE id = ?", advID).Scan(&adv).Error; err != nil {
		t.Fatal(err)
	}
	type node struct {
		ID       int64
		BranchID int64
		Depth    int
		ParentID *int64
		Live     bool
		Kind     string
	}
	var nodes []node
	if err := db.Raw("SELECT id, branch_id, depth, parent_id, live, kind FROM actions WHERE adventure_id = ? ORDER BY id", advID).Scan(&nodes).Error; err != nil {
		t.Fatal(err)
	}
	byID := map[int64]node{}
	for _, n := range nodes {
		byID[n.ID] = n
	}
	live := map[[2]int64]node{}
	for _, n := range nodes {
		if n.ParentID == nil {
			if n.Kind != "opening" || n.Depth != 0 {
				t.Fatalf("iteration %d: node %d (%s, depth %d) has no parent", iteration, n.ID, n.Kind, n.Depth)
			}
		} else if p, ok := byID[*n.ParentID]; !ok || p.Depth != n.Depth-1 {
			t.Fatalf("iteration %d: node %d at depth %d hangs from %d (found %v, depth %d)", iteration, n.ID, n.Depth, *n.ParentID, ok, p.Depth)
		}
		if !n.Live {
			continue
		}
		k := [2]int64{n.BranchID, int64(n.Depth)}
		if other, dup := live[k]; dup {
			t.Fatalf("iteration %d: nodes %d and %d are both live at branch %d depth %d", iteration, other.ID, n.ID, n.BranchID, n.Depth)
		}
		live[k] = n
		if n.BranchID == adv.HeadBranchID && n.Depth > adv.HeadDepth {
			t.Fatalf("iteration %d: live node %d (%s) at depth %d lies beyond the head at %d", iteration, n.ID, n.Kind, n.Depth, adv.HeadDepth)
		}
	}
	var prev int64
	for d := 0; d <= adv.HeadDepth; d++ {
		n, ok := live[[2]int64{adv.HeadBranchID, int64(d)}]
		if !ok {
			t.Fatalf("iteration %d: the head line has no node at depth %d (head %d)", iteration, d, adv.HeadDepth)
		}
		if d > 0 && (n.ParentID == nil || *n.ParentID != prev) {
			t.Fatalf("iteration %d: the chain breaks at depth %d", iteration, d)
		}
		prev = n.ID
	}
	return adv.HeadDepth
}

// TestKillDuringTurn kills the real server with SIGKILL at random points of
// a streamed turn (before the claim, while the model streams, around the
// save), restarts it on the same data and database, and checks each time
// that the story tree is whole and that the next turn plays at once — no
// turn_in_progress left behind by the dead process. AT_TEST_KILL_ITERATIONS
// sets the number of kills (20 by default); AT_TEST_KILL_SEED replays one run.
func TestKillDuringTurn(t *testing.T) {
	t.Parallel()
	iterations := 20
	if v := os.Getenv("AT_TEST_KILL_ITERATIONS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("AT_TEST_KILL_ITERATIONS=%q: want a positive number", v)
		}
		iterations = n
	}
	seed := uint64(time.Now().UnixNano())
	if v := os.Getenv("AT_TEST_KILL_SEED"); v != "" {
		seed, _ = strconv.ParseUint(v, 10, 64)
	}
	t.Logf("AT_TEST_KILL_SEED=%d", seed)
	rng := rand.New(rand.NewPCG(seed, seed))

	model := llmtest.Repeat(t, llmtest.Reply{Chunks: []string{"The door ", "groans ", "open; ", "cold air ", "spills ", "out."},
		Delay: 15 * time.Millisecond, FinishReason: "stop", Usage: &llmtest.Usage{Prompt: 100, Completion: 12}})
	env := newChildEnv(t)
	c := env.start(t)
	a := newAPI(t, c.base)
	a.setModel(model)
	adv := a.newAdventure()
	began := time.Now()
	a.playTurn(adv, "open the door")
	// Kill points are spread over a little more than a whole turn.
	span := max(time.Since(began)*3/2, 150*time.Millisecond)

	for i := range iterations {
		delay := time.Duration(rng.Int64N(int64(span)))
		streamed := make(chan int, 1)
		go func() {
			n := 0
			_, _, _ = a.streamTurn(adv, fmt.Sprintf("step %d", i), func(turnEvent) { n++ })
			streamed <- n
		}()
		time.Sleep(delay)
		c.kill9()
		events := <-streamed

		db := env.openDB(t)
		depth := checkTree(t, db, adv, i)
		if sqlDB, err := db.DB(); err == nil {
			sqlDB.Close()
		}

		c = env.start(t)
		a.base = c.base
		if st := a.adventure(adv); st.Adventure.TurnInProgress {
			t.Fatalf("iteration %d (killed %v into the turn, %d events streamed): the restarted server reports a turn in progress", i, delay, events)
		}
		a.playTurn(adv, fmt.Sprintf("carry on %d", i))
		if st := a.adventure(adv); st.Adventure.HeadDepth <= depth {
			t.Fatalf("iteration %d: the head did not move (%d, was %d)", i, st.Adventure.HeadDepth, depth)
		}
	}
	db := env.openDB(t)
	checkTree(t, db, adv, iterations)
	if sqlDB, err := db.DB(); err == nil {
		sqlDB.Close()
	}
}

// TestSIGTERMWithHangingModel stops the real server with SIGTERM while a
// turn waits on a model that sent its headers and then nothing, and a long
// poll is open. The turn ends with turn_interrupted (the player's action is
// kept), the long poll is answered with its page, the process exits 0 within
// a few seconds, and after a restart Undo and the next turn work at once.
func TestSIGTERMWithHangingModel(t *testing.T) {
	t.Parallel()
	hang := llmtest.Hang(t, llmtest.StallAfterHeaders)
	model := llmtest.Repeat(t, llmtest.Reply{Chunks: []string{"Light ", "returns."}, FinishReason: "stop"})
	env := newChildEnv(t)
	c := env.start(t)
	a := newAPI(t, c.base)
	a.setModel(hang)
	adv := a.newAdventure()

	// A lobby session of a fresh room, for the long poll.
	var room struct{ ID int64 }
	a.must("POST", "/api/rooms", map[string]any{"name": "Shutdown"}, &room)
	var withCampaign struct {
		Campaigns []struct{ ID int64 } `json:"campaigns"`
	}
	a.must("POST", fmt.Sprintf("/api/rooms/%d/campaigns", room.ID), map[string]any{"name": "Scene"}, &withCampaign)
	var lobby struct {
		Session struct{ ID int64 } `json:"session"`
	}
	a.must("POST", fmt.Sprintf("/api/campaigns/%d/sessions", withCampaign.Campaigns[0].ID), nil, &lobby)
	var first struct {
		Cursor int64 `json:"cursor"`
	}
	a.must("GET", fmt.Sprintf("/api/sessions/%d/events?after=0", lobby.Session.ID), nil, &first)

	type answer struct {
		status int
		body   string
		err    error
	}
	polled := make(chan answer, 1)
	go func() {
		resp, err := a.http.Get(fmt.Sprintf("%s/api/sessions/%d/events/wait?after=%d&timeout=60", a.base, lobby.Session.ID, first.Cursor))
		if err != nil {
			polled <- answer{err: err}
			return
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		polled <- answer{status: resp.StatusCode, body: string(raw)}
	}()
	sawPlayer := make(chan struct{})
	turned := make(chan []turnEvent, 1)
	go func() {
		var events []turnEvent
		_, _, _ = a.streamTurn(adv, "listen at the door", func(ev turnEvent) {
			events = append(events, ev)
			if ev.Type == "player" {
				close(sawPlayer)
			}
		})
		turned <- events
	}()
	select {
	case <-sawPlayer:
	case <-time.After(20 * time.Second):
		t.Fatalf("the turn did not start:\n%s", c.stderr)
	}
	time.Sleep(300 * time.Millisecond) // the turn reaches the model, the poll its wait

	took := c.terminate()
	if took > 10*time.Second {
		t.Fatalf("SIGTERM took %v to stop the server, want a few seconds", took)
	}
	t.Logf("stopped %v after SIGTERM", took)

	select {
	case p := <-polled:
		if p.err != nil || p.status != http.StatusOK || !strings.Contains(p.body, `"cursor"`) {
			t.Fatalf("the long poll got %d %q %v, want 200 and its page", p.status, p.body, p.err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the long poll was not answered")
	}
	events := <-turned
	if len(events) == 0 || events[len(events)-1].Type != "error" || events[len(events)-1].Code != "turn_interrupted" {
		t.Fatalf("the turn's stream ended with %+v, want an error event turn_interrupted", events)
	}

	c = env.start(t)
	a.base = c.base
	st := a.adventure(adv)
	if st.Adventure.TurnInProgress {
		t.Fatal("after the restart a turn is still in progress")
	}
	if tip := st.Story[len(st.Story)-1]; tip.Kind != "player" || tip.Text != "listen at the door" {
		t.Fatalf("the player's action was not kept: tip %+v", tip)
	}
	if status, body := a.call("POST", fmt.Sprintf("/api/adventures/%d/undo", adv), map[string]any{}, nil); status != http.StatusOK {
		t.Fatalf("undo right after the restart: %d %s", status, body)
	}
	a.setModel(model)
	a.playTurn(adv, "listen again")
	c.terminate()
}

// The model call's time limits come from AT_MODEL_*_TIMEOUT (or flags),
// with defaults, and a bad value names its variable.
func TestModelTimeoutConfig(t *testing.T) {
	c, err := LoadConfig(envFunc(map[string]string{"AT_MODEL_IDLE_TIMEOUT": "250ms"}), []string{"-model-total-timeout", "2m"})
	if err != nil {
		t.Fatal(err)
	}
	if got := c.ModelTimeouts; got.Connect != 10*time.Second || got.Headers != 60*time.Second || got.Idle != 250*time.Millisecond || got.Total != 2*time.Minute {
		t.Fatalf("got %+v", got)
	}
	for _, env := range []string{"AT_MODEL_CONNECT_TIMEOUT", "AT_MODEL_HEADERS_TIMEOUT", "AT_MODEL_IDLE_TIMEOUT", "AT_MODEL_TOTAL_TIMEOUT"} {
		for _, bad := range []string{"soon", "0s", "5ms", "25h"} {
			if _, err := LoadConfig(envFunc(map[string]string{env: bad}), nil); err == nil || !strings.HasPrefix(err.Error(), env+":") {
				t.Errorf("%s=%s: got %v, want an error naming %s", env, bad, err, env)
			}
		}
	}
}
