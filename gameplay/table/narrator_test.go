package table_test

import (
	"context"
	"testing"

	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/gameplay/table/tabletest"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// TestNarratorAuthority: who may give which seat to the server's narrator,
// direct it and take the seat back, from the canonical rows.
func TestNarratorAuthority(t *testing.T) {
	ctx := context.Background()
	t.Run("DMSeat", func(t *testing.T) {
		svc, _ := newService(t)
		f := tabletest.New(t, svc)
		for _, p := range []tabletest.Persona{{Name: "dm_key", Caller: f.DMKey}, {Name: "seated", Caller: f.Seated}, {Name: "stranger", Caller: f.Stranger}} {
			if _, err := svc.SeatNarrator(ctx, p.Caller, f.DMSeatID, table.NarratorInput{}); err == nil {
				t.Fatalf("%s gave the DM seat to the narrator", p.Name)
			}
		}
		if _, err := svc.SeatNarrator(ctx, f.Owner, f.DMSeatID, table.NarratorInput{DebounceMS: -1}); apperr.CodeOf(err) != apperr.InvalidRequest {
			t.Fatalf("a negative quiet time: %v", err)
		}
		v, err := svc.SeatNarrator(ctx, f.Owner, f.DMSeatID, table.NarratorInput{})
		tabletest.Must(t, err)
		if v.Role != "dm" || v.DebounceMS != 4000 || v.MaxToolCalls != 8 || v.State != table.NarratorIdle {
			t.Fatalf("narrator: %+v", v)
		}
		// The player cannot direct the DM's narrator; the DM-key holder can.
		_, err = svc.ControlNarrator(ctx, f.Seated, f.DMSeatID, table.NarratorControl{Action: "pause"})
		wantCode(t, err, apperr.RoomAuthorityRequired)
		v, err = svc.ControlNarrator(ctx, f.DMKey, f.DMSeatID, table.NarratorControl{Action: "pause"})
		tabletest.Must(t, err)
		if !v.Paused || v.State != table.NarratorPaused {
			t.Fatalf("paused: %+v", v)
		}
		_, err = svc.ControlNarrator(ctx, f.Owner, f.DMSeatID, table.NarratorControl{Action: "dance"})
		wantCode(t, err, apperr.InvalidRequest)
		// Costs only for those who direct it.
		list, err := svc.ListNarrators(ctx, f.Unseated, f.RoomID)
		tabletest.Must(t, err)
		if len(list) != 1 || list[0].SeatID != f.DMSeatID {
			t.Fatalf("a member's list: %+v", list)
		}
		_, err = svc.ListNarrators(ctx, f.Stranger, f.RoomID)
		wantCode(t, err, apperr.NotFound)
		// Only the owner takes the DM seat back; it is theirs again.
		_, err = svc.TakeBackNarrator(ctx, f.Seated, f.DMSeatID)
		wantCode(t, err, apperr.RoomOwnerRequired)
		room, err := svc.TakeBackNarrator(ctx, f.Owner, f.DMSeatID)
		tabletest.Must(t, err)
		if s := room.Campaigns[0].Seats[0]; s.ControllerKind != "human" {
			t.Fatalf("the DM seat after the take-back: %+v", s)
		}
		list, err = svc.ListNarrators(ctx, f.Owner, f.RoomID)
		tabletest.Must(t, err)
		if len(list) != 0 {
			t.Fatalf("a taken-back narrator is still listed: %+v", list)
		}
	})
	t.Run("PlayerSeats", func(t *testing.T) {
		svc, _ := newService(t)
		f := tabletest.New(t, svc)
		// Before the session: a player seat waits for the game.
		_, err := svc.SeatNarrator(ctx, f.Seated, f.PlayerSeatID, table.NarratorInput{})
		wantCode(t, err, apperr.SessionNotActive)
		_, err = svc.StartSession(ctx, f.Owner, f.LobbyID)
		tabletest.Must(t, err)
		// The DM seat cannot change in play.
		_, err = svc.SeatNarrator(ctx, f.Owner, f.DMSeatID, table.NarratorInput{})
		wantCode(t, err, apperr.AIGrantAlreadyBound)
		// Someone else's seat: refused, owner included.
		_, err = svc.SeatNarrator(ctx, f.Owner, f.PlayerSeatID, table.NarratorInput{})
		wantCode(t, err, apperr.SeatControllerRequired)
		_, err = svc.SeatNarrator(ctx, f.Seated, f.PlayerSeatID, table.NarratorInput{TemporaryInstruction: "Play Mira cautiously."})
		tabletest.Must(t, err)
		// Only Mira's player takes her back, not the owner.
		_, err = svc.TakeBackNarrator(ctx, f.Owner, f.PlayerSeatID)
		wantCode(t, err, apperr.TakeBackOriginRequired)
		_, err = svc.TakeBackNarrator(ctx, f.Seated, f.PlayerSeatID)
		tabletest.Must(t, err)

		// A free seat without a character cannot hold a companion.
		_, err = svc.SeatNarrator(ctx, f.Owner, f.FreeSeatID, table.NarratorInput{})
		wantCode(t, err, apperr.SeatNotReady)
		// Nor with someone else's character.
		_, err = svc.SeatNarrator(ctx, f.Owner, f.FreeSeatID, table.NarratorInput{CharacterID: &f.UnseatedCharacterID})
		wantCode(t, err, apperr.NotFound)
		// Only the owner seats a companion.
		brom, err := svc.CreateCharacter(ctx, f.Owner, tabletest.Character("Brom"))
		tabletest.Must(t, err)
		_, err = svc.SeatNarrator(ctx, f.DMKey, f.FreeSeatID, table.NarratorInput{CharacterID: &brom.ID})
		if err == nil {
			t.Fatal("a DM-key holder seated a companion")
		}
		v, err := svc.SeatNarrator(ctx, f.Owner, f.FreeSeatID, table.NarratorInput{CharacterID: &brom.ID})
		tabletest.Must(t, err)
		if v.Role != "player" || v.SeatID != f.FreeSeatID {
			t.Fatalf("companion: %+v", v)
		}
		// Brom sits in the running game at once.
		res, err := svc.Resume(ctx, f.Owner, f.LobbyID)
		tabletest.Must(t, err)
		joined := false
		for _, p := range res.Participants {
			joined = joined || (p.SeatID == f.FreeSeatID && p.Late)
		}
		if !joined {
			t.Fatalf("the companion is not in the session: %+v", res.Participants)
		}
		// The owner takes the companion's seat back: it goes free.
		room, err := svc.TakeBackNarrator(ctx, f.Owner, f.FreeSeatID)
		tabletest.Must(t, err)
		for _, s := range room.Campaigns[0].Seats {
			if s.ID == f.FreeSeatID && s.ControllerKind != "none" {
				t.Fatalf("the companion's seat after the take-back: %+v", s)
			}
		}
	})
}
