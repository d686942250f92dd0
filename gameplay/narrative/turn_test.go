package narrative_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/adventure-table/adventure-table/gameplay/llm/llmtest"
	"github.com/adventure-table/adventure-table/gameplay/narrative"
	"github.com/adventure-table/adventure-table/models/apperr"
)

func types(events []narrative.Event) string {
	var out []string
	for _, e := range events {
		if len(out) == 0 || out[len(out)-1] != e.Type {
			out = append(out, e.Type)
		}
	}
	return strings.Join(out, ",")
}

func TestTurnStreamsRefereesAndSnapshots(t *testing.T) {
	f := newSolo(t)
	ctx := context.Background()
	adv := f.adventure().Adventure.ID
	f.fake.Push(llmtest.Reply{Reasoning: []string{"think", "ing"}, Chunks: []string{"The blade ", "catches you.", "\n```state\n{\"player.hp\": -45, \"player.mana\": 3}\n```"},
		FinishReason: "stop", Usage: &llmtest.Usage{Prompt: 900, Completion: 40, Cached: 512}})
	turn, err := f.svc.StartTurn(ctx, f.user, adv, narrative.TurnInput{Mode: "do", Text: "attack the guard"})
	events := run(t, turn, err)
	if got := types(events); got != "player,reasoning,chunk,done" {
		t.Fatalf("event order %s", got)
	}
	done := events[len(events)-1]
	if done.Action.Text != "The blade catches you." {
		t.Fatalf("stored narration %q (state block not stripped?)", done.Action.Text)
	}
	if done.Adventure.StateLine == "" || !strings.Contains(done.Adventure.StateLine, "hp 55/100 (minor damage)") {
		t.Fatalf("state line %q", done.Adventure.StateLine)
	}
	var applied, rejected bool
	for _, o := range done.Action.Outcomes {
		applied = applied || (o.Path == "player.hp" && o.Status == "applied")
		rejected = rejected || (o.Path == "player.mana" && o.Status == "rejected" && o.Reason == "unknown_path")
	}
	if !applied || !rejected {
		t.Fatalf("outcomes %+v", done.Action.Outcomes)
	}
	// The request: every setting sent, the player's action last in history.
	req := f.fake.Requests()[0]
	if req.Temperature == nil || req.TopP == nil || req.MaxTokens == nil || *req.MaxTokens != 400 || req.StreamOptions == nil || !req.StreamOptions.IncludeUsage {
		t.Fatalf("request settings %+v", req)
	}
	var sawAction bool
	for _, m := range req.Messages {
		sawAction = sawAction || strings.Contains(m.Content, "> attack the guard")
	}
	if !sawAction {
		t.Fatal("the player's action is not in the prompt")
	}
	// Insights returns the exact prompt that was sent, from the compressed snapshot.
	ins, err := f.svc.GetInsights(ctx, f.user, done.Action.ID)
	must(t, err)
	if len(ins.Messages) != len(req.Messages) {
		t.Fatalf("insights has %d messages, the request had %d", len(ins.Messages), len(req.Messages))
	}
	for i := range req.Messages {
		if ins.Messages[i].Content != req.Messages[i].Content || ins.Messages[i].Role != req.Messages[i].Role {
			t.Fatalf("insights message %d differs from what was sent", i)
		}
	}
	if ins.Usage.CachedPromptTokens != 512 || ins.Usage.PromptTokens != 900 || len(ins.Sections) == 0 {
		t.Fatalf("insights %+v", ins.Usage)
	}
	var lore bool
	for _, c := range ins.Cards {
		lore = lore || c.Title == "Gwen"
	}
	if lore {
		t.Fatal("Gwen's card triggered without her name in the story")
	}
}

func TestTruncationIsFlagged(t *testing.T) {
	for _, tc := range []struct {
		name   string
		reply  llmtest.Reply
		reason string
	}{
		{"length", llmtest.Reply{Chunks: []string{"You run and run and"}, FinishReason: "length"}, "length"},
		{"dropped", llmtest.Reply{Chunks: []string{"You run and"}, DropWithoutDone: true}, "dropped"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newSolo(t)
			adv := f.adventure().Adventure.ID
			f.fake.Push(tc.reply)
			turn, err := f.svc.StartTurn(context.Background(), f.user, adv, narrative.TurnInput{Mode: "do", Text: "run"})
			events := run(t, turn, err)
			if got := types(events); got != "player,chunk,stopped,done" {
				t.Fatalf("events %s", got)
			}
			if events[len(events)-2].Reason != tc.reason {
				t.Fatalf("stopped reason %q", events[len(events)-2].Reason)
			}
			if a := last(f.page(adv)); !a.Truncated {
				t.Fatal("the node is not flagged truncated")
			}
		})
	}
}

// A failed regeneration leaves the previous take in charge: provider error,
// empty reply, reasoning only, and the browser hanging up mid-stream. Each
// failure is counted once with its code (analytics).
func TestFailedRetryRollsBack(t *testing.T) {
	cases := []struct {
		name  string
		reply llmtest.Reply
		code  apperr.Code
		hang  bool
	}{
		{"provider error", llmtest.Reply{Status: 500}, apperr.ProviderUnavailable, false},
		{"auth", llmtest.Reply{Status: 401}, apperr.ProviderAuthFailed, false},
		{"empty reply", llmtest.Reply{Chunks: []string{"  "}, FinishReason: "stop"}, apperr.ProviderEmptyReply, false},
		{"reasoning only", llmtest.Reply{Reasoning: []string{"hmm, let me think"}, FinishReason: "length"}, apperr.ProviderReasoningOnly, false},
		{"client hangs up", llmtest.Reply{Chunks: []string{"a", "b", "c", "d"}, Delay: 200 * time.Millisecond, FinishReason: "stop"}, "", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newSolo(t)
			adv := f.adventure().Adventure.ID
			f.play(adv, "look", "The hall is dark.", `{"player.hp": -10}`)
			before := f.page(adv)
			f.fake.Push(tc.reply)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			turn, err := f.svc.StartRetry(ctx, f.user, adv)
			must(t, err)
			var events []narrative.Event
			turn.Run(ctx, func(ev narrative.Event) {
				events = append(events, ev)
				if tc.hang && ev.Type == narrative.EventChunk {
					cancel() // the browser goes away after the first chunk
				}
			})
			lastEv := events[len(events)-1]
			if lastEv.Type != narrative.EventError || (tc.code != "" && lastEv.Code != string(tc.code)) {
				t.Fatalf("last event %+v, want error %s", lastEv, tc.code)
			}
			if tc.code == apperr.ProviderReasoningOnly && !strings.Contains(lastEv.Message, "max output tokens") {
				t.Fatalf("reasoning-only message does not name the settings: %q", lastEv.Message)
			}
			// the failure is counted once, with its code; the turn played before it once
			counted := f.counted()
			failed := int64(0)
			for k, n := range counted {
				if strings.HasPrefix(k, "turn_failed ") {
					failed += n
				}
			}
			if failed != 1 || counted["turn_failed "+lastEv.Code] != 1 || counted["turn solo"] != 1 {
				t.Fatalf("counted %v, want one turn_failed %s and one solo turn", counted, lastEv.Code)
			}
			after := f.page(adv)
			if last(after).ID != last(before).ID || last(after).Takes.Count != 1 || hp(after) != hp(before) {
				t.Fatalf("after a failed retry the tip is %q (%d takes), hp %v", last(after).Text, last(after).Takes.Count, hp(after))
			}
			if after.Adventure.TurnInProgress {
				t.Fatal("the turn claim was not released")
			}
		})
	}
}

// A failed new turn keeps what the player typed; retry then narrates it.
func TestFailedTurnKeepsPlayerAction(t *testing.T) {
	f := newSolo(t)
	adv := f.adventure().Adventure.ID
	f.fake.Push(llmtest.Reply{Status: 503})
	turn, err := f.svc.StartTurn(context.Background(), f.user, adv, narrative.TurnInput{Mode: "say", Text: "Hello?"})
	events := run(t, turn, err)
	if types(events) != "player,error" {
		t.Fatalf("events %s", types(events))
	}
	if got := last(f.page(adv)); got.Kind != "player" || got.Text != "Hello?" {
		t.Fatalf("tip after a failed turn: %+v", got)
	}
	done := f.retry(adv, "An echo answers.", "")
	if done.Type != narrative.EventDone || done.Action.Text != "An echo answers." {
		t.Fatalf("retry after a failed turn: %+v", done)
	}
}

// The retried take is excluded from its own context: history and card
// triggering never see it.
func TestRetryExcludesTheReplacedTake(t *testing.T) {
	f := newSolo(t)
	adv := f.adventure().Adventure.ID
	f.play(adv, "wait", "Gwen appears holding a lantern. SECRET-OLD-TAKE", "")
	f.retry(adv, "Nothing happens.", "")
	req := f.fake.Requests()[1]
	for _, m := range req.Messages {
		if strings.Contains(m.Content, "SECRET-OLD-TAKE") {
			t.Fatalf("the replaced take reached the retry's prompt (%s)", m.Role)
		}
		if strings.Contains(m.Content, "veteran guard") || strings.Contains(m.Content, "brass lantern") {
			t.Fatal("a card triggered by the replaced take entered the retry's prompt")
		}
	}
	// The first turn's own prompt had no cards either, and a later turn
	// that names Gwen triggers her card.
	f.play(adv, "call for Gwen", "Silence.", "")
	reqs := f.fake.Requests()
	var found bool
	for _, m := range reqs[len(reqs)-1].Messages {
		found = found || strings.Contains(m.Content, "veteran guard")
	}
	if !found {
		t.Fatal("a card named in the story did not trigger")
	}
}

// One turn at a time: of two simultaneous requests exactly one streams and
// the other is refused before anything starts.
func TestTurnLockRace(t *testing.T) {
	f := newSolo(t)
	adv := f.adventure().Adventure.ID
	for round := range 5 {
		f.reply("ok", "")
		var wg sync.WaitGroup
		turns := make([]*narrative.Turn, 2)
		errs := make([]error, 2)
		start := make(chan struct{})
		for i := range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				turns[i], errs[i] = f.svc.StartTurn(context.Background(), f.user, adv, narrative.TurnInput{Mode: "do", Text: "go"})
			}()
		}
		close(start)
		wg.Wait()
		var won int
		for i := range 2 {
			if errs[i] == nil {
				won++
				run(t, turns[i], nil)
			} else if apperr.CodeOf(errs[i]) != apperr.TurnInProgress {
				t.Fatalf("round %d: loser got %v", round, errs[i])
			}
		}
		if won != 1 {
			t.Fatalf("round %d: %d turns started", round, won)
		}
	}
	// Tree changes are refused while a turn runs, too.
	f.reply("slow", "")
	turn, err := f.svc.StartTurn(context.Background(), f.user, adv, narrative.TurnInput{Mode: "do", Text: "go"})
	must(t, err)
	if _, err := f.svc.Undo(context.Background(), f.user, adv); apperr.CodeOf(err) != apperr.TurnInProgress {
		t.Fatalf("undo during a turn: %v", err)
	}
	run(t, turn, nil)
	// A claim left by a crashed process expires.
	f.svc.SetStaleTurn(0)
	crashed, err := f.svc.StartRetry(context.Background(), f.user, adv)
	must(t, err)
	crashed.Crash() // never run: the process "died"
	f.reply("recovered", "")
	turn, err = f.svc.StartRetry(context.Background(), f.user, adv)
	if err != nil {
		t.Fatalf("a stale claim still blocks: %v", err)
	}
	turn.Abandon()
}

// Saving the narration is one transaction: a failure after the node insert
// leaves neither the node nor a moved head, and the old take stays live.
func TestTurnSaveIsAtomic(t *testing.T) {
	f := newSolo(t)
	adv := f.adventure().Adventure.ID
	f.play(adv, "look", "Dark.", `{"player.hp": -10}`)
	before := f.page(adv)
	f.svc.SetFailpoint(func(p string) error {
		if p == "turn.after_node" {
			return errors.New("injected")
		}
		return nil
	})
	ev := f.retry(adv, "Light!", `{"player.hp": -50}`)
	if ev.Type != narrative.EventError {
		t.Fatalf("event %+v", ev)
	}
	f.svc.SetFailpoint(nil)
	after := f.page(adv)
	if last(after).ID != last(before).ID || last(after).Takes.Count != 1 || hp(after) != 90 || after.Adventure.HeadDepth != before.Adventure.HeadDepth {
		t.Fatalf("half a save is visible: tip %q takes %d hp %v", last(after).Text, last(after).Takes.Count, hp(after))
	}
	// Play is atomic too: no adventure appears when it fails midway.
	f.svc.SetFailpoint(func(p string) error {
		if p == "play.after_cards" {
			return errors.New("injected")
		}
		return nil
	})
	list, _ := f.svc.ListAdventures(context.Background(), f.user)
	n := len(list.Adventures)
	sc, err := f.svc.ListScenarios(context.Background(), f.user)
	must(t, err)
	if _, err := f.svc.Play(context.Background(), f.user, sc.Scenarios[0].ID, narrative.Persona{}); err == nil {
		t.Fatal("play did not fail")
	}
	list, _ = f.svc.ListAdventures(context.Background(), f.user)
	if len(list.Adventures) != n {
		t.Fatal("a failed play left an adventure behind")
	}
	// And standing on a take that must fork: no orphan branch on failure.
	f.svc.SetFailpoint(nil)
	f.retry(adv, "Second take.", "")
	f.play(adv, "continue", "More.", "")
	p := f.page(adv)
	firstTake := p.Story[len(p.Story)-3].Takes.IDs[0]
	f.svc.SetFailpoint(func(p string) error {
		if p == "take.after_fork" {
			return errors.New("injected")
		}
		return nil
	})
	if _, err := f.svc.SelectTake(context.Background(), f.user, adv, firstTake); err == nil {
		t.Fatal("select take did not fail")
	}
	br, err := f.svc.ListBranches(context.Background(), f.user, adv)
	must(t, err)
	if len(br.Branches) != 1 {
		t.Fatalf("a failed fork left %d branches", len(br.Branches))
	}
}

// The static block is byte-identical across turns while a stat changes, and
// each turn's prompt extends the previous one.
func TestPromptLayoutAcrossTurns(t *testing.T) {
	f := newSolo(t)
	adv := f.adventure().Adventure.ID
	f.play(adv, "look", "A hall.", `{"player.hp": -10}`)
	f.play(adv, "walk", "A door.", `{"player.hp": -10}`)
	reqs := f.fake.Requests()
	a, b := reqs[0].Messages, reqs[1].Messages
	if a[0].Role != "system" || a[0].Content != b[0].Content {
		t.Fatal("the static block changed between turns")
	}
	if strings.Contains(a[0].Content, "hp 90") || strings.Contains(b[0].Content, "hp 80") {
		t.Fatal("live stats are in the static block")
	}
	if !strings.Contains(b[len(b)-1].Content, "hp 90/100") {
		t.Fatal("the live state is not in the last message")
	}
	// Everything before the first turn's final (volatile) message is a prefix of the second.
	for i := range len(a) - 1 {
		if a[i].Role != b[i].Role || a[i].Content != b[i].Content {
			t.Fatalf("message %d differs: the new prompt does not extend the cached prefix", i)
		}
	}
}

func TestSettingsKeyIsWriteOnlyAndSealed(t *testing.T) {
	f := newSolo(t)
	ctx := context.Background()
	key := "sk-live-SECRET-0123456789"
	in := narrative.ProviderSettingsInput{BaseURL: f.fake.URL(), Model: "fake", APIKey: &key, ContextBudget: 4000, MaxOutputTokens: 400, Temperature: 0.7, TopP: 0.9}
	v, err := f.svc.PutSettings(ctx, f.user, in)
	must(t, err)
	if !v.APIKeySet {
		t.Fatal("api_key_set is false after setting a key")
	}
	dump, err := f.store.DumpText(ctx)
	must(t, err)
	if strings.Contains(dump, key) {
		t.Fatal("the API key is stored in plaintext")
	}
	// The key travels to the endpoint, and only there.
	adv := f.adventure().Adventure.ID
	f.play(adv, "go", "Gone.", "")
	if got := f.fake.Requests()[0].Authorization; got != "Bearer "+key {
		t.Fatalf("authorization %q", got)
	}
	in.APIKey = nil // keep
	v, _ = f.svc.PutSettings(ctx, f.user, in)
	if !v.APIKeySet {
		t.Fatal("omitting api_key cleared it")
	}
	empty := ""
	in.APIKey = &empty
	v, _ = f.svc.PutSettings(ctx, f.user, in)
	if v.APIKeySet {
		t.Fatal("an empty api_key did not clear it")
	}
	in.ContextBudget = 10
	if _, err := f.svc.PutSettings(ctx, f.user, in); apperr.CodeOf(err) != apperr.ProviderSettingsInvalid {
		t.Fatalf("budget 10: %v", err)
	}
}

func TestScenarioValidationAndRefresh(t *testing.T) {
	f := newSolo(t)
	ctx := context.Background()
	bad := narrative.ScenarioInput{Title: " ", StatSchema: narrative.Schema{"Player HP": {Min: 10, Max: 0}}}
	_, err := f.svc.CreateScenario(ctx, f.user, bad)
	var ae *apperr.Error
	if !errors.As(err, &ae) || ae.Code != apperr.ScenarioInvalid || ae.Fields["title"] == "" || ae.Fields["stat_schema.Player HP"] == "" {
		t.Fatalf("bad scenario: %v %+v", err, ae)
	}
	page := f.adventure()
	adv := page.Adventure.ID
	scID := *page.Adventure.ScenarioID
	sc, err := f.svc.GetScenario(ctx, f.user, scID)
	must(t, err)
	// Edit the scenario: the adventure does not change until refreshed.
	in := narrative.ScenarioInput{Title: "Renamed", Premise: sc.Premise, PlotEssentials: "Gwen has left.", AIInstructions: sc.AIInstructions,
		Opening: "A different opening.", StatSchema: narrative.Schema{"player.hp": hpSchema["player.hp"], "player.luck": {Min: 0, Max: 10, Initial: 3}},
		Cards: []narrative.CardInput{{Title: "Gwen", Keys: []string{"Gwen"}, Entry: "Gwen has retired.", Type: "character"}, {Title: "Crypt", Keys: []string{"crypt"}, Entry: "Cold stone.", Type: "location"}}}
	_, err = f.svc.UpdateScenario(ctx, f.user, scID, in)
	must(t, err)
	if p := f.page(adv); p.Adventure.Title != "The Crypt" || p.Adventure.WorldState["player.luck"] != nil {
		t.Fatal("editing the scenario changed the adventure")
	}
	diff, err := f.svc.RefreshDiff(ctx, f.user, adv)
	must(t, err)
	if len(diff.CardsAdded) != 1 || len(diff.CardsUpdated) != 1 || len(diff.CardsRemoved) != 1 ||
		strings.Join(diff.StatePathsAdded, ",") != "player.luck" || strings.Join(diff.StatePathsRemoved, ",") != "player.gold" {
		t.Fatalf("diff %+v", diff)
	}
	for _, fc := range diff.Fields {
		if fc.Field == "title" || fc.Field == "opening" {
			t.Fatalf("the diff touches %s", fc.Field)
		}
	}
	p, err := f.svc.ApplyRefresh(ctx, f.user, adv)
	must(t, err)
	if p.Adventure.Title != "The Crypt" || p.Story[0].Text != "You stand before the crypt door." {
		t.Fatal("refresh changed the title or the opening")
	}
	if p.Adventure.WorldState["player.luck"] != 3.0 || p.Adventure.WorldState["player.gold"] != nil {
		t.Fatalf("state after refresh %v", p.Adventure.WorldState)
	}
	again, err := f.svc.RefreshDiff(ctx, f.user, adv)
	must(t, err)
	if len(again.Fields)+len(again.CardsAdded)+len(again.CardsUpdated)+len(again.CardsRemoved)+len(again.StatePathsAdded) != 0 {
		t.Fatalf("diff after apply is not empty: %+v", again)
	}
}

// The offline tokenizer is calibrated against the prompt tokens the
// endpoint reports: the smoothed ratio moves toward reported/estimated.
func TestTokenCalibration(t *testing.T) {
	f := newSolo(t)
	ctx := context.Background()
	adv := f.adventure().Adventure.ID
	f.fake.Push(llmtest.Reply{Chunks: []string{"Quiet."}, FinishReason: "stop"}) // no usage: nothing learnt
	turn, err := f.svc.StartTurn(ctx, f.user, adv, narrative.TurnInput{Mode: "do", Text: "wait"})
	run(t, turn, err)
	s, _ := f.svc.GetSettings(ctx, f.user)
	if s.TokenRatio != 1 {
		t.Fatalf("ratio %v without any usage report", s.TokenRatio)
	}
	f.fake.Push(llmtest.Reply{Chunks: []string{"Still quiet."}, FinishReason: "stop", Usage: &llmtest.Usage{Prompt: 5000, Completion: 3}})
	turn, err = f.svc.StartTurn(ctx, f.user, adv, narrative.TurnInput{Mode: "do", Text: "wait more"})
	events := run(t, turn, err)
	ins, err := f.svc.GetInsights(ctx, f.user, events[len(events)-1].Action.ID)
	must(t, err)
	want := min(0.7+0.3*5000/float64(ins.TotalTokens), 2)
	s, _ = f.svc.GetSettings(ctx, f.user)
	if diff := s.TokenRatio - want; diff > 1e-9 || diff < -1e-9 {
		t.Fatalf("ratio %v, want %v (estimate %d, reported 5000)", s.TokenRatio, want, ins.TotalTokens)
	}
}

// The done event reports the adventure as free: the browser's next request
// must not meet the finished turn's claim.
func TestDoneReleasesBeforeReporting(t *testing.T) {
	f := newSolo(t)
	adv := f.adventure().Adventure.ID
	done := f.play(adv, "go", "Gone.", "")
	if done.Adventure.TurnInProgress {
		t.Fatal("done reports the turn still in progress")
	}
}
