package main

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/adventure-table/adventure-table/gameplay/llm"
	"github.com/adventure-table/adventure-table/gameplay/llm/llmtest"
	"github.com/adventure-table/adventure-table/gameplay/narrative"
	"github.com/adventure-table/adventure-table/gameplay/scripting"
	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/gameplay/table/tabletest"
)

// TestCampaignMemoryJobSurvivesSIGKILL kills the real server with SIGKILL
// while its campaign memory job waits on the model for its second block
// (the first one committed), then starts it again on the same data: the
// restart frees the dead run's claim at once, the job resumes after the
// committed block, and every block of the session is remembered exactly
// once — the first as the model wrote it before the crash — and the next
// session's recap is drafted. On SQLite, and on PostgreSQL with
// AT_TEST_DB=postgres.
func TestCampaignMemoryJobSurvivesSIGKILL(t *testing.T) {
	ctx := context.Background()
	e := newChildEnv(t)
	fake := llmtest.New(t)
	var mu sync.Mutex
	memoryCalls, holding := 0, true
	hold := make(chan struct{})
	fake.Respond(func(r llmtest.Request) llmtest.Reply {
		system := ""
		if len(r.Messages) > 0 {
			system = r.Messages[0].Content
		}
		mu.Lock()
		defer mu.Unlock()
		if !strings.HasPrefix(system, "You keep the memory bank of a tabletop role-playing campaign") {
			return textReply("Previously on the campaign: the tale went on.")
		}
		memoryCalls++
		if memoryCalls >= 2 && holding {
			// the second block's call never answers: the process dies in it
			return llmtest.Reply{Chunks: []string{"never"}, FinishReason: "stop", Hold: hold}
		}
		return textReply(fmt.Sprintf("CRASH-MEMORY-%d: a block of the tale, remembered.", memoryCalls))
	})
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		if holding {
			close(hold)
		}
	})

	// The table, set up on the data the server will open: the owner's
	// narrator is the fake; session 1 holds 14 lines; session 2 starts,
	// which asks for the memory job.
	store, cfg := openAsTheServer(t, map[string]string{"AT_DATA_DIR": e.dataDir, "AT_DATABASE_URL": e.databaseURL})
	svc := table.New(store, time.Now)
	f := tabletest.New(t, svc)
	must := func(err error) { t.Helper(); tabletest.Must(t, err) }
	sandbox, err := scripting.New(scripting.Options{Timeout: 5 * time.Second, MemoryLimit: 32 << 20})
	must(err)
	t.Cleanup(func() { _ = sandbox.Close() })
	narr := narrative.New(store, narrative.Options{Provider: llm.NewOpenAI(nil), Secret: []byte(cfg.Secret), Sandbox: sandbox})
	key := memoriesTestKey
	_, err = narr.PutSettings(ctx, f.Owner.UserID, narrative.ProviderSettingsInput{BaseURL: fake.URL(), Model: "fake", APIKey: &key,
		ContextBudget: 4000, MaxOutputTokens: 400, Temperature: 0.8, TopP: 0.95})
	must(err)
	_, err = svc.StartSession(ctx, f.Owner, f.LobbyID)
	must(err)
	for i := 1; i <= 14; i++ {
		_, err := svc.PostMessage(ctx, f.Owner, f.LobbyID, table.MessageInput{Kind: "narration", Text: fmt.Sprintf("Line %d of the tale.", i)})
		must(err)
	}
	_, err = svc.EndSession(ctx, f.Owner, f.LobbyID)
	must(err)
	lobby, err := svc.OpenSession(ctx, f.Owner, f.CampaignID)
	must(err)
	_, err = svc.StartSession(ctx, f.Owner, lobby.Session.ID)
	must(err)

	memories := func() []table.CampaignMemoryView {
		t.Helper()
		list, err := svc.CampaignMemories(ctx, f.Owner, f.CampaignID)
		must(err)
		return list.Memories
	}
	// waitFor polls the database and the fake until cond holds (the
	// server works on its own; nothing here waits for time to pass).
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		deadline := time.Now().Add(60 * time.Second)
		for !cond() {
			if time.Now().After(deadline) {
				t.Fatalf("no %s within 60 s; memories %+v", what, memories())
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	calls := func() int { mu.Lock(); defer mu.Unlock(); return memoryCalls }

	// --- the first run: block 1 commits, the model hangs on block 2, SIGKILL
	first := e.start(t)
	waitFor("second memory call", func() bool { return calls() >= 2 && len(memories()) == 1 })
	first.kill9()
	if got := memories(); len(got) != 1 || !strings.HasPrefix(got[0].Text, "CRASH-MEMORY-1") {
		t.Fatalf("after the kill: %+v, want the one block committed before it", got)
	}
	mu.Lock()
	holding = false
	close(hold)
	mu.Unlock()

	// --- the restart finishes the job
	e.start(t)
	waitFor("recap draft", func() bool {
		r, err := svc.Resume(ctx, f.Owner, lobby.Session.ID)
		must(err)
		return r.Recap.Status == "draft"
	})
	got := memories()
	page, err := svc.ListEvents(ctx, f.Owner, f.LobbyID, 0, 100)
	must(err)
	end := page.Events[len(page.Events)-1].Seq
	first1, last := 0, int64(0)
	for _, m := range got {
		if m.FromSeq <= last {
			t.Errorf("blocks overlap or repeat: %d..%d after %d", m.FromSeq, m.ToSeq, last)
		}
		last = m.ToSeq
		if strings.HasPrefix(m.Text, "CRASH-MEMORY-1:") {
			first1++
		}
	}
	if first1 != 1 || last != end || len(got) < 3 {
		t.Fatalf("after the restart: %d memories, the first block's %d times, blocks end at %d of %d:\n%+v", len(got), first1, last, end, got)
	}
	t.Logf("memories after the restart: %d (the first written before the kill, kept once); model memory calls: %d", len(got), calls())
}
