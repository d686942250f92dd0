package table_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/gameplay/table/tabletest"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// TestCampaignTimeline: two sessions on the timeline, each with what it
// added. Session 1 has a fight in which a hidden ogre dies, and the
// journal gains an entry for the table and one for the DM; session 2 opens
// with its posted recap and adds an entry for seat A. The DM reads it all;
// the player of seat B reads the fight, the death, the recap and the
// table's entry, never the DM's nor seat A's, nor the ogre's hit points; a
// stranger finds no campaign.
func TestCampaignTimeline(t *testing.T) {
	t.Parallel()
	lt, _ := newLiveTable(t)
	svc := lt.svc
	must := func(err error) { t.Helper(); tabletest.Must(t, err) }
	one := lt.LobbyID
	_, err := svc.StartEncounter(ctx, lt.Owner, one, table.StartEncounterInput{Name: "Cellar", NPCs: []table.NPCInput{{Name: "Ogre", AC: 17, HP: 9173}}})
	must(err)
	_, err = svc.ChangeCombatant(ctx, lt.Owner, one, table.CombatantChangeInput{CombatantID: "npc:1", Op: "damage", Amount: 9173})
	must(err)
	_, err = svc.EndEncounter(ctx, lt.Owner, one)
	must(err)
	inn, err := svc.AddJournalEntry(ctx, lt.Owner, lt.CampaignID, table.JournalInput{Kind: "place", Title: "The Drowned Lantern"})
	must(err)
	vault, err := svc.AddJournalEntry(ctx, lt.Owner, lt.CampaignID, table.JournalInput{Kind: "clue", Title: "VAULT-FOR-DM", Audience: "dm"})
	must(err)
	_, err = svc.EndSession(ctx, lt.Owner, one)
	must(err)

	lobby, err := svc.OpenSession(ctx, lt.Owner, lt.CampaignID)
	must(err)
	two := lobby.Session.ID
	_, err = svc.StartSession(ctx, lt.Owner, two)
	must(err)
	_, err = svc.DrainCampaignMemoryJobs(ctx)
	must(err)
	recap := "Last time, the ogre fell in the cellar."
	_, err = svc.PostRecap(ctx, lt.Owner, two, &recap)
	must(err)
	debt, err := svc.AddJournalEntry(ctx, lt.Owner, lt.CampaignID, table.JournalInput{Kind: "npc", Title: "DEBT-FOR-A", Audience: "seats", SeatIDs: []int64{lt.PlayerSeatID}})
	must(err)

	titles := func(es []table.TimelineEntry) []int64 {
		var out []int64
		for _, e := range es {
			out = append(out, e.ID)
		}
		return out
	}
	for _, who := range []struct {
		name     string
		c        table.Caller
		journal1 []int64
		journal2 []int64
	}{
		{"the DM", lt.Owner, []int64{inn.ID, vault.ID}, []int64{debt.ID}},
		{"seat A", lt.Seated, []int64{inn.ID}, []int64{debt.ID}},
		{"seat B", lt.Unseated, []int64{inn.ID}, nil},
	} {
		tl, err := svc.CampaignTimeline(ctx, who.c, lt.CampaignID)
		must(err)
		if len(tl.Sessions) != 2 || tl.Sessions[0].ID != one || tl.Sessions[1].ID != two || tl.Sessions[1].Number != 2 {
			t.Fatalf("%s: sessions %+v", who.name, tl.Sessions)
		}
		s1, s2 := tl.Sessions[0], tl.Sessions[1]
		if len(s1.Fights) != 1 || s1.Fights[0].Name != "Cellar" || strings.Join(s1.Deaths, ",") != "Ogre" || s1.Recap != "" {
			t.Errorf("%s: session 1 %+v", who.name, s1)
		}
		if s2.Recap != recap || len(s2.Fights) != 0 || s2.Status != "active" {
			t.Errorf("%s: session 2 %+v", who.name, s2)
		}
		if got := titles(s1.Journal); !slices.Equal(got, who.journal1) {
			t.Errorf("%s: session 1 added %v, want %v", who.name, got, who.journal1)
		}
		if got := titles(s2.Journal); !slices.Equal(got, who.journal2) {
			t.Errorf("%s: session 2 added %v, want %v", who.name, got, who.journal2)
		}
		raw, _ := json.Marshal(tl)
		if strings.Contains(string(raw), "9173") {
			t.Errorf("%s reads the hidden ogre's hit points: %s", who.name, raw)
		}
	}
	_, err = svc.CampaignTimeline(ctx, lt.Stranger, lt.CampaignID)
	wantCode(t, err, apperr.NotFound)
}
