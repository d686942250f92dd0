package narrative_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/adventure-table/adventure-table/gameplay/llm"
	"github.com/adventure-table/adventure-table/gameplay/llm/llmtest"
	"github.com/adventure-table/adventure-table/gameplay/narrative"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// The memory bank tests script the model by what each request is: the
// narrator, the block summarizer or the running summary. Nothing is pushed
// in order, so a background call can never take a narration's reply.

// bankModel is the scripted model of the memory tests.
type bankModel struct {
	mu        sync.Mutex
	memories  int // block memory calls
	summaries int // running summary calls
	failing   bool
	prompts   []string // the user messages of the memory calls
	// narrate returns the narration for the player's newest action.
	narrate func(action string) string
}

var landmark = regexp.MustCompile(`landmark(\d+)`)

// respond answers one chat request.
func (m *bankModel) respond(r llmtest.Request) llmtest.Reply {
	m.mu.Lock()
	defer m.mu.Unlock()
	system, user := r.Messages[0].Content, r.Messages[len(r.Messages)-1].Content
	ok := func(text string) llmtest.Reply {
		return llmtest.Reply{Chunks: []string{text}, FinishReason: "stop", Usage: &llmtest.Usage{Prompt: 50, Completion: 10}}
	}
	switch {
	case strings.HasPrefix(system, "You keep the memory bank"):
		if m.failing {
			return llmtest.Reply{Status: 503}
		}
		m.memories++
		m.prompts = append(m.prompts, user)
		if strings.Contains(user, "innkeeper") {
			return ok("Ash promised Bram the innkeeper to come back to the Gilded Goose inn with the silver key.")
		}
		// One memory per block, naming the landmarks its passage names.
		marks := landmark.FindAllString(user, -1)
		return ok("Ash passed " + strings.Join(dedupe(marks), " and ") + ".")
	case strings.HasPrefix(system, "You keep the running summary"):
		if m.failing {
			return llmtest.Reply{Status: 503}
		}
		m.summaries++
		return ok(fmt.Sprintf("Summary %d: Ash travels the valley.", m.summaries))
	default:
		action := ""
		for i := len(r.Messages) - 1; i >= 0; i-- {
			if r.Messages[i].Role == "user" && strings.HasPrefix(r.Messages[i].Content, "> ") {
				action = r.Messages[i].Content
				break
			}
		}
		text := "The road goes on."
		if m.narrate != nil {
			text = m.narrate(action)
		}
		return ok(text)
	}
}

func (m *bankModel) calls() (memories, summaries int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.memories, m.summaries
}

func dedupe(in []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range in {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// newBank is a solo fixture whose model is a bankModel, with an adventure.
func newBank(t *testing.T) (*solo, *bankModel, int64) {
	t.Helper()
	f := newSolo(t)
	m := &bankModel{narrate: func(action string) string {
		if mark := landmark.FindString(action); mark != "" {
			return "Ash walks on past " + mark + " under a grey sky, boots wet from the ford, while crows argue in the hedges and the wind carries smoke from a distant farm."
		}
		return "The road goes on."
	}}
	f.fake.Respond(m.respond)
	return f, m, f.adventure().Adventure.ID
}

// do plays one do-turn without a scripted reply (the bankModel answers).
func (f *solo) do(advID int64, action string) narrative.Event {
	f.t.Helper()
	turn, err := f.svc.StartTurn(context.Background(), f.user, advID, narrative.TurnInput{Mode: narrative.ModeDo, Text: action})
	events := run(f.t, turn, err)
	last := events[len(events)-1]
	if last.Type != narrative.EventDone {
		f.t.Fatalf("turn %q ended with %+v", action, last)
	}
	return last
}

// drain runs the memory jobs as the worker would.
func (f *solo) drain() {
	f.t.Helper()
	if _, err := f.svc.DrainMemoryJobs(context.Background()); err != nil {
		f.t.Fatal(err)
	}
}

func (f *solo) bank(advID int64) narrative.MemoryBank {
	f.t.Helper()
	b, err := f.svc.GetMemoryBank(context.Background(), f.user, advID)
	must(f.t, err)
	return b
}

// lastNarratorPrompt is the last narration request's whole prompt.
func (f *solo) lastNarratorPrompt() string {
	reqs := f.fake.Requests()
	for i := len(reqs) - 1; i >= 0; i-- {
		r := reqs[i]
		if r.Path != "/v1/chat/completions" || strings.HasPrefix(r.Messages[0].Content, "You keep the") {
			continue
		}
		var b strings.Builder
		for _, m := range r.Messages {
			b.WriteString(m.Content + "\n")
		}
		return b.String()
	}
	return ""
}

func blockSpans(b narrative.MemoryBank) []string {
	var out []string
	for _, m := range b.Memories {
		if m.Kind == "block" {
			out = append(out, fmt.Sprintf("%d-%d", m.FromDepth, m.Depth))
		}
	}
	return out
}

// The innkeeper problem (seed §2.6): a promise made at turn 4 has left the
// prompt's history long before turn 90, and walking back into the inn
// brings it back — with the built-in lexical scorer and with an embedding
// model.
func TestInnkeeperReturnsAtTurn90(t *testing.T) {
	for _, embedding := range []string{"", "fake-embed"} {
		t.Run("embedding="+embedding, func(t *testing.T) {
			f, m, adv := newBank(t)
			// A 1,500-token budget holds about 25 turns of this story.
			_, err := f.svc.PutSettings(context.Background(), f.user, narrative.ProviderSettingsInput{BaseURL: f.fake.URL(), Model: "fake",
				ContextBudget: 1500, MaxOutputTokens: 200, Temperature: 0.8, TopP: 0.95, EmbeddingModel: embedding})
			must(t, err)
			f.fake.SetEmbeddingDims(512) // few hash collisions between the story's words
			for turn := 1; turn < 90; turn++ {
				action := fmt.Sprintf("I walk towards landmark%d", turn)
				if turn == 4 {
					action = "I promise Bram the innkeeper that I will come back to the Gilded Goose with the silver key"
				}
				f.do(adv, action)
				f.drain()
			}
			f.do(adv, "I push open the door of the Gilded Goose inn and look for Bram the innkeeper")
			p := f.lastNarratorPrompt()
			if strings.Contains(p, "I promise Bram") {
				t.Fatal("turn 4 is still in the history window: the test proves nothing")
			}
			if !strings.Contains(p, "Memories:\n") || !strings.Contains(p, "Ash promised Bram the innkeeper") {
				t.Fatalf("the promise did not come back at turn 90:\n%s", p[max(0, len(p)-1500):])
			}
			if !strings.Contains(p, "Story so far:\nSummary") {
				t.Fatal("the running summary is not in the prompt")
			}
			// 179 actions settle 29 blocks (opening..depth 173); the running
			// summary waits for 15 actions, so it follows every third block.
			b := f.bank(adv)
			if got := len(blockSpans(b)); got != 29 {
				t.Fatalf("%d block memories, want 29: %v", got, blockSpans(b))
			}
			mems, sums := m.calls()
			if mems != 29 || sums != 9 {
				t.Fatalf("%d memory calls and %d summary calls; want 29 and 9 (nothing written twice)", mems, sums)
			}
			// Insights says which scorer chose it and its score.
			page := f.page(adv)
			ins, err := f.svc.GetInsights(context.Background(), f.user, page.Story[len(page.Story)-1].ID)
			must(t, err)
			want := "bm25"
			if embedding != "" {
				want = "embedding"
			}
			found := false
			for _, im := range ins.Memories {
				if strings.Contains(im.Text, "innkeeper") {
					found = im.Scorer == want && im.Score > 0
				}
			}
			if !found {
				t.Fatalf("insights memories %+v: want the innkeeper chosen by %s", ins.Memories, want)
			}
			// The memory prompt carried the cast brief and the framing rule.
			if !strings.Contains(m.prompts[0], "Protagonist: Ash (they/them)") || !strings.Contains(m.prompts[0], "Cast:") {
				t.Fatalf("memory prompt without the cast brief:\n%s", m.prompts[0])
			}
		})
	}
}

// A block of six actions is summarized only once one more action follows
// it (SETTLE_SLACK = 1), and the memory hangs off the block's last node.
func TestBlocksSettleOneActionPastTheirEnd(t *testing.T) {
	f, m, adv := newBank(t)
	f.do(adv, "I walk towards landmark1")
	f.do(adv, "I walk towards landmark2") // opening + 4 actions: depth 0..4
	f.drain()
	f.do(adv, "I walk towards landmark3") // depth 5, 6: the block 0..5 has one action past it
	f.drain()
	b := f.bank(adv)
	if got := blockSpans(b); len(got) != 1 || got[0] != "0-5" {
		t.Fatalf("blocks %v, want [0-5]", got)
	}
	if !strings.Contains(b.Memories[0].Text, "landmark1") || !strings.Contains(b.Memories[0].Text, "landmark3") {
		t.Fatalf("memory %q does not cover the block", b.Memories[0].Text)
	}
	f.drain()
	if n, _ := m.calls(); n != 1 {
		t.Fatalf("%d memory calls, want 1 (a drained bank has no work)", n)
	}
}

// A retry withdraws what hangs off the retried coordinate — a note the
// player wrote there included — but never what hangs off the opening.
func TestRetryWithdrawsTheTipsMemories(t *testing.T) {
	f, _, adv := newBank(t)
	ctx := context.Background()
	root, err := f.svc.AddMemory(ctx, f.user, adv, narrative.MemoryInput{Text: "Ash fears deep water.", Pinned: true})
	must(t, err)
	f.do(adv, "I walk towards landmark1")
	tip, err := f.svc.AddMemory(ctx, f.user, adv, narrative.MemoryInput{Text: "Ash saw a heron at landmark1."})
	must(t, err)
	if root.Depth != 0 || tip.Depth != 2 {
		t.Fatalf("notes at depths %d and %d, want 0 and 2", root.Depth, tip.Depth)
	}
	if ev := f.retryTurn(adv); ev.Type != narrative.EventDone {
		t.Fatalf("retry: %+v", ev)
	}
	var left []string
	for _, mv := range f.bank(adv).Memories {
		left = append(left, mv.Text)
	}
	if len(left) != 1 || left[0] != root.Text {
		t.Fatalf("after the retry the bank holds %q; want only the opening's note", left)
	}
}

func (f *solo) retryTurn(advID int64) narrative.Event {
	f.t.Helper()
	turn, err := f.svc.StartRetry(context.Background(), f.user, advID)
	events := run(f.t, turn, err)
	return events[len(events)-1]
}

// Forks inherit the memories on the ancestors both lines read, write their
// own past the fork, and switching lines back and forth never redoes work
// (marks per line: each line's mark is its own deepest block memory).
func TestForksInheritMemoriesAndSwitchingRedoesNothing(t *testing.T) {
	f, m, adv := newBank(t)
	ctx := context.Background()
	for i := 1; i <= 9; i++ {
		f.do(adv, fmt.Sprintf("I walk towards landmark%d", i))
		f.drain()
	}
	// depth 0..18: blocks 0-5, 6-11; 12-17 has its slack at 18.
	main := f.page(adv)
	if got := blockSpans(f.bank(adv)); strings.Join(got, ",") != "0-5,6-11,12-17" {
		t.Fatalf("main blocks %v", got)
	}
	// Fork at depth 13 and play on: the fork reads 0-5 and 6-11 (its
	// ancestors) but not 12-17, which hangs off main's node 17.
	var at13 int64
	for _, a := range main.Story {
		if a.Depth == 13 {
			at13 = a.ID
		}
	}
	forked, err := f.svc.Fork(ctx, f.user, adv, at13)
	must(t, err)
	if got := blockSpans(f.bank(adv)); strings.Join(got, ",") != "0-5,6-11" {
		t.Fatalf("fork inherits %v, want 0-5,6-11", got)
	}
	for i := 20; i <= 22; i++ {
		f.do(adv, fmt.Sprintf("I turn towards landmark%d", i))
		f.drain()
	}
	forkBank := f.bank(adv)
	if got := blockSpans(forkBank); strings.Join(got, ",") != "0-5,6-11,12-17" {
		t.Fatalf("fork blocks %v", got)
	}
	own := forkBank.Memories[len(forkBank.Memories)-1]
	if own.BranchID != forked.Adventure.HeadBranchID || !strings.Contains(own.Text, "landmark20") {
		t.Fatalf("the fork's own block %+v should hang off the fork and describe its turns", own)
	}
	before, _ := m.calls()
	for i := range 10 {
		target := main.Adventure.HeadBranchID
		if i%2 == 1 {
			target = forked.Adventure.HeadBranchID
		}
		_, err := f.svc.SwitchBranch(ctx, f.user, adv, target)
		must(t, err)
		must(t, f.store.EnqueueMemoryJob(ctx, adv, timeNow()))
		f.drain()
	}
	if after, _ := m.calls(); after != before {
		t.Fatalf("10 switches cost %d summarizer calls, want 0", after-before)
	}
}

// Editing or deleting a summarized turn marks its memory stale; the next
// cadence rewrites it from the block as it now reads.
func TestEditsAndDeletesRefreshMemories(t *testing.T) {
	f, _, adv := newBank(t)
	ctx := context.Background()
	for i := 1; i <= 4; i++ {
		f.do(adv, fmt.Sprintf("I walk towards landmark%d", i))
		f.drain()
	}
	page := f.page(adv)
	var turn2 narrative.ActionView
	for _, a := range page.Story {
		if a.Depth == 3 {
			turn2 = a
		}
	}
	_, err := f.svc.EditAction(ctx, f.user, turn2.ID, "I walk towards landmark77")
	must(t, err)
	if b := f.bank(adv); !b.Memories[0].Stale || !b.Job.Pending {
		t.Fatalf("after the edit: %+v, job %+v; want the block stale and work queued", b.Memories[0], b.Job)
	}
	f.drain()
	mem := f.bank(adv).Memories[0]
	if mem.Stale || !strings.Contains(mem.Text, "landmark77") {
		t.Fatalf("rewritten memory %+v; want it fresh and naming landmark77", mem)
	}
	// Deleting a turn inside the block rewrites it without that turn.
	var narration4 int64
	for _, a := range f.page(adv).Story {
		if a.Depth == 4 {
			narration4 = a.ID
		}
	}
	_, err = f.svc.DeleteAction(ctx, f.user, narration4)
	must(t, err)
	_, err = f.svc.DeleteAction(ctx, f.user, turn2.ID)
	must(t, err)
	f.drain()
	mem = f.bank(adv).Memories[0]
	if mem.Stale || strings.Contains(mem.Text, "landmark77") {
		t.Fatalf("after deleting turn 2: %+v", mem)
	}
}

// A failed summary writes nothing and leaves the mark where it was; the
// next turn's cadence is the retry.
func TestFailedSummaryIsRetriedByTheCadence(t *testing.T) {
	f, m, adv := newBank(t)
	for i := 1; i <= 3; i++ {
		f.do(adv, fmt.Sprintf("I walk towards landmark%d", i))
	}
	m.mu.Lock()
	m.failing = true
	m.mu.Unlock()
	if _, err := f.svc.DrainMemoryJobs(context.Background()); err == nil {
		t.Fatal("a failed summary reported no error")
	}
	b := f.bank(adv)
	if len(b.Memories) != 0 || b.Job.LastError == "" || b.Job.Pending {
		t.Fatalf("after a failure: %d memories, job %+v; want none, the error kept and nothing queued (no retry loop)", len(b.Memories), b.Job)
	}
	m.mu.Lock()
	m.failing = false
	m.mu.Unlock()
	f.drain()
	if len(f.bank(adv).Memories) != 0 {
		t.Fatal("the failed job ran again without a new turn")
	}
	f.do(adv, "I walk towards landmark4")
	f.drain()
	b = f.bank(adv)
	if got := blockSpans(b); strings.Join(got, ",") != "0-5" || b.Job.LastError != "" {
		t.Fatalf("after the next turn: %v, job %+v", got, b.Job)
	}
}

// A job claimed by a process that died resumes when that process restarts
// (its claims carry its process id), and no other process takes a live
// claim.
func TestMemoryJobResumesAfterRestart(t *testing.T) {
	f, m, adv := newBank(t)
	ctx := context.Background()
	for i := 1; i <= 3; i++ {
		f.do(adv, fmt.Sprintf("I walk towards landmark%d", i))
	}
	now := timeNow()
	job, err := f.store.ClaimMemoryJob(ctx, "proc1.deadbeef", now, now.Add(3*60e9))
	must(t, err)
	if job == nil || job.AdventureID != adv {
		t.Fatalf("claimed %+v", job)
	}
	other := narrative.New(f.store, narrative.Options{Provider: llm.NewOpenAI(nil), Secret: testSecret, ProcessID: "proc2"})
	if n, err := other.DrainMemoryJobs(ctx); err != nil || n != 0 {
		t.Fatalf("another process ran %d jobs (%v) under a live claim", n, err)
	}
	restarted := narrative.New(f.store, narrative.Options{Provider: llm.NewOpenAI(nil), Secret: testSecret, ProcessID: "proc1"})
	if n, err := restarted.RecoverMemoryJobs(ctx); err != nil || n != 1 {
		t.Fatalf("recovered %d (%v), want 1", n, err)
	}
	if n, err := restarted.DrainMemoryJobs(ctx); err != nil || n != 1 {
		t.Fatalf("ran %d (%v), want 1", n, err)
	}
	if got := blockSpans(f.bank(adv)); len(got) != 1 {
		t.Fatalf("blocks %v after the resumed job", got)
	}
	if n, _ := m.calls(); n != 1 {
		t.Fatalf("%d memory calls", n)
	}
}

// Several server processes draining the same jobs at once (one database)
// write each block exactly once: claims are exclusive (FOR UPDATE SKIP
// LOCKED on PostgreSQL, BEGIN IMMEDIATE on SQLite).
func TestSeveralProcessesNeverDoubleWrite(t *testing.T) {
	f, m, _ := newBank(t)
	ctx := context.Background()
	var advs []int64
	for range 6 {
		adv := f.adventure().Adventure.ID
		advs = append(advs, adv)
		for i := 1; i <= 3; i++ {
			f.do(adv, fmt.Sprintf("I walk towards landmark%d", i))
		}
	}
	var wg sync.WaitGroup
	var ran atomic.Int64
	for p := range 4 {
		svc := narrative.New(f.store, narrative.Options{Provider: llm.NewOpenAI(nil), Secret: testSecret, ProcessID: fmt.Sprintf("worker%d", p)})
		wg.Go(func() {
			n, err := svc.DrainMemoryJobs(ctx)
			if err != nil {
				t.Error(err)
			}
			ran.Add(int64(n))
		})
	}
	wg.Wait()
	if ran.Load() != 6 {
		t.Fatalf("%d jobs ran, want 6", ran.Load())
	}
	for _, adv := range advs {
		if got := blockSpans(f.bank(adv)); len(got) != 1 {
			t.Fatalf("adventure %d has blocks %v, want exactly one", adv, got)
		}
	}
	if n, _ := m.calls(); n != 6 {
		t.Fatalf("%d memory calls for 6 blocks", n)
	}
}

// Pinned memories count toward top-K; a bank with nothing relevant injects
// nothing; over capacity the least used are forgotten, never deleted, and
// can be un-forgotten.
func TestRecallLimitsAndForgetting(t *testing.T) {
	f, _, adv := newBank(t)
	ctx := context.Background()
	_, err := f.svc.PutSettings(ctx, f.user, narrative.ProviderSettingsInput{BaseURL: f.fake.URL(), Model: "fake",
		ContextBudget: 4000, MaxOutputTokens: 400, Temperature: 0.8, TopP: 0.95, MemoryTopK: 3, MemoryCapacity: 10})
	must(t, err)
	var ids []int64
	for i := range 12 {
		mv, err := f.svc.AddMemory(ctx, f.user, adv, narrative.MemoryInput{Text: fmt.Sprintf("Ash buried coin hoard number %d under the willow%d.", i, i), Pinned: i < 4})
		must(t, err)
		ids = append(ids, mv.ID)
	}
	f.do(adv, "I admire the clouds")
	if p := f.lastNarratorPrompt(); strings.Count(p, "\n- Ash buried") != 3 {
		t.Fatalf("want exactly top-K = 3 memories (all pinned) in the prompt:\n%s", p)
	}
	for _, id := range ids[:4] {
		_, err := f.svc.ChangeMemory(ctx, f.user, adv, id, narrative.MemoryChange{Pinned: ptr(false)})
		must(t, err)
	}
	f.do(adv, "I admire the clouds again")
	if p := f.lastNarratorPrompt(); strings.Contains(p, "Memories:") {
		t.Fatalf("nothing relevant, yet memories were injected:\n%s", p)
	}
	f.do(adv, "I dig under willow7 for the hoard")
	if p := f.lastNarratorPrompt(); !strings.Contains(p, "- Ash buried coin hoard number 7 under the willow7.") {
		t.Fatalf("the relevant memory is missing:\n%s", p)
	}
	f.drain() // 12 notes and the first block remembered, capacity 10: the three least used go
	b := f.bank(adv)
	forgotten := 0
	for _, mv := range b.Memories {
		if mv.Forgotten {
			forgotten++
			if mv.Uses > 0 {
				t.Fatalf("forgot %+v, which was used", mv)
			}
		}
	}
	if len(b.Memories) != 13 || forgotten != 3 {
		t.Fatalf("%d memories, %d forgotten; want 13 kept and 3 forgotten", len(b.Memories), forgotten)
	}
	for _, mv := range b.Memories {
		if mv.Forgotten {
			back, err := f.svc.ChangeMemory(ctx, f.user, adv, mv.ID, narrative.MemoryChange{Forgotten: ptr(false)})
			must(t, err)
			if back.Forgotten {
				t.Fatal("un-forget did not take")
			}
			break
		}
	}
}

func ptr[T any](v T) *T { return &v }

// Bad memory input changes nothing and says why; another user's memory
// does not exist.
func TestMemoryInputIsChecked(t *testing.T) {
	f, _, adv := newBank(t)
	ctx := context.Background()
	for _, text := range []string{"", "   ", strings.Repeat("x", 1001), "nul\x00"} {
		_, err := f.svc.AddMemory(ctx, f.user, adv, narrative.MemoryInput{Text: text})
		assertCode(t, err, "memory_invalid")
	}
	mv, err := f.svc.AddMemory(ctx, f.user, adv, narrative.MemoryInput{Text: "Ash owes Gwen a favour."})
	must(t, err)
	other := newSoloUser(t, f)
	_, err = f.svc.ChangeMemory(ctx, other, adv, mv.ID, narrative.MemoryChange{Pinned: ptr(true)})
	assertCode(t, err, "not_found")
	_, err = f.svc.GetMemoryBank(ctx, other, adv)
	assertCode(t, err, "not_found")
	if b := f.bank(adv); len(b.Memories) != 1 || b.Memories[0].Pinned {
		t.Fatalf("bank %+v", b.Memories)
	}
}

// The background calls use the user's own endpoint, model and key.
func TestBackgroundCallsUseTheUsersOwnSettings(t *testing.T) {
	f, _, adv := newBank(t)
	ctx := context.Background()
	key := "sk-user-own-key-123456"
	_, err := f.svc.PutSettings(ctx, f.user, narrative.ProviderSettingsInput{BaseURL: f.fake.URL(), Model: "users-model",
		ContextBudget: 4000, MaxOutputTokens: 400, Temperature: 0.8, TopP: 0.95, APIKey: &key, EmbeddingModel: "users-embedder"})
	must(t, err)
	for i := 1; i <= 3; i++ {
		f.do(adv, fmt.Sprintf("I walk towards landmark%d", i))
	}
	f.drain()
	seen := 0
	for _, r := range f.fake.Requests() {
		if r.Authorization != "Bearer "+key {
			t.Fatalf("%s request with %q", r.Path, r.Authorization)
		}
		if r.Path == "/v1/embeddings" && r.Model == "users-embedder" || len(r.Messages) > 0 && strings.HasPrefix(r.Messages[0].Content, "You keep the memory bank") && r.Model == "users-model" {
			seen++
		}
	}
	if seen < 2 {
		t.Fatalf("saw %d background calls on the user's settings", seen)
	}
}

// Old prompt snapshots expire: Insights says so and keeps the usage.
func TestSnapshotRetention(t *testing.T) {
	f, _, adv := newBank(t)
	f.svc = narrative.New(f.store, narrative.Options{Provider: llm.NewOpenAI(nil), Secret: testSecret, SnapshotKeep: 2})
	for i := 1; i <= 4; i++ {
		f.do(adv, fmt.Sprintf("I walk towards landmark%d", i))
	}
	f.drain()
	page := f.page(adv)
	var expired, kept int
	for _, a := range page.Story {
		if a.Kind != "narration" {
			continue
		}
		ins, err := f.svc.GetInsights(context.Background(), f.user, a.ID)
		must(t, err)
		if ins.Expired {
			expired++
			if ins.Usage.PromptTokens == 0 || len(ins.Messages) != 0 {
				t.Fatalf("expired insights %+v", ins)
			}
		} else {
			kept++
		}
	}
	if expired != 2 || kept != 2 {
		t.Fatalf("%d expired, %d kept; want 2 and 2", expired, kept)
	}
}

// A card a script invents on one branch belongs to that line and its
// forks; scenario cards stay on every line.
func TestStoryCardsPerLine(t *testing.T) {
	f := newSolo(t)
	ctx := context.Background()
	page := f.adventureWith(narrative.Scripts{Output: `if (text.includes("dragon")) { addStoryCard("wyrm", "A red dragon sleeps on the hill.", "creature"); }
text`})
	adv := page.Adventure.ID
	f.play(adv, "I look around", "A quiet hill.", "")
	forkPoint := f.page(adv).Story[2].ID
	f.play(adv, "I climb the hill", "A dragon sleeps here.", "")
	main := f.page(adv).Adventure.HeadBranchID
	f.play(adv, "I wake the wyrm", "It opens one eye.", "")
	if !strings.Contains(f.lastPrompt(), "A red dragon sleeps on the hill.") {
		t.Fatal("the card is missing on the line that made it")
	}
	_, err := f.svc.Fork(ctx, f.user, adv, forkPoint)
	must(t, err)
	f.play(adv, "I ask about the wyrm", "Nobody knows it.", "")
	if strings.Contains(f.lastPrompt(), "A red dragon sleeps on the hill.") {
		t.Fatal("a card invented on another line shows on this one")
	}
	_, err = f.svc.SwitchBranch(ctx, f.user, adv, main)
	must(t, err)
	f.play(adv, "I greet the wyrm", "It yawns.", "")
	if !strings.Contains(f.lastPrompt(), "A red dragon sleeps on the hill.") {
		t.Fatal("the card is gone from its own line after switching back")
	}
}

func timeNow() time.Time { return time.Now().UTC() }

func assertCode(t *testing.T, err error, code string) {
	t.Helper()
	if got := string(apperr.CodeOf(err)); got != code {
		t.Fatalf("error %v: code %q, want %q", err, got, code)
	}
}

// Summarization never blocks a turn: with the worker stuck in a slow
// summary call, the player's turns go on.
func TestTurnsNeverWaitForTheBank(t *testing.T) {
	f, m, adv := newBank(t)
	entered, gate := make(chan struct{}, 8), make(chan struct{})
	f.fake.Respond(func(r llmtest.Request) llmtest.Reply {
		if strings.HasPrefix(r.Messages[0].Content, "You keep the") {
			entered <- struct{}{}
			<-gate
		}
		return m.respond(r)
	})
	ctx, cancel := context.WithCancel(context.Background())
	worker := make(chan struct{})
	go func() { f.svc.RunMemoryWorker(ctx); close(worker) }()
	defer func() { cancel(); close(gate); <-worker }()
	for i := 1; i <= 3; i++ {
		f.do(adv, fmt.Sprintf("I walk towards landmark%d", i))
	}
	<-entered // the worker is inside the block's summary call, and stays there
	for i := 4; i <= 6; i++ {
		f.do(adv, fmt.Sprintf("I walk towards landmark%d", i))
	}
	if b := f.bank(adv); len(b.Memories) != 0 || !b.Job.Pending {
		t.Fatalf("bank %+v while the summary call hangs", b)
	}
}

// Changing the embedding model meets old vectors of another length: they
// score 0 (never a crash or a truncated score) until the worker embeds the
// bank again with the new model.
func TestEmbeddingModelChangeNeverCrashes(t *testing.T) {
	f, _, adv := newBank(t)
	ctx := context.Background()
	settings := func(model string) {
		_, err := f.svc.PutSettings(ctx, f.user, narrative.ProviderSettingsInput{BaseURL: f.fake.URL(), Model: "fake",
			ContextBudget: 4000, MaxOutputTokens: 400, Temperature: 0.8, TopP: 0.95, EmbeddingModel: model})
		must(t, err)
	}
	settings("small-embedder")
	_, err := f.svc.AddMemory(ctx, f.user, adv, narrative.MemoryInput{Text: "Ash hid the silver key in the well."})
	must(t, err)
	f.drain()
	if b := f.bank(adv); !b.Memories[0].Embedded {
		t.Fatalf("not embedded: %+v", b.Memories[0])
	}
	settings("big-embedder")
	f.fake.SetEmbeddingDims(256)
	f.do(adv, "I look into the well for the silver key")
	if p := f.lastNarratorPrompt(); strings.Contains(p, "Memories:") {
		t.Fatal("a vector of another model was scored")
	}
	f.drain()
	if b := f.bank(adv); !b.Memories[0].Embedded {
		t.Fatalf("not embedded again with the new model: %+v", b.Memories[0])
	}
	f.do(adv, "I look into the well for the silver key again")
	if p := f.lastNarratorPrompt(); !strings.Contains(p, "- Ash hid the silver key in the well.") {
		t.Fatalf("recall after re-embedding failed:\n%s", p)
	}
	// An embedding endpoint that fails falls back to lexical recall (with
	// a few more memories, so the lexical scorer can tell words apart).
	for _, text := range []string{"Gwen sells bread at dawn.", "A storm wrecked the mill.", "Bram owes Ash ten crowns.", "The ferryman fears owls."} {
		_, err := f.svc.AddMemory(ctx, f.user, adv, narrative.MemoryInput{Text: text})
		must(t, err)
	}
	f.fake.FailEmbeddings(500)
	f.do(adv, "I look into the well for the silver key once more")
	if p := f.lastNarratorPrompt(); !strings.Contains(p, "- Ash hid the silver key in the well.") {
		t.Fatalf("no lexical fallback when embedding fails:\n%s", p)
	}
}

// The take being retried is not part of the recall query: it is the
// attempt being replaced, not established story.
func TestRetriedTakeIsNotTheQuery(t *testing.T) {
	f := newSolo(t)
	ctx := context.Background()
	adv := f.adventure().Adventure.ID
	for _, text := range []string{"Bram the innkeeper keeps a silver key behind the bar.", "Gwen sells bread at dawn.",
		"A storm wrecked the mill.", "The ferryman fears owls."} {
		_, err := f.svc.AddMemory(ctx, f.user, adv, narrative.MemoryInput{Text: text})
		must(t, err)
	}
	f.play(adv, "I wait by the road", "Bram the innkeeper waves a silver key from the doorway.", "")
	f.play(adv, "I keep waiting", "Nothing moves.", "")
	if !strings.Contains(f.lastPrompt(), "- Bram the innkeeper keeps a silver key") {
		t.Fatal("the narration naming Bram did not recall him")
	}
	// Retry a narration that named Bram: without it, nothing recalls him.
	f.play(adv, "I count the clouds", "Bram the innkeeper jingles the silver key.", "")
	if ev := f.retry(adv, "A hawk circles.", ""); ev.Type != narrative.EventDone {
		t.Fatalf("retry: %+v", ev)
	}
	if strings.Contains(f.lastPrompt(), "- Bram the innkeeper keeps a silver key") {
		t.Fatalf("the retried take was part of the query:\n%s", f.lastPrompt())
	}
}
