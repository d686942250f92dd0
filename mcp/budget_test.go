package mcp

import (
	"context"
	"fmt"
	"testing"

	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/gameplay/table/tabletest"
)

// TestAgentTurnBudget plays a 200-event session the way agents do: a human
// chats, and between the lines an AI DM and an AI player each take turns —
// wait for what happened since their cursor, then act (narrate, ask for a
// check, speak, roll), re-reading the context every few turns. Each turn
// costs at most 3 calls, a call's output at most 8 KB and 4 KB on average,
// and the context stays under 4 KB however long the session.
func TestAgentTurnBudget(t *testing.T) {
	ctx := context.Background()
	svc, srv := liveServer(t)
	f := tabletest.New(t, svc)
	dm := aiDM(t, srv.URL, f)
	dm.must("session", map[string]any{"action": "start"}, nil)
	player := aiPlayer(t, srv.URL, f)
	seatTomas(t, svc, f)
	dm.must("session", map[string]any{"action": "admit", "seat_id": f.FreeSeatID}, nil)

	var dmCx, pCx Context
	dm.must("get_session_context", nil, &dmCx)
	player.must("get_session_context", nil, &pCx)
	dmCursor, pCursor := dmCx.Cursor, pCx.Cursor
	type turn struct{ calls int }
	var turns []turn
	// take runs one agent turn and records how many calls it made.
	take := func(a *agent, body func()) {
		before := a.calls
		body()
		turns = append(turns, turn{a.calls - before})
	}
	line := "Tomas squints at the far bank, counts the lanterns twice and mutters that the ferry is late."
	var pending []Check
	for i := 0; ; i++ {
		_, err := svc.PostMessage(ctx, f.Unseated, f.LobbyID, table.MessageInput{Kind: "say", Text: fmt.Sprintf("%s (%d)", line, i)})
		tabletest.Must(t, err)
		var pg EventPage
		switch i % 6 {
		case 2: // the DM's turn
			take(dm, func() {
				dm.must("wait_for_event", map[string]any{"after": dmCursor, "timeout_seconds": 5}, &pg)
				dmCursor = pg.Cursor
				if i%24 == 2 {
					var c Checks
					dm.must("request_check", map[string]any{"seat_id": f.PlayerSeatID, "skill": "perception", "dc": 14}, &c)
					pending = c.Checks
				} else {
					dm.must("post_message", map[string]any{"text": "The river hisses against the pilings; somewhere upstream a bell rings once."}, nil)
				}
				if i%30 == 2 {
					dm.must("get_session_context", nil, &dmCx)
				}
			})
		case 5: // the player's turn
			take(player, func() {
				player.must("wait_for_event", map[string]any{"after": pCursor, "timeout_seconds": 5}, &pg)
				pCursor = pg.Cursor
				if len(pending) > 0 {
					player.must("roll_check", map[string]any{"request_id": pending[0].RequestID}, nil)
					pending = nil
				} else {
					player.must("post_message", map[string]any{"text": "Mira pulls her hood tighter. \"Late ferries carry bad news,\" she says."}, nil)
				}
				if i%30 == 5 {
					player.must("get_session_context", nil, &pCx)
				}
			})
		}
		if pCursor >= 200 && dmCursor >= 200 && i%6 == 5 {
			break
		}
	}
	// The context at 200+ events, with what the campaign remembers of
	// them (the memory job as the worker runs it).
	if n, err := svc.DrainCampaignMemoryJobs(ctx); err != nil || n == 0 {
		t.Fatalf("memory jobs: %d ran, %v", n, err)
	}
	for name, a := range map[string]*agent{"dm": dm, "player": player} {
		a.must("get_session_context", nil, &dmCx)
		size := a.bytes[len(a.bytes)-1]
		t.Logf("%s: get_session_context is %d bytes at %d events, %d memories", name, size, dmCx.Cursor, len(dmCx.Memories))
		if len(dmCx.Memories) == 0 {
			t.Errorf("%s: get_session_context recalls no memory of 200 events of the same river", name)
		}
		if dmCx.Cursor < 200 || size > contextBudget {
			t.Errorf("%s: get_session_context is %d bytes at %d events (budget %d)", name, size, dmCx.Cursor, contextBudget)
		}
	}
	maxCalls, total, count, largest := 0, 0, 0, 0
	for _, tr := range turns {
		maxCalls = max(maxCalls, tr.calls)
	}
	for _, a := range []*agent{dm, player} {
		for _, b := range a.bytes {
			total, count, largest = total+b, count+1, max(largest, b)
		}
	}
	mean := total / count
	t.Logf("%d agent turns: at most %d calls a turn; %d calls, output mean %d bytes, max %d bytes", len(turns), maxCalls, count, mean, largest)
	if maxCalls > 3 || mean > meanTurnOutputBudget || largest > maxTurnOutputBudget {
		t.Fatalf("over budget: %d calls a turn (≤3), mean %d bytes (≤%d), max %d bytes (≤%d)", maxCalls, mean, meanTurnOutputBudget, largest, maxTurnOutputBudget)
	}
}
