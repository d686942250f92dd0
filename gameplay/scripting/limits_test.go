package scripting_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/adventure-table/adventure-table/gameplay/scripting"
	"github.com/fastschema/qjs"
	"github.com/google/go-cmp/cmp"
)

// killMargin is how much later than its time limit a killed hook may
// return. Killing is immediate; the margin is generous because a loaded CI
// machine with the race detector once took 983 ms against a 750 ms margin.
// What it proves is that a hook that would run for ever (or sleep 1e9 ms)
// is stopped; how fast is measured by BenchmarkKillLatency.
const killMargin = 5 * time.Second

func TestThrowReportsScriptLine(t *testing.T) {
	s := mustNew(t, scripting.Options{})
	library := `// line 1
function helper(x) {
  if (x > 1) {
    throw new RangeError("too big: " + x);
  }
  return x;
}`
	in := scripting.Input{
		Hook:    scripting.HookInput,
		Library: library,
		Script: `state.changed = true; addStoryCard("new");
log("before");
helper(5);
text`,
		Text:  "keep me",
		State: []byte(`{"n":1,"memory":{"authorsNote":"note"}}`),
		Cards: []scripting.Card{{ID: "1", Keys: "k", Title: "k"}},
	}
	out := mustFail(t, s, in, scripting.KindThrow)
	want := &scripting.Error{Kind: scripting.KindThrow, Message: "RangeError: too big: 5", Line: 3, LibraryLine: 4}
	if diff := cmp.Diff(want, out.Error); diff != "" {
		t.Errorf("error (-want +got):\n%s", diff)
	}
	if out.Text != "keep me" || string(out.State) != string(in.State) || len(out.Cards) != 1 || out.Cards[0].ID != "1" {
		t.Errorf("failed hook changed its inputs: text %q state %s cards %+v", out.Text, out.State, out.Cards)
	}
	if out.Memory.AuthorsNote != "note" {
		t.Errorf("got memory %+v, want the input state's", out.Memory)
	}
	if diff := cmp.Diff([]string{"before"}, out.Logs); diff != "" {
		t.Errorf("logs (-want +got):\n%s", diff)
	}
	if got := out.Error.Error(); got != "RangeError: too big: 5 (library line 4, called from script line 3)" {
		t.Errorf("Error() = %q", got)
	}

	// A throw directly in the hook script; a non-Error value.
	out = mustFail(t, s, scripting.Input{Hook: scripting.HookOutput, Library: library, Script: "const a = 1;\n\nnull.x;", Text: "t"}, scripting.KindThrow)
	if out.Error.Line != 3 || out.Error.LibraryLine != 0 || !strings.HasPrefix(out.Error.Message, "TypeError") {
		t.Errorf("got %+v, want a TypeError on script line 3", out.Error)
	}
	out = mustFail(t, s, scripting.Input{Hook: scripting.HookOutput, Script: "throw 'plain string'", Text: "t"}, scripting.KindThrow)
	if out.Error.Message != "plain string" {
		t.Errorf("got message %q", out.Error.Message)
	}
	assertHealthy(t, s)
}

func TestExceptionEscapingTheWrapper(t *testing.T) {
	// The host wraps Library + script in try/catch (see wrapSource); a
	// script can close that block early and throw outside it. qjs then
	// corrupts the runtime, which is discarded; the hook just fails.
	s := mustNew(t, scripting.Options{})
	out := mustFail(t, s, scripting.Input{Hook: scripting.HookInput, Script: "}\ncatch (e) {}\nthrow new Error('escaped');\ntry {", Text: "t"}, scripting.KindThrow)
	if out.Error.Message != "Error: escaped" || out.Error.Line != 3 {
		t.Errorf("got %+v, want the escaped error on line 3", out.Error)
	}
	assertHealthy(t, s)
}

func TestCompileError(t *testing.T) {
	s := mustNew(t, scripting.Options{})
	in := scripting.Input{Hook: scripting.HookInput, Library: "const a = 1;\nconst b = 2;", Script: "text;\nlet x = ;\ntext", Text: "t"}
	for range 2 {
		out := mustFail(t, s, in, scripting.KindCompile)
		if out.Error.Line != 2 || !strings.HasPrefix(out.Error.Message, "SyntaxError") {
			t.Errorf("got %+v, want a SyntaxError on script line 2", out.Error)
		}
	}
	// The failed compile is cached like bytecode.
	if st := s.Stats(); st.Compiles != 1 {
		t.Errorf("got %d compiles, want 1", st.Compiles)
	}
	out := mustFail(t, s, scripting.Input{Hook: scripting.HookInput, Library: "ok = 1;\nfunction (", Script: "text", Text: "t"}, scripting.KindCompile)
	if out.Error.LibraryLine != 2 || out.Error.Line != 0 {
		t.Errorf("got %+v, want library line 2", out.Error)
	}
	// QuickJS would silently stop reading at a NUL byte.
	mustFail(t, s, scripting.Input{Hook: scripting.HookInput, Script: "text\x00 + 'hidden'", Text: "t"}, scripting.KindCompile)
	assertHealthy(t, s)
}

func TestTimeoutKillsScript(t *testing.T) {
	const limit = 200 * time.Millisecond
	s := mustNew(t, scripting.Options{Timeout: limit})
	tests := []struct {
		name, library, script string
	}{
		{"Loop", "", "while (true) {}"},
		{"LoopInLibrary", "for (;;) { Math.random(); }", "text"},
		{"LoopInModifier", "", "const modifier = (text) => { for (let i = 0; ; i++) text += ''; };\nmodifier(text)"},
		{"CatastrophicRegex", "", "/(a+)+b/.test('a'.repeat(64))"},
		// qjs's std/os are reachable through import() even though the
		// prelude deletes the globals; sleeps and timers must not outlive
		// the limit.
		{"SleepViaImport", "", "import('qjs:os').then((os) => os.sleep(1e9)); text"},
		{"LongTimer", "", "import('qjs:os').then((os) => os.setTimeout(() => { state.late = true; }, 1e9)); text"},
		{"Interval", "", "import('qjs:os').then((os) => os.setInterval(() => {}, 1)); text"},
		{"StdinReadHandler", "", "import('qjs:os').then((os) => os.setReadHandler(0, () => {})); text"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := mustFail(t, s, scripting.Input{Hook: scripting.HookInput, Library: tt.library, Script: tt.script, Text: "t", State: []byte(`{"n":1}`)}, scripting.KindTimeout)
			if out.Elapsed < limit || out.Elapsed > limit+killMargin {
				t.Errorf("killed after %v, want between %v and %v", out.Elapsed, limit, limit+killMargin)
			}
			if out.Text != "t" || string(out.State) != `{"n":1}` {
				t.Errorf("got text %q state %s, want the inputs", out.Text, out.State)
			}
			assertHealthy(t, s)
		})
	}
	if st := s.Stats(); st.Abandoned != 0 {
		t.Errorf("%d runtimes did not stop when killed", st.Abandoned)
	}
}

func TestTimersWithinLimitRun(t *testing.T) {
	// A short timer finishes before the result is read, as qjs runs its
	// event loop after the script; the os module is otherwise harmless.
	s := mustNew(t, scripting.Options{})
	out := mustRun(t, s, scripting.Input{Hook: scripting.HookInput, Script: "import('qjs:os').then((os) => os.setTimeout(() => { state.fired = true; }, 5)); text", Text: "t"})
	if stateOf(t, out)["fired"] != true {
		t.Errorf("got state %s, want the timer to have fired", out.State)
	}
}

func TestMemoryLimit(t *testing.T) {
	const limit = 16 << 20
	s := mustNew(t, scripting.Options{MemoryLimit: limit, Timeout: 10 * time.Second})
	tests := []struct{ name, script string }{
		{"GrowingStrings", "const a = []; const s = 'x'.repeat(1 << 20); while (true) a.push(s + a.length);"},
		{"Doubling", "let s = 'ab'; while (true) s = s + s + '.';"},
		{"Arrays", "const a = []; while (true) a.push(new Array(1e5).fill(a.length));"},
		{"SmallObjects", "const a = []; for (let i = 0; ; i++) a.push({ i, tag: 'x' + i });"},
		{"OneHugeAllocation", "new ArrayBuffer(256 << 20); text"},
		{"HugeState", "state.big = []; while (true) state.big.push('y'.repeat(1 << 16) + state.big.length);"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := mustFail(t, s, scripting.Input{Hook: scripting.HookOutput, Script: tt.script, Text: "t", State: []byte(`{"n":1}`)}, scripting.KindMemory)
			if out.Text != "t" || string(out.State) != `{"n":1}` {
				t.Errorf("got text %q state %s, want the inputs", out.Text, out.State)
			}
			assertHealthy(t, s)
		})
	}
}

func TestMemoryErrorIsCatchable(t *testing.T) {
	// A generous timeout: filling 16 MiB takes a while on a busy machine,
	// and this test is about memory, not time.
	s := mustNew(t, scripting.Options{MemoryLimit: 16 << 20, Timeout: 10 * time.Second})
	out := mustRun(t, s, scripting.Input{
		Hook: scripting.HookOutput,
		Script: `let hog = [];
const chunk = "z".repeat(1 << 20);
try {
  for (;;) hog.push(chunk + hog.length);
} catch (e) {
  hog = null;
  log(String(e));
}
text + " (recovered)"`,
		Text: "t",
	})
	if out.Text != "t (recovered)" {
		t.Errorf("got %q", out.Text)
	}
	if diff := cmp.Diff([]string{"InternalError: out of memory"}, out.Logs); diff != "" {
		t.Errorf("logs (-want +got):\n%s", diff)
	}
}

func TestDeepRecursion(t *testing.T) {
	// QuickJS's stack limit is compiled out of this WASI build; runaway
	// recursion traps the wasm module, which must surface as a script error.
	s := mustNew(t, scripting.Options{})
	out := mustFail(t, s, scripting.Input{Hook: scripting.HookInput, Script: "function f(n) { return f(n + 1) + 1; }\nf(0)", Text: "t"}, scripting.KindThrow)
	if !strings.Contains(out.Error.Message, "recursion") {
		t.Errorf("got message %q, want it to mention recursion", out.Error.Message)
	}
	assertHealthy(t, s)
}

func TestScriptCannotExitTheHost(t *testing.T) {
	s := mustNew(t, scripting.Options{})
	out := mustFail(t, s, scripting.Input{Hook: scripting.HookInput, Script: "import('qjs:std').then((std) => std.exit(0)); text", Text: "t"}, scripting.KindThrow)
	if !strings.Contains(out.Error.Message, "exited") {
		t.Errorf("got message %q", out.Error.Message)
	}
	assertHealthy(t, s)
}

func TestCallerCancellation(t *testing.T) {
	s := mustNew(t, scripting.Options{Timeout: 10 * time.Second})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out := s.Run(ctx, scripting.Input{Hook: scripting.HookInput, Script: "text", Text: "t"})
	if out.Error == nil || out.Error.Kind != scripting.KindCanceled || out.Text != "t" {
		t.Errorf("got %+v, want a canceled error and the input text", out)
	}

	// A caller deadline ending while a script runs kills it long before
	// the sandbox's own limit.
	ctx, cancel = context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	out = s.Run(ctx, scripting.Input{Hook: scripting.HookInput, Script: "while (true) {}", Text: "t"})
	if out.Error == nil || out.Error.Kind != scripting.KindCanceled {
		t.Fatalf("got %+v, want a canceled error", out.Error)
	}
	if out.Elapsed > 5*time.Second {
		t.Errorf("cancelled hook took %v", out.Elapsed)
	}
	assertHealthy(t, s)
}

func TestRunAfterClose(t *testing.T) {
	s, err := scripting.New(scripting.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	out := s.Run(context.Background(), scripting.Input{Hook: scripting.HookInput, Script: "text", Text: "t"})
	if out.Error == nil || out.Error.Kind != scripting.KindInternal || out.Text != "t" {
		t.Errorf("got %+v, want an internal error", out)
	}
}

func TestConcurrentHooks(t *testing.T) {
	s := mustNew(t, scripting.Options{})
	lib := largeLibrary(64 << 10)
	script := `// Each call must see only its own globals.
if (typeof globalThis.owner !== "undefined") throw new Error("saw " + globalThis.owner);
globalThis.owner = text;
const modifier = (text) => {
  state.me = text;
  addStoryCard("card " + text, Lib("input", text).helpers > 0 ? "ok" : "bad");
  return { text: "done " + text };
};
modifier(text);`
	const n = 8
	outs := make([]scripting.Output, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			outs[i] = s.Run(context.Background(), scripting.Input{Hook: scripting.HookInput, Library: lib, Script: script, Text: fmt.Sprint(i)})
		})
	}
	wg.Wait()
	for i, out := range outs {
		if out.Error != nil {
			t.Errorf("hook %d: %v", i, out.Error)
			continue
		}
		id := fmt.Sprint(i)
		if out.Text != "done "+id || stateOf(t, out)["me"] != id || len(out.Cards) != 1 || out.Cards[0].Keys != "card "+id || out.Cards[0].Entry != "ok" {
			t.Errorf("hook %d: got text %q state %s cards %+v", i, out.Text, out.State, out.Cards)
		}
	}
	// Eight simultaneous misses of one new script version compile it once.
	if st := s.Stats(); st.Compiles != 1 || st.CacheHits != n-1 {
		t.Errorf("got %+v, want 1 compile and %d cache hits", st, n-1)
	}
}

func TestBytecodeCacheHit(t *testing.T) {
	s := mustNew(t, scripting.Options{})
	lib := largeLibrary(400 << 10)
	in := scripting.Input{Hook: scripting.HookInput, Library: lib, Script: benchHook, Text: "t"}
	mustRun(t, s, in)
	if st := s.Stats(); st.Compiles != 1 || st.CacheHits != 0 {
		t.Fatalf("after the first run: %+v, want 1 compile", st)
	}
	mustRun(t, s, in)
	if st := s.Stats(); st.Compiles != 1 || st.CacheHits != 1 {
		t.Fatalf("after the second run: %+v, want 1 compile and 1 hit", st)
	}
	// A new version of either part is compiled again.
	in.Script += "\n// edited"
	mustRun(t, s, in)
	in.Library = strings.Replace(lib, "1.0.0", "1.0.1", 1)
	mustRun(t, s, in)
	if st := s.Stats(); st.Compiles != 3 || st.CacheHits != 1 {
		t.Fatalf("after editing: %+v, want 3 compiles and 1 hit", st)
	}
}

// TestKillWorksWhenAnotherRuntimeCameFirst checks the process-wide qjs
// setting: CloseOnContextDone is taken from the first runtime ever created,
// so a runtime created without it by other code must not make our hooks
// unkillable. It runs in a child process to control what comes first.
func TestKillWorksWhenAnotherRuntimeCameFirst(t *testing.T) {
	if os.Getenv("SCRIPTING_FOREIGN_FIRST") == "1" {
		foreign, err := qjs.New(qjs.Option{CWD: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		foreign.Close()
		s := mustNew(t, scripting.Options{Timeout: 200 * time.Millisecond})
		out := mustFail(t, s, scripting.Input{Hook: scripting.HookInput, Script: "while (true) {}", Text: "t"}, scripting.KindTimeout)
		if out.Elapsed > 200*time.Millisecond+killMargin {
			t.Fatalf("killed after %v", out.Elapsed)
		}
		return
	}
	if testing.Short() {
		t.Skip("starts a child process")
	}
	if raceEnabled {
		// The child compiles QuickJS twice (~9 s with the race detector);
		// it checks process-wide qjs state, not Go concurrency.
		t.Skip("slow under the race detector; run without -race")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestKillWorksWhenAnotherRuntimeCameFirst$", "-test.count=1")
	cmd.Env = append(os.Environ(), "SCRIPTING_FOREIGN_FIRST=1")
	outb, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, outb)
	}
	if !strings.Contains(string(outb), "PASS") {
		t.Fatalf("child did not pass:\n%s", outb)
	}
}
