package narrative_test

import (
	"bytes"
	"compress/zlib"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/adventure-table/adventure-table/gameplay/llm"
	"github.com/adventure-table/adventure-table/gameplay/narrative"
	"github.com/adventure-table/adventure-table/models"
)

// storedSnapshot is a turn's snapshot as stored: its format byte and what
// it is a delta against.
func storedSnapshot(t testing.TB, store *models.Store, actionID int64) (format byte, base *int64) {
	t.Helper()
	links, err := store.SnapshotChain(context.Background(), actionID)
	must(t, err)
	if len(links[0].PromptSnapshot) == 0 {
		return 0, links[0].SnapshotBaseID
	}
	return links[0].PromptSnapshot[0], links[0].SnapshotBaseID
}

// coldInsights reads a turn's Insights from another process: nothing
// remembered, every chain decoded from the rows.
func coldInsights(t testing.TB, f *solo, actionID int64) narrative.Insights {
	t.Helper()
	other := narrative.New(f.store, narrative.Options{Provider: llm.NewOpenAI(nil), Secret: testSecret})
	ins, err := other.GetInsights(context.Background(), f.user, actionID)
	must(t, err)
	return ins
}

// mentions says whether a snapshot's prompt holds text.
func mentions(ins narrative.Insights, text string) bool {
	for _, m := range ins.Messages {
		if strings.Contains(m.Content, text) {
			return true
		}
	}
	return false
}

// A turn's snapshot is a delta against the narration before it on its
// line, a keyframe every 16, and every one reads back exactly (from
// another process too) what the turn sent.
func TestSnapshotsAreDeltasAlongTheLine(t *testing.T) {
	f := newSolo(t)
	adv := f.adventure().Adventure.ID
	prose := naturalProse(t)
	var narrations []int64
	for i := range 40 {
		done := f.play(adv, "I read on.", prose[i], "")
		narrations = append(narrations, done.Action.ID)
	}
	keyframes := 0
	for i, id := range narrations {
		format, base := storedSnapshot(t, f.store, id)
		switch format {
		case 0x01:
			keyframes++
			if base != nil {
				t.Errorf("turn %d: a keyframe with base %d", i, *base)
			}
		case 0x02:
			if i == 0 || base == nil || *base != narrations[i-1] {
				t.Errorf("turn %d: a delta against %v, want the narration before it (%d)", i, base, narrations[max(i-1, 0)])
			}
		default:
			t.Errorf("turn %d: format %#x", i, format)
		}
		warm, err := f.svc.GetInsights(context.Background(), f.user, id)
		must(t, err)
		if cold := coldInsights(t, f, id); !reflect.DeepEqual(warm, cold) || len(cold.Messages) == 0 {
			t.Fatalf("turn %d: Insights differ between the writer and a cold read", i)
		}
		if mentions(warm, prose[i]) || i > 0 && !mentions(warm, prose[i-1]) {
			t.Fatalf("turn %d: the snapshot is not the prompt this turn sent", i)
		}
	}
	// The first narration, then one every 16 turns.
	if keyframes != 3 {
		t.Errorf("%d keyframes in 40 turns, want 3 (one every 16)", keyframes)
	}
}

// A retry's snapshot leans on the narration before the player's action,
// never on the sibling take it replaces; a fork's first turn on the
// narration it forked at.
func TestRetryAndForkSnapshotsStartFromTheirParent(t *testing.T) {
	f := newSolo(t)
	adv := f.adventure().Adventure.ID
	first := f.play(adv, "I wait.", "The torch burns low.", "")
	second := f.play(adv, "I listen.", "Water drips somewhere.", "")
	again := f.retry(adv, "A rat squeaks.", "")
	_, base := storedSnapshot(t, f.store, again.Action.ID)
	if base == nil || *base != first.Action.ID {
		t.Fatalf("the retry's snapshot leans on %v, want the narration before the action (%d, not the take %d)", base, first.Action.ID, second.Action.ID)
	}
	_, err := f.svc.Fork(context.Background(), f.user, adv, first.Action.ID)
	must(t, err)
	forked := f.play(adv, "I turn back.", "The corridor is dark.", "")
	if _, base := storedSnapshot(t, f.store, forked.Action.ID); base == nil || *base != first.Action.ID {
		t.Fatalf("the fork's first snapshot leans on %v, want %d", base, first.Action.ID)
	}
	if ins := coldInsights(t, f, forked.Action.ID); !mentions(ins, "I turn back.") || mentions(ins, "Water drips") {
		t.Fatalf("the fork's Insights: %+v", ins.Messages)
	}
}

// Deleting a turn whose snapshot a later one leans on stores the later one
// as a keyframe first, in the same transaction: its Insights stay.
func TestDeletingATurnKeepsLaterInsights(t *testing.T) {
	f := newSolo(t)
	adv := f.adventure().Adventure.ID
	var ids []int64
	for _, text := range []string{"One.", "Two.", "Three.", "Four."} {
		ids = append(ids, f.play(adv, "Go on.", text, "").Action.ID)
	}
	before := coldInsights(t, f, ids[2])
	// A failure after the rewrite leaves everything as it was.
	f.svc.SetFailpoint(func(point string) error {
		if point == "remove.after_release" {
			return errors.New("injected")
		}
		return nil
	})
	if _, err := f.svc.DeleteAction(context.Background(), f.user, ids[1]); err == nil {
		t.Fatal("the injected failure did not stop the delete")
	}
	if format, base := storedSnapshot(t, f.store, ids[2]); format != 0x02 || base == nil || *base != ids[1] {
		t.Fatalf("after a failed delete turn 3's snapshot is %#x against %v, want the delta it was", format, base)
	}
	f.svc.SetFailpoint(nil)
	_, err := f.svc.DeleteAction(context.Background(), f.user, ids[1])
	must(t, err)
	if format, base := storedSnapshot(t, f.store, ids[2]); format != 0x01 || base != nil {
		t.Fatalf("turn 3's snapshot after its base went: %#x against %v, want a keyframe", format, base)
	}
	if after := coldInsights(t, f, ids[2]); !reflect.DeepEqual(before, after) {
		t.Fatal("turn 3's Insights changed when the turn before it was deleted")
	}
	if _, base := storedSnapshot(t, f.store, ids[3]); base == nil || *base != ids[2] {
		t.Fatalf("turn 4 still leans on turn 3: %v", base)
	}
	if ins := coldInsights(t, f, ids[3]); len(ins.Messages) == 0 || ins.Expired {
		t.Fatal("turn 4's Insights are gone")
	}
}

// Retention drops old snapshots and keeps the kept ones readable, though
// they were deltas against what it dropped.
func TestRetentionKeepsKeptSnapshotsReadable(t *testing.T) {
	f, _, adv := newBank(t)
	f.svc = narrative.New(f.store, narrative.Options{Provider: llm.NewOpenAI(nil), Secret: testSecret, SnapshotKeep: 3})
	var ids []int64
	for i := range 6 {
		ids = append(ids, f.do(adv, fmt.Sprintf("I walk towards landmark%d", i)).Action.ID)
	}
	f.drain()
	for i, id := range ids {
		ins := coldInsights(t, f, id)
		if kept := i >= 3; ins.Expired == kept || kept && !mentions(ins, fmt.Sprintf("landmark%d", i)) {
			t.Errorf("turn %d: expired %v, want %v", i+1, ins.Expired, !kept)
		}
	}
	if format, base := storedSnapshot(t, f.store, ids[3]); format != 0x01 || base != nil {
		t.Errorf("the oldest kept snapshot is %#x against %v, want a keyframe", format, base)
	}
}

// Snapshots written before version 37 (zlib on their own) still read.
func TestOldZlibSnapshotsStillRead(t *testing.T) {
	f := newSolo(t)
	adv := f.adventure().Adventure.ID
	id := f.play(adv, "Go on.", "The door opens.", "").Action.ID
	want := coldInsights(t, f, id)
	raw, err := json.Marshal(map[string]any{"messages": want.Messages, "sections": want.Sections, "cards": want.Cards,
		"budget": want.Budget, "total_tokens": want.TotalTokens, "history_turns": want.HistoryTurns, "memories": want.Memories})
	must(t, err)
	var z bytes.Buffer
	w := zlib.NewWriter(&z)
	_, _ = w.Write(raw)
	must(t, w.Close())
	must(t, f.store.SetSnapshot(context.Background(), id, z.Bytes(), nil))
	if got := coldInsights(t, f, id); !reflect.DeepEqual(got, want) {
		t.Fatalf("an old zlib snapshot reads %+v, want %+v", got, want)
	}
}

// snapshots recompress converts old snapshots to chains a batch per
// transaction: a failure midway keeps the converted batches and leaves the
// rest old, every Insights reads the same throughout, and a rerun finishes.
func TestRecompressSnapshots(t *testing.T) {
	f := newSolo(t)
	adv := f.adventure().Adventure.ID
	prose := naturalProse(t)
	var ids []int64
	for i := range 60 {
		ids = append(ids, f.play(adv, "I read on.", prose[i], "").Action.ID)
	}
	f.svc.SetRecompressBatch(25)
	want := map[int64]narrative.Insights{}
	for _, id := range ids {
		want[id] = coldInsights(t, f, id)
	}
	if n := f.svc.MakeSnapshotsOld(t, adv); n != len(ids) {
		t.Fatalf("%d old snapshots, want %d", n, len(ids))
	}
	same := func(when string) {
		t.Helper()
		for i, id := range ids {
			if got := coldInsights(t, f, id); !reflect.DeepEqual(got, want[id]) {
				t.Fatalf("%s: turn %d reads differently", when, i+1)
			}
		}
	}
	same("old")
	batches := 0
	f.svc.SetFailpoint(func(point string) error {
		if point == "recompress.after_batch" {
			if batches++; batches == 2 {
				return errors.New("injected")
			}
		}
		return nil
	})
	if _, err := f.svc.RecompressSnapshots(context.Background(), nil); err == nil {
		t.Fatal("the injected failure did not stop the run")
	}
	old := 0
	for _, id := range ids {
		if format, _ := storedSnapshot(t, f.store, id); format == 0x78 {
			old++
		}
	}
	if old != len(ids)-25 {
		t.Fatalf("%d old after a run that failed in its second batch, want %d (the first batch of 25 kept)", old, len(ids)-25)
	}
	same("after a failed run")
	f.svc.SetFailpoint(nil)
	var seen []narrative.RecompressProgress
	rep, err := f.svc.RecompressSnapshots(context.Background(), func(p narrative.RecompressProgress) { seen = append(seen, p) })
	must(t, err)
	if rep.Snapshots != 35 || rep.Adventures != 1 || len(seen) != 2 || seen[1].Done != 35 || seen[1].Total != 35 {
		t.Fatalf("the rerun: %+v, progress %+v", rep, seen)
	}
	same("converted")
	deltas := 0
	for _, id := range ids {
		switch format, _ := storedSnapshot(t, f.store, id); format {
		case 0x02:
			deltas++
		case 0x01:
		default:
			t.Fatalf("turn %d is still %#x", id, format)
		}
	}
	// The first of the rerun starts a keyframe (its base was converted by
	// the failed run, which this run does not remember), as does every 16th.
	if deltas < len(ids)*13/16 {
		t.Errorf("%d of %d snapshots are deltas", deltas, len(ids))
	}
	if rep, err := f.svc.RecompressSnapshots(context.Background(), nil); err != nil || rep.Snapshots != 0 {
		t.Errorf("a third run: %+v %v", rep, err)
	}
}
