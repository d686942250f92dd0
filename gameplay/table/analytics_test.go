package table_test

import (
	"context"
	"testing"
	"time"

	"github.com/adventure-table/adventure-table/gameplay/analytics"
	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/gameplay/table/tabletest"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// TestAISeatsAndStuckStepsAreCounted: a seat handed to an AI is counted by
// kind and role once it is handed (not when refused); a narrator step that
// ends stuck is counted once with its code through the one failure helper,
// a step that ends well is not.
func TestAISeatsAndStuckStepsAreCounted(t *testing.T) {
	ctx := context.Background()
	svc, store := newService(t)
	counts := analytics.New(store, []byte("table-analytics-secret"), nil, nil)
	svc.UseAnalytics(counts)
	f := tabletest.New(t, svc)

	_, err := svc.SeatNarrator(ctx, f.Seated, f.DMSeatID, table.NarratorInput{})
	if err == nil {
		t.Fatal("a player gave the DM seat to the narrator")
	}
	_, err = svc.SeatNarrator(ctx, f.Owner, f.DMSeatID, table.NarratorInput{})
	tabletest.Must(t, err)
	runnable, err := svc.RunnableNarrators(ctx)
	tabletest.Must(t, err)
	if len(runnable) != 1 {
		t.Fatalf("runnable narrators: %+v", runnable)
	}
	n := runnable[0]
	for i, end := range []table.NarratorStepEnd{{State: table.NarratorStuck, LastError: string(apperr.ProviderUnavailable)}, {State: table.NarratorIdle}} {
		token := "proc." + string(rune('a'+i))
		won, err := svc.ClaimNarratorStep(ctx, n.GrantID, token, n.Steps+int64(i), time.Minute)
		tabletest.Must(t, err)
		if !won {
			t.Fatalf("step %d not claimed", i)
		}
		tabletest.Must(t, svc.FinishNarratorStep(ctx, n.GrantID, token, end))
	}
	// another table, in play: a player hands their seat to an outside agent
	g := tabletest.New(t, svc)
	_, err = svc.StartSession(ctx, g.Owner, g.LobbyID)
	tabletest.Must(t, err)
	_, err = svc.LetAIControl(ctx, g.Seated, g.PlayerSeatID, table.HandoffInput{})
	tabletest.Must(t, err)

	tabletest.Must(t, counts.Flush(ctx))
	rows, err := store.AnalyticsHitsSince(ctx, "2000-01-01")
	tabletest.Must(t, err)
	got := map[string]int64{}
	for _, r := range rows {
		got[r.Metric+" "+r.Label] += r.Hits
	}
	want := map[string]int64{"ai_seat narrator_dm": 1, "ai_seat agent_player": 1, "narrator_step_failed provider_unavailable": 1,
		"table_session started": 1}
	for k, n := range want {
		if got[k] != n {
			t.Errorf("%s: %d, want %d (all: %v)", k, got[k], n, got)
		}
	}
	if len(got) != len(want) {
		t.Errorf("counted %v, want only %v", got, want)
	}
}
