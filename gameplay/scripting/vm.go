package scripting

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/fastschema/qjs"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
	"github.com/tetratelabs/wazero/sys"
)

// errKilled marks a runtime that wazero closed under us (time limit, caller
// cancellation or std.exit); the runtime is dead and must not be touched.
var errKilled = errors.New("runtime killed")

// warmOnce creates the first runtime of the process. qjs caches the compiled
// module and its wazero.RuntimeConfig at the first qjs.New, so
// CloseOnContextDone is whatever that first call asked for. DisableBuildCache
// forces a recompile here, which overwrites the cached config even if some
// other code in the process created a runtime without the flag first; every
// later runtime (ours or not) is then killable through its context.
var (
	warmOnce  sync.Once
	warmErr   error
	warmStart engineStart
)

// engineStart records how warmUp got the compiled QuickJS engine.
type engineStart struct {
	FromCache bool   // loaded from the disk cache, nothing compiled
	Dir       string // the cache directory used, "" for none
	Elapsed   time.Duration
}

// warmUp compiles QuickJS once per process, or loads it from a cache
// directory under cacheBase ("" for none; see prepareEngineCache).
func warmUp(mountDir, cacheBase string, log *slog.Logger) error {
	warmOnce.Do(func() {
		t0 := time.Now()
		warmStart, warmErr = startEngine(mountDir, cacheBase, log)
		warmStart.Elapsed = time.Since(t0)
		if warmErr == nil && warmStart.Dir != "" {
			log.Info("script engine ready", slog.Bool("from_cache", warmStart.FromCache),
				slog.String("cache_dir", warmStart.Dir), slog.Duration("elapsed", warmStart.Elapsed))
		}
	})
	return warmErr
}

func startEngine(mountDir, cacheBase string, log *slog.Logger) (engineStart, error) {
	if cacheBase == "" {
		return engineStart{}, compileEngine(mountDir, "")
	}
	dir, before, err := prepareEngineCache(cacheBase, warmUpFlags())
	if err != nil {
		log.Warn("script engine cache not used, QuickJS is compiled at every start", slog.String("cache_dir", cacheBase), slog.Any("err", err))
		return engineStart{}, compileEngine(mountDir, "")
	}
	if err := compileEngine(mountDir, dir); err != nil {
		// A damaged entry (truncated, bad checksum) fails the load. The
		// directory is ours: drop it and compile into a fresh one.
		log.Warn("script engine cache unreadable, compiling it again", slog.String("cache_dir", dir), slog.Any("err", err))
		if err := os.RemoveAll(dir); err != nil {
			return engineStart{}, compileEngine(mountDir, "")
		}
		if dir, before, err = prepareEngineCache(cacheBase, warmUpFlags()); err != nil || compileEngine(mountDir, dir) != nil {
			_ = os.RemoveAll(dir)
			return engineStart{}, compileEngine(mountDir, "")
		}
	}
	after, err := scanEngineCache(dir)
	pruneEngineCaches(dir)
	return engineStart{FromCache: err == nil && cacheWasRead(before, after), Dir: dir}, nil
}

// compileEngine compiles the QuickJS module, through the wazero file cache
// in cacheDir unless it is "".
func compileEngine(mountDir, cacheDir string) error {
	// No listener factory on this context: the main qjs module is compiled
	// here, and listeners compiled into it would slow every JS call
	// (warmUpFlags says so to the cache key).
	rt, err := qjs.New(qjs.Option{
		CWD:                mountDir,
		Context:            context.Background(),
		CloseOnContextDone: true,
		DisableBuildCache:  true,
		CacheDir:           cacheDir,
		QuickJSWasmBytes:   engineWasm(),
		Stdout:             io.Discard,
		Stderr:             io.Discard,
	})
	if err != nil {
		return fmt.Errorf("start quickjs: %w", err)
	}
	closeRuntime(rt, true)
	return nil
}

// wrtOffset locates qjs.Runtime's unexported wazero runtime. qjs v0.0.6's
// Close closes the QuickJS module but never the wazero runtime that holds the
// WASI and "env" host modules; their compiled code stays registered in the
// process-wide engine forever (measured: ~25 KB of heap per hook, unbounded).
// Closing the wazero runtime ourselves releases it. The field is looked up by
// name and type so a different qjs version makes this a no-op, not a crash.
var wrtOffset, wrtFound = func() (uintptr, bool) {
	f, ok := reflect.TypeFor[qjs.Runtime]().FieldByName("wrt")
	if !ok || f.Type != reflect.TypeFor[wazero.Runtime]() {
		return 0, false
	}
	return f.Offset, true
}()

func wazeroRuntimeOf(rt *qjs.Runtime) wazero.Runtime {
	if !wrtFound || rt == nil {
		return nil
	}
	return *(*wazero.Runtime)(unsafe.Add(unsafe.Pointer(rt), wrtOffset))
}

// closeRuntime releases a runtime. A healthy one could be closed by qjs, but
// JS_FreeRuntime walks every object (milliseconds for a big library) only to
// free memory we are about to drop, so we close the wazero runtime instead,
// which discards the whole linear memory at once. A dead (killed or crashed)
// runtime must never reach qjs's Close: it calls into the closed module and
// panics.
func closeRuntime(rt *qjs.Runtime, healthy bool) {
	defer func() { _ = recover() }()
	if w := wazeroRuntimeOf(rt); w != nil {
		_ = w.Close(context.Background())
		return
	}
	if healthy {
		rt.Close()
	}
}

// cappedMemory backs one runtime's wasm linear memory and refuses to grow it
// past limit. QuickJS's own MemoryLimit only rejects single large
// allocations; refusing memory.grow makes malloc return NULL, which QuickJS
// turns into a catchable "out of memory" InternalError.
type cappedMemory struct {
	buf     []byte
	limit   uint64
	refused atomic.Bool
}

func (m *cappedMemory) Reallocate(size uint64) []byte {
	if size > m.limit {
		m.refused.Store(true)
		return nil
	}
	if size <= uint64(cap(m.buf)) {
		// Wasm memory only grows, so bytes between the old length and
		// size were never handed out and are still zero.
		m.buf = m.buf[:size]
		return m.buf
	}
	// Start at initialMemoryCap (a hook with a large Library settles around
	// 3-4 MiB, measured) and double after that to amortise copies, never
	// reserving beyond the cap.
	newCap := min(max(size, 2*uint64(cap(m.buf)), initialMemoryCap), m.limit)
	buf := make([]byte, size, newCap)
	copy(buf, m.buf)
	m.buf = buf
	return buf
}

func (m *cappedMemory) Free() { m.buf = nil }

const initialMemoryCap = 4 << 20

// runState is reachable from wazero host calls through the context.
type runState struct {
	// deadline (unix ns) up to which the guest may sleep; 0 = not armed,
	// no sleeping at all.
	deadline atomic.Int64
	// clamped records that a sleep was cut short at the deadline: the
	// script would have been killed while sleeping, so its run counts as
	// timed out even if it then managed to finish before the kill landed.
	clamped atomic.Bool
}

// sleepSlack lets a clamped sleep end just after the kill, so the kill
// normally lands while the guest is still asleep.
const sleepSlack = 20 * time.Millisecond

type runStateKey struct{}

// pollClamp shortens sleeps. QuickJS's timers and os.sleep end in WASI
// poll_oneoff, which wazero serves with an uninterruptible time.Sleep: a
// script doing os.sleep(1e9) (reachable via import('qjs:os')) would hold the
// goroutine for 11 days even after its context was cancelled. Before each
// poll_oneoff we rewrite every clock subscription's relative timeout in guest
// memory so that no sleep outlasts the hook's deadline; once the deadline has
// passed the poll returns at once and wazero's context check ends the call.
type pollClamp struct{}

func (pollClamp) NewFunctionListener(def api.FunctionDefinition) experimental.FunctionListener {
	if def.Name() == "poll_oneoff" {
		return pollClamp{}
	}
	return nil
}

const (
	wasiSubscriptionSize = 48 // wasi_snapshot_preview1 subscription
	wasiEventTypeClock   = 0
)

func (pollClamp) Before(ctx context.Context, mod api.Module, _ api.FunctionDefinition, params []uint64, _ experimental.StackIterator) {
	if len(params) < 3 {
		return
	}
	st, _ := ctx.Value(runStateKey{}).(*runState)
	var remain int64
	if st != nil {
		if d := st.deadline.Load(); d != 0 {
			remain = max(d+int64(sleepSlack)-time.Now().UnixNano(), 0)
		}
	}
	in, n := uint32(params[0]), uint32(params[2])
	buf, ok := mod.Memory().Read(in, n*wasiSubscriptionSize)
	if !ok {
		return // poll_oneoff itself reports EFAULT
	}
	for i := range n {
		sub := buf[i*wasiSubscriptionSize:]
		if sub[8] != wasiEventTypeClock {
			continue
		}
		// Layout: userdata u64 @0, tag u8 @8, clock id u32 @16,
		// timeout u64 @24 (relative ns; wazero rejects absolute ones).
		if timeout := binary.LittleEndian.Uint64(sub[24:32]); timeout > uint64(remain) {
			binary.LittleEndian.PutUint64(sub[24:32], uint64(remain))
			if st != nil {
				st.clamped.Store(true)
			}
		}
	}
}

func (pollClamp) After(context.Context, api.Module, api.FunctionDefinition, []uint64) {}

func (pollClamp) Abort(context.Context, api.Module, api.FunctionDefinition, error) {}

// vm is one fresh QuickJS runtime, used for a single hook call or compile.
type vm struct {
	rt       *qjs.Runtime
	mem      *cappedMemory
	state    *runState
	cancel   context.CancelFunc
	timedOut atomic.Bool
	// caller is the context of the Run using this runtime (see bind).
	caller context.Context
	unbind func() bool
}

// newVM starts a runtime. Its kill switch is a context of its own rather
// than the caller's, so runtimes can be prepared before a caller exists;
// bind links the caller's context to it.
func newVM(mountDir string, memoryLimit int64) (*vm, error) {
	ctx, cancel := context.WithCancel(context.Background())
	v := &vm{
		mem:    &cappedMemory{limit: uint64(memoryLimit)},
		state:  &runState{},
		cancel: cancel,
		caller: context.Background(),
		unbind: func() bool { return false },
	}
	wctx := experimental.WithMemoryAllocator(ctx, experimental.MemoryAllocatorFunc(
		func(_, _ uint64) experimental.LinearMemory { return v.mem }))
	// Only the host modules (WASI, env) are compiled per runtime, so only they
	// get the listener; the QuickJS module itself was compiled at warm-up.
	wctx = experimental.WithFunctionListenerFactory(wctx, pollClamp{})
	wctx = context.WithValue(wctx, runStateKey{}, v.state)
	rt, err := qjs.New(qjs.Option{
		// A path that never exists: every guest file operation fails with
		// ENOENT, so nothing can be read from or written to the host.
		CWD:                mountDir,
		Context:            wctx,
		CloseOnContextDone: true,
		// Still set: it refuses single allocations larger than the cap
		// before they reach memory.grow.
		MemoryLimit: int(memoryLimit),
		// The bytes warmUp compiled: others would make qjs recompile.
		QuickJSWasmBytes: engineWasm(),
		Stdout:           io.Discard,
		Stderr:           io.Discard,
	})
	if err != nil {
		cancel()
		if v.mem.refused.Load() {
			return nil, fmt.Errorf("memory limit %d bytes is too small to start a runtime: %w", memoryLimit, err)
		}
		return nil, err
	}
	v.rt = rt
	return v, nil
}

// bind makes the caller's cancellation kill the runtime.
func (v *vm) bind(ctx context.Context) {
	v.caller = ctx
	v.unbind = context.AfterFunc(ctx, v.cancel)
}

// arm starts the kill timer for d and lets guest sleeps run until then
// (see pollClamp). The returned func stops the timer.
func (v *vm) arm(d time.Duration) (disarm func()) {
	v.state.deadline.Store(time.Now().Add(d).UnixNano())
	t := time.AfterFunc(d, func() {
		v.timedOut.Store(true)
		v.cancel()
	})
	return func() { t.Stop() }
}

// call runs f, turning the panics qjs raises for wasm-level failures (the
// module closed by a kill or std.exit, a trap) into errors wrapping
// errKilled; such a runtime is dead. Other errors are JS exceptions.
func (v *vm) call(f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			rerr, ok := r.(error)
			if !ok {
				rerr = fmt.Errorf("%v", r)
			}
			err = fmt.Errorf("%w: %w", errKilled, rerr)
		}
	}()
	return f()
}

// close releases the runtime; healthy says whether QuickJS is still usable.
func (v *vm) close(healthy bool) {
	v.unbind()
	v.cancel()
	closeRuntime(v.rt, healthy)
}

// failure classifies why a runtime died or an evaluation failed.
func (v *vm) failure(err error, timeout time.Duration, memoryLimit int64) *Error {
	switch {
	case v.mem.refused.Load():
		return &Error{Kind: KindMemory, Message: fmt.Sprintf("the script ran out of memory (limit %d MiB)", memoryLimit>>20)}
	case v.timedOut.Load() || v.state.clamped.Load():
		return &Error{Kind: KindTimeout, Message: fmt.Sprintf("the script did not finish within %v", timeout)}
	case v.caller.Err() != nil:
		return &Error{Kind: KindCanceled, Message: "the hook was cancelled: " + v.caller.Err().Error()}
	}
	var exit *sys.ExitError
	if errors.As(err, &exit) {
		return &Error{Kind: KindThrow, Message: fmt.Sprintf("the script exited the interpreter (exit code %d)", exit.ExitCode())}
	}
	if errors.Is(err, errKilled) {
		msg := err.Error()
		if i := strings.Index(msg, "wasm error: "); i >= 0 {
			// QuickJS's stack limit is compiled out of this WASI build, so
			// runaway recursion overflows the wasm stack and traps.
			trap := msg[i+len("wasm error: "):]
			if j := strings.IndexByte(trap, '\n'); j >= 0 {
				trap = trap[:j]
			}
			return &Error{Kind: KindThrow, Message: "InternalError: the interpreter crashed, most likely from too deep recursion (" + trap + ")"}
		}
		return &Error{Kind: KindInternal, Message: msg}
	}
	return &Error{Kind: KindThrow, Message: err.Error()}
}

// outOfMemory is how QuickJS reports an allocation refused by either limit
// (JS_SetMemoryLimit for one oversized block, our cap for growth).
const outOfMemory = "InternalError: out of memory"

// compileSloppy compiles src as a sloppy-mode global script. qjs's Compile
// always ORs in JS_EVAL_FLAG_STRICT (bytecode keeps the mode it was compiled
// with), but AI Dungeon scripts assign undeclared globals, so we build the
// eval options ourselves with flags 0 (global script, not strict).
func (v *vm) compileSloppy(filename, src string) ([]byte, error) {
	rt := v.rt
	c := rt.Context()
	code := rt.NewStringHandle(src)
	defer code.Free()
	file := rt.NewStringHandle(filename)
	defer file.Free()
	opts := rt.Call("QJS_CreateEvalOption", code.Raw(), 0, 0, file.Raw(), 0)
	defer opts.Free()
	packed := rt.Call("QJS_Compile2", c.Raw(), opts.Raw())
	if c.HasException() {
		return nil, c.Exception()
	}
	if packed.Raw() == 0 {
		return nil, errors.New("compile failed without an exception")
	}
	// Bytes unpacks the (address, length) pair and frees the buffer.
	bc := c.NewValue(packed).Bytes()
	packed.Free()
	if len(bc) == 0 {
		return nil, errors.New("compile produced no bytecode")
	}
	return bc, nil
}

// readBytecode reads compiled bytecode into the runtime without running it
// and returns the function value, which evalFunction consumes.
func (v *vm) readBytecode(bc []byte) (uint64, error) {
	rt := v.rt
	c := rt.Context()
	buf := rt.NewBytesHandle(bc)
	defer buf.Free()
	file := rt.NewStringHandle(scriptFile)
	defer file.Free()
	opts := rt.Call("QJS_CreateEvalOption", 0, buf.Raw(), uint64(len(bc)), file.Raw(), qjs.JsEvalFlagCompileOnly)
	defer opts.Free()
	fn := rt.Call("QJS_Eval", c.Raw(), opts.Raw()).Raw()
	if c.HasException() {
		return 0, c.Exception()
	}
	return fn, nil
}

// evalFunction runs (and frees) a function value from readBytecode in the
// global scope, then runs the jobs it queued (promise reactions), as qjs's
// Eval does after a script. Errors are as Eval's: an exception, or a
// completion value that is an Error object.
func (v *vm) evalFunction(fn uint64) (*qjs.Value, error) {
	rt := v.rt
	c := rt.Context()
	ret := c.NewValue(rt.Call(evalFunctionExport, c.Raw(), fn))
	if c.HasException() {
		return nil, c.Exception()
	}
	if ret.IsError() {
		defer ret.Free()
		return nil, ret.Exception()
	}
	if _, err := rt.Eval("jobs.js", qjs.Code("void 0")); err != nil {
		ret.Free()
		return nil, err
	}
	return ret, nil
}
