package narrative_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/adventure-table/adventure-table/gameplay/narrative"
	"github.com/adventure-table/adventure-table/gameplay/scripting"
)

// lastRequest is the newest prompt the model received, as one text.
func (f *solo) lastPrompt() string {
	reqs := f.fake.Requests()
	var sb strings.Builder
	for _, m := range reqs[len(reqs)-1].Messages {
		sb.WriteString(m.Role + ": " + m.Content + "\n")
	}
	return sb.String()
}

func (f *solo) console(adv int64) []narrative.ConsoleEntry {
	f.t.Helper()
	c, err := f.svc.GetConsole(context.Background(), f.user, adv)
	must(f.t, err)
	return c.Entries
}

func TestScriptHooksInTheTurn(t *testing.T) {
	f := newSolo(t)
	adv := f.adventureWith(narrative.Scripts{
		Library: `function shout(s) { return s.toUpperCase() }
counter = 0 // a sloppy global the hooks may use`,
		Input: `const modifier = (text) => {
  state.turns = (state.turns || 0) + 1
  log('input', state.turns, history.length, info.actionCount)
  if (text.includes('forbidden')) { state.message = 'You cannot do that here.'; return { text, stop: true } }
  return { text: text.replace('goblin', 'dragon') }
}
modifier(text)`,
		Context: `const modifier = (text) => ({ text: text.replace('Gwen guards the gate.', 'Brunhild guards the gate.') })
modifier(text)`,
		Output: `const modifier = (text) => {
  state.outputs = (state.outputs || 0) + 1
  log('outputs', state.outputs)
  return { text: text.replace('roars', shout('roars')) }
}
modifier(text)`,
	}).Adventure.ID

	// Input rewrite reaches the model and the story; context rewrite reaches the model; output rewrite is stored.
	done := f.play(adv, "fight the goblin", "The beast roars.", `{"player.hp": -10}`)
	p := f.page(adv)
	if got := p.Story[len(p.Story)-2].Text; got != "fight the dragon" {
		t.Fatalf("stored player text %q, want the input script's rewrite", got)
	}
	prompt := f.lastPrompt()
	if !strings.Contains(prompt, "> fight the dragon") || strings.Contains(prompt, "goblin") {
		t.Fatal("the model did not get the rewritten input")
	}
	if !strings.Contains(prompt, "Brunhild guards the gate.") || strings.Contains(prompt, "Gwen guards the gate.") {
		t.Fatal("the context script's rewrite did not reach the model")
	}
	if done.Action.Text != "The beast ROARS." {
		t.Fatalf("stored narration %q, want the output script's rewrite", done.Action.Text)
	}
	if hp(p) != 90 {
		t.Fatalf("hp %v: the state block must still be refereed after the output hook", hp(p))
	}
	// The insights prompt is what was sent (the rewrite), not the builder's.
	ins, err := f.svc.GetInsights(context.Background(), f.user, done.Action.ID)
	must(t, err)
	var rewritten bool
	for _, m := range ins.Messages {
		rewritten = rewritten || strings.Contains(m.Content, "Brunhild")
	}
	if !rewritten {
		t.Fatal("insights does not show the prompt that was sent")
	}

	// State persists across turns; the console records log() lines with their hook.
	f.play(adv, "look around", "Quiet.", "")
	var logs []string
	for _, e := range f.console(adv) {
		logs = append(logs, e.Hook+":"+e.Text)
	}
	// history and actionCount are the story before this action: the opening,
	// then the opening and turn one.
	want := []string{"input:input 1 1 1", "output:outputs 1", "input:input 2 3 3", "output:outputs 2"}
	if strings.Join(logs, "|") != strings.Join(want, "|") {
		t.Fatalf("console %q, want %q", logs, want)
	}

	// Retry after a script changed state gives the pre-turn state back: the
	// retried take's output hook sees outputs=1 again, not 2.
	f.retry(adv, "Still quiet.", "")
	c := f.console(adv)
	if got := c[len(c)-1].Text; got != "outputs 2" {
		t.Fatalf("after retry the output hook logged %s, want outputs 2 (restored from the node in front)", got)
	}

	// Stop: nothing stored, the player sees the script's message.
	before := len(f.page(adv).Story)
	turn, err := f.svc.StartTurn(context.Background(), f.user, adv, narrative.TurnInput{Mode: "do", Text: "do the forbidden thing"})
	events := run(t, turn, err)
	last := events[len(events)-1]
	if last.Type != narrative.EventError || last.Code != "script_stopped" || len(last.Notices) == 0 || last.Notices[0].Text != "You cannot do that here." ||
		last.Notices[0].Code != narrative.NoticeScriptMessage || last.Notices[0].Params["text"] != "You cannot do that here." {
		t.Fatalf("stop: %+v", last)
	}
	if len(f.page(adv).Story) != before {
		t.Fatal("a stopped action was stored")
	}
	if n := len(f.fake.Requests()); n != 3 {
		t.Fatalf("the model was called %d times; a stopped action must not reach it", n)
	}
}

// A script that throws, loops forever or exhausts memory is skipped: the
// turn continues unmodified and the player gets a notice with the error.
func TestScriptFailuresNeverBreakTheTurn(t *testing.T) {
	for _, tc := range []struct {
		name, script, want string
		timeout            time.Duration
		line               string // params.line: the hook script's line, "" when none
	}{
		{"throw", "const x = 1\nnull.boom\nmodifier(text)", "line 2", 0, "2"},
		{"infinite loop", "while (true) {}", "timeout", 300 * time.Millisecond, ""},
		// Only memory may end the bomb: under -race on a loaded machine its
		// 32 MB took longer than the default 5 s to allocate (CI, load 14).
		{"memory bomb", "const a = []; const s = 'x'.repeat(1 << 20); while (true) a.push(s + a.length);", "memory", 2 * time.Minute, "1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newSolo(t)
			if tc.timeout > 0 {
				f = newSoloWith(t, scripting.Options{Timeout: tc.timeout, MemoryLimit: 32 << 20})
			}
			adv := f.adventureWith(narrative.Scripts{Output: tc.script}).Adventure.ID
			done := f.play(adv, "wait", "Nothing happens.", "")
			if done.Action.Text != "Nothing happens." {
				t.Fatalf("narration %q: the failed hook changed the turn", done.Action.Text)
			}
			if len(done.Notices) != 1 || !strings.Contains(strings.ToLower(done.Notices[0].Text), tc.want) {
				t.Fatalf("notices %+v, want one naming %q", done.Notices, tc.want)
			}
			// The notice travels as a code with parameters the web app translates.
			n := done.Notices[0]
			if n.Code != narrative.NoticeScriptError || n.Params["hook"] != "output" || n.Params["kind"] == "" ||
				!strings.Contains(strings.ToLower(n.Params["kind"]+" "+n.Params["error"]), tc.want) {
				t.Fatalf("notice %+v: want code %s with hook, kind and error", n, narrative.NoticeScriptError)
			}
			// The line travels as a param of its own, for the editor to mark.
			if n.Params["line"] != tc.line || n.Params["library_line"] != "" {
				t.Fatalf("notice params %v, want line %q and no library_line", n.Params, tc.line)
			}
			c := f.console(adv)
			if len(c) == 0 || c[len(c)-1].Level != narrative.ConsoleError {
				t.Fatalf("console %+v: the failure is not recorded", c)
			}
			// The console line carries the same code as the notice.
			if e := c[len(c)-1]; e.Code != narrative.NoticeScriptError || e.Params["hook"] != "output" || e.Params["kind"] != n.Params["kind"] || e.Params["error"] != n.Params["error"] || e.Params["line"] != tc.line {
				t.Fatalf("console line %+v, want the notice's code and params %v", e, n.Params)
			}
			// The next turn still works.
			f.play(adv, "wait again", "Still nothing.", "")
		})
	}
}

// An error raised in the Library names both lines: the Library's where it
// was raised and the hook script's that called it, in the notice and in the
// console line read back.
func TestScriptErrorInTheLibraryNamesBothLines(t *testing.T) {
	f := newSolo(t)
	adv := f.adventureWith(narrative.Scripts{
		Library: "// helpers\nfunction check(text) {\n  throw new Error('no ' + text)\n}",
		Output:  "const modifier = (text) => {\n  check(text)\n  return { text }\n}\nmodifier(text)",
	}).Adventure.ID
	done := f.play(adv, "wait", "Nothing happens.", "")
	if len(done.Notices) != 1 {
		t.Fatalf("notices %+v, want one", done.Notices)
	}
	want := map[string]string{"line": "2", "library_line": "3"}
	for k, v := range want {
		if got := done.Notices[0].Params[k]; got != v {
			t.Errorf("notice params[%s] = %q, want %q (%v)", k, got, v, done.Notices[0].Params)
		}
	}
	c := f.console(adv)
	if len(c) == 0 {
		t.Fatal("no console line")
	}
	for k, v := range want {
		if got := c[len(c)-1].Params[k]; got != v {
			t.Errorf("console params[%s] = %q, want %q (%v)", k, got, v, c[len(c)-1].Params)
		}
	}
}

// Cards a script adds or edits are stored with the turn and trigger later;
// memory set by a script lands where the context engine puts memory.
func TestScriptCardsAndMemory(t *testing.T) {
	f := newSolo(t)
	adv := f.adventureWith(narrative.Scripts{Input: `const modifier = (text) => {
  const i = addStoryCard('obelisk', 'A black obelisk hums with old power.', 'location')
  log('index', i)
  const gwen = storyCards.find(c => c.title === 'Gwen')
  if (gwen) gwen.entry = 'Gwen is wounded and bitter.'
  state.memory = { frontMemory: 'FRONT-REMINDER', authorsNote: 'Tone: eerie.' }
  return { text }
}
modifier(text)`}).Adventure.ID
	f.play(adv, "approach Gwen near the obelisk", "She nods.", "")
	prompt := f.lastPrompt()
	for _, want := range []string{"A black obelisk hums", "Gwen is wounded and bitter.", "FRONT-REMINDER", "Tone: eerie."} {
		if !strings.Contains(prompt, want) {
			t.Fatalf("prompt lacks %q:\n%s", want, prompt)
		}
	}
	if strings.Contains(prompt, "veteran guard") {
		t.Fatal("the edited card's old entry is still used")
	}
	reqs := f.fake.Requests()
	msgs := reqs[len(reqs)-1].Messages
	tail := msgs[len(msgs)-1].Content
	if !strings.Contains(tail, "FRONT-REMINDER") {
		t.Fatal("front memory is not in the final message")
	}
	c := f.console(adv)
	if len(c) == 0 || c[0].Text != "index 2" {
		t.Fatalf("addStoryCard after two cards returned %+v, want index 2", c)
	}
	// Adding the same keys again returns false and adds nothing.
	f.play(adv, "touch the obelisk", "It hums.", "")
	if c := f.console(adv); c[len(c)-1].Text != "index false" {
		t.Fatalf("the same keys again: %s", c[len(c)-1].Text)
	}
	if n := strings.Count(f.lastPrompt(), "A black obelisk hums"); n != 1 {
		t.Fatalf("the obelisk card appears %d times", n)
	}
}

// Cards the adventure made itself (here by a script) are never touched by
// "update from scenario"; the scenario's own cards are.
func TestRefreshKeepsTheAdventuresOwnCards(t *testing.T) {
	f := newSolo(t)
	ctx := context.Background()
	page := f.adventureWith(narrative.Scripts{Input: `addStoryCard('obelisk', 'A humming obelisk.', 'location'); modifier = (t) => ({ text: t }); modifier(text)`})
	adv := page.Adventure.ID
	f.play(adv, "look at the obelisk", "It hums.", "")
	sc, err := f.svc.GetScenario(ctx, f.user, *page.Adventure.ScenarioID)
	must(t, err)
	in := narrative.ScenarioInput{Title: sc.Title, Opening: sc.Opening, StatSchema: sc.StatSchema, Scripts: sc.Scripts} // every card removed
	_, err = f.svc.UpdateScenario(ctx, f.user, sc.ID, in)
	must(t, err)
	diff, err := f.svc.RefreshDiff(ctx, f.user, adv)
	must(t, err)
	if len(diff.CardsRemoved) != 2 {
		t.Fatalf("removed %d cards, want the scenario's 2 (Gwen, Lantern) only", len(diff.CardsRemoved))
	}
	_, err = f.svc.ApplyRefresh(ctx, f.user, adv)
	must(t, err)
	f.play(adv, "touch the obelisk", "Warm.", "")
	p := f.lastPrompt()
	if !strings.Contains(p, "A humming obelisk.") || strings.Contains(p, "veteran guard") {
		t.Fatal("refresh removed the adventure's own card or kept a removed scenario card")
	}
}

// Scripts written for AI Dungeon read info.characters (or characterNames)
// as the player characters, and history entries' rawText beside text. Every
// hook gets the protagonist's name in both (not the stat schema's NPCs), or
// [] for a persona without a name.
func TestScriptsSeeCharactersAndRawText(t *testing.T) {
	f := newSolo(t)
	ctx := context.Background()
	hook := func(name string) string {
		return `log('` + name + `', info.characters, info.characterNames, history.every((h) => h.rawText === h.text && h.text !== ''))
text`
	}
	sc, err := f.svc.CreateScenario(ctx, f.user, narrative.ScenarioInput{
		Title: "The Gate", Opening: "Gwen bars the gate.",
		StatSchema: narrative.Schema{"player.hp": {Min: 0, Max: 100, Initial: 100}, "npc.gwen.trust": {Min: 0, Max: 10, Initial: 5}},
		Scripts:    narrative.Scripts{Input: hook("input"), Context: hook("context"), Output: hook("output")},
	})
	must(t, err)
	for _, tc := range []struct {
		persona, names string
	}{{"Ash", `["Ash"]`}, {"", "[]"}} {
		page, err := f.svc.Play(ctx, f.user, sc.ID, narrative.Persona{PersonaName: tc.persona})
		must(t, err)
		f.play(page.Adventure.ID, "knock", "Nobody answers.", "")
		var got []string
		for _, e := range f.console(page.Adventure.ID) {
			got = append(got, e.Text)
		}
		want := []string{"input " + tc.names + " " + tc.names + " true", "context " + tc.names + " " + tc.names + " true", "output " + tc.names + " " + tc.names + " true"}
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("persona %q: console %q, want %q", tc.persona, got, want)
		}
	}
}
