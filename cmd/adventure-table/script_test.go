package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// `script test` runs one hook as a turn would and prints the result.
func TestScriptTestCommand(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	lib := write("lib.js", "function greet(n) { return 'hail, ' + n }")
	script := write("input.js", `const modifier = (text) => {
  state.seen = (state.seen || 0) + 1
  log('cards', storyCards.length, info.actionCount)
  addStoryCard('tower', 'A leaning tower.', 'location')
  state.message = greet('traveller')
  return { text: text.toUpperCase() }
}
modifier(text)`)
	input := `{"text":"open the door","state":{"seen":4},"history":[{"text":"You wake.","type":"start"}],"storyCards":[],"info":{"actionCount":7}}`
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"script", "test", "--hook", "input", "--script", script, "--library", lib, "--input", input}, os.Getenv, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var out scriptTestOutput
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, stdout.String())
	}
	if out.Text != "OPEN THE DOOR" || out.Stop || out.Message != "hail, traveller" || out.Error != nil {
		t.Fatalf("result %+v", out)
	}
	var state struct{ Seen int }
	_ = json.Unmarshal(out.State, &state)
	if state.Seen != 5 || len(out.StoryCards) != 1 || out.StoryCards[0].Keys != "tower" {
		t.Fatalf("state %s, cards %+v", out.State, out.StoryCards)
	}
	// log() shows a string as it is, not JSON-quoted.
	if len(out.Logs) != 1 || out.Logs[0] != "cards 0 7" {
		t.Fatalf("logs %q", out.Logs)
	}

	// A throwing script is reported in "error" with its line, exit 0.
	bad := write("bad.js", "const a = 1\nundefinedFunction()\n")
	stdout.Reset()
	if code := run(context.Background(), []string{"script", "test", "--hook", "output", "--script", bad, "--input", `{"text":"x"}`}, os.Getenv, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d", code)
	}
	out = scriptTestOutput{}
	_ = json.Unmarshal(stdout.Bytes(), &out)
	if out.Error == nil || out.Error.Line != 2 || out.Text != "x" {
		t.Fatalf("error result %+v", out)
	}
	// Bad arguments exit 2 with a usage line.
	stderr.Reset()
	if code := run(context.Background(), []string{"script", "test", "--hook", "sideways", "--script", bad}, os.Getenv, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), "--hook") {
		t.Fatalf("bad hook: exit %d %s", code, stderr.String())
	}
}

// An input written the way AI Dungeon shapes its globals is accepted:
// history entries with rawText, info.characters as names or {name}.
func TestScriptTestCommandTakesAIDungeonFields(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "context.js")
	if err := os.WriteFile(script, []byte(`log(history.map((h) => h.type + ":" + h.text + "|" + h.rawText).join(" "))
log(info.characters, info.characterNames)
log("x")
text`), 0o600); err != nil {
		t.Fatal(err)
	}
	runTest := func(input string) (scriptTestOutput, int, string) {
		t.Helper()
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), []string{"script", "test", "--hook", "context", "--script", script, "--input", input}, os.Getenv, &stdout, &stderr)
		var out scriptTestOutput
		if code == 0 {
			if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
				t.Fatalf("output is not JSON: %v\n%s", err, stdout.String())
			}
			if out.Error != nil {
				t.Fatalf("script failed: %+v", out.Error)
			}
		}
		return out, code, stderr.String()
	}
	for _, tc := range []struct {
		name, input string
		want        []string
	}{
		{"rawText and names", `{"text":"ctx","history":[{"text":"You wake.","type":"start","rawText":"You wake."},{"rawText":"> You look.","type":"do"}],"info":{"actionCount":2,"characters":["Ada","Bo"]}}`,
			[]string{"start:You wake.|You wake. do:> You look.|> You look.", `["Ada","Bo"] ["Ada","Bo"]`, "x"}},
		{"the older {name} shape", `{"text":"ctx","info":{"characters":[{"name":"Ada"}]}}`,
			[]string{"", `["Ada"] ["Ada"]`, "x"}},
		{"both names, equal", `{"text":"ctx","info":{"characters":["Ada"],"characterNames":["Ada"]}}`,
			[]string{"", `["Ada"] ["Ada"]`, "x"}},
		{"neither: empty lists", `{"text":"ctx"}`,
			[]string{"", "[] []", "x"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, code, stderr := runTest(tc.input)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if diff := cmp.Diff(tc.want, out.Logs); diff != "" {
				t.Errorf("logs (-want +got):\n%s", diff)
			}
		})
	}
	// Lists that disagree, and entries of another shape, are refused with a reason.
	for _, input := range []string{
		`{"info":{"characters":["Ada"],"characterNames":["Bo"]}}`,
		`{"info":{"characters":[7]}}`,
	} {
		if _, code, stderr := runTest(input); code != 2 || !strings.Contains(stderr, "info.characters") {
			t.Errorf("%s: exit %d, stderr %q; want 2 naming info.characters", input, code, stderr)
		}
	}
}
