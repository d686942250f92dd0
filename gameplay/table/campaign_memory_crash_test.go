package table_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/adventure-table/adventure-table/gameplay/llm"
	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/gameplay/table/tabletest"
)

// dyingModel writes the first memory, then "dies": the second call ends
// the job's context (the process is gone mid-call) and never answers.
type dyingModel struct {
	calls atomic.Int32
	die   context.CancelFunc
}

func (m *dyingModel) CallModel(ctx context.Context, _ int64, _ llm.Request, _ func(llm.Event)) (llm.Result, error) {
	if m.calls.Add(1) == 1 {
		return llm.Result{Text: "MODEL-MEMORY-1: the first block, written by the model."}, nil
	}
	m.die()
	<-ctx.Done()
	return llm.Result{}, ctx.Err()
}

// TestCampaignMemoryJobSurvivesACrash: a job that dies after committing
// one block, its claim still held, is taken up after the restart (the same
// process name frees its claims) and finishes: the committed memory is
// kept as it was, every other block is written once, and the blocks cover
// the session's public events end to end without overlap.
func TestCampaignMemoryJobSurvivesACrash(t *testing.T) {
	ctx := context.Background()
	svc, store := newService(t)
	f := tabletest.New(t, svc)
	must := func(err error) { t.Helper(); tabletest.Must(t, err) }
	_, err := svc.StartSession(ctx, f.Owner, f.LobbyID)
	must(err)
	for i := 1; i <= 14; i++ {
		_, err := svc.PostMessage(ctx, f.Owner, f.LobbyID, table.MessageInput{Kind: "narration", Text: fmt.Sprintf("Line %d of the tale.", i)})
		must(err)
	}
	_, err = svc.EndSession(ctx, f.Owner, f.LobbyID)
	must(err)

	jobCtx, die := context.WithCancel(ctx)
	model := &dyingModel{die: die}
	svc.UseMemory(table.MemoryOptions{Model: model, ProcessID: "p1"})
	if _, err := svc.RunCampaignMemoryJob(jobCtx); err == nil {
		t.Fatal("the job that died reports no error")
	}
	before, err := svc.CampaignMemories(ctx, f.Owner, f.CampaignID)
	must(err)
	if len(before.Memories) != 1 {
		t.Fatalf("the job committed %d memories before it died, want 1", len(before.Memories))
	}

	// The restart: the same process name, no model now.
	again := table.New(store, nil)
	again.UseMemory(table.MemoryOptions{ProcessID: "p1"})
	if n, err := again.RecoverCampaignMemoryJobs(ctx); err != nil || n != 1 {
		t.Fatalf("the restart frees the dead run's claim: %d, %v", n, err)
	}
	if _, err := again.DrainCampaignMemoryJobs(ctx); err != nil {
		t.Fatal(err)
	}
	after, err := again.CampaignMemories(ctx, f.Owner, f.CampaignID)
	must(err)
	byModel, last := 0, int64(0)
	for _, m := range after.Memories {
		if m.Audience != "table" {
			continue
		}
		if m.FromSeq <= last {
			t.Errorf("blocks overlap or repeat: %d..%d after %d", m.FromSeq, m.ToSeq, last)
		}
		last = m.ToSeq
		if m.Text == "MODEL-MEMORY-1: the first block, written by the model." {
			byModel++
		}
	}
	if byModel != 1 {
		t.Errorf("the memory committed before the crash is there once, as written: %d", byModel)
	}
	page, err := svc.ListEvents(ctx, f.Owner, f.LobbyID, 0, 100)
	must(err)
	if end := page.Events[len(page.Events)-1].Seq; last != end {
		t.Errorf("the blocks end at seq %d, the session at %d: a block was lost", last, end)
	}
	if len(after.Memories) < 3 {
		t.Errorf("16 public events make at least 3 blocks; %d memories", len(after.Memories))
	}
	t.Logf("memories after the crash and the restart: %d", len(after.Memories))
}
