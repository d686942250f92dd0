package scripting_test

import (
	"testing"
	"time"

	"github.com/adventure-table/adventure-table/gameplay/scripting"
	"github.com/google/go-cmp/cmp"
)

// A hook served by a primed runtime (bytecode read ahead, between hooks) must
// behave exactly like one that reads its bytecode itself: same output, and
// nothing left over from an earlier hook, since every runtime still serves
// one hook only.
func TestPrimedRuntimeRunsLikeAFreshOne(t *testing.T) {
	s := mustNew(t, scripting.Options{})
	in := scripting.Input{
		Hook:    scripting.HookInput,
		Library: "var libRuns = (globalThis.libRuns ?? 0) + 1;\nconst shout = (s) => s.toUpperCase();",
		Script: `globalThis.seen = (globalThis.seen ?? 0) + 1;
state.n = (state.n ?? 0) + 1;
Promise.resolve().then(() => { state.job = "ran"; });
const modifier = (text) => ({ text: shout(text) + " seen=" + seen + " lib=" + libRuns });
modifier(text)`,
		Text:  "look",
		State: []byte(`{"n":1}`),
	}
	first := mustRun(t, s, in)
	if first.Text != "LOOK seen=1 lib=1" {
		t.Fatalf("first run: %q", first.Text)
	}
	for i := range 4 {
		scripting.WaitForSpares(s)
		out := mustRun(t, s, in)
		if diff := cmp.Diff(first.Text, out.Text); diff != "" {
			t.Fatalf("run %d text (-first +got):\n%s", i+2, diff)
		}
		if diff := cmp.Diff(stateOf(t, first), stateOf(t, out)); diff != "" {
			t.Fatalf("run %d state (-first +got):\n%s", i+2, diff)
		}
	}
	if got := stateOf(t, first)["job"]; got != "ran" {
		t.Errorf("promise job before the result was read: state.job = %v, want \"ran\"", got)
	}
	if st := s.Stats(); st.Primed != 4 {
		t.Errorf("Stats.Primed = %d, want 4 (every run after the first)", st.Primed)
	}
}

// An adventure's three hooks (one Library, three scripts) all stay primed
// with the default limit; a limit of one primes none of them when they
// alternate, and they still run correctly.
func TestPrimedRuntimesFollowTheScriptsThatRun(t *testing.T) {
	const library = "function Lib(hook, text) { return text + ' <' + hook + '>'; }"
	hooks := []scripting.Input{
		{Hook: scripting.HookInput, Library: library, Script: "const modifier = (text) => ({ text: Lib('input', text) });\nmodifier(text)", Text: "a"},
		{Hook: scripting.HookContext, Library: library, Script: "const modifier = (text) => ({ text: Lib('context', text) });\nmodifier(text)", Text: "b"},
		{Hook: scripting.HookOutput, Library: library, Script: "const modifier = (text) => ({ text: Lib('output', text) });\nmodifier(text)", Text: "c"},
	}
	for _, tt := range []struct {
		name        string
		limit       int
		wantPrimed  int64
		wantRunsAll int64
	}{
		{"DefaultKeepsAnAdventure", 0, 6, 9},
		{"OneSlotThrashes", 1, 0, 9},
		{"Disabled", -1, 0, 9},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := mustNew(t, scripting.Options{Primed: tt.limit})
			for range 3 {
				for _, in := range hooks {
					scripting.WaitForSpares(s)
					out := mustRun(t, s, in)
					if want := in.Text + " <" + in.Hook + ">"; out.Text != want {
						t.Fatalf("%s: got %q, want %q", in.Hook, out.Text, want)
					}
				}
			}
			if st := s.Stats(); st.Primed != tt.wantPrimed || st.Runs != tt.wantRunsAll {
				t.Errorf("Stats = %+v, want Primed %d of %d runs", st, tt.wantPrimed, tt.wantRunsAll)
			}
		})
	}
}

// The limits hold in a primed runtime: a script that loops for ever is killed
// at its time limit, one that throws reports its line, and the sandbox goes
// on serving hooks.
func TestPrimedRuntimeKeepsTheLimits(t *testing.T) {
	s := mustNew(t, scripting.Options{Timeout: 100 * time.Millisecond})
	loop := scripting.Input{Hook: scripting.HookInput, Script: "while (true) {}", Text: "x"}
	throws := scripting.Input{Hook: scripting.HookInput, Script: "const a = 1;\nnull.boom;\nmodifier(text)", Text: "x"}
	for i := range 2 {
		scripting.WaitForSpares(s)
		mustFail(t, s, loop, scripting.KindTimeout)
		scripting.WaitForSpares(s)
		out := mustFail(t, s, throws, scripting.KindThrow)
		if out.Error.Line != 2 {
			t.Errorf("run %d: error line %d, want 2 (%v)", i+1, out.Error.Line, out.Error)
		}
	}
	if st := s.Stats(); st.Primed != 2 {
		t.Errorf("Stats.Primed = %d, want 2 (the second round)", st.Primed)
	}
	assertHealthy(t, s)
}

// A script that does not compile is never primed.
func TestCompileErrorsAreNotPrimed(t *testing.T) {
	s := mustNew(t, scripting.Options{})
	for range 3 {
		scripting.WaitForSpares(s)
		mustFail(t, s, scripting.Input{Hook: scripting.HookInput, Script: "const = ;", Text: "x"}, scripting.KindCompile)
	}
	if st := s.Stats(); st.Primed != 0 || st.Compiles != 1 {
		t.Errorf("Stats = %+v, want 1 compile and no primed run", st)
	}
	assertHealthy(t, s)
}
