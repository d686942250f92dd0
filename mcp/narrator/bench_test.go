package narrator_test

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/adventure-table/adventure-table/gameplay"
	"github.com/adventure-table/adventure-table/gameplay/llm"
	"github.com/adventure-table/adventure-table/gameplay/llm/llmtest"
	"github.com/adventure-table/adventure-table/gameplay/narrative"
	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/gameplay/table/tabletest"
	"github.com/adventure-table/adventure-table/mcp"
	"github.com/adventure-table/adventure-table/mcp/narrator"
	"github.com/adventure-table/adventure-table/models/modelstest"
)

// BenchmarkTriggerToNarration: the server's overhead from a player's @DM
// message to the narrator's narration in the feed, with a model that
// answers at once (one model call, no tool calls): the scan, the claim,
// the context read through get_session_context, the model request and
// reply over local HTTP, the post, the step's record. The runner's poll
// interval (250 ms by default) comes on top when it is not scanned by hand.
func BenchmarkTriggerToNarration(b *testing.B) {
	s := newSceneTB(b)
	s.startedByNarrator()
	s.fake.Respond(func(llmtest.Request) llmtest.Reply { return textReply("The stranger nods.") })
	var took []time.Duration
	b.ResetTimer()
	for b.Loop() {
		start := time.Now()
		s.say(s.f.Seated, "@DM anything?")
		s.scan()
		took = append(took, time.Since(start))
	}
	b.StopTimer()
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(took[len(took)*99/100].Microseconds())/1000, "p99-ms")
}

// BenchmarkTriggerToFirstWords: the server's overhead from a player's @DM
// message to the narrator's first words streamed where the table reads
// them (the narrator's draft, as a player's browser polls it), with a model
// that answers at once. The model then holds its reply, so what is
// measured ends at the first byte, not the post.
func BenchmarkTriggerToFirstWords(b *testing.B) {
	s := newSceneTB(b)
	s.startedByNarrator()
	var took []time.Duration
	b.ResetTimer()
	for b.Loop() {
		hold := make(chan struct{})
		s.fake.Push(llmtest.Reply{Chunks: []string{"The stranger ", "nods."}, FinishReason: "stop", Hold: hold, HoldAfter: 1})
		start := time.Now()
		s.say(s.f.Seated, "@DM anything?")
		done := make(chan struct{})
		go func() { s.scan(); close(done) }()
		s.until("the first words show", func(v table.NarratorView) bool { return v.Draft != "" })
		took = append(took, time.Since(start))
		close(hold)
		<-done
	}
	b.StopTimer()
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(took[len(took)*99/100].Microseconds())/1000, "p99-ms")
}

// BenchmarkHundredTables: 100 tables, each with the narrator as DM and a
// human player; each round every player addresses the DM and one process
// serves every table. Reports steps per minute.
func BenchmarkHundredTables(b *testing.B) {
	const tables = 100
	store := modelstest.MustOpen(b)
	fake := llmtest.New(b)
	svc := gameplay.New(store, gameplay.Options{Mode: "local", Secret: []byte(strings.Repeat("k", 40)), Provider: llm.NewOpenAI(nil), Logger: slog.New(slog.DiscardHandler)})
	tools := mcp.NewToolbox(mcp.Options{Table: svc.Table, Logger: slog.New(slog.DiscardHandler)})
	runner := narrator.New(narrator.Options{Table: svc.Table, Tools: tools, Model: svc.Narrative, ProcessID: "bench", MaxSteps: tables, Logger: slog.New(slog.DiscardHandler)})
	ctx := context.Background()
	var fixtures []tabletest.Fixture
	for range tables {
		f := tabletest.New(b, svc.Table)
		_, err := svc.Narrative.PutSettings(ctx, f.Owner.UserID, narrative.ProviderSettingsInput{BaseURL: fake.URL(), Model: "fake",
			ContextBudget: 8000, MaxOutputTokens: 300, Temperature: 0.7, TopP: 1})
		tabletest.Must(b, err)
		_, err = svc.Table.SeatNarrator(ctx, f.Owner, f.DMSeatID, table.NarratorInput{})
		tabletest.Must(b, err)
		_, err = svc.Table.ControlNarrator(ctx, f.Owner, f.DMSeatID, table.NarratorControl{Action: "act_now"})
		tabletest.Must(b, err)
		fixtures = append(fixtures, f)
	}
	// Each table's first step starts its session; later ones answer.
	fake.Respond(func(r llmtest.Request) llmtest.Reply {
		if len(r.Messages) == 2 && strings.Contains(r.Messages[1].Content, `"ready_to_start":true`) {
			return toolReply(call("s", "session", map[string]any{"action": "start"}))
		}
		return textReply("The wind howls.")
	})
	runner.Scan(ctx)
	runner.Wait()
	steps := 0
	b.ResetTimer()
	for b.Loop() {
		for _, f := range fixtures {
			_, err := svc.Table.PostMessage(ctx, f.Seated, f.LobbyID, table.MessageInput{Kind: "say", Text: "@DM what now?"})
			tabletest.Must(b, err)
		}
		runner.Scan(ctx)
		runner.Wait()
		steps += tables
	}
	b.ReportMetric(float64(steps)/b.Elapsed().Minutes(), "steps/min")
}
