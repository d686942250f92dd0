package narrative_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/adventure-table/adventure-table/gameplay/llm"
	"github.com/adventure-table/adventure-table/gameplay/llm/llmtest"
	"github.com/adventure-table/adventure-table/gameplay/narrative"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// process is another server process on f's database.
func (f *solo) process(id string, provider llm.Provider) *narrative.Service {
	if provider == nil {
		provider = llm.NewOpenAI(nil)
	}
	return narrative.New(f.store, narrative.Options{Provider: provider, Secret: testSecret, ProcessID: id})
}

// setModel points the user's narrator at baseURL.
func (f *solo) setModel(baseURL string) {
	f.t.Helper()
	_, err := f.svc.PutSettings(context.Background(), f.user, narrative.ProviderSettingsInput{BaseURL: baseURL, Model: "fake",
		ContextBudget: 4000, MaxOutputTokens: 400, Temperature: 0.8, TopP: 0.95})
	must(f.t, err)
}

// A turn that streams for longer than the stale window keeps its claim:
// its heartbeat renews it, so another process can neither start a turn nor
// change the tree until it ends.
func TestHeartbeatKeepsALongTurnClaimed(t *testing.T) {
	f := newSolo(t)
	// Generous against a loaded machine: a heartbeat would have to be late
	// by most of a second to let the claim lapse.
	f.svc.SetStaleTurn(time.Second)
	f.svc.SetTurnHeartbeat(100 * time.Millisecond)
	other := f.process("other", nil)
	other.SetStaleTurn(time.Second)
	adv := f.adventure().Adventure.ID
	f.fake.Push(llmtest.Reply{Chunks: []string{"The ", "torch ", "gutters ", "and ", "dies."}, Delay: 500 * time.Millisecond, FinishReason: "stop"})
	turn, err := f.svc.StartTurn(context.Background(), f.user, adv, narrative.TurnInput{Mode: narrative.ModeDo, Text: "wait"})
	must(t, err)
	done := make(chan []narrative.Event, 1)
	go func() { done <- run(t, turn, nil) }()
	time.Sleep(1500 * time.Millisecond) // past the stale window, before the reply ends
	if _, err := other.StartTurn(context.Background(), f.user, adv, narrative.TurnInput{Mode: narrative.ModeDo, Text: "barge in"}); apperr.CodeOf(err) != apperr.TurnInProgress {
		t.Fatalf("another process started a turn over a live one: %v", err)
	}
	if _, err := other.Undo(context.Background(), f.user, adv); apperr.CodeOf(err) != apperr.TurnInProgress {
		t.Fatalf("another process undid during a live turn: %v", err)
	}
	events := <-done
	if last := events[len(events)-1]; last.Type != narrative.EventDone {
		t.Fatalf("the long turn ended with %+v", last)
	}
	if p, err := other.GetAdventure(context.Background(), f.user, adv); err != nil || p.Adventure.TurnInProgress {
		t.Fatalf("after the turn: %v, in progress %v", err, p.Adventure.TurnInProgress)
	}
}

// A claim whose process died (no more heartbeats) blocks the adventure only
// until the stale window passes; a process starting meanwhile does not free
// it, since it cannot tell a dead holder from a live one yet.
func TestDeadProcessClaimGoesStale(t *testing.T) {
	f := newSolo(t)
	const stale = time.Second
	f.svc.SetStaleTurn(stale)
	adv := f.adventure().Adventure.ID
	crashed, err := f.svc.StartTurn(context.Background(), f.user, adv, narrative.TurnInput{Mode: narrative.ModeDo, Text: "fall"})
	must(t, err)
	crashed.Crash()
	died := time.Now()

	other := f.process("other", nil)
	other.SetStaleTurn(stale)
	if n, err := other.RecoverTurns(context.Background()); err != nil || n != 0 {
		t.Fatalf("a starting process freed %d claims (%v); the holder may still be alive", n, err)
	}
	if _, err := other.StartTurn(context.Background(), f.user, adv, narrative.TurnInput{Mode: narrative.ModeDo, Text: "too soon"}); apperr.CodeOf(err) != apperr.TurnInProgress {
		t.Fatalf("a fresh claim of another process was taken: %v", err)
	}
	for {
		turn, err := other.StartTurn(context.Background(), f.user, adv, narrative.TurnInput{Mode: narrative.ModeDo, Text: "get up"})
		if err == nil {
			if since := time.Since(died); since < stale/2 {
				t.Fatalf("the dead claim was free after %v, before the stale window", since)
			}
			f.reply("You stand.", "")
			run(t, turn, nil)
			break
		}
		if apperr.CodeOf(err) != apperr.TurnInProgress {
			t.Fatal(err)
		}
		if time.Since(died) > 10*time.Second {
			t.Fatal("the dead process's claim never went stale")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// A restarted process frees the claims its previous run left at once (they
// carry its process id), so Undo and the next turn work immediately, while
// a live claim of another process on the same database stays.
func TestRestartFreesItsOwnClaimsAtOnce(t *testing.T) {
	f := newSolo(t)
	advA := f.adventure().Adventure.ID
	advB := f.adventure().Adventure.ID
	first := f.process("proc-a", nil)
	crashed, err := first.StartTurn(context.Background(), f.user, advA, narrative.TurnInput{Mode: narrative.ModeDo, Text: "run"})
	must(t, err)
	crashed.Crash()
	live, err := f.process("proc-b", nil).StartTurn(context.Background(), f.user, advB, narrative.TurnInput{Mode: narrative.ModeDo, Text: "hide"})
	must(t, err)
	defer live.Abandon()

	restarted := f.process("proc-a", nil)
	if n, err := restarted.RecoverTurns(context.Background()); err != nil || n != 1 {
		t.Fatalf("RecoverTurns freed %d claims (%v), want the 1 of the previous run", n, err)
	}
	page, err := restarted.Undo(context.Background(), f.user, advA)
	if err != nil {
		t.Fatalf("undo right after the restart: %v", err)
	}
	if got := last(page); got.Kind != "opening" {
		t.Fatalf("undo left the tip at %+v", got)
	}
	f.reply("You run.", "")
	turn, err := restarted.StartTurn(context.Background(), f.user, advA, narrative.TurnInput{Mode: narrative.ModeDo, Text: "run"})
	if events := run(t, turn, err); events[len(events)-1].Type != narrative.EventDone {
		t.Fatalf("the next turn after the restart: %+v", events[len(events)-1])
	}
	if _, err := restarted.StartTurn(context.Background(), f.user, advB, narrative.TurnInput{Mode: narrative.ModeDo, Text: "seek"}); apperr.CodeOf(err) != apperr.TurnInProgress {
		t.Fatalf("the restart freed another process's live claim: %v", err)
	}
}

// Shutdown ends a turn that waits on a hanging model: an error event
// turn_interrupted, the player's action kept, the state of before, the
// claim free.
func TestShutdownInterruptsTheTurn(t *testing.T) {
	f := newSolo(t)
	adv := f.adventure().Adventure.ID
	f.play(adv, "look", "Dark.", `{"player.hp": -10}`)
	f.setModel(llmtest.Hang(t, llmtest.StallAfterHeaders))
	turn, err := f.svc.StartTurn(context.Background(), f.user, adv, narrative.TurnInput{Mode: narrative.ModeDo, Text: "wait"})
	must(t, err)
	started := make(chan struct{})
	done := make(chan []narrative.Event, 1)
	go func() {
		var events []narrative.Event
		turn.Run(context.Background(), func(ev narrative.Event) {
			events = append(events, ev)
			if ev.Type == narrative.EventPlayer {
				close(started)
			}
		})
		done <- events
	}()
	<-started
	time.Sleep(100 * time.Millisecond) // the request reaches the model
	f.svc.Shutdown()
	var events []narrative.Event
	select {
	case events = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the turn did not end after Shutdown")
	}
	if got := events[len(events)-1]; got.Type != narrative.EventError || got.Code != string(apperr.TurnInterrupted) {
		t.Fatalf("last event %+v, want error turn_interrupted", got)
	}
	p := f.page(adv)
	if tip := last(p); tip.Kind != "player" || tip.Text != "wait" || hp(p) != 90 || p.Adventure.TurnInProgress {
		t.Fatalf("after the interrupted turn: tip %+v, hp %v, in progress %v", tip, hp(p), p.Adventure.TurnInProgress)
	}
}

// Model faults end a retry with their own code and leave the previous take
// in charge: each time limit, a connection reset mid-stream, an error event
// mid-stream and an error status.
func TestModelFaultsKeepThePreviousState(t *testing.T) {
	limits := llm.Timeouts{Connect: 300 * time.Millisecond, Headers: 400 * time.Millisecond, Idle: 500 * time.Millisecond, Total: 1500 * time.Millisecond}
	// The total limit's own case: chunks far inside a long idle limit, so
	// only the total can end it, however late a busy machine delivers them
	// (250 ms chunks against a 500 ms idle limit once ended it as idle).
	totalOnly := limits
	totalOnly.Idle = 10 * time.Second
	cases := []struct {
		name   string
		url    func(t *testing.T) string
		code   apperr.Code
		limits *llm.Timeouts
	}{
		{"ConnectTimeout", func(t *testing.T) string { return llmtest.Silent(t) }, apperr.ProviderConnectTimeout, nil},
		{"HeadersTimeout", func(t *testing.T) string { return llmtest.Hang(t, llmtest.StallBeforeHeaders) }, apperr.ProviderHeadersTimeout, nil},
		{"IdleTimeoutAfterHeaders", func(t *testing.T) string { return llmtest.Hang(t, llmtest.StallAfterHeaders) }, apperr.ProviderIdleTimeout, nil},
		{"IdleTimeoutMidReply", func(t *testing.T) string { return llmtest.Hang(t, llmtest.StallAfterChunk) }, apperr.ProviderIdleTimeout, nil},
		{"TotalTimeout", func(t *testing.T) string {
			return llmtest.Repeat(t, llmtest.Reply{Chunks: slices.Repeat([]string{"a "}, 40), Delay: 100 * time.Millisecond, FinishReason: "stop"})
		}, apperr.ProviderTotalTimeout, &totalOnly},
		{"ResetMidStream", func(t *testing.T) string { return llmtest.Reset(t, "The door ", "opens") }, apperr.ProviderUnavailable, nil},
		{"ErrorEventMidStream", func(t *testing.T) string {
			return llmtest.Repeat(t, llmtest.Reply{Chunks: []string{"The door "}, MidStreamError: true})
		}, apperr.ProviderUnavailable, nil},
		{"ErrorStatus", func(t *testing.T) string { return llmtest.Repeat(t, llmtest.Reply{Status: 502}) }, apperr.ProviderUnavailable, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newSolo(t)
			adv := f.adventure().Adventure.ID
			f.play(adv, "look", "The hall is dark.", `{"player.hp": -10}`)
			before := f.page(adv)
			f.setModel(tc.url(t))
			timeouts := limits
			if tc.limits != nil {
				timeouts = *tc.limits
			}
			svc := f.process("faults", llm.NewOpenAIWithTimeouts(nil, timeouts))
			start := time.Now()
			turn, err := svc.StartRetry(context.Background(), f.user, adv)
			events := run(t, turn, err)
			if took := time.Since(start); took > 20*time.Second {
				t.Fatalf("the turn took %v", took)
			}
			if got := events[len(events)-1]; got.Type != narrative.EventError || got.Code != string(tc.code) {
				t.Fatalf("last event %+v, want error %s", got, tc.code)
			}
			after := f.page(adv)
			if last(after).ID != last(before).ID || last(after).Takes.Count != 1 || hp(after) != hp(before) || after.Adventure.TurnInProgress {
				t.Fatalf("after the fault: tip %q (%d takes), hp %v, in progress %v", last(after).Text, last(after).Takes.Count, hp(after), after.Adventure.TurnInProgress)
			}
		})
	}
}
