package gameplay_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/adventure-table/adventure-table/gameplay"
	"github.com/adventure-table/adventure-table/gameplay/narrative"
	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/gameplay/table/tabletest"
	"github.com/adventure-table/adventure-table/models"
	"github.com/adventure-table/adventure-table/models/modelstest"
)

// An idle guest who owns a room with a running session (events, chat,
// rolls, an AI seat's grant), characters and a solo adventure with
// memories is swept by one DELETE: everything they own goes, and nothing
// of anyone else's — on a fresh schema and on one upgraded through the
// migration that made the foreign keys cascade.
func TestSweepIdleGuestsCascades(t *testing.T) {
	for _, upgraded := range []bool{false, true} {
		name := "fresh"
		if upgraded {
			name = "upgraded"
		}
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			var store *models.Store
			if upgraded {
				store = modelstest.MustOpenEmpty(t)
				if _, err := store.MigrateTo(ctx, 9); err != nil {
					t.Fatal(err)
				}
				if _, err := store.Migrate(ctx); err != nil {
					t.Fatal(err)
				}
			} else {
				store = modelstest.MustOpen(t)
			}
			now := time.Now()
			clock := func() time.Time { return now }
			svc := gameplay.New(store, gameplay.Options{Now: clock, Secret: []byte(strings.Repeat("k", 40))})
			f := tabletest.New(t, svc.Table)
			owner := f.Owner
			_, err := svc.Table.StartSession(ctx, owner, f.LobbyID)
			tabletest.Must(t, err)
			_, err = svc.Table.PostMessage(ctx, owner, f.LobbyID, table.MessageInput{Kind: "narration", Text: "The mine is dark."})
			tabletest.Must(t, err)
			_, err = svc.Table.QuickRoll(ctx, f.Seated, f.LobbyID, table.QuickRollInput{Formula: "1d20+2"})
			tabletest.Must(t, err)
			_, err = svc.Table.LetAIControl(ctx, f.Seated, f.PlayerSeatID, table.HandoffInput{})
			tabletest.Must(t, err)
			ownChar, err := svc.Table.CreateCharacter(ctx, owner, tabletest.Character("Owner's hero"))
			tabletest.Must(t, err)
			sc, err := svc.Narrative.CreateScenario(ctx, owner.UserID, narrative.ScenarioInput{Title: "Solo", Premise: "A cave.", Opening: "You wake."})
			tabletest.Must(t, err)
			adv, err := svc.Narrative.Play(ctx, owner.UserID, sc.ID, narrative.Persona{PersonaName: "Ash"})
			tabletest.Must(t, err)
			_, err = svc.Narrative.AddMemory(ctx, owner.UserID, adv.Adventure.ID, narrative.MemoryInput{Text: "Ash fears the dark."})
			tabletest.Must(t, err)
			// Another person's solo adventure stays.
			_, err = svc.Narrative.CreateScenario(ctx, f.Stranger.UserID, narrative.ScenarioInput{Title: "Theirs", Premise: "A hill.", Opening: "Wind."})
			tabletest.Must(t, err)

			before, err := store.TableCounts(ctx)
			tabletest.Must(t, err)
			long := now.Add(-31 * 24 * time.Hour)
			tabletest.Must(t, store.UpdateUser(ctx, owner.UserID, nil, &long))
			n, err := svc.SweepIdleGuests(ctx, 30*24*time.Hour)
			tabletest.Must(t, err)
			if n != 1 {
				t.Fatalf("swept %d users, want the 1 idle guest", n)
			}
			after, err := store.TableCounts(ctx)
			tabletest.Must(t, err)
			// Everything in the owner's room and solo play is gone ...
			for _, table := range []string{"campaigns", "campaign_seats", "sessions", "session_events", "session_messages", "roll_results",
				"ai_controller_grants", "adventures", "actions", "memories", "scenarios"} {
				want := int64(0)
				if table == "scenarios" {
					want = 1 // the stranger's
				}
				if after[table] != want {
					t.Errorf("%s: %d rows left (before %d), want %d", table, after[table], before[table], want)
				}
			}
			// ... and only that: one room, one user, the owner's character
			// and the room's memberships.
			if after["users"] != before["users"]-1 || after["rooms"] != 1 || after["characters"] != before["characters"]-1 {
				t.Errorf("users %d→%d, rooms %d→%d, characters %d→%d", before["users"], after["users"], before["rooms"], after["rooms"],
					before["characters"], after["characters"])
			}
			if _, err := svc.Table.GetCharacter(ctx, f.Seated, f.CharacterID); err != nil {
				t.Errorf("a seated player's character went with the room: %v", err)
			}
			if _, err := svc.Table.GetCharacter(ctx, owner, ownChar.ID); err == nil {
				t.Error("the owner's character survived")
			}
			// A guest seen recently is not swept.
			if n, err := svc.SweepIdleGuests(ctx, 30*24*time.Hour); err != nil || n != 0 {
				t.Fatalf("second sweep: %d, %v", n, err)
			}
		})
	}
}
