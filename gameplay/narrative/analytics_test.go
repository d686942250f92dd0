package narrative_test

import (
	"context"
	"strings"
	"testing"

	"github.com/adventure-table/adventure-table/gameplay/narrative"
	"github.com/adventure-table/adventure-table/models"
)

// TestATurnIsCountedWithoutReading: a solo turn, from its request to its
// last event, runs statements but none on the counter tables (counting is
// a write at the next flush, never a read); the flush then holds the turn,
// its time to first token and its tokens under who paid for them (BYOK).
func TestATurnIsCountedWithoutReading(t *testing.T) {
	f := newSolo(t)
	adv := f.adventure().Adventure.ID
	f.reply("The gate groans open.", "")
	ctx, rec := models.WithStatementRecorder(context.Background())
	turn, err := f.svc.StartTurn(ctx, f.user, adv, narrative.TurnInput{Mode: narrative.ModeDo, Text: "push the gate"})
	must(t, err)
	var last narrative.Event
	turn.Run(ctx, func(ev narrative.Event) { last = ev })
	if last.Type != narrative.EventDone {
		t.Fatalf("the turn ended with %+v", last)
	}
	statements := rec.Statements()
	if len(statements) == 0 {
		t.Fatal("no statement recorded: the recorder sees nothing")
	}
	for _, sql := range statements {
		if strings.Contains(sql, "analytics_") {
			t.Errorf("a turn touched the counters: %s", sql)
		}
	}
	counted := f.counted()
	first := int64(0)
	for k, n := range counted {
		if strings.HasPrefix(k, "model_first_token ") {
			first += n
		}
	}
	if counted["turn solo"] != 1 || first != 1 || counted["tokens byok"] != 120 || counted["tokens demo"] != 0 {
		t.Errorf("counted %v, want one turn, one time to first token, 120 BYOK tokens", counted)
	}
}
