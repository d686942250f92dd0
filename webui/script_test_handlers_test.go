package webui_test

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/adventure-table/adventure-table/gameplay/narrative"
	"github.com/adventure-table/adventure-table/gameplay/table/tabletest"
)

// A test run over HTTP: every hook with code runs against the sample, each
// error names its lines (the hook's and the Library's), the logs come back,
// and nothing is needed but the caller (no scenario, no adventure).
func TestScriptTestOverHTTP(t *testing.T) {
	f := newFixture(t, withSecret)
	srv := httptest.NewServer(f.handler)
	defer srv.Close()
	me := tabletest.NewUser(t, f.services.Table, "Author")
	body := func(s narrative.ScriptTestInput) string {
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	type line struct {
		Hook, Kind    string
		Line, Library int
	}
	errorsOf := func(r narrative.ScriptTestResult) []line {
		var out []line
		for _, h := range r.Hooks {
			if h.Error != nil {
				out = append(out, line{h.Hook, h.Error.Kind, h.Error.Line, h.Error.LibraryLine})
			}
		}
		return out
	}

	t.Run("OK", func(t *testing.T) {
		in := narrative.ScriptTestInput{Scripts: narrative.Scripts{
			Library: "// helpers\nfunction check(text) {\n  throw new Error('no ' + text)\n}",
			Input:   "const modifier = (text) => {\n  log('got', text)\n  state.seen = 1\n  return { text: text.toUpperCase() }\n}\nmodifier(text)",
			Context: "const modifier = (text) => {\n  log('seen', state.seen)\n  return { text }\n}\nmodifier(text)",
			Output:  "const modifier = (text) => {\n  const a = 1\n  check(text)\n  return { text }\n}\nmodifier(text)",
		}, Text: "open the door"}
		got := decode[narrative.ScriptTestResult](t, send(t, srv, me, "POST", "/api/scripts/test", body(in)), 200)
		var hooks []string
		for _, h := range got.Hooks {
			hooks = append(hooks, h.Hook)
		}
		if diff := cmp.Diff([]string{"library", "input", "context", "output"}, hooks); diff != "" {
			t.Fatalf("hooks (-want +got):\n%s", diff)
		}
		if got.Hooks[1].Text != "OPEN THE DOOR" || !cmp.Equal(got.Hooks[1].Logs, []string{"got open the door"}) {
			t.Errorf("input hook %+v", got.Hooks[1])
		}
		// The state is carried from hook to hook, as in a turn.
		if !cmp.Equal(got.Hooks[2].Logs, []string{"seen 1"}) {
			t.Errorf("context hook logs %q, want the input hook's state", got.Hooks[2].Logs)
		}
		if diff := cmp.Diff([]line{{"output", "throw", 3, 3}}, errorsOf(got)); diff != "" {
			t.Errorf("errors (-want +got):\n%s", diff)
		}
		if h := got.Hooks[3]; !strings.Contains(h.Error.Message, "no ") || h.Text == "" {
			t.Errorf("output hook %+v: want the error's message and the text it got", h)
		}
	})

	t.Run("OKEveryHookRunsAfterAFailure", func(t *testing.T) {
		in := narrative.ScriptTestInput{Scripts: narrative.Scripts{
			Input:  "const x = 1\nnull.boom\nmodifier(text)",
			Output: "const a = [\n1,\n2\n+++\n",
		}}
		got := decode[narrative.ScriptTestResult](t, send(t, srv, me, "POST", "/api/scripts/test", body(in)), 200)
		errs := errorsOf(got)
		if len(errs) != 2 || errs[0] != (line{"input", "throw", 2, 0}) || errs[1].Hook != "output" || errs[1].Line < 4 {
			t.Fatalf("errors %+v, want input line 2 and the output's syntax error", errs)
		}
	})

	t.Run("OKBrokenLibraryIsTheAnswer", func(t *testing.T) {
		// An unclosed brace is noticed past the Library's end: its last
		// line is named, and the hooks (which would each fail with it) do
		// not run.
		in := narrative.ScriptTestInput{Scripts: narrative.Scripts{Library: "const a = 1\nconst b = {\n\n", Input: "modifier(text)"}}
		got := decode[narrative.ScriptTestResult](t, send(t, srv, me, "POST", "/api/scripts/test", body(in)), 200)
		if diff := cmp.Diff([]line{{"library", "compile", 0, 2}}, errorsOf(got)); diff != "" || len(got.Hooks) != 1 {
			t.Fatalf("hooks %+v, errors (-want +got):\n%s", got.Hooks, diff)
		}
		thrown := narrative.ScriptTestInput{Scripts: narrative.Scripts{Library: "const a = 1\nnull.x\n"}}
		got = decode[narrative.ScriptTestResult](t, send(t, srv, me, "POST", "/api/scripts/test", body(thrown)), 200)
		if diff := cmp.Diff([]line{{"library", "throw", 0, 2}}, errorsOf(got)); diff != "" {
			t.Fatalf("errors (-want +got):\n%s", diff)
		}
		ok := decode[narrative.ScriptTestResult](t, send(t, srv, me, "POST", "/api/scripts/test", body(narrative.ScriptTestInput{Scripts: narrative.Scripts{Library: "function f() { return 1 }"}})), 200)
		if len(ok.Hooks) != 1 || ok.Hooks[0].Error != nil {
			t.Fatalf("a sound Library alone: %+v", ok.Hooks)
		}
		none := decode[narrative.ScriptTestResult](t, send(t, srv, me, "POST", "/api/scripts/test", `{"scripts":{"library":"","input":"","context":"","output":""}}`), 200)
		if len(none.Hooks) != 0 {
			t.Fatalf("no scripts: %+v", none.Hooks)
		}
	})

	t.Run("ErrScriptTooLarge", func(t *testing.T) {
		in := narrative.ScriptTestInput{Scripts: narrative.Scripts{Input: strings.Repeat("x", narrative.MaxScriptBytes+1)}}
		res := decode[struct {
			Error struct {
				Code   string
				Fields map[string]string
			}
		}](t, send(t, srv, me, "POST", "/api/scripts/test", body(in)), 400)
		if res.Error.Code != "scenario_invalid" || res.Error.Fields["scripts.input"] == "" {
			t.Fatalf("error %+v, want scenario_invalid on scripts.input", res.Error)
		}
	})

	t.Run("ErrUnknownField", func(t *testing.T) {
		res := decode[struct{ Error struct{ Code string } }](t, send(t, srv, me, "POST", "/api/scripts/test", `{"scripts":{},"adventure_id":1}`), 400)
		if res.Error.Code != "invalid_request" {
			t.Fatalf("code %q, want invalid_request", res.Error.Code)
		}
	})
}
