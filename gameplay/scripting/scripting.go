// Package scripting runs AI Dungeon user scripts (Library + onInput /
// onModelContext / onOutput hooks) in QuickJS compiled to WebAssembly
// (github.com/fastschema/qjs on wazero).
//
// Each hook call gets a fresh runtime, so nothing leaks between calls or
// adventures; the expensive part, parsing a large Library, happens once per
// script version and is cached as bytecode, and for the scripts run most
// recently the next runtime is prepared between hooks with that bytecode
// already read into it (see primedSet). Data crosses the boundary only as
// JSON: the host serialises {text, state, history, storyCards, info} in and
// reads {text, stop, state, storyCards, memory, message, logs} back. There is
// no object bridge into Go.
//
// Limits: a per-call time limit (the runtime is killed through its context),
// a per-call cap on the wasm linear memory (growth past it fails, QuickJS
// throws "out of memory"), a guest filesystem rooted at a path that does not
// exist, discarded stdout/stderr, and guest sleeps clamped to the deadline.
// A failing script never yields a Go error: Run reports it in Output.Error
// and returns the inputs unchanged.
package scripting

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fastschema/qjs"
)

// Hook names, as in Input.Hook.
const (
	HookInput   = "input"
	HookContext = "context"
	HookOutput  = "output"
)

// Error kinds, as in Error.Kind.
const (
	// KindThrow: the script threw (or crashed the interpreter, e.g. by
	// recursing too deeply).
	KindThrow = "throw"
	// KindTimeout: the script ran past Options.Timeout and was killed.
	KindTimeout = "timeout"
	// KindMemory: the script hit Options.MemoryLimit.
	KindMemory = "memory"
	// KindCompile: the Library + hook script do not parse.
	KindCompile = "compile"
	// KindEmpty: an input or output hook returned "" without stopping.
	// Upstream aborts the action with a generic notice in that case; here the
	// hook counts as failed (inputs unchanged) but the logs are kept.
	KindEmpty = "empty"
	// KindCanceled: the caller's context ended before the hook finished.
	KindCanceled = "canceled"
	// KindInternal: a host-side problem (bad Input.State JSON, a closed
	// Sandbox, a runtime that could not start).
	KindInternal = "internal"
)

// Card is one story card. In JS it is {id, keys, entry, type, title,
// description, createdAt, updatedAt}, all strings, and the card's rules:
// secondaryKeys (one comma-separated string, like keys), logic (and_any,
// and_all, not_any or not_all; "" is and_any), constant (a boolean) and
// priority (a number). A card a script writes back without one of the rules
// (an object it rebuilt from AI Dungeon's fields) keeps what it had.
type Card struct {
	// ID is a numeric string; "" for a card a script just created (the host
	// assigns ids). Output keeps an ID only on the first card carrying an ID
	// that was in Input.Cards, so copies and invented ids come back as "".
	ID          string `json:"id"`
	Keys        string `json:"keys"` // one comma-separated string
	Entry       string `json:"entry"`
	Type        string `json:"type"`
	Title       string `json:"title"`
	Description string `json:"description"`
	CreatedAt   string `json:"createdAt"` // ISO 8601
	UpdatedAt   string `json:"updatedAt"` // ISO 8601

	SecondaryKeys string `json:"secondaryKeys"` // one comma-separated string
	Logic         string `json:"logic"`
	Constant      bool   `json:"constant"`
	Priority      int    `json:"priority"`
}

// jsCard is a card as a script leaves it: a rule it left out is nil.
type jsCard struct {
	Card
	SecondaryKeys *string `json:"secondaryKeys"`
	Logic         *string `json:"logic"`
	Constant      *bool   `json:"constant"`
	Priority      *int    `json:"priority"`
}

// HistoryEntry is one recent action, exposed as {text, type, rawText}.
// Types: start, continue, do, say, story, see. rawText is AI Dungeon's
// older name for the same text; "" means "equal to Text" (and a Text of ""
// takes RawText), so scripts reading either field get the action.
// history is read-only in the sense that it is never read back: scripts get
// a plain copy they may sort or reverse in place without error.
type HistoryEntry struct {
	Text    string `json:"text"`
	Type    string `json:"type"`
	RawText string `json:"rawText,omitempty"`
}

// Info feeds the info global.
type Info struct {
	ActionCount int
	// MaxChars and MemoryLength are exposed only to the context hook (scripts
	// such as Inner Self detect that hook by Number.isInteger(info.maxChars)).
	MaxChars     int
	MemoryLength int
	// CharacterNames is exposed as both info.characterNames and
	// info.characters (strings; sources disagree on the name).
	CharacterNames []string
}

// Memory is state.memory after the hook. "" means "use the adventure's own".
type Memory struct {
	Context     string `json:"context"`
	AuthorsNote string `json:"authorsNote"`
	FrontMemory string `json:"frontMemory"`
}

// Input is one hook call.
type Input struct {
	Hook    string // HookInput, HookContext or HookOutput
	Library string // prepended to Script, same scope
	Script  string // the hook script
	Text    string
	State   []byte // JSON object of the persisted state; nil/empty means {}
	History []HistoryEntry
	Cards   []Card
	Info    Info
	// Now stamps createdAt/updatedAt of cards the script adds or updates;
	// zero means time.Now().
	Now time.Time
}

// Error describes why a hook failed.
type Error struct {
	Kind    string `json:"kind"` // one of the Kind constants
	Message string `json:"message"`
	// Line is the 1-based line in Input.Script of the innermost stack frame
	// that lies in the hook script, 0 if unknown. The Library and the hook
	// script are compiled as one source; lines up to the Library's line count
	// are mapped to LibraryLine instead, the rest are offset by it.
	Line int `json:"line"`
	// LibraryLine is the 1-based Library line where the error was raised,
	// when the innermost frame lies in the Library; 0 otherwise.
	LibraryLine int `json:"libraryLine,omitempty"`
}

func (e *Error) Error() string {
	switch {
	case e.Line > 0 && e.LibraryLine > 0:
		return fmt.Sprintf("%s (library line %d, called from script line %d)", e.Message, e.LibraryLine, e.Line)
	case e.Line > 0:
		return fmt.Sprintf("%s (script line %d)", e.Message, e.Line)
	case e.LibraryLine > 0:
		return fmt.Sprintf("%s (library line %d)", e.Message, e.LibraryLine)
	}
	return e.Message
}

var errorLines = regexp.MustCompile(`\((?:library line (\d+), called from script line (\d+)|script line (\d+)|library line (\d+))\)$`)

// ErrorLines reads back the lines an Error's text names (see Error): the
// hook script's line and the Library's line, 0 where none is named. It lets
// a stored English error line (the script console keeps text only) give
// the lines again.
func ErrorLines(text string) (line, libraryLine int) {
	m := errorLines.FindStringSubmatch(text)
	if m == nil {
		return 0, 0
	}
	n := func(s string) int { v, _ := strconv.Atoi(s); return v }
	return n(m[2]) + n(m[3]), n(m[1]) + n(m[4])
}

// Output is the result of one hook call.
type Output struct {
	// Text is the resulting text. It is Input.Text when the hook failed,
	// when the context hook returned "" (the context is built as if the
	// script had not run), and when the result was the word "stop" (which
	// only sets Stop).
	Text string
	Stop bool
	// State is the JSON of the state after the hook (Input.State, or {}, on
	// failure). state.message and state.memory stay in it: upstream keeps
	// both across turns, and Auto-Cards compares state.message with last
	// turn's value.
	State []byte
	// Cards is the whole storyCards array read back: order, in-place edits,
	// splices, and new cards with ID "". Input.Cards on failure.
	Cards  []Card
	Memory Memory // state.memory after the hook (of Input.State on failure)
	// Message is state.message when this hook changed it (a notice to show);
	// "" when it is unchanged or empty. Upstream shows the toast on change,
	// which is why Auto-Cards tweaks a repeated message to re-show it.
	Message string
	// Logs are the log()/console.log() lines in order: the arguments joined
	// by spaces, strings as they are and other values JSON-serialised
	// (undefined as null), so log("x", 1, [2]) gives `x 1 [2]`. Kept on throw
	// and empty results; lost when the runtime was killed.
	Logs    []string
	Error   *Error // nil on success
	Elapsed time.Duration
	// CalledModifier reports that the host called the Library's modifier
	// because the hook script's completion value was undefined.
	CalledModifier bool
}

// Options configures a Sandbox. Zero values mean the defaults.
type Options struct {
	Timeout     time.Duration // per hook call; default 1s
	MemoryLimit int64         // bytes of wasm linear memory per call; default 64 MiB
	// WorkDir is an empty directory dedicated to the sandbox; default a fresh
	// os.MkdirTemp directory, removed by Close. Guests are given a root
	// inside it that is never created, so it stays empty.
	WorkDir string
	// CompileTimeout bounds compiling a new script version; default 10s.
	CompileTimeout time.Duration
	// CacheBytes bounds the bytecode cache; default 128 MiB.
	CacheBytes int64
	// MaxConcurrent bounds simultaneous runtimes (each may use MemoryLimit);
	// default 4 × GOMAXPROCS. Run waits for a slot, honouring its context.
	MaxConcurrent int
	// LogLines and LogLineChars bound the console per hook call; defaults
	// 1000 lines of at most 16384 characters.
	LogLines, LogLineChars int
	// Spares is how many fresh runtimes are prepared in the background so a
	// hook does not wait ~4 ms for one; default 2, negative disables. Each
	// is used once, exactly like one created on demand.
	Spares int
	// Primed is how many compiled scripts (Library + hook pairs) keep a
	// runtime with their bytecode already read, prepared between hooks
	// (see primedSet); default 3, one adventure's three hooks; negative
	// disables. Each holds a runtime's memory (~2.6 MiB with Auto-Cards).
	Primed int
	// EngineCacheDir keeps the compiled QuickJS engine between starts, so
	// only the first start compiles it (~0.65 s). It must be a directory
	// only this server writes: one other users can write, or that belongs
	// to someone else, is not used (logged once) and QuickJS is compiled.
	// "" compiles at every start. Only the first New of a process uses it.
	EngineCacheDir string
	// Logger receives the one line about the engine cache; nil is
	// slog.Default().
	Logger *slog.Logger
}

// Stats counts what the Sandbox did, for tests and metrics.
type Stats struct {
	Runs      int64 // hook calls started
	Compiles  int64 // script versions compiled (cache misses)
	CacheHits int64 // hook calls served from cached bytecode
	// Primed counts hook calls whose bytecode was already read into their
	// runtime (see Options.Primed).
	Primed int64
	// Abandoned counts hook calls whose runtime did not stop within a grace
	// period after being killed; Run returned anyway. Should stay 0.
	Abandoned int64
}

// Sandbox runs hooks. It is safe for concurrent use.
type Sandbox struct {
	opts       Options
	workDir    string
	ownWorkDir bool
	mountDir   string
	prelude    []byte // bytecode of prelude.js
	cache      *bytecodeCache
	slots      chan struct{}
	spares     chan *vm
	primed     *primedSet
	kick       chan struct{} // asks fill to top up spares
	stopFill   chan struct{}
	fillDone   chan struct{}
	wg         sync.WaitGroup
	mu         sync.RWMutex // guards closed against in-flight Run starts
	closed     bool

	runs, compiles, hits, primedRuns, abandoned atomic.Int64
}

//go:embed prelude.js
var preludeSource string

// guestRoot is the name, inside WorkDir, of the guest filesystem root. It is
// never created: wazero mounts it anyway and every file operation fails.
const guestRoot = "guest-root-does-not-exist"

// New starts a Sandbox. The first call in a process compiles QuickJS
// (~0.65 s) or, with Options.EngineCacheDir, loads it compiled.
func New(opts Options) (*Sandbox, error) {
	if opts.Timeout <= 0 {
		opts.Timeout = time.Second
	}
	if opts.MemoryLimit <= 0 {
		opts.MemoryLimit = 64 << 20
	}
	if opts.MemoryLimit > 3<<30 {
		return nil, errors.New("scripting: memory limit above 3 GiB (wasm32 tops out at 4 GiB)")
	}
	if opts.CompileTimeout <= 0 {
		opts.CompileTimeout = 10 * time.Second
	}
	if opts.CacheBytes <= 0 {
		opts.CacheBytes = 128 << 20
	}
	if opts.MaxConcurrent <= 0 {
		opts.MaxConcurrent = 4 * runtime.GOMAXPROCS(0)
	}
	if opts.LogLines <= 0 {
		opts.LogLines = 1000
	}
	if opts.LogLineChars <= 0 {
		opts.LogLineChars = 16384
	}
	if opts.Spares == 0 {
		opts.Spares = 2
	}
	if opts.Primed == 0 {
		opts.Primed = 3
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	s := &Sandbox{
		opts:     opts,
		cache:    newBytecodeCache(opts.CacheBytes),
		slots:    make(chan struct{}, opts.MaxConcurrent),
		spares:   make(chan *vm, max(opts.Spares, 0)),
		primed:   newPrimedSet(opts.Primed),
		kick:     make(chan struct{}, 1),
		stopFill: make(chan struct{}),
		fillDone: make(chan struct{}),
	}
	if opts.WorkDir == "" {
		dir, err := os.MkdirTemp("", "aid-scripting-*")
		if err != nil {
			return nil, fmt.Errorf("scripting: work dir: %w", err)
		}
		s.workDir, s.ownWorkDir = dir, true
	} else {
		entries, err := os.ReadDir(opts.WorkDir)
		if err != nil {
			return nil, fmt.Errorf("scripting: work dir: %w", err)
		}
		if len(entries) > 0 {
			return nil, fmt.Errorf("scripting: work dir %s is not empty", opts.WorkDir)
		}
		s.workDir = opts.WorkDir
	}
	s.mountDir = filepath.Join(s.workDir, guestRoot)
	fail := func(err error) (*Sandbox, error) {
		if s.ownWorkDir {
			_ = os.RemoveAll(s.workDir)
		}
		return nil, fmt.Errorf("scripting: %w", err)
	}
	if err := warmUp(s.mountDir, opts.EngineCacheDir, opts.Logger); err != nil {
		return fail(err)
	}
	if _, ok := evalFunctionIndex(qjsWasm); !ok {
		// Hooks run their bytecode through our export of JS_EvalFunction,
		// found in the pinned qjs build (see wasm.go); a new qjs version
		// must be checked and its index recorded before it can be used.
		return fail(errors.New("the linked qjs build is not the pinned v0.0.6 one (see pinnedQJSWasm in wasm.go)"))
	}
	// The prelude is ours and strict-mode safe, so qjs's own Compile does.
	v, err := newVM(s.mountDir, opts.MemoryLimit)
	if err != nil {
		return fail(fmt.Errorf("start runtime: %w", err))
	}
	err = v.call(func() error {
		var cerr error
		s.prelude, cerr = v.rt.Compile("prelude.js", qjs.Code(preludeSource))
		return cerr
	})
	v.close(err == nil)
	if err != nil {
		return fail(fmt.Errorf("compile prelude: %w", err))
	}
	// A smoke run proves the limits leave room for a real hook.
	if out := s.Run(context.Background(), Input{Hook: HookInput, Script: "text", Text: "ok"}); out.Error != nil || out.Text != "ok" {
		return fail(fmt.Errorf("self-test failed: %v", out.Error))
	}
	s.runs.Store(0)
	s.compiles.Store(0)
	s.hits.Store(0)
	s.primedRuns.Store(0)
	s.cache.clear()
	for _, v := range s.primed.clear() {
		v.close(true)
	}
	go s.fill()
	s.refill()
	return s, nil
}

// freshVM starts a runtime and runs the static part of the prelude in it.
func (s *Sandbox) freshVM() (*vm, error) {
	v, err := newVM(s.mountDir, s.opts.MemoryLimit)
	if err != nil {
		return nil, err
	}
	err = v.call(func() error {
		_, err := v.rt.Eval("prelude.js", qjs.Bytecode(s.prelude))
		return err
	})
	if err != nil {
		v.close(false)
		return nil, fmt.Errorf("prelude: %w", err)
	}
	return v, nil
}

// refill asks fill to top up the spares.
func (s *Sandbox) refill() {
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

// primedVM starts a runtime and reads entry's bytecode into it.
func (s *Sandbox) primedVM(entry *cacheEntry) (*vm, uint64, error) {
	v, err := s.freshVM()
	if err != nil {
		return nil, 0, err
	}
	var fn uint64
	err = v.call(func() error {
		var rerr error
		fn, rerr = v.readBytecode(entry.bytecode)
		return rerr
	})
	if err != nil {
		v.close(false)
		return nil, 0, err
	}
	return v, fn, nil
}

// fill tops up the primed runtimes, then s.spares, whenever refill asks,
// until Close. Runtimes are prepared ahead on this goroutine so a hook's
// latency does not include instantiating QuickJS (~4 ms) nor, for a script
// that ran recently, reading its bytecode. Refills are asked for when a hook
// has finished, not when it takes its runtime, so that on a small host the
// preparation does not compete with the hook for the CPU.
func (s *Sandbox) fill() {
	defer close(s.fillDone)
	stopped := func() bool {
		select {
		case <-s.stopFill:
			return true
		default:
			return false
		}
	}
	for {
		select {
		case <-s.kick:
		case <-s.stopFill:
			return
		}
		for slot := s.primed.next(); slot != nil; slot = s.primed.next() {
			v, fn, err := s.primedVM(slot.entry)
			if err != nil {
				s.primed.put(slot, nil, 0) // the hook reads it itself and reports errors
				continue
			}
			if !s.primed.put(slot, v, fn) {
				v.close(true)
			}
			if stopped() {
				return
			}
		}
		for len(s.spares) < cap(s.spares) {
			v, err := s.freshVM()
			if err != nil {
				break // Run creates runtimes on demand and reports errors
			}
			select {
			case s.spares <- v:
			default:
				v.close(true)
			}
			if stopped() {
				return
			}
		}
	}
}

// take returns a fresh runtime bound to ctx for entry: one primed for it
// if ready (with the function read into it), else a spare if one is ready
// (fn 0). It also asks for entry to be primed for its next run.
func (s *Sandbox) take(ctx context.Context, entry *cacheEntry) (v *vm, fn uint64, err error) {
	defer func() {
		for _, old := range s.primed.want(entry) {
			old.close(true)
		}
	}()
	if v, fn, ok := s.primed.take(entry.key); ok {
		s.primedRuns.Add(1)
		v.bind(ctx)
		return v, fn, nil
	}
	select {
	case v = <-s.spares:
	default:
		var err error
		if v, err = s.freshVM(); err != nil {
			return nil, 0, err
		}
	}
	v.bind(ctx)
	return v, 0, nil
}

// Stats returns counters since New.
func (s *Sandbox) Stats() Stats {
	return Stats{
		Runs:      s.runs.Load(),
		Compiles:  s.compiles.Load(),
		CacheHits: s.hits.Load(),
		Primed:    s.primedRuns.Load(),
		Abandoned: s.abandoned.Load(),
	}
}

// Close waits for running hooks and removes the work dir if New created it.
// Run after Close reports KindInternal.
func (s *Sandbox) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.mu.Unlock()
	s.wg.Wait()
	close(s.stopFill)
	<-s.fillDone
	for _, v := range s.primed.clear() {
		v.close(true)
	}
	for {
		select {
		case v := <-s.spares:
			v.close(true)
			continue
		default:
		}
		break
	}
	s.cache.clear()
	if s.ownWorkDir {
		return os.RemoveAll(s.workDir)
	}
	return nil
}

// abandonGrace is how long Run waits past the kill for a runtime to stop.
// Killing is prompt in practice (sleeps are clamped, loops check the
// context); this only guards the turn against an unknown blocking path.
const abandonGrace = 2 * time.Second

// Run executes one hook. It never panics and never returns a Go error for a
// script fault: failures are in Output.Error, with Text, State and Cards
// equal to the inputs.
func (s *Sandbox) Run(ctx context.Context, in Input) (out Output) {
	start := time.Now()
	defer func() {
		if r := recover(); r != nil {
			out = s.failed(in, &Error{Kind: KindInternal, Message: fmt.Sprintf("scripting: %v", r)}, nil)
		}
		out.Elapsed = time.Since(start)
	}()

	s.mu.RLock()
	if s.closed {
		s.mu.RUnlock()
		return s.failed(in, &Error{Kind: KindInternal, Message: "scripting: sandbox is closed"}, nil)
	}
	s.wg.Add(1)
	s.mu.RUnlock()
	defer s.wg.Done()
	s.runs.Add(1)

	if len(bytes.TrimSpace(in.State)) > 0 && !json.Valid(in.State) {
		return s.failed(in, &Error{Kind: KindInternal, Message: "scripting: Input.State is not valid JSON"}, nil)
	}
	switch in.Hook {
	case HookInput, HookContext, HookOutput:
	default:
		return s.failed(in, &Error{Kind: KindInternal, Message: fmt.Sprintf("scripting: unknown hook %q", in.Hook)}, nil)
	}

	if ctx.Err() != nil {
		return s.failed(in, &Error{Kind: KindCanceled, Message: "the hook was cancelled: " + ctx.Err().Error()}, nil)
	}
	select {
	case s.slots <- struct{}{}:
	case <-ctx.Done():
		return s.failed(in, &Error{Kind: KindCanceled, Message: "the hook was cancelled: " + ctx.Err().Error()}, nil)
	}

	// The hook runs on its own goroutine so that Run returns even if a
	// killed runtime failed to stop (see abandonGrace). The slot is released
	// by the worker, so an abandoned runtime keeps counting against
	// MaxConcurrent while it still holds memory. The worker is not counted
	// in s.wg: Close waits for Run calls, and must not hang on an abandoned
	// runtime; everything the worker touches stays valid after Close.
	done := make(chan Output, 1)
	go func() {
		defer s.refill()
		defer func() { <-s.slots }()
		defer func() {
			if r := recover(); r != nil {
				done <- s.failed(in, &Error{Kind: KindInternal, Message: fmt.Sprintf("scripting: %v", r)}, nil)
			}
		}()
		done <- s.run(ctx, in)
	}()
	hard := time.NewTimer(s.opts.CompileTimeout + s.opts.Timeout + abandonGrace)
	defer hard.Stop()
	select {
	case out = <-done:
		return out
	case <-hard.C:
		s.abandoned.Add(1)
		return s.failed(in, &Error{Kind: KindTimeout, Message: fmt.Sprintf("the script did not finish within %v and could not be stopped", s.opts.Timeout)}, nil)
	}
}

// jsInput is the JSON the prelude reads.
type jsInput struct {
	Hook                 string          `json:"hook"`
	Text                 string          `json:"text"`
	State                json.RawMessage `json:"state"`
	History              []HistoryEntry  `json:"history"`
	Cards                []Card          `json:"storyCards"`
	Info                 jsInfo          `json:"info"`
	Now                  string          `json:"now"`
	EndsWithModifierCall bool            `json:"endsWithModifierCall"`
	Limits               jsLimits        `json:"limits"`
}

type jsInfo struct {
	ActionCount    int      `json:"actionCount"`
	MaxChars       *int     `json:"maxChars,omitempty"`
	MemoryLength   *int     `json:"memoryLength,omitempty"`
	CharacterNames []string `json:"characterNames"`
	Characters     []string `json:"characters"`
}

type jsLimits struct {
	LogLines     int `json:"logLines"`
	LogLineChars int `json:"logLineChars"`
}

// jsOutput is the JSON __aidCollect returns.
type jsOutput struct {
	Error *struct {
		Message string `json:"message"`
		Stack   string `json:"stack"`
	} `json:"error"`
	Text           string          `json:"text"`
	Stop           bool            `json:"stop"`
	CalledModifier bool            `json:"calledModifier"`
	State          json.RawMessage `json:"state"`
	Cards          []jsCard        `json:"storyCards"`
	Memory         Memory          `json:"memory"`
	Message        string          `json:"message"`
	Logs           []string        `json:"logs"`
	LogsDropped    bool            `json:"logsDropped"`
}

func (s *Sandbox) run(ctx context.Context, in Input) Output {
	entry, cerr := s.bytecodeFor(ctx, in.Library, in.Script)
	if cerr != nil {
		return s.failed(in, cerr, nil)
	}

	payload, err := s.inputJSON(in, entry)
	if err != nil {
		return s.failed(in, &Error{Kind: KindInternal, Message: "scripting: " + err.Error()}, nil)
	}

	v, fn, err := s.take(ctx, entry)
	if err != nil {
		return s.failed(in, &Error{Kind: KindInternal, Message: "scripting: start runtime: " + err.Error()}, nil)
	}
	disarm := v.arm(s.opts.Timeout)
	var result string
	err = v.call(func() error {
		c := v.rt.Context()
		c.Global().SetPropertyStr("__aidIn", c.NewString(string(payload)))
		if _, err := c.Global().InvokeJS("__aidSetup"); err != nil {
			return fmt.Errorf("setup: %w", err)
		}
		// Exceptions inside the script are caught by the try/catch the
		// source is wrapped in (see wrapSource), so an error here means the
		// completion value was an Error object, reported as a failure (or
		// the runtime ran out of memory reading the bytecode).
		if fn == 0 {
			var err error
			if fn, err = v.readBytecode(entry.bytecode); err != nil {
				return errScriptValue{err}
			}
		}
		ret, err := v.evalFunction(fn)
		if err != nil {
			return errScriptValue{err}
		}
		res, err := c.Global().InvokeJS("__aidCollect", ret)
		if err != nil {
			return fmt.Errorf("collect: %w", err)
		}
		result = res.String()
		return nil
	})
	disarm()
	if err != nil {
		_, scriptValue := err.(errScriptValue)
		v.close(false)
		e := v.failure(err, s.opts.Timeout, s.opts.MemoryLimit)
		if scriptValue && e.Kind == KindThrow {
			e = errorFromException(err.Error(), entry.libraryLines, entry.scriptLines)
		}
		return s.failed(in, e, nil)
	}
	refused := v.mem.refused.Load()
	clamped := v.state.clamped.Load()
	v.close(true)
	if clamped {
		return s.failed(in, &Error{Kind: KindTimeout, Message: fmt.Sprintf("the script did not finish within %v", s.opts.Timeout)}, nil)
	}

	var res jsOutput
	if err := json.Unmarshal([]byte(result), &res); err != nil {
		return s.failed(in, &Error{Kind: KindInternal, Message: "scripting: unreadable result: " + err.Error()}, nil)
	}
	logs := res.Logs
	if res.LogsDropped {
		logs = append(logs, fmt.Sprintf("[console limit of %d lines reached; later lines dropped]", s.opts.LogLines))
	}
	if res.Error != nil {
		e := errorFromException(res.Error.Message+"\n"+res.Error.Stack, entry.libraryLines, entry.scriptLines)
		if refused || e.Message == outOfMemory {
			e.Kind = KindMemory
		}
		return s.failed(in, e, logs)
	}

	out := Output{
		Text:           res.Text,
		Stop:           res.Stop,
		State:          res.State,
		Cards:          readCards(res.Cards, in.Cards),
		Memory:         res.Memory,
		Message:        res.Message,
		Logs:           logs,
		CalledModifier: res.CalledModifier,
	}
	if out.Cards == nil {
		out.Cards = []Card{}
	}
	if out.Text == "stop" && out.Stop {
		out.Text = in.Text
	}
	if out.Text == "" && !out.Stop {
		switch in.Hook {
		case HookContext:
			// Upstream: the context is built as though the script had not
			// run. Only the text reverts; state and card changes stand.
			out.Text = in.Text
		case HookInput:
			return s.failed(in, &Error{Kind: KindEmpty, Message: "Unable to run scenario scripts (the input hook returned empty text)"}, logs)
		case HookOutput:
			return s.failed(in, &Error{Kind: KindEmpty, Message: "A custom script running on this scenario failed (the output hook returned empty text)"}, logs)
		}
	}
	return out
}

// errScriptValue marks a failure reported by qjs for the script's own Eval.
type errScriptValue struct{ error }

func (e errScriptValue) Unwrap() error { return e.error }

func (s *Sandbox) inputJSON(in Input, entry *cacheEntry) ([]byte, error) {
	state := json.RawMessage(bytes.TrimSpace(in.State))
	if len(state) == 0 {
		state = json.RawMessage("{}")
	}
	now := in.Now
	if now.IsZero() {
		now = time.Now()
	}
	names := in.Info.CharacterNames
	if names == nil {
		names = []string{}
	}
	info := jsInfo{
		ActionCount:    in.Info.ActionCount,
		CharacterNames: names,
		Characters:     names,
	}
	if in.Hook == HookContext {
		info.MaxChars = &in.Info.MaxChars
		info.MemoryLength = &in.Info.MemoryLength
	}
	history := make([]HistoryEntry, len(in.History))
	for i, h := range in.History {
		if h.Text == "" {
			h.Text = h.RawText
		}
		if h.RawText == "" {
			h.RawText = h.Text
		}
		history[i] = h
	}
	cards := in.Cards
	if cards == nil {
		cards = []Card{}
	}
	return json.Marshal(jsInput{
		Hook:                 in.Hook,
		Text:                 in.Text,
		State:                state,
		History:              history,
		Cards:                cards,
		Info:                 info,
		Now:                  now.UTC().Format("2006-01-02T15:04:05.000Z"),
		EndsWithModifierCall: entry.endsWithModifierCall,
		Limits:               jsLimits{LogLines: s.opts.LogLines, LogLineChars: s.opts.LogLineChars},
	})
}

// failed builds the Output of a failed hook: the inputs unchanged.
func (s *Sandbox) failed(in Input, e *Error, logs []string) Output {
	state := bytes.TrimSpace(in.State)
	if len(state) == 0 {
		state = []byte("{}")
	}
	cards := in.Cards
	if cards == nil {
		cards = []Card{}
	}
	return Output{
		Text:   in.Text,
		State:  state,
		Cards:  cards,
		Memory: memoryOf(state),
		Logs:   logs,
		Error:  e,
	}
}

// memoryOf reads state.memory from state JSON, ignoring anything malformed.
func memoryOf(state []byte) Memory {
	var s struct {
		Memory json.RawMessage `json:"memory"`
	}
	if json.Unmarshal(state, &s) != nil || len(s.Memory) == 0 {
		return Memory{}
	}
	var raw map[string]any
	if json.Unmarshal(s.Memory, &raw) != nil {
		return Memory{}
	}
	get := func(k string) string { v, _ := raw[k].(string); return v }
	return Memory{Context: get("context"), AuthorsNote: get("authorsNote"), FrontMemory: get("frontMemory")}
}

// readCards takes the cards a script left, IDs normalised, each rule it
// left out taken from the card of that ID it was given (none for a new
// card).
func readCards(out []jsCard, in []Card) []Card {
	cards := make([]Card, len(out))
	for i, c := range out {
		cards[i] = c.Card
	}
	cards = normaliseIDs(cards, in)
	given := make(map[string]Card, len(in))
	for _, c := range in {
		if _, dup := given[c.ID]; !dup && c.ID != "" {
			given[c.ID] = c
		}
	}
	for i, c := range out {
		base := given[cards[i].ID]
		if cards[i].ID == "" {
			base = Card{}
		}
		cards[i].SecondaryKeys, cards[i].Logic = deref(c.SecondaryKeys, base.SecondaryKeys), deref(c.Logic, base.Logic)
		cards[i].Constant, cards[i].Priority = deref(c.Constant, base.Constant), deref(c.Priority, base.Priority)
	}
	return cards
}

func deref[T any](p *T, fallback T) T {
	if p == nil {
		return fallback
	}
	return *p
}

// normaliseIDs keeps a card's ID only if it came in with Input.Cards and no
// earlier card in the result already claimed it, so the host can treat every
// "" as a new card and every ID as an update.
func normaliseIDs(out, in []Card) []Card {
	known := make(map[string]bool, len(in))
	for _, c := range in {
		if c.ID != "" {
			known[c.ID] = true
		}
	}
	for i := range out {
		if id := out[i].ID; id != "" {
			if known[id] {
				delete(known, id)
			} else {
				out[i].ID = ""
			}
		}
	}
	return out
}
