package scripting_test

import (
	"strings"
	"testing"
	"time"

	"github.com/adventure-table/adventure-table/gameplay/scripting"
	"github.com/google/go-cmp/cmp"
)

// The scripts in these tests are our own, written to exercise the API
// features that public AI Dungeon scripts (Auto-Cards, Inner Self,
// MagicCards, Hashtag-DnD) rely on.

func TestInputRewrite(t *testing.T) {
	s := mustNew(t, scripting.Options{})
	out := mustRun(t, s, scripting.Input{
		Hook:   scripting.HookInput,
		Script: "const modifier = (text) => {\n  return { text: text.replace(/\\bsword\\b/g, 'blade') };\n};\nmodifier(text);",
		Text:   "I draw my sword.",
	})
	if out.Text != "I draw my blade." || out.Stop {
		t.Errorf("got text %q stop %v, want %q stop false", out.Text, out.Stop, "I draw my blade.")
	}
}

func TestContextRewriteAndInfo(t *testing.T) {
	s := mustNew(t, scripting.Options{})
	in := scripting.Input{
		Hook: scripting.HookContext,
		Script: `const modifier = (text) => {
  // Like Inner Self: the context hook is recognised by info.maxChars.
  if (!Number.isInteger(info.maxChars)) return { text: "not the context hook" };
  log(info.maxChars, info.memoryLength, info.actionCount, info.characterNames, info.characters);
  return { text: "[Note: rain]\n" + text.slice(-info.maxChars) };
};
modifier(text);`,
		Text: "0123456789",
		Info: scripting.Info{ActionCount: 7, MaxChars: 4, MemoryLength: 2, CharacterNames: []string{"Ada", "Bo"}},
	}
	out := mustRun(t, s, in)
	if want := "[Note: rain]\n6789"; out.Text != want {
		t.Errorf("got text %q, want %q", out.Text, want)
	}
	if diff := cmp.Diff([]string{`4 2 7 ["Ada","Bo"] ["Ada","Bo"]`}, out.Logs); diff != "" {
		t.Errorf("logs (-want +got):\n%s", diff)
	}

	// The other hooks do not see maxChars/memoryLength at all.
	in.Hook = scripting.HookOutput
	in.Script = "log(typeof info.maxChars, typeof info.memoryLength, info.actionCount, typeof info.characters[0]); text"
	out = mustRun(t, s, in)
	if diff := cmp.Diff([]string{"undefined undefined 7 string"}, out.Logs); diff != "" {
		t.Errorf("logs (-want +got):\n%s", diff)
	}
}

func TestOutputRewrite(t *testing.T) {
	s := mustNew(t, scripting.Options{})
	out := mustRun(t, s, scripting.Input{
		Hook:   scripting.HookOutput,
		Script: "const modifier = (text) => ({ text: text.trim() + ' The wind howls.' });\nmodifier(text);",
		Text:   "  You enter the cave. ",
	})
	if want := "You enter the cave. The wind howls."; out.Text != want {
		t.Errorf("got %q, want %q", out.Text, want)
	}
}

func TestStop(t *testing.T) {
	s := mustNew(t, scripting.Options{})
	tests := []struct {
		name     string
		script   string
		wantText string
		wantStop bool
	}{
		{"ReturnedStop", "({ text: 'blocked', stop: true })", "blocked", true},
		{"TextStopMeansStop", "const modifier = () => ({ text: 'stop' });\nmodifier(text)", "go north", true},
		{"StringStop", "'stop'", "go north", true},
		{"GlobalStopWithoutStopKey", "stop = true;\n({ text })", "go north", true},
		// Auto-Cards' context hook: [text, stop] = AutoCards(...); return {text, stop}
		{"DestructuredGlobals", "const modifier = (text) => { [text, stop] = [text + '!', true]; return { text, stop }; };\nmodifier(text)", "go north!", true},
		{"ExplicitStopFalseWins", "stop = true;\n({ text, stop: false })", "go north", false},
		// The old commandParser example swallows the input with text null.
		{"NullTextWithStop", "({ text: null, stop: true })", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := mustRun(t, s, scripting.Input{Hook: scripting.HookInput, Script: tt.script, Text: "go north"})
			if out.Text != tt.wantText || out.Stop != tt.wantStop {
				t.Errorf("got text %q stop %v, want %q stop %v", out.Text, out.Stop, tt.wantText, tt.wantStop)
			}
		})
	}
}

func TestResultShapes(t *testing.T) {
	s := mustNew(t, scripting.Options{})
	tests := []struct {
		name, script, want string
	}{
		{"String", "text + '?'", "hi?"},
		{"ObjectWithText", "({ text: 'replaced' })", "replaced"},
		{"ObjectWithoutTextKeepsGlobal", "text = 'global'; ({ other: 1 })", "global"},
		// A hook whose last statement is an assignment to state yields a
		// number; only strings and objects are results.
		{"NumberIgnored", "text = 'changed'; state.turn = 4", "changed"},
		{"MutatedGlobalText", "text = text.toUpperCase(); void 0", "HI"},
		{"NonStringTextCoerced", "({ text: 42 })", "42"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := mustRun(t, s, scripting.Input{Hook: scripting.HookOutput, Script: tt.script, Text: "hi"})
			if out.Text != tt.want {
				t.Errorf("got %q, want %q", out.Text, tt.want)
			}
		})
	}
}

func TestStateAcrossTurns(t *testing.T) {
	s := mustNew(t, scripting.Options{})
	script := `const modifier = (text) => {
  state.turns = (state.turns ?? 0) + 1;
  state.seen ??= [];
  state.seen.push(text);
  return { text };
};
modifier(text);`
	out := mustRun(t, s, scripting.Input{Hook: scripting.HookInput, Script: script, Text: "a"})
	out = mustRun(t, s, scripting.Input{Hook: scripting.HookInput, Script: script, Text: "b", State: out.State})
	got := stateOf(t, out)
	want := map[string]any{"turns": float64(2), "seen": []any{"a", "b"}, "memory": map[string]any{}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("state (-want +got):\n%s", diff)
	}

	// Replacing state wholesale is read back from the global.
	out = mustRun(t, s, scripting.Input{Hook: scripting.HookOutput, Script: "state = { fresh: true, memory: { context: 'new' } }; text", Text: "x", State: out.State})
	if diff := cmp.Diff(map[string]any{"fresh": true, "memory": map[string]any{"context": "new"}}, stateOf(t, out)); diff != "" {
		t.Errorf("replaced state (-want +got):\n%s", diff)
	}
	if out.Memory.Context != "new" {
		t.Errorf("got memory context %q, want %q", out.Memory.Context, "new")
	}
}

func TestMemoryOverrides(t *testing.T) {
	s := mustNew(t, scripting.Options{})
	out := mustRun(t, s, scripting.Input{
		Hook: scripting.HookOutput,
		Script: `state.memory.context = "You are a knight.";
state.memory.authorsNote = "Keep it grim.";
state.memory.frontMemory = "> You feel watched.";
text`,
		Text: "x",
	})
	want := scripting.Memory{Context: "You are a knight.", AuthorsNote: "Keep it grim.", FrontMemory: "> You feel watched."}
	if out.Memory != want {
		t.Errorf("got %+v, want %+v", out.Memory, want)
	}
	// Non-strings do not count as a memory override.
	out = mustRun(t, s, scripting.Input{Hook: scripting.HookOutput, Script: "state.memory.context = 5; state.memory.authorsNote = null; text", Text: "x", State: out.State})
	if want := (scripting.Memory{FrontMemory: "> You feel watched."}); out.Memory != want {
		t.Errorf("got %+v, want %+v", out.Memory, want)
	}
}

func TestMessage(t *testing.T) {
	s := mustNew(t, scripting.Options{})
	set := "state.message = 'Auto-Cards: enabled'; text"
	out := mustRun(t, s, scripting.Input{Hook: scripting.HookOutput, Script: set, Text: "x"})
	if out.Message != "Auto-Cards: enabled" {
		t.Fatalf("got message %q, want %q", out.Message, "Auto-Cards: enabled")
	}
	// It stays in state, as upstream keeps it across turns...
	if got := stateOf(t, out)["message"]; got != "Auto-Cards: enabled" {
		t.Errorf("state.message = %v, want it kept", got)
	}
	// ...and a notice is only produced when a hook changes it.
	again := mustRun(t, s, scripting.Input{Hook: scripting.HookOutput, Script: set, Text: "x", State: out.State})
	if again.Message != "" {
		t.Errorf("unchanged message reported again: %q", again.Message)
	}
	// The older {text} shape.
	obj := mustRun(t, s, scripting.Input{Hook: scripting.HookOutput, Script: "state.message = { text: 'hello', visibleTo: ['Ada'] }; text", Text: "x", State: out.State})
	if obj.Message != "hello" {
		t.Errorf("got %q, want %q", obj.Message, "hello")
	}
}

func TestHistory(t *testing.T) {
	s := mustNew(t, scripting.Options{})
	history := []scripting.HistoryEntry{
		{Text: "You wake up.", Type: "start"}, {Text: "> You look around.", Type: "do"},
		{Text: "\"Hello?\"", Type: "say"}, {Text: "A bird sings.", Type: "story"},
		{Text: "", Type: "continue"}, {Text: "a map", Type: "see"},
	}
	out := mustRun(t, s, scripting.Input{
		Hook: scripting.HookContext,
		Script: `log(history.map((h) => h.type).join(","));
log(history.every((h) => h.rawText === h.text));
log(history.findLast((h) => h.text !== "").text);
// Scripts may treat history as scratch space; it is never read back.
history.reverse(); history.push({ text: "fake", type: "do" });
text`,
		Text:    "ctx",
		History: history,
	})
	want := []string{"start,do,say,story,continue,see", "true", "a map"}
	if diff := cmp.Diff(want, out.Logs); diff != "" {
		t.Errorf("logs (-want +got):\n%s", diff)
	}
}

// AI Dungeon's history entries carry rawText beside text (the same value).
// A host that gives only one of them gets both filled; one that gives both
// keeps them as given.
func TestHistoryRawText(t *testing.T) {
	s := mustNew(t, scripting.Options{})
	out := mustRun(t, s, scripting.Input{
		Hook:   scripting.HookInput,
		Script: "for (const h of history) log(h.type, JSON.stringify(h.text), JSON.stringify(h.rawText));\ntext",
		Text:   "x",
		History: []scripting.HistoryEntry{
			{Text: "You wake.", Type: "start"},
			{RawText: "> You stand.", Type: "do"},
			{Text: "A bird.", Type: "story", RawText: "A bird."},
			{Type: "continue"},
		},
	})
	want := []string{
		`start "You wake." "You wake."`,
		`do "> You stand." "> You stand."`,
		`story "A bird." "A bird."`,
		`continue "" ""`,
	}
	if diff := cmp.Diff(want, out.Logs); diff != "" {
		t.Errorf("logs (-want +got):\n%s", diff)
	}
}

func TestAddStoryCardFirstIndexIsFalsy(t *testing.T) {
	s := mustNew(t, scripting.Options{})
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	out := mustRun(t, s, scripting.Input{
		Hook: scripting.HookOutput,
		Script: `const first = addStoryCard("dragon, wyrm", "A red dragon.", "creature");
// Upstream returns the index: 0 for the first card, which is falsy.
if (!first) log("falsy", first);
log(addStoryCard("castle", "A ruined castle."));
log(addStoryCard("dragon, wyrm", "duplicate keys"));
log(addWorldEntry("%@%"));
text`,
		Text: "x",
		Now:  now,
	})
	if diff := cmp.Diff([]string{"falsy 0", "1", "false", "2"}, out.Logs); diff != "" {
		t.Errorf("logs (-want +got):\n%s", diff)
	}
	ts := "2026-03-01T12:00:00.000Z"
	want := []scripting.Card{
		{Keys: "dragon, wyrm", Entry: "A red dragon.", Type: "creature", Title: "dragon, wyrm", CreatedAt: ts, UpdatedAt: ts},
		{Keys: "castle", Entry: "A ruined castle.", Type: "Custom", Title: "castle", CreatedAt: ts, UpdatedAt: ts},
		{Keys: "%@%", Type: "Custom", Title: "%@%", CreatedAt: ts, UpdatedAt: ts},
	}
	if diff := cmp.Diff(want, out.Cards); diff != "" {
		t.Errorf("cards (-want +got):\n%s", diff)
	}
}

func TestAddStoryCardReturnCard(t *testing.T) {
	s := mustNew(t, scripting.Options{})
	out := mustRun(t, s, scripting.Input{
		Hook: scripting.HookInput,
		Script: `const card = addStoryCard('{"agent":"Ada"}', "// brain", "Brain", "Ada", "{}", { returnCard: true });
// The returned object is the live card in storyCards.
card.description = JSON.stringify({ mood: "wary" });
log(typeof card, storyCards.indexOf(card));
text`,
		Text:  "x",
		Cards: []scripting.Card{{ID: "9", Keys: "old", Title: "old"}},
	})
	if diff := cmp.Diff([]string{"object 1"}, out.Logs); diff != "" {
		t.Errorf("logs (-want +got):\n%s", diff)
	}
	if len(out.Cards) != 2 || out.Cards[1].Title != "Ada" || out.Cards[1].Description != `{"mood":"wary"}` || out.Cards[1].Type != "Brain" {
		t.Errorf("got cards %+v", out.Cards)
	}
}

func TestCardsEditedSplicedAndReordered(t *testing.T) {
	s := mustNew(t, scripting.Options{})
	in := []scripting.Card{
		{ID: "1", Keys: "a", Entry: "A", Type: "Custom", Title: "A", CreatedAt: "2026-01-01T00:00:00Z", UpdatedAt: "2026-01-01T00:00:00Z"},
		{ID: "2", Keys: "b", Entry: "B", Type: "Custom", Title: "B"},
		{ID: "3", Keys: "c", Entry: "C", Type: "Custom", Title: "C"},
	}
	out := mustRun(t, s, scripting.Input{
		Hook: scripting.HookOutput,
		// Auto-Cards style: add a placeholder card, find it by title, fill it
		// in and move it to the front; edit another in place; drop one.
		Script: `addStoryCard("%@%");
for (const [i, card] of storyCards.entries()) {
  if (card.title !== "%@%") continue;
  Object.assign(card, { type: "class", title: "Config", keys: "config", entry: "> on", description: "{}" });
  storyCards.splice(i, 1);
  storyCards.unshift(card);
  break;
}
storyCards.find((c) => c.id === "2").entry += " (edited)";
storyCards.splice(storyCards.findIndex((c) => c.id === "3"), 1);
// A copy keeps the id it was copied from; only the original may keep it.
storyCards.push({ ...storyCards[1], title: "copy" });
text`,
		Text:  "x",
		Cards: in,
	})
	want := []scripting.Card{
		{Keys: "config", Entry: "> on", Type: "class", Title: "Config", Description: "{}"},
		in[0],
		{ID: "2", Keys: "b", Entry: "B (edited)", Type: "Custom", Title: "B"},
		{Keys: "a", Entry: "A", Type: "Custom", Title: "copy", CreatedAt: "2026-01-01T00:00:00Z", UpdatedAt: "2026-01-01T00:00:00Z"},
	}
	// The new card is stamped with the current time.
	want[0].CreatedAt, want[0].UpdatedAt = out.Cards[0].CreatedAt, out.Cards[0].UpdatedAt
	if diff := cmp.Diff(want, out.Cards); diff != "" {
		t.Errorf("cards (-want +got):\n%s", diff)
	}
}

func TestUpdateAndRemoveStoryCard(t *testing.T) {
	s := mustNew(t, scripting.Options{})
	cards := []scripting.Card{{ID: "1", Keys: "a", Entry: "A", Type: "Custom", Title: "A"}, {ID: "2", Keys: "b", Entry: "B", Type: "Custom", Title: "B"}}
	now := time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)
	out := mustRun(t, s, scripting.Input{
		Hook: scripting.HookOutput,
		Script: `updateStoryCard(1, "b, bee", "A bee.", "creature");
removeWorldEntry(0);
for (const f of [() => removeStoryCard(5), () => updateStoryCard(-1, "x", "y", "z"), () => updateWorldEntry(9, "", "", "")]) {
  try { f(); log("no throw"); } catch (e) { log(e.message); }
}
text`,
		Text:  "x",
		Cards: cards,
		Now:   now,
	})
	want := []scripting.Card{{ID: "2", Keys: "b, bee", Entry: "A bee.", Type: "creature", Title: "B", UpdatedAt: "2026-03-02T00:00:00.000Z"}}
	if diff := cmp.Diff(want, out.Cards); diff != "" {
		t.Errorf("cards (-want +got):\n%s", diff)
	}
	wantLogs := []string{
		"Story card not found at index 5 in removeStoryCard",
		"Story card not found at index -1 in updateStoryCard",
		"Story card not found at index 9 in updateStoryCard",
	}
	if diff := cmp.Diff(wantLogs, out.Logs); diff != "" {
		t.Errorf("logs (-want +got):\n%s", diff)
	}

	// Uncaught, the throw fails the hook at the calling line.
	failed := mustFail(t, s, scripting.Input{Hook: scripting.HookOutput, Script: "text = 'changed';\nremoveStoryCard(7);\ntext", Text: "x", Cards: cards}, scripting.KindThrow)
	if failed.Error.Line != 2 || !strings.Contains(failed.Error.Message, "not found at index 7") {
		t.Errorf("got %+v, want line 2 and the index in the message", failed.Error)
	}
	if diff := cmp.Diff(cards, failed.Cards); diff != "" || failed.Text != "x" {
		t.Errorf("failed hook changed its inputs: text %q, cards (-want +got):\n%s", failed.Text, diff)
	}
}

func TestWorldInfoAlias(t *testing.T) {
	s := mustNew(t, scripting.Options{})
	out := mustRun(t, s, scripting.Input{
		Hook:   scripting.HookInput,
		Script: "log(worldInfo === storyCards, addWorldEntry === addStoryCard);\nworldInfo[0].entry = 'via alias';\ntext",
		Text:   "x",
		Cards:  []scripting.Card{{ID: "4", Keys: "k", Entry: "e", Title: "k"}},
	})
	if diff := cmp.Diff([]string{"true true"}, out.Logs); diff != "" {
		t.Errorf("logs (-want +got):\n%s", diff)
	}
	if out.Cards[0].Entry != "via alias" {
		t.Errorf("got entry %q, want %q", out.Cards[0].Entry, "via alias")
	}
	// Replacing the array wholesale is read back too.
	out = mustRun(t, s, scripting.Input{Hook: scripting.HookInput, Script: "storyCards = storyCards.filter((c) => c.keys !== 'k'); text", Text: "x", Cards: out.Cards})
	if len(out.Cards) != 0 {
		t.Errorf("got %d cards, want 0", len(out.Cards))
	}
}

func TestLogs(t *testing.T) {
	s := mustNew(t, scripting.Options{})
	out := mustRun(t, s, scripting.Input{
		Hook: scripting.HookInput,
		Script: `log("plain");
console.log({ a: [1, 2] }, undefined, null);
sandboxConsole.log(undefined);
const loop = {}; loop.self = loop;
log(loop);
log(() => 1);
log();
text`,
		Text: "x",
	})
	want := []string{"plain", `{"a":[1,2]} null null`, "null", "[object Object]", "null", "null"}
	if diff := cmp.Diff(want, out.Logs); diff != "" {
		t.Errorf("logs (-want +got):\n%s", diff)
	}
}

// A string argument shows as it is, like a browser console (log("x") is x,
// not "x"); other values, and strings inside them, are JSON.
func TestLogShowsStringsAsTheyAre(t *testing.T) {
	s := mustNew(t, scripting.Options{})
	out := mustRun(t, s, scripting.Input{
		Hook: scripting.HookInput,
		Script: `log("x");
log('She said "hi"', ["a", 1], { k: "v" }, 2, true, "");
console.log("");
text`,
		Text: "x",
	})
	want := []string{"x", `She said "hi" ["a",1] {"k":"v"} 2 true `, ""}
	if diff := cmp.Diff(want, out.Logs); diff != "" {
		t.Errorf("logs (-want +got):\n%s", diff)
	}
}

func TestLogLimits(t *testing.T) {
	s := mustNew(t, scripting.Options{LogLines: 3, LogLineChars: 10})
	out := mustRun(t, s, scripting.Input{Hook: scripting.HookInput, Script: "log('x'.repeat(50)); for (let i = 0; i < 10; i++) log(i); text", Text: "x"})
	want := []string{"xxxxxxxxxx…[truncated]", "0", "1", "[console limit of 3 lines reached; later lines dropped]"}
	if diff := cmp.Diff(want, out.Logs); diff != "" {
		t.Errorf("logs (-want +got):\n%s", diff)
	}
}

func TestVoidZeroHookCallsLibraryModifier(t *testing.T) {
	s := mustNew(t, scripting.Options{})
	tests := []struct {
		name, library, script, want string
		called                      bool
	}{
		// MagicCards: the Library assigns a frozen globalThis.modifier and
		// the hook tabs end in `void 0`.
		{"FrozenGlobal", "globalThis.modifier = (text) => ({ text: text + ' (lib)' });\nObject.freeze(globalThis.modifier);", "/* Don't modify this part */\nvoid 0;", "in (lib)", true},
		{"ConstInLibrary", "const modifier = (text) => ({ text: text.toUpperCase() });", "void 0", "IN", true},
		{"CommentedOutCall", "function modifier(text) { return { text: '[' + text + ']' }; }", "// modifier(text)", "[in]", true},
		{"NoModifierKeepsText", "", "void 0", "in", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := mustRun(t, s, scripting.Input{Hook: scripting.HookInput, Library: tt.library, Script: tt.script, Text: "in"})
			if out.Text != tt.want || out.CalledModifier != tt.called {
				t.Errorf("got %q called %v, want %q called %v", out.Text, out.CalledModifier, tt.want, tt.called)
			}
		})
	}
}

func TestModifierNotCalledTwice(t *testing.T) {
	s := mustNew(t, scripting.Options{})
	// A modifier that forgets to return: the script already called it, so
	// the host must not call it again.
	out := mustRun(t, s, scripting.Input{
		Hook:   scripting.HookInput,
		Script: "const modifier = (t) => { state.calls = (state.calls ?? 0) + 1; text = t + '.'; };\nmodifier(text); // done",
		Text:   "in",
	})
	if got := stateOf(t, out)["calls"]; got != float64(1) || out.Text != "in." || out.CalledModifier {
		t.Errorf("got calls %v text %q called %v, want 1, %q, false", got, out.Text, out.CalledModifier, "in.")
	}
}

func TestSloppyGlobalsAndLibraryScope(t *testing.T) {
	s := mustNew(t, scripting.Options{})
	library := `// Library: sloppy-mode globals, as scripts written for AI Dungeon use.
counter = 41;
var shared = "lib";
function shout(s) { return s.toUpperCase() + "!"; }
const TAG = "[lib]";
globalThis.text ||= " ";
globalThis.stop ??= false;`
	out := mustRun(t, s, scripting.Input{
		Hook:    scripting.HookInput,
		Library: library,
		Script: `undeclaredToo = counter + 1;
const modifier = (text) => ({ text: TAG + " " + shout(text) + " " + undeclaredToo + " " + shared + " " + (this === globalThis) });
modifier(text);`,
		Text: "hey",
	})
	if want := "[lib] HEY! 42 lib true"; out.Text != want {
		t.Errorf("got %q, want %q", out.Text, want)
	}
}

func TestEmptyResult(t *testing.T) {
	s := mustNew(t, scripting.Options{})
	script := "state.touched = true; addStoryCard('k'); log('ran'); ''"
	in := scripting.Input{Script: script, Text: "original", State: []byte(`{"a":1}`)}

	// Context: the context is built as though the script had not run; its
	// other effects stand.
	in.Hook = scripting.HookContext
	out := mustRun(t, s, in)
	if out.Text != "original" || stateOf(t, out)["touched"] != true || len(out.Cards) != 1 {
		t.Errorf("context: got text %q state %s cards %d", out.Text, out.State, len(out.Cards))
	}

	// Input and output: an error notice, inputs unchanged, logs kept.
	for _, hook := range []string{scripting.HookInput, scripting.HookOutput} {
		in.Hook = hook
		out := mustFail(t, s, in, scripting.KindEmpty)
		if out.Text != "original" || string(out.State) != `{"a":1}` || len(out.Cards) != 0 {
			t.Errorf("%s: got text %q state %s cards %d, want the inputs", hook, out.Text, out.State, len(out.Cards))
		}
		if diff := cmp.Diff([]string{"ran"}, out.Logs); diff != "" {
			t.Errorf("%s: logs (-want +got):\n%s", hook, diff)
		}
	}
}

func TestGlobalsDoNotLeakBetweenCalls(t *testing.T) {
	s := mustNew(t, scripting.Options{})
	script := `log(typeof leaked, typeof [].evil, typeof Object.prototype.polluted);
globalThis.leaked = 1; Array.prototype.evil = 1; Object.prototype.polluted = 1;
text`
	for i := range 2 {
		out := mustRun(t, s, scripting.Input{Hook: scripting.HookInput, Script: script, Text: "x"})
		if diff := cmp.Diff([]string{"undefined undefined undefined"}, out.Logs); diff != "" {
			t.Errorf("call %d: logs (-want +got):\n%s", i, diff)
		}
	}
}

func TestInvalidInputs(t *testing.T) {
	s := mustNew(t, scripting.Options{})
	out := mustFail(t, s, scripting.Input{Hook: scripting.HookInput, Script: "text", Text: "x", State: []byte("{not json")}, scripting.KindInternal)
	if out.Text != "x" {
		t.Errorf("got %q, want the input text", out.Text)
	}
	mustFail(t, s, scripting.Input{Hook: "onInput", Script: "text", Text: "x"}, scripting.KindInternal)
	// A state that is JSON but not an object starts as {}.
	if out := mustRun(t, s, scripting.Input{Hook: scripting.HookInput, Script: "state.ok = 1; text", Text: "x", State: []byte("[1]")}); string(out.State) != `{"memory":{},"ok":1}` {
		t.Errorf("got state %s", out.State)
	}
}

func TestCardRules(t *testing.T) {
	s := mustNew(t, scripting.Options{})
	in := []scripting.Card{
		{ID: "1", Keys: "dragon", Entry: "A dragon.", Title: "Dragon", SecondaryKeys: "peace", Logic: "not_any", Constant: false, Priority: 300},
		{ID: "2", Keys: "", Entry: "The world.", Title: "World", Constant: true, Priority: 10},
		{ID: "3", Keys: "crow", Entry: "A crow.", Title: "Crow"},
	}
	out := mustRun(t, s, scripting.Input{
		Hook: scripting.HookOutput,
		// Read the rules; rebuild a card from AI Dungeon's fields only (its
		// rules stay); change another's; add one (no rules).
		Script: `log(storyCards[0].secondaryKeys, storyCards[0].logic, storyCards[0].constant, storyCards[0].priority, storyCards[1].constant);
const d = storyCards[0];
storyCards[0] = { id: d.id, keys: d.keys, entry: d.entry + " (rebuilt)", type: d.type, title: d.title, description: d.description };
Object.assign(storyCards[2], { secondaryKeys: "night, moon", logic: "and_all", constant: true, priority: 1e12 });
storyCards[1].priority = "not a number";
addStoryCard("owl", "An owl.");
log(storyCards[3].constant, storyCards[3].priority);
text`,
		Text:  "x",
		Cards: in,
	})
	if diff := cmp.Diff([]string{"peace not_any false 300 true", "false 0"}, out.Logs); diff != "" {
		t.Errorf("logs (-want +got):\n%s", diff)
	}
	type rules struct {
		Secondary, Logic string
		Constant         bool
		Priority         int
	}
	var got []rules
	for _, c := range out.Cards {
		got = append(got, rules{c.SecondaryKeys, c.Logic, c.Constant, c.Priority})
	}
	want := []rules{{"peace", "not_any", false, 300}, {"", "", true, 0}, {"night, moon", "and_all", true, 1000000}, {"", "", false, 0}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("card rules (-want +got):\n%s", diff)
	}
	if out.Cards[0].Entry != "A dragon. (rebuilt)" {
		t.Errorf("rebuilt card entry %q", out.Cards[0].Entry)
	}
}
