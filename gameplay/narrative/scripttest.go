package narrative

import (
	"context"
	"strings"

	"github.com/adventure-table/adventure-table/gameplay/scripting"
	"github.com/adventure-table/adventure-table/models"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// The sample a test run gives the hooks: a story that has just begun, the
// player's action, a prompt and a reply.
const (
	sampleOpening = "You wake in a quiet village at the edge of the forest."
	sampleAction  = "You look around."
	sampleReply   = "The square is empty but for an old well and a cat asleep on its rim."
)

// ScriptTestInput is a test run of scripts as an editor holds them (saved
// or not).
type ScriptTestInput struct {
	Scripts Scripts `json:"scripts"`
	// Text is the player's action the input hook gets; "" for a sample.
	Text string `json:"text,omitempty" jsonschema:"the player's action the input hook gets; absent for a sample action"`
}

// ScriptTestError is why a hook failed in a test run, with the lines it
// names.
type ScriptTestError struct {
	Kind    string `json:"kind" jsonschema:"throw, timeout, memory, compile, empty, canceled or internal"`
	Message string `json:"message" jsonschema:"the interpreter's message, in English"`
	// Line is in the hook's own script, LibraryLine in the Library; 0 when
	// the error names none. An error raised in the Library from a hook has
	// both.
	Line        int `json:"line" jsonschema:"1-based line in the hook's script; 0 when none is known"`
	LibraryLine int `json:"library_line" jsonschema:"1-based line in the Library; 0 when the error is not raised there"`
}

// ScriptTestHook is what one hook did in a test run.
type ScriptTestHook struct {
	Hook    string           `json:"hook" jsonschema:"library (the Library run alone, first), input, context or output"`
	Text    string           `json:"text" jsonschema:"the text the hook left (what it got, when it failed)"`
	Stop    bool             `json:"stop" jsonschema:"the hook stopped the action"`
	Message string           `json:"message" jsonschema:"state.message when the hook set it"`
	Logs    []string         `json:"logs" jsonschema:"its log() lines"`
	Error   *ScriptTestError `json:"error" jsonschema:"null when the hook ran"`
}

// ScriptTestResult is a test run: the Library alone, then one entry per
// hook that has code in the order a turn runs them (none after a failed
// Library).
type ScriptTestResult struct {
	Hooks []ScriptTestHook `json:"hooks"`
}

// checkScripts bounds the four script slots; problems go to e under
// scripts.<slot>.
func checkScripts(e *apperr.Error, s Scripts) {
	for field, v := range map[string]string{"scripts.library": s.Library, "scripts.input": s.Input,
		"scripts.context": s.Context, "scripts.output": s.Output} {
		if len(v) > MaxScriptBytes {
			e.WithField(field, "at most 1 MiB")
		} else if !models.StorableText(v) {
			e.WithField(field, models.UnstorableTextProblem)
		}
	}
}

// TestScripts runs scripts once, as a turn would (the same sandbox and
// limits, the state and story cards carried from hook to hook), against a
// sample story: the input hook on the player's action, the context hook on
// a prompt, the output hook on a reply. The Library runs alone first; when
// it fails, that is the answer (each hook would fail with it). Otherwise
// every hook with code runs, even after one failed or stopped, so one run
// finds the errors of all of them; each error names its lines. Nothing is
// stored. Returns scenario_invalid (fields scripts.*) for
// a script over 1 MiB or with text that cannot be stored, as saving would.
func (s *Service) TestScripts(ctx context.Context, in ScriptTestInput) (ScriptTestResult, error) {
	bad := apperr.E(apperr.ScenarioInvalid, "The scripts have a problem.")
	checkScripts(bad, in.Scripts)
	checkText(bad, "text", in.Text, maxTextField, false)
	if len(bad.Fields) > 0 {
		return ScriptTestResult{}, bad
	}
	action := in.Text
	if action == "" {
		action = sampleAction
	}
	type step struct{ hook, script, text string }
	steps := []step{
		{scripting.HookInput, in.Scripts.Input, action},
		{scripting.HookContext, in.Scripts.Context, flattenPrompt("You are the narrator of an interactive story.", []string{sampleOpening, action})},
		{scripting.HookOutput, in.Scripts.Output, sampleReply},
	}
	if in.Scripts.Library != "" {
		// The Library first, alone (an object literal as the completion
		// value gives the text back, so only the Library's code can fail):
		// every hook runs its code, so a broken Library would fail each of
		// them at a line of their own.
		steps = append([]step{{"library", "({ text })", action}}, steps...)
	}
	history := []scripting.HistoryEntry{{Text: sampleOpening, Type: "start"}}
	var state []byte
	var cards []scripting.Card
	res := ScriptTestResult{Hooks: []ScriptTestHook{}}
	for _, st := range steps {
		if st.script == "" {
			continue
		}
		hook := st.hook
		if hook == "library" {
			hook = scripting.HookInput
		}
		out := s.sandbox().Run(ctx, scripting.Input{Hook: hook, Library: in.Scripts.Library, Script: st.script, Text: st.text,
			State: state, History: history, Cards: cards, Now: s.now(),
			Info: scripting.Info{ActionCount: len(history), CharacterNames: []string{}}})
		h := ScriptTestHook{Hook: st.hook, Text: out.Text, Stop: out.Stop, Message: out.Message, Logs: out.Logs}
		if h.Logs == nil {
			h.Logs = []string{}
		}
		if e := out.Error; e != nil {
			h.Error = &ScriptTestError{Kind: e.Kind, Message: e.Message, Line: e.Line, LibraryLine: e.LibraryLine}
			if st.hook == "library" {
				if h.Error.LibraryLine == 0 && h.Error.Line > 0 {
					// Found past the Library's end (an unclosed brace):
					// the Library is unfinished at its last line.
					h.Error.LibraryLine = strings.Count(strings.TrimRight(in.Scripts.Library, " \t\r\n"), "\n") + 1
				}
				h.Error.Line = 0
			}
		}
		res.Hooks = append(res.Hooks, h)
		if st.hook == "library" {
			if h.Error != nil {
				break
			}
			// A turn runs the Library with each hook: the hooks start
			// from the state as it was, not after an extra Library run.
			continue
		}
		state, cards = out.State, out.Cards
	}
	return res, nil
}
