// Package narrator is the server's own narrator at a table seat: an agent,
// not a second set of rules. It is a client of this server's MCP tools in
// process (mcp.Toolbox: the same specs an outside agent lists and the same
// handlers its calls reach, with the seat's grant as the caller), and the
// model is offered those tools' own names, descriptions and input schemas.
// Anything it does, an outside agent could do; it reads exactly what its
// seat may see.
//
// The loop is: find a seat whose table asks something of it (trigger),
// claim the seat's step in the database (so two processes never run one
// seat's step), read the table through get_session_context, let the model
// call tools (at most MaxToolCalls), post its narration, record the step.
package narrator

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/adventure-table/adventure-table/gameplay/llm"
	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/mcp"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// Model is where a narrator's completions come from: the narrative
// service's CallModel (the owner's settings, or the demo narrator in its
// budget).
type Model interface {
	CallModel(ctx context.Context, userID int64, r llm.Request, onEvent func(llm.Event)) (llm.Result, error)
}

// Options configures a Runner. Zero durations take their defaults.
type Options struct {
	Table *table.Service
	Tools *mcp.Toolbox
	Model Model
	// ProcessID prefixes this process's step claims, so a restart frees
	// what its dead previous run held.
	ProcessID string
	Logger    *slog.Logger
	// Poll is how often it looks for seats to serve (default 250 ms); a
	// table event wakes it sooner.
	Poll time.Duration
	// Heartbeat renews a running step's claim (default 2 s); a claim whose
	// heartbeat is older than Stale (default 10 s) is a dead process's.
	Heartbeat time.Duration
	Stale     time.Duration
	// MaxSteps bounds the steps running at once in this process (default 32).
	MaxSteps int
	// DraftEvery spaces the writes of the narration being written (default
	// 200 ms; the first is at once).
	DraftEvery time.Duration
	Now        func() time.Time
}

// Runner serves every narrator seat it finds.
type Runner struct {
	opts    Options
	log     *slog.Logger
	sem     chan struct{}
	mu      sync.Mutex
	running map[int64]bool
	wg      sync.WaitGroup
}

// New returns a runner; Run starts it.
func New(opts Options) *Runner {
	if opts.Poll <= 0 {
		opts.Poll = 250 * time.Millisecond
	}
	if opts.Heartbeat <= 0 {
		opts.Heartbeat = 2 * time.Second
	}
	if opts.Stale <= 0 {
		opts.Stale = 10 * time.Second
	}
	if opts.MaxSteps <= 0 {
		opts.MaxSteps = 32
	}
	if opts.DraftEvery <= 0 {
		opts.DraftEvery = 200 * time.Millisecond
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	return &Runner{opts: opts, log: opts.Logger, sem: make(chan struct{}, opts.MaxSteps), running: map[int64]bool{}}
}

// Run serves narrator seats until ctx ends, then waits for the steps in
// flight (their contexts end with ctx).
func (r *Runner) Run(ctx context.Context) {
	if err := r.opts.Table.ReleaseNarratorClaims(ctx, r.opts.ProcessID+"."); err != nil && ctx.Err() == nil {
		r.log.Warn("narrator claims of the previous run not released", "error", err)
	}
	t := time.NewTicker(r.opts.Poll)
	defer t.Stop()
	for {
		r.Scan(ctx)
		select {
		case <-ctx.Done():
			r.wg.Wait()
			return
		case <-t.C:
		}
	}
}

// Scan looks once at every narrator seat and starts the steps that are
// due. Exported for tests and benchmarks that drive the runner by hand.
func (r *Runner) Scan(ctx context.Context) {
	seats, err := r.opts.Table.RunnableNarrators(ctx)
	if err != nil {
		if ctx.Err() == nil {
			r.log.Warn("narrator scan failed", "error", err)
		}
		return
	}
	for _, n := range seats {
		if r.isRunning(n.GrantID) {
			continue
		}
		due, err := r.due(ctx, n)
		if err != nil || !due {
			continue
		}
		select {
		case r.sem <- struct{}{}:
		default:
			return // busy: the next scan serves the rest
		}
		r.setRunning(n.GrantID, true)
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			defer func() { <-r.sem; r.setRunning(n.GrantID, false) }()
			r.step(ctx, n)
		}()
	}
}

// Wait waits for the steps this runner started.
func (r *Runner) Wait() { r.wg.Wait() }

func (r *Runner) isRunning(id int64) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.running[id]
}

func (r *Runner) setRunning(id int64, on bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if on {
		r.running[id] = true
	} else {
		delete(r.running, id)
	}
}

// dmAddressed is a message that speaks to the DM: it is answered at once.
var dmAddressed = regexp.MustCompile(`(?i)(^|\s)(@dm\b|/dm\b)`)

// due decides whether the seat's table asks something of it now, from
// what its seat may see (the same projection as wait_for_event). Events
// that ask nothing are marked seen.
func (r *Runner) due(ctx context.Context, n table.NarratorSeat) (bool, error) {
	now := r.opts.Now().UTC()
	if n.Paused {
		return false, nil
	}
	if n.StepToken != "" && n.StepHeartbeat != nil && now.Sub(*n.StepHeartbeat) < r.opts.Stale {
		return false, nil // another process runs it
	}
	if n.ActNow {
		return true, nil
	}
	if n.SessionID == nil || n.State == table.NarratorStuck {
		return false, nil
	}
	if n.WindowDeadline != nil && !now.Before(*n.WindowDeadline) {
		return true, nil // the window's time is up: adjudicate what was declared
	}
	if n.HeadSeq <= n.HandledSeq {
		return false, nil
	}
	page, err := r.opts.Table.ListEvents(ctx, table.AI(n.GrantID), *n.SessionID, n.HandledSeq, 100)
	if err != nil {
		return false, err
	}
	var last time.Time
	for _, e := range page.Events {
		u := wants(n, e)
		if n.Role == table.RoleDM {
			if u, err = r.window(ctx, &n, e, u); err != nil {
				return false, err
			}
		}
		switch u {
		case now_:
			return true, nil
		case later:
			last = e.CreatedAt
		}
	}
	if last.IsZero() && !page.HasMore {
		return false, r.opts.Table.SkipNarratorEvents(ctx, n.GrantID, page.Cursor)
	}
	return page.HasMore || now.Sub(last) >= time.Duration(n.DebounceMS)*time.Millisecond, nil
}

// window keeps the DM narrator's "What do you do?" window: the one it
// opens gets a deadline; while it is open a declaration asks nothing until
// every player in the session has declared (then at once); its closing
// clears the deadline.
func (r *Runner) window(ctx context.Context, n *table.NarratorSeat, e table.EventView, u urgency) (urgency, error) {
	switch e.Kind {
	case table.EventWindowOpened:
		deadline := e.CreatedAt.Add(table.DefaultNarratorWindow)
		n.WindowDeadline = &deadline
		return ignore, r.opts.Table.SetNarratorWindow(ctx, n.GrantID, &deadline)
	case table.EventWindowClosed:
		n.WindowDeadline = nil
		return u, r.opts.Table.SetNarratorWindow(ctx, n.GrantID, nil)
	case table.EventActionDeclared:
		if n.WindowDeadline == nil {
			return u, nil
		}
		all, err := r.opts.Table.EveryoneDeclared(ctx, *n.SessionID)
		if err != nil || !all {
			return ignore, err
		}
		return now_, nil
	}
	return u, nil
}

type urgency int

const (
	ignore urgency = iota
	later          // after the table has been quiet for the debounce
	now_           // at once
)

// wants says what an event asks of the narrator in seat n.
func wants(n table.NarratorSeat, e table.EventView) urgency {
	own := e.ActingSeatID != nil && *e.ActingSeatID == n.SeatID
	var p struct {
		Text string `json:"text"`
		Kind string `json:"kind"`
	}
	_ = json.Unmarshal(e.Payload, &p)
	if n.Role == table.RoleDM {
		switch e.Kind {
		case table.EventMessagePosted:
			if own {
				return ignore
			}
			if dmAddressed.MatchString(p.Text) {
				return now_
			}
			return later
		case table.EventActionDeclared, table.EventRollResolved, table.EventParticipantJoined:
			if own {
				return ignore
			}
			return later
		case table.EventEncounterTurn:
			if e.SubjectSeatID == nil {
				return now_ // a monster's turn: the narrator plays it
			}
		case table.EventEncounterChanged:
			if !own {
				return later // an initiative rolled, a condition changed
			}
		}
		return ignore
	}
	// A companion in a player seat answers the DM and its own turns.
	switch e.Kind {
	case table.EventMessagePosted:
		if own {
			return ignore
		}
		if e.ActingSeatID == nil || dmAddressed.MatchString(p.Text) {
			return later
		}
		return later
	case table.EventRollRequested, table.EventWindowOpened:
		return now_
	case table.EventEncounterTurn:
		if e.SubjectSeatID != nil && *e.SubjectSeatID == n.SeatID {
			return now_
		}
	}
	return ignore
}

// stepState is one step's running account.
type stepState struct {
	n                table.NarratorSeat
	calls            int
	rolled           bool
	flag             apperr.Code
	promptTokens     int64
	completionTokens int64
	takenBack        bool
	// draft streams the narration being written.
	draft *draft
	// msgs is the conversation with the model so far, offered the tools
	// it was given: the step's record (Insights).
	msgs    []llm.Message
	offered []llm.Tool
	// modelCalls counts the tool calls the model made; reviews are the
	// indexes in msgs of the runner's requests to rewrite.
	modelCalls int
	reviews    []int
	// world is the index in msgs of the campaign's world (0: none).
	world int
	// startCursor is the session's cursor when this step started it.
	startCursor int64
}

// Codes a step records on its narrator (shown to the owner).
const (
	flagUnbackedOutcome = apperr.NarratorUnbackedOutcome
	flagSecretLeak      = apperr.NarratorSecretInPublic
	flagToolLimit       = apperr.NarratorToolLimit
)

// step runs one step of seat n under a claim in the database.
func (r *Runner) step(ctx context.Context, n table.NarratorSeat) {
	token := r.opts.ProcessID + "." + nonce()
	won, err := r.opts.Table.ClaimNarratorStep(ctx, n.GrantID, token, n.Steps, r.opts.Stale)
	if err != nil || !won {
		return
	}
	stepCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	go r.heartbeat(stepCtx, cancel, n.GrantID, token)

	st := &stepState{n: n, draft: &draft{ctx: stepCtx, tables: r.opts.Table, n: n, token: token, every: r.opts.DraftEvery}}
	handled, err := r.run(stepCtx, st)
	if n.SessionID == nil && !st.takenBack {
		// A pre-session step may have started the session: the start is
		// answered, not what players said after it while the step went on
		// (their "@DM" wakes the next step).
		handled = max(handled, st.startCursor)
	}
	end := table.NarratorStepEnd{HandledSeq: handled, State: table.NarratorIdle, LastError: string(st.flag),
		PromptTokens: st.promptTokens, CompletionTokens: st.completionTokens}
	switch {
	case stepCtx.Err() != nil:
		// The server is stopping (or another process took the claim over),
		// not the model failing: the step counts for nothing, and what it
		// was answering wakes the next step.
		end.HandledSeq, end.LastError = n.HandledSeq, ""
	case err != nil && !st.takenBack:
		end.State, end.LastError = table.NarratorStuck, string(apperr.CodeOf(err))
		r.log.Warn("narrator step failed", "grant_id", n.GrantID, "code", end.LastError)
		if n.SessionID != nil && ctx.Err() == nil {
			// Never silence: the table hears that the narrator is stuck.
			r.call(context.WithoutCancel(ctx), st, "post_message", map[string]any{"kind": "ooc",
				"text": "The narrator is stuck (" + end.LastError + "). Whoever runs the table can press Retry."})
		}
	}
	if n.WindowDeadline != nil && !r.opts.Now().Before(*n.WindowDeadline) {
		// Its time was up and the step has answered it: one step, not one
		// per scan (the model closes the window, or leaves it open).
		_ = r.opts.Table.SetNarratorWindow(context.WithoutCancel(ctx), n.GrantID, nil)
	}
	if len(st.msgs) > 0 && stepCtx.Err() == nil {
		end.Record, end.ToolCalls = stepRecord(st), st.modelCalls
	}
	if err := r.opts.Table.FinishNarratorStep(context.WithoutCancel(ctx), n.GrantID, token, end); err != nil {
		r.log.Warn("narrator step not recorded", "grant_id", n.GrantID, "error", err)
	}
}

func (r *Runner) heartbeat(ctx context.Context, cancel context.CancelFunc, grantID int64, token string) {
	t := time.NewTicker(r.opts.Heartbeat)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			held, err := r.opts.Table.HeartbeatNarratorStep(ctx, grantID, token)
			if err == nil && !held {
				cancel() // another process took the claim over
				return
			}
		}
	}
}

// errTakenBack ends a step whose seat a human took back.
var errTakenBack = errors.New("the seat was taken back")

// run is the step's conversation with the model; it returns the event the
// step answered up to.
func (r *Runner) run(ctx context.Context, st *stepState) (int64, error) {
	n := st.n
	handled := n.HeadSeq
	var contextJSON json.RawMessage
	if n.SessionID == nil {
		res := r.call(ctx, st, "get_pre_session_context", nil)
		if st.takenBack {
			return handled, nil
		}
		contextJSON = res.JSON
	} else {
		res := r.call(ctx, st, "get_session_context", nil)
		if st.takenBack {
			return handled, nil
		}
		if res.IsError {
			return handled, apperr.E(res.Code, "The table could not be read.")
		}
		contextJSON = res.JSON
		var cur struct {
			Cursor int64 `json:"cursor"`
		}
		if json.Unmarshal(res.JSON, &cur) == nil && cur.Cursor > handled {
			handled = cur.Cursor
		}
	}
	st.offered = r.offered()
	instructions := systemPrompt(n)
	budget := 0
	if b, ok := r.opts.Model.(Budgeter); ok {
		// Without settings the model call fails anyway, and says why.
		budget, _ = b.ContextBudget(ctx, modelUser(n))
	}
	open := fitOpening(contextJSON, instructions, st.offered, budget)
	st.msgs = []llm.Message{
		{Role: llm.RoleSystem, Content: instructions},
		{Role: llm.RoleUser, Content: open.table},
	}
	if open.world != "" {
		st.msgs = append(st.msgs, llm.Message{Role: llm.RoleUser, Content: open.world})
		st.world = len(st.msgs) - 1
	}
	nudged := false
	for {
		st.draft.start()
		res, err := r.opts.Model.CallModel(ctx, modelUser(n), llm.Request{Messages: st.msgs, Tools: st.offered}, st.draft.onEvent)
		st.promptTokens += int64(res.PromptTokens)
		st.completionTokens += int64(res.CompletionTokens)
		if err != nil {
			return handled, err
		}
		calls, text := res.ToolCalls, res.Text
		fenced := false
		if len(calls) == 0 {
			calls, text = actionBlocks(text)
			fenced = len(calls) > 0
		}
		if len(calls) > 0 {
			if fenced {
				// No native tool calling: the results go back as text.
				st.msgs = append(st.msgs, llm.Message{Role: llm.RoleAssistant, Content: res.Text})
			} else {
				st.msgs = append(st.msgs, llm.Message{Role: llm.RoleAssistant, Content: text, ToolCalls: calls})
			}
			var results strings.Builder
			st.modelCalls += len(calls)
			for _, c := range calls {
				var out string
				if st.calls >= n.MaxToolCalls {
					st.flag = flagToolLimit
					out = `{"error":{"code":"narrator_tool_limit","message":"No more tool calls in this step."}}`
				} else {
					tr := r.callRaw(ctx, st, c.Name, json.RawMessage(c.Arguments))
					if st.takenBack {
						return handled, nil
					}
					out = clip(string(tr.JSON), 6000)
				}
				if fenced {
					fmt.Fprintf(&results, "Result of %s: %s\n", c.Name, out)
				} else {
					st.msgs = append(st.msgs, llm.Message{Role: llm.RoleTool, ToolCallID: c.ID, Content: out})
				}
			}
			if fenced {
				st.msgs = append(st.msgs, llm.Message{Role: llm.RoleUser, Content: results.String()})
			}
			if st.flag == flagToolLimit {
				return handled, nil
			}
			continue
		}
		text = strings.TrimSpace(text)
		if text == "" {
			return handled, nil
		}
		if problem := r.review(n, st, text); problem != "" {
			if !nudged {
				nudged = true
				st.msgs = append(st.msgs, llm.Message{Role: llm.RoleAssistant, Content: text}, llm.Message{Role: llm.RoleUser, Content: problem})
				st.reviews = append(st.reviews, len(st.msgs)-1)
				continue
			}
			if st.flag == flagSecretLeak {
				return handled, nil // never posted
			}
		}
		st.msgs = append(st.msgs, llm.Message{Role: llm.RoleAssistant, Content: text})
		r.call(ctx, st, "post_message", map[string]any{"kind": "say", "text": clip(text, 4000)})
		return handled, nil
	}
}

// Fair dice: narration that states a mechanical outcome must rest on a
// roll made in this step through the tools; a DM never writes a DC where
// players read it.
var (
	outcomeClaim = regexp.MustCompile(`(?i)\b(you|it|they|he|she)\s+(hit|miss(es)?|hits|succeed(s)?|fail(s)?|pass(es)?)\b|\b\d+\s+(points of\s+)?damage\b|\bfor\s+\d+\b`)
	dcInText     = regexp.MustCompile(`(?i)\bDC\s*\d+`)
)

// review returns what to ask the model once about its narration, and
// records the flag; "" when the narration is fine.
func (r *Runner) review(n table.NarratorSeat, st *stepState, text string) string {
	if n.Role == table.RoleDM && dcInText.MatchString(text) {
		st.flag = flagSecretLeak
		return "Do not tell the players a DC: it is secret. Rewrite your narration without it."
	}
	if n.Role == table.RoleDM && !st.rolled && outcomeClaim.MatchString(text) {
		st.flag = flagUnbackedOutcome
		return "You stated a mechanical outcome (a hit, damage, a passed or failed check) without a roll in this step. " +
			"Never decide results yourself: call request_check for a check or fight for an attack, then narrate what the result says."
	}
	return ""
}

// rollTools are the tools whose success means dice were rolled by the server.
var rollTools = map[string]bool{"request_check": true, "fight": true, "quick_roll": true, "roll_check": true}

func (r *Runner) call(ctx context.Context, st *stepState, name string, args map[string]any) mcp.ToolResult {
	raw := json.RawMessage("{}")
	if args != nil {
		raw, _ = json.Marshal(args)
	}
	return r.callRaw(ctx, st, name, raw)
}

// callRaw calls one tool as the seat's grant. A refusal that says the
// grant no longer holds the seat ends the step (a human took it back).
func (r *Runner) callRaw(ctx context.Context, st *stepState, name string, args json.RawMessage) mcp.ToolResult {
	st.calls++
	res := r.opts.Tools.Call(ctx, st.n.GrantID, name, args)
	switch res.Code {
	case apperr.AITokenRevoked, apperr.AIGrantNotCurrentController, apperr.SessionEnded:
		st.takenBack = true
	}
	if !res.IsError && rollTools[name] {
		st.rolled = true
	}
	if !res.IsError && name == "session" {
		var started struct {
			Status string `json:"status"`
			Cursor int64  `json:"cursor"`
		}
		if json.Unmarshal(res.JSON, &started) == nil && started.Status == "active" {
			st.startCursor = max(st.startCursor, started.Cursor)
		}
	}
	return res
}

// offered is every tool but wait_for_event: the runner does the waiting.
func (r *Runner) offered() []llm.Tool {
	var out []llm.Tool
	for _, s := range r.opts.Tools.Specs() {
		if s.Name == "wait_for_event" {
			continue
		}
		var params map[string]any
		_ = json.Unmarshal(s.InputSchema, &params)
		out = append(out, llm.Tool{Name: s.Name, Description: s.Description, Parameters: params})
	}
	return out
}

func modelUser(n table.NarratorSeat) int64 {
	if n.ModelUserID == nil {
		return 0
	}
	return *n.ModelUserID
}

func systemPrompt(n table.NarratorSeat) string {
	var b strings.Builder
	if n.Role == table.RoleDM {
		b.WriteString("You are the Dungeon Master of a tabletop role-playing game played by humans in a browser. ")
		b.WriteString("You act only through the tools you are given; they are the same an outside agent uses, and they refuse what your seat may not do. ")
		b.WriteString("Rules you keep: never decide a roll yourself — ask for checks with request_check (a secret DC stays secret) and resolve attacks with fight; ")
		b.WriteString("narrate outcomes only after the tool has given them; on a monster's turn in combat, play the monster with fight; never write a DC in text the players read. ")
		b.WriteString("To ask every player what they do, open an action_window with a prompt: you are called again once all have declared or its time is up; then adjudicate each declared action (adjudicate_action, request_check) and close the window. ")
	} else {
		b.WriteString("You play one player character at a tabletop role-playing table with humans, through the tools you are given. ")
		b.WriteString("Stay in character, act on your own turns, roll checks the DM asks of you with roll_check, and never speak for the DM or other players. ")
	}
	fmt.Fprintf(&b, "You may call at most %d tools in this step. Keep what you write short: two to five sentences.", n.MaxToolCalls)
	return b.String()
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

func nonce() string {
	var raw [6]byte
	_, _ = rand.Read(raw[:])
	return hex.EncodeToString(raw[:])
}
