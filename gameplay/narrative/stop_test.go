package narrative_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/adventure-table/adventure-table/gameplay/llm/llmtest"
	"github.com/adventure-table/adventure-table/gameplay/narrative"
	"github.com/adventure-table/adventure-table/models"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// startStreaming starts a turn and runs it on its own goroutine; chunks
// receives each chunk's text as it is streamed and events the whole list
// once the turn ends.
func startStreaming(t *testing.T, turn *narrative.Turn, err error) (chunks chan string, events chan []narrative.Event) {
	t.Helper()
	must(t, err)
	chunks, events = make(chan string, 64), make(chan []narrative.Event, 1)
	go func() {
		var all []narrative.Event
		turn.Run(context.Background(), func(ev narrative.Event) {
			all = append(all, ev)
			if ev.Type == narrative.EventChunk {
				chunks <- ev.Text
			}
		})
		events <- all
	}()
	return chunks, events
}

func waitEvents(t *testing.T, events chan []narrative.Event) []narrative.Event {
	t.Helper()
	select {
	case evs := <-events:
		return evs
	case <-time.After(15 * time.Second):
		t.Fatal("the turn did not end after Stop")
		return nil
	}
}

func chunkText(events []narrative.Event) string {
	var sb strings.Builder
	for _, ev := range events {
		if ev.Type == narrative.EventChunk {
			sb.WriteString(ev.Text)
		}
	}
	return sb.String()
}

// Stop while the narrator streams keeps the text streamed so far as one
// take marked stopped: the stream ends with stopped (player) and done, the
// world state is the turn's own (the cut-off state block changes nothing),
// the claim is free, a second stop changes nothing, and Retry and Continue
// go on from it as from any take.
func TestStopKeepsThePartialNarration(t *testing.T) {
	f := newSolo(t)
	ctx := context.Background()
	adv := f.adventure().Adventure.ID
	f.play(adv, "look", "Dark.", `{"player.hp": -10}`)
	f.fake.Push(llmtest.Reply{Chunks: []string{"The door ", "creaks ", "open, ", "and ", "a ", "cold ", "wind ", "blows.", "\n\n```state\n{\"player.hp\": -50}\n```"},
		Delay: 150 * time.Millisecond, FinishReason: "stop"})
	turn, err := f.svc.StartTurn(ctx, f.user, adv, narrative.TurnInput{Mode: narrative.ModeDo, Text: "push the door"})
	chunks, events := startStreaming(t, turn, err)
	<-chunks
	<-chunks
	res, err := f.svc.StopTurn(ctx, f.user, adv)
	must(t, err)
	if !res.Stopped {
		t.Fatal("got Stopped false for a running narration, want true")
	}
	again, err := f.svc.StopTurn(ctx, f.user, adv)
	must(t, err)
	if again.Stopped {
		t.Fatal("a second stop reported Stopped true")
	}
	evs := waitEvents(t, events)
	n := len(evs)
	if n < 2 || evs[n-2].Type != narrative.EventStopped || evs[n-2].Reason != "player" || evs[n-1].Type != narrative.EventDone {
		t.Fatalf("events %s, want ... stopped(player), done", types(evs))
	}
	streamed := strings.TrimSpace(chunkText(evs))
	if streamed == "" || strings.Contains(streamed, "blows") {
		t.Fatalf("streamed %q: the stop did not cut the reply", streamed)
	}
	done := evs[n-1].Action
	if done == nil || !done.Stopped || done.Text != streamed || done.Truncated {
		t.Fatalf("done action %+v, want a stopped take of %q", done, streamed)
	}
	p := f.page(adv)
	tip := last(p)
	if tip.ID != done.ID || !tip.Stopped || tip.Text != streamed || tip.Takes.Count != 1 {
		t.Fatalf("tip %+v, want the one stopped take of %q", tip, streamed)
	}
	if prev := p.Story[len(p.Story)-2]; prev.Kind != "player" || prev.Text != "push the door" {
		t.Fatalf("before the stopped take: %+v", prev)
	}
	if hp(p) != 90 || p.Adventure.TurnInProgress {
		t.Fatalf("after the stop: hp %v (want 90), in progress %v", hp(p), p.Adventure.TurnInProgress)
	}
	// Nothing runs now: a stop is harmless.
	if res, err := f.svc.StopTurn(ctx, f.user, adv); err != nil || res.Stopped {
		t.Fatalf("stop after the turn ended: %+v, %v", res, err)
	}
	// Continue narrates on from the stopped take.
	f.reply("The wind dies down.", "")
	turn, err = f.svc.StartTurn(ctx, f.user, adv, narrative.TurnInput{Mode: narrative.ModeContinue})
	if evs := run(t, turn, err); evs[len(evs)-1].Type != narrative.EventDone || evs[len(evs)-1].Action.Stopped {
		t.Fatalf("continue after a stop: %s", types(evs))
	}
	_, err = f.svc.Undo(ctx, f.user, adv)
	must(t, err)
	// Retry writes a second take beside the stopped one.
	if ev := f.retry(adv, "The door holds.", ""); ev.Type != narrative.EventDone || ev.Action.Takes.Count != 2 || ev.Action.Stopped {
		t.Fatalf("retry of a stopped take: %+v", ev)
	}
	p, err = f.svc.SelectTake(ctx, f.user, adv, done.ID)
	must(t, err)
	if tip := last(p); tip.ID != done.ID || !tip.Stopped || tip.Text != streamed {
		t.Fatalf("paging back to the stopped take: %+v", tip)
	}
}

// Stop before the narrator wrote any story stores nothing more: the
// player's action waits for Retry, the stream ends with stopped and a done
// without an action, and the claim is free.
func TestStopBeforeAnyText(t *testing.T) {
	f := newSolo(t)
	ctx := context.Background()
	adv := f.adventure().Adventure.ID
	f.setModel(llmtest.Hang(t, llmtest.StallAfterHeaders))
	turn, err := f.svc.StartTurn(ctx, f.user, adv, narrative.TurnInput{Mode: narrative.ModeDo, Text: "wait"})
	must(t, err)
	// The stop may come before the turn runs: it is kept until it does.
	res, err := f.svc.StopTurn(ctx, f.user, adv)
	must(t, err)
	if !res.Stopped {
		t.Fatal("got Stopped false for a claimed turn, want true")
	}
	_, events := startStreaming(t, turn, nil)
	evs := waitEvents(t, events)
	if got := types(evs); got != "player,stopped,done" {
		t.Fatalf("events %s, want player,stopped,done", got)
	}
	if done := evs[2]; done.Action != nil || done.Adventure == nil || done.Adventure.TurnInProgress {
		t.Fatalf("done %+v, want no action and a free adventure", done)
	}
	p := f.page(adv)
	if tip := last(p); tip.Kind != "player" || tip.Text != "wait" || len(p.Story) != 2 {
		t.Fatalf("after a stop before any text: %q", texts(p))
	}
	f.setModel(f.fake.URL())
	if ev := f.retry(adv, "Time passes.", ""); ev.Type != narrative.EventDone || ev.Action.Text != "Time passes." {
		t.Fatalf("retry after the stop: %+v", ev)
	}
}

// Only the adventure's owner can stop its turn.
func TestStopIsTheOwners(t *testing.T) {
	f := newSolo(t)
	adv := f.adventure().Adventure.ID
	other := newSoloUser(t, f)
	if _, err := f.svc.StopTurn(context.Background(), other, adv); apperr.CodeOf(err) != apperr.NotFound {
		t.Fatalf("another user's stop: %v, want not_found", err)
	}
}

// A stopped take is saved in the turn's one transaction: a failure inside
// it (as a crash would) leaves no half of it, the player's action waits for
// Retry, and the adventure is free.
func TestStoppedSaveIsAtomic(t *testing.T) {
	f := newSolo(t)
	ctx := context.Background()
	adv := f.adventure().Adventure.ID
	f.svc.SetFailpoint(func(p string) error {
		if p == "turn.after_node" {
			return errors.New("injected")
		}
		return nil
	})
	f.fake.Push(llmtest.Reply{Chunks: []string{"The door ", "creaks ", "open."}, Delay: 150 * time.Millisecond, FinishReason: "stop"})
	turn, err := f.svc.StartTurn(ctx, f.user, adv, narrative.TurnInput{Mode: narrative.ModeDo, Text: "push the door"})
	chunks, events := startStreaming(t, turn, err)
	<-chunks
	if _, err := f.svc.StopTurn(ctx, f.user, adv); err != nil {
		t.Fatal(err)
	}
	evs := waitEvents(t, events)
	if got := evs[len(evs)-1]; got.Type != narrative.EventError {
		t.Fatalf("last event %+v, want the save's error", got)
	}
	f.svc.SetFailpoint(nil)
	p := f.page(adv)
	if tip := last(p); tip.Kind != "player" || len(p.Story) != 2 || p.Adventure.TurnInProgress {
		t.Fatalf("after a failed stopped save: %q, in progress %v", texts(p), p.Adventure.TurnInProgress)
	}
	if ev := f.retry(adv, "The door opens.", ""); ev.Type != narrative.EventDone || ev.Action.Takes.Count != 1 {
		t.Fatalf("retry after the failed save: %+v", ev)
	}
}

// A Stop reaches a turn streaming in another server process, through the
// database: the process serving the Stop answers Stopped true (false for a
// second stop), and the process streaming the turn ends it with the partial
// take, as for a stop of its own. On PostgreSQL the NOTIFY carries it at
// once (the streaming process's heartbeat is set far beyond the test);
// on SQLite, one process in production, the same request is read by the
// heartbeat.
func TestStopReachesATurnInAnotherProcess(t *testing.T) {
	f := newSolo(t)
	ctx := context.Background()
	adv := f.adventure().Adventure.ID
	streaming := f.process("streamer", nil)
	serving := f.process("server2", nil)
	if f.store.Dialect() == models.Postgres {
		streaming.SetTurnHeartbeat(time.Minute)
		listenCtx, cancel := context.WithCancel(ctx)
		t.Cleanup(cancel)
		must(t, streaming.FollowStops(listenCtx, func(err error) { t.Errorf("listen: %v", err) }))
	} else {
		streaming.SetTurnHeartbeat(50 * time.Millisecond)
	}
	f.fake.Push(llmtest.Reply{Chunks: []string{"The door ", "creaks ", "open, ", "and ", "a ", "cold ", "wind ", "blows ", "through ", "the ", "hall."},
		Delay: 200 * time.Millisecond, FinishReason: "stop"})
	turn, err := streaming.StartTurn(ctx, f.user, adv, narrative.TurnInput{Mode: narrative.ModeDo, Text: "push the door"})
	chunks, events := startStreaming(t, turn, err)
	<-chunks
	<-chunks
	res, err := serving.StopTurn(ctx, f.user, adv)
	must(t, err)
	if !res.Stopped {
		t.Fatal("the stop of a turn streaming in another process answered Stopped false")
	}
	if again, err := serving.StopTurn(ctx, f.user, adv); err != nil || again.Stopped {
		t.Fatalf("a second stop: %+v, %v; want Stopped false", again, err)
	}
	// (a stop that did not reach it would let the reply stream to its end:
	// done without stopped, the whole text)
	evs := waitEvents(t, events)
	n := len(evs)
	if n < 2 || evs[n-2].Type != narrative.EventStopped || evs[n-2].Reason != "player" || evs[n-1].Type != narrative.EventDone {
		t.Fatalf("events %s, want ... stopped(player), done", types(evs))
	}
	streamed := strings.TrimSpace(chunkText(evs))
	if done := evs[n-1].Action; done == nil || !done.Stopped || done.Text != streamed || strings.Contains(streamed, "hall") {
		t.Fatalf("done action %+v, want a stopped take of the text before the stop", done)
	}
	// The claim is free, and its stop request went with it.
	if p := f.page(adv); p.Adventure.TurnInProgress || !last(p).Stopped {
		t.Fatalf("after the stop: in progress %v, tip %+v", p.Adventure.TurnInProgress, last(p))
	}
	if res, err := serving.StopTurn(ctx, f.user, adv); err != nil || res.Stopped {
		t.Fatalf("a stop with no turn running: %+v, %v", res, err)
	}
	// The next turn, in either process, is not stopped by the old request.
	f.fake.Push(llmtest.Reply{Chunks: []string{"The wind ", "dies."}, Delay: 100 * time.Millisecond, FinishReason: "stop"})
	turn, err = streaming.StartTurn(ctx, f.user, adv, narrative.TurnInput{Mode: narrative.ModeContinue})
	if evs := run(t, turn, err); evs[len(evs)-1].Type != narrative.EventDone || evs[len(evs)-1].Action.Stopped {
		t.Fatalf("the next turn: %s", types(evs))
	}
}
