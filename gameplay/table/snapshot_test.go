package table_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/gameplay/table/tabletest"
	"github.com/adventure-table/adventure-table/models"
)

// TestNowSnapshot: an agent that reads the table again with nothing changed
// costs its scope and its characters only (the session's rows are kept by
// the hub), and every change those rows hold shows on the very next read,
// for the DM and for the agent: a stage, an event, a check, a window, a
// pending action, a fight, and a seat taken back (an authority change,
// whose names come with the seats).
func TestNowSnapshot(t *testing.T) {
	lt, store := newLiveTable(t)
	svc := lt.svc
	m, err := svc.LetAIControl(ctx, lt.Seated, lt.PlayerSeatID, table.HandoffInput{})
	tabletest.Must(t, err)
	ai := aiCaller(t, svc, m.Token)
	read := func(c table.Caller) table.TableNow {
		t.Helper()
		out, err := svc.Now(ctx, c, lt.LobbyID, 24)
		tabletest.Must(t, err)
		return out
	}
	// A table where someone follows the events, as the DM's open stream
	// does: a commit then wakes the feed rather than emptying it.
	wctx, stop := context.WithCancel(ctx)
	waiting := make(chan struct{})
	defer func() { stop(); <-waiting }()
	go func() {
		defer close(waiting)
		after := int64(0)
		for wctx.Err() == nil {
			if p, err := svc.WaitEvents(wctx, lt.Owner, lt.LobbyID, after, 30*time.Second); err == nil {
				after = p.Cursor
			}
		}
	}()
	for svc.Notifier().Waiters(lt.LobbyID) == 0 {
		time.Sleep(time.Millisecond) // waiting for the waiter to register, not for time to pass
	}
	read(ai)
	cctx, n := models.WithQueryCounter(ctx)
	if _, err := svc.Now(cctx, ai, lt.LobbyID, 24); err != nil || n.Load() != 4 {
		t.Fatalf("a repeated read: %v, %d statements, want 4 (the scope's two, the characters and the world)", err, n.Load())
	}

	changes := []struct {
		name string
		do   func() error
		seen func(table.TableNow) bool
	}{
		{"stage", func() error {
			_, err := svc.SetStage(ctx, lt.Owner, lt.LobbyID, table.StageInput{Text: "The rope bridge", Revision: read(lt.Owner).Resume.Stage.Revision})
			return err
		}, func(o table.TableNow) bool { return o.Resume.Stage.Text == "The rope bridge" }},
		{"event", func() error {
			_, err := svc.PostMessage(ctx, lt.Owner, lt.LobbyID, table.MessageInput{Kind: "narration", Text: "A crow calls."})
			return err
		}, func(o table.TableNow) bool {
			last := o.Resume.RecentEvents[len(o.Resume.RecentEvents)-1]
			return strings.Contains(string(last.Payload), "A crow calls.")
		}},
		{"check", func() error {
			_, err := svc.RequestCheck(ctx, lt.Owner, lt.LobbyID, table.CheckRequestInput{SeatIDs: []int64{lt.PlayerSeatID}, Skill: "perception", DC: ptrInt(12)})
			return err
		}, func(o table.TableNow) bool { return len(o.Board.Requests) == 1 }},
		{"window", func() error {
			_, err := svc.OpenActionWindow(ctx, lt.Owner, lt.LobbyID, table.WindowInput{Prompt: "What do you do?"})
			return err
		}, func(o table.TableNow) bool { return len(o.Board.Windows) == 1 }},
		{"pending action", func() error {
			_, err := svc.DeclareAction(ctx, ai, lt.LobbyID, table.ActionInput{Text: "I hide behind the cart."})
			return err
		}, func(o table.TableNow) bool { return len(o.Board.PendingActions) == 1 }},
		{"fight", func() error {
			_, err := svc.StartEncounter(ctx, lt.Owner, lt.LobbyID, table.StartEncounterInput{SeatIDs: []int64{lt.PlayerSeatID}})
			return err
		}, func(o table.TableNow) bool { return o.Encounter.Encounter != nil }},
	}
	for _, ch := range changes {
		read(lt.Owner) // kept
		read(ai)
		tabletest.Must(t, ch.do())
		if !ch.seen(read(lt.Owner)) {
			t.Errorf("%s: the DM's next read did not show it", ch.name)
		}
		if !ch.seen(read(ai)) {
			t.Errorf("%s: the agent's next read did not show it", ch.name)
		}
	}

	// Taken back: the seat's new controller is named at once.
	read(lt.Owner)
	_, err = svc.TakeBackControl(ctx, lt.Seated, lt.PlayerSeatID)
	tabletest.Must(t, err)
	seatName := func() string {
		for _, seat := range read(lt.Owner).Resume.Seats {
			if seat.ID == lt.PlayerSeatID && seat.ControllerKind == "human" && seat.ControllerDisplayName != nil {
				return *seat.ControllerDisplayName
			}
		}
		return ""
	}
	if seatName() == "" {
		t.Error("after the take-back the seat has no human controller named")
	}
	// A new name puts no event in the session; it counts as an authority
	// change, and the next read names the player anew.
	renamed := "Mira's player, renamed"
	tabletest.Must(t, store.UpdateUser(ctx, lt.Seated.UserID, &renamed, nil))
	if got := seatName(); got != renamed {
		t.Errorf("after the rename the seat's controller reads %q", got)
	}
}
