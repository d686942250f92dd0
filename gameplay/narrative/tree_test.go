package narrative_test

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/adventure-table/adventure-table/gameplay/narrative"
	"github.com/adventure-table/adventure-table/models"
	"github.com/adventure-table/adventure-table/models/apperr"
)

func last(p narrative.AdventurePage) narrative.ActionView { return p.Story[len(p.Story)-1] }

// The seed's example: three takes of C under one parent; D takes under C1;
// writing under C2 (not live, C1 has a continuation) forks a branch that
// borrows everything above. Pagers group by parent, not by coordinate.
func TestTakesGroupedByParent(t *testing.T) {
	f := newSolo(t)
	ctx := context.Background()
	adv := f.adventure().Adventure.ID
	f.play(adv, "walk to the door", "B: the door looms.", "")
	f.play(adv, "knock", "C: nobody answers.", "")
	f.retry(adv, "C1: a voice answers.", "")
	f.retry(adv, "C2: the door swings open.", "")
	p := f.page(adv)
	c2 := last(p)
	if c2.Text != "C2: the door swings open." || c2.Takes.Index != 3 || c2.Takes.Count != 3 {
		t.Fatalf("after two retries the tip is %q %d/%d, want C2 3/3", c2.Text, c2.Takes.Index, c2.Takes.Count)
	}
	cID, c1ID := c2.Takes.IDs[0], c2.Takes.IDs[1]

	// Step the pager back to C1 (a sole tip: the takes swap places).
	p, err := f.svc.SelectTake(ctx, f.user, adv, c1ID)
	must(t, err)
	if got := last(p); got.Text != "C1: a voice answers." || got.Takes.Index != 2 || got.Takes.Count != 3 {
		t.Fatalf("pager on C1: %q %d/%d", got.Text, got.Takes.Index, got.Takes.Count)
	}
	// D1 D2 D3 under C1.
	f.play(adv, "answer the voice", "D1", "")
	f.retry(adv, "D2", "")
	f.retry(adv, "D3", "")
	p = f.page(adv)
	if got := last(p); got.Takes.Count != 3 || got.Takes.Index != 3 {
		t.Fatalf("D pager %d/%d, want 3/3", got.Takes.Index, got.Takes.Count)
	}
	mainBranch := p.Adventure.HeadBranchID

	// Stand on C2: C1 has a continuation, so C2 moves to a new branch.
	p, err = f.svc.SelectTake(ctx, f.user, adv, c2.ID)
	must(t, err)
	if p.Adventure.HeadBranchID == mainBranch {
		t.Fatal("standing on C2 under a continued C1 did not fork")
	}
	got := last(p)
	if got.ID != c2.ID || got.Takes.Index != 3 || got.Takes.Count != 3 {
		t.Fatalf("C2 on its branch: id %d %d/%d, want %d 3/3", got.ID, got.Takes.Index, got.Takes.Count, c2.ID)
	}
	// The fork borrows every turn above it: same ids, no copies.
	if want := []string{"You stand before the crypt door.", "walk to the door", "B: the door looms.", "knock", "C2: the door swings open."}; !slices.Equal(texts(p), want) {
		t.Fatalf("forked line = %q", texts(p))
	}
	f.play(adv, "step inside", "D1'", "")
	f.retry(adv, "D2'", "")
	if got := last(f.page(adv)); got.Takes.Count != 2 || got.Takes.Index != 2 {
		t.Fatalf("standing on the C2 path the D pager reads %d/%d, want 2/2", got.Takes.Index, got.Takes.Count)
	}
	// C itself still reads 1/3 once stood on (it forks onto its own branch).
	p, err = f.svc.SelectTake(ctx, f.user, adv, cID)
	must(t, err)
	if got := last(p); got.ID != cID || got.Takes.Index != 1 || got.Takes.Count != 3 {
		t.Fatalf("C reads %d/%d, want 1/3", got.Takes.Index, got.Takes.Count)
	}
	// Back to the main branch: its line and pagers are intact.
	p, err = f.svc.SwitchBranch(ctx, f.user, adv, mainBranch)
	must(t, err)
	if got := last(p); got.Text != "D3" || got.Takes.Count != 3 {
		t.Fatalf("main branch tip %q %d/%d", got.Text, got.Takes.Index, got.Takes.Count)
	}
	br, err := f.svc.ListBranches(ctx, f.user, adv)
	must(t, err)
	if len(br.Branches) != 3 {
		t.Fatalf("%d branches, want 3 (main, C2's, C's)", len(br.Branches))
	}
	// The names the server gave travel as codes the web app translates; a
	// renamed branch keeps its literal name and no code.
	for i, b := range br.Branches {
		wantCode, wantN := "branch.numbered", i+1
		if i == 0 {
			wantCode, wantN = "branch.main", 0
		}
		if b.NameCode != wantCode || b.NameParams["n"] != wantN {
			t.Fatalf("branch %d %q: code %q params %v, want %s n=%d", i, b.Name, b.NameCode, b.NameParams, wantCode, wantN)
		}
	}
	renamed, err := f.svc.RenameBranch(ctx, f.user, adv, br.Branches[1].ID, "Into the crypt")
	must(t, err)
	if renamed.Name != "Into the crypt" || renamed.NameCode != "" || renamed.NameParams != nil {
		t.Fatalf("renamed branch %+v", renamed)
	}
}

// Reading a line is one query however many forks it sits under: the page
// load is a fixed number of statements, and it never reads a prompt.
func TestLineReadIsOneQueryOverLineage(t *testing.T) {
	f := newSolo(t)
	ctx := context.Background()
	adv := f.adventure().Adventure.ID
	count := func() int64 {
		qctx, n := models.WithQueryCounter(ctx)
		_, err := f.svc.GetAdventure(qctx, f.user, adv)
		must(t, err)
		return n.Load()
	}
	f.play(adv, "a", "one", "")
	flat := count()
	for i := range 6 {
		p := f.page(adv)
		_, err := f.svc.Fork(ctx, f.user, adv, last(p).ID)
		must(t, err)
		f.play(adv, fmt.Sprint("go ", i), fmt.Sprint("forked ", i), "")
	}
	p := f.page(adv)
	if len(p.Story) != 1+2+12 {
		t.Fatalf("line of %d nodes after 6 nested forks, want 15: %q", len(p.Story), texts(p))
	}
	if got := count(); got != flat {
		t.Fatalf("page load ran %d statements under 6 forks, %d flat", got, flat)
	}
	for i, a := range p.Story[1:] {
		if a.Depth != i+1 {
			t.Fatalf("depths not contiguous along the line: %d at %d", a.Depth, i+1)
		}
	}
}

// Undo, retry and switching branches are one restore: the state equals the
// state of replaying the same turns from scratch.
func TestRestoreEquivalence(t *testing.T) {
	f := newSolo(t)
	ctx := context.Background()
	adv := f.adventure().Adventure.ID
	f.play(adv, "fight", "A blade catches you.", `{"player.hp": -15}`)
	f.play(adv, "fight on", "Another cut.", `{"player.hp": -30, "player.gold": 5}`)
	afterTwo := f.page(adv).Adventure.WorldState
	f.play(adv, "fight harder", "You are struck down.", `{"player.hp": -50}`)
	if got := hp(f.page(adv)); got != 5 {
		t.Fatalf("hp after three hits = %v, want 5", got)
	}

	// Replay turns 1-2 in a fresh adventure: the reference state.
	ref := f.adventure().Adventure.ID
	f.play(ref, "fight", "A blade catches you.", `{"player.hp": -15}`)
	f.play(ref, "fight on", "Another cut.", `{"player.hp": -30, "player.gold": 5}`)
	want := f.page(ref).Adventure.WorldState
	if !reflect.DeepEqual(afterTwo, want) {
		t.Fatalf("states differ before any restore: %v vs %v", afterTwo, want)
	}

	p, err := f.svc.Undo(ctx, f.user, adv)
	must(t, err)
	if !reflect.DeepEqual(p.Adventure.WorldState, want) {
		t.Fatalf("undo state %v, want %v", p.Adventure.WorldState, want)
	}
	if got := texts(p); got[len(got)-1] != "Another cut." {
		t.Fatalf("undo left %q at the tip", got[len(got)-1])
	}
	// Retry of turn 2 restores the state in front of it, then applies the new delta.
	done := f.retry(adv, "A glancing blow.", `{"player.hp": -5}`)
	if done.Type != narrative.EventDone || done.Adventure.WorldState["player.hp"] != 80.0 {
		t.Fatalf("retry of turn 2: %+v", done)
	}
	// Gold changed on turn 2 (depth 4) in the first take; the retried take
	// at the same depth did not change it, so its cooldown clock is the
	// one in front of the turn.
	if _, ok := done.Adventure.WorldState["_meta.last_changed.player.gold"]; ok {
		t.Fatal("the replaced take's cooldown clock leaked into the retry")
	}
	// Switch takes back: the first take's state returns exactly.
	p = f.page(adv)
	p, err = f.svc.SelectTake(ctx, f.user, adv, last(p).Takes.IDs[0])
	must(t, err)
	if !reflect.DeepEqual(p.Adventure.WorldState, want) {
		t.Fatalf("switching back to the first take: %v, want %v", p.Adventure.WorldState, want)
	}
	// Fork at turn 1, play, switch back: each line restores its own state.
	_, err = f.svc.Fork(ctx, f.user, adv, p.Story[2].ID)
	must(t, err)
	f.play(adv, "flee", "You escape.", `{"player.hp": 10}`)
	forked := f.page(adv)
	if hp(forked) != 95 {
		t.Fatalf("forked line hp %v, want 95 (85 + 10)", hp(forked))
	}
	back, err := f.svc.SwitchBranch(ctx, f.user, adv, p.Adventure.HeadBranchID)
	must(t, err)
	if !reflect.DeepEqual(back.Adventure.WorldState, want) {
		t.Fatalf("switching branches back: %v, want %v", back.Adventure.WorldState, want)
	}
}

func TestUndoDeleteEditKeepTreeConsistent(t *testing.T) {
	f := newSolo(t)
	ctx := context.Background()
	adv := f.adventure().Adventure.ID
	f.play(adv, "one", "first", "")
	f.play(adv, "two", "second", "")
	f.play(adv, "three", "third", "")
	p := f.page(adv)
	// Delete turn two's narration: its child re-parents, the line closes up.
	p, err := f.svc.DeleteAction(ctx, f.user, p.Story[4].ID)
	must(t, err)
	if want := []string{"You stand before the crypt door.", "one", "first", "two", "three", "third"}; !slices.Equal(texts(p), want) {
		t.Fatalf("after delete: %q", texts(p))
	}
	// Edit a player action.
	v, err := f.svc.EditAction(ctx, f.user, p.Story[3].ID, "two, carefully")
	must(t, err)
	if v.Text != "two, carefully" {
		t.Fatalf("edit returned %q", v.Text)
	}
	// Undo removes narration + player action; twice more leaves the opening.
	p, err = f.svc.Undo(ctx, f.user, adv)
	must(t, err)
	if want := []string{"You stand before the crypt door.", "one", "first", "two, carefully"}; !slices.Equal(texts(p), want) {
		t.Fatalf("after undo: %q", texts(p))
	}
	_, err = f.svc.Undo(ctx, f.user, adv)
	must(t, err)
	p, err = f.svc.Undo(ctx, f.user, adv)
	must(t, err)
	if len(p.Story) != 1 {
		t.Fatalf("after undoing everything: %q", texts(p))
	}
	if _, err := f.svc.Undo(ctx, f.user, adv); apperr.CodeOf(err) != apperr.NothingToUndo {
		t.Fatalf("undo of the opening: %v", err)
	}
	// The opening cannot be deleted; another user's adventure is not found.
	if _, err := f.svc.DeleteAction(ctx, f.user, p.Story[0].ID); apperr.CodeOf(err) != apperr.ActionNotEditable {
		t.Fatalf("delete opening: %v", err)
	}
	other := newSoloUser(t, f)
	if _, err := f.svc.GetAdventure(ctx, other, adv); apperr.CodeOf(err) != apperr.NotFound {
		t.Fatalf("another user read the adventure: %v", err)
	}
	if _, err := f.svc.StartTurn(ctx, other, adv, narrative.TurnInput{Mode: "do", Text: "steal"}); apperr.CodeOf(err) != apperr.NotFound {
		t.Fatalf("another user played a turn: %v", err)
	}
	// A node a fork borrows cannot be deleted from under it.
	f.play(adv, "four", "fourth", "")
	p = f.page(adv)
	_, err = f.svc.Fork(ctx, f.user, adv, last(p).ID)
	must(t, err)
	main := p.Adventure.HeadBranchID
	_, err = f.svc.SwitchBranch(ctx, f.user, adv, main)
	must(t, err)
	if _, err := f.svc.Undo(ctx, f.user, adv); apperr.CodeOf(err) != apperr.ActionNotEditable {
		t.Fatalf("undo of a borrowed turn: %v", err)
	}
}

// Page and list reads never load a prompt snapshot: the rows they read
// carry none even though the node has one (the seed's 189× egress defect).
func TestReadsNeverLoadPromptSnapshots(t *testing.T) {
	f := newSolo(t)
	ctx := context.Background()
	adv := f.adventure().Adventure.ID
	done := f.play(adv, "look", "A long room.", "")
	prompt, err := f.store.FindActionPrompt(ctx, done.Action.ID)
	must(t, err)
	if len(prompt) == 0 {
		t.Fatal("the narration has no stored prompt")
	}
	row, err := f.store.FindActionRow(ctx, done.Action.ID)
	must(t, err)
	if row.PromptSnapshot != nil || !row.HasPrompt {
		t.Fatalf("a node read loaded %d prompt bytes (has_prompt %v)", len(row.PromptSnapshot), row.HasPrompt)
	}
	mctx, meter := models.WithReadMeter(ctx)
	_, err = f.svc.GetAdventure(mctx, f.user, adv)
	must(t, err)
	// Another process (nothing remembered) reads the prompt from the row.
	other := narrative.New(f.store, narrative.Options{})
	withPrompt, err := other.GetInsights(mctx, f.user, done.Action.ID)
	must(t, err)
	_ = withPrompt
	pageBytes := meter.Bytes.Load()
	mctx2, meter2 := models.WithReadMeter(ctx)
	_, err = f.svc.GetAdventure(mctx2, f.user, adv)
	must(t, err)
	if page := meter2.Bytes.Load(); page >= pageBytes-int64(len(prompt)) || page == 0 {
		t.Fatalf("the page read %d bytes; with insights %d (prompt %d): the page is reading the prompt", page, pageBytes, len(prompt))
	}
}
