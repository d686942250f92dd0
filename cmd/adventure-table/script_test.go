package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
	if len(out.Logs) != 1 || out.Logs[0] != `"cards" 0 7` {
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
