package scripting_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/adventure-table/adventure-table/gameplay/scripting"
)

// mustNew starts a Sandbox closed at the end of the test.
func mustNew(tb testing.TB, opts scripting.Options) *scripting.Sandbox {
	tb.Helper()
	s, err := scripting.New(opts)
	if err != nil {
		tb.Fatalf("New: %v", err)
	}
	tb.Cleanup(func() {
		if err := s.Close(); err != nil {
			tb.Errorf("Close: %v", err)
		}
	})
	return s
}

// mustRun runs a hook that must succeed.
func mustRun(tb testing.TB, s *scripting.Sandbox, in scripting.Input) scripting.Output {
	tb.Helper()
	out := s.Run(context.Background(), in)
	if out.Error != nil {
		tb.Fatalf("Run: %v (kind %s); logs %q", out.Error, out.Error.Kind, out.Logs)
	}
	return out
}

// mustFail runs a hook that must fail with kind.
func mustFail(tb testing.TB, s *scripting.Sandbox, in scripting.Input, kind string) scripting.Output {
	tb.Helper()
	out := s.Run(context.Background(), in)
	if out.Error == nil {
		tb.Fatalf("Run succeeded with text %q, want a %s error", out.Text, kind)
	}
	if out.Error.Kind != kind {
		tb.Fatalf("got error kind %q (%v), want %q", out.Error.Kind, out.Error, kind)
	}
	return out
}

// stateOf decodes Output.State.
func stateOf(tb testing.TB, out scripting.Output) map[string]any {
	tb.Helper()
	var m map[string]any
	if err := json.Unmarshal(out.State, &m); err != nil {
		tb.Fatalf("state %q: %v", out.State, err)
	}
	return m
}

// assertHealthy runs an ordinary hook, proving the Sandbox survived.
func assertHealthy(tb testing.TB, s *scripting.Sandbox) {
	tb.Helper()
	out := mustRun(tb, s, scripting.Input{
		Hook:   scripting.HookOutput,
		Script: "const modifier = (text) => ({ text: text + ' ok' });\nmodifier(text)",
		Text:   "still",
	})
	if out.Text != "still ok" {
		tb.Fatalf("healthy run: got %q, want %q", out.Text, "still ok")
	}
}
