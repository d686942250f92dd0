package table_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/gameplay/table/tabletest"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// TestCampaignExport: the DM's file holds the whole campaign — the public
// story, a whisper to seat B, a DM-only journal entry, a hidden ogre's hit
// points — with its Markdown; seat A's file holds the story and the table's
// entry and none of those secrets, in the JSON or the Markdown; a stranger
// finds no campaign.
func TestCampaignExport(t *testing.T) {
	t.Parallel()
	lt, _ := newLiveTable(t)
	svc := lt.svc
	must := func(err error) { t.Helper(); tabletest.Must(t, err) }
	b := lt.FreeSeatID
	lt.post(t, lt.Owner, table.MessageInput{Kind: "narration", Text: "The innkeeper Bertha Stonebrew lights the lantern."})
	lt.post(t, lt.Owner, table.MessageInput{Kind: "whisper_dm", Text: "WHISPER-TO-B-61", ToSeatID: &b})
	_, err := svc.StartEncounter(ctx, lt.Owner, lt.LobbyID, table.StartEncounterInput{Name: "Cellar", NPCs: []table.NPCInput{{Name: "Ogre", AC: 17, HP: 9173}}})
	must(err)
	_, err = svc.ChangeCombatant(ctx, lt.Owner, lt.LobbyID, table.CombatantChangeInput{CombatantID: "npc:1", Op: "damage", Amount: 5})
	must(err)
	_, err = svc.AddJournalEntry(ctx, lt.Owner, lt.CampaignID, table.JournalInput{Kind: "clue", Title: "DM-VAULT-62", Audience: "dm"})
	must(err)
	_, err = svc.AddJournalEntry(ctx, lt.Owner, lt.CampaignID, table.JournalInput{Kind: "place", Title: "The Drowned Lantern"})
	must(err)

	dm, err := svc.ExportCampaign(ctx, lt.Owner, lt.CampaignID)
	must(err)
	player, err := svc.ExportCampaign(ctx, lt.Seated, lt.CampaignID)
	must(err)
	whole := func(f table.CampaignFile) string { raw, _ := json.Marshal(f); return string(raw) }
	if dm.Format != table.CampaignFormat || dm.Version != 1 || dm.ExportedAs != "dm" || player.ExportedAs != "player" {
		t.Fatalf("headers: %s %d %s / %s", dm.Format, dm.Version, dm.ExportedAs, player.ExportedAs)
	}
	for _, secret := range []string{"WHISPER-TO-B-61", "DM-VAULT-62", "9168"} {
		if !strings.Contains(whole(dm), secret) || !strings.Contains(dm.Markdown, secret) {
			t.Errorf("the DM's file lacks %s:\n%s", secret, dm.Markdown)
		}
		if strings.Contains(whole(player), secret) {
			t.Errorf("seat A's file holds %s:\n%s", secret, player.Markdown)
		}
	}
	for _, f := range []table.CampaignFile{dm, player} {
		if len(f.Sessions) != 1 || !strings.Contains(f.Markdown, "## Session 1") || !strings.Contains(f.Markdown, "Bertha Stonebrew") ||
			!strings.Contains(f.Markdown, "The Drowned Lantern") || !strings.HasPrefix(f.Markdown, "# ") {
			t.Errorf("%s's Markdown:\n%s", f.ExportedAs, f.Markdown)
		}
	}
	_, err = svc.ExportCampaign(ctx, lt.Stranger, lt.CampaignID)
	wantCode(t, err, apperr.NotFound)
}

// TestCampaignImport: the DM's file of a campaign with a session behind it
// imports into the room as a new campaign — world, recap style, the ended
// session with its recap, the journal (what seat A alone knew becomes the
// DM's) and the memories — and the new campaign's next session opens with
// a recap that remembers the innkeeper. A player may not import; bad
// files are refused with their codes; a failure midway leaves nothing; and
// in every refusal the room keeps exactly the campaigns it had.
func TestCampaignImport(t *testing.T) {
	t.Parallel()
	lt, _ := newLiveTable(t)
	svc := lt.svc
	must := func(err error) { t.Helper(); tabletest.Must(t, err) }
	_, err := svc.SetCampaignWorld(ctx, lt.Owner, lt.CampaignID, table.World{Premise: "A drowned city.", PlotEssentials: "The lantern is the key."})
	must(err)
	lt.post(t, lt.Owner, table.MessageInput{Kind: "narration", Text: "The innkeeper Bertha Stonebrew lights the lantern."})
	_, err = svc.AddJournalEntry(ctx, lt.Owner, lt.CampaignID, table.JournalInput{Kind: "npc", Title: "Bertha Stonebrew", Text: "Keeps the inn."})
	must(err)
	_, err = svc.AddJournalEntry(ctx, lt.Owner, lt.CampaignID, table.JournalInput{Kind: "clue", Title: "A's secret", Audience: "seats", SeatIDs: []int64{lt.PlayerSeatID}})
	must(err)
	_, err = svc.EndSession(ctx, lt.Owner, lt.LobbyID)
	must(err)
	// the next session posts a recap, so the file carries one
	lobby, err := svc.OpenSession(ctx, lt.Owner, lt.CampaignID)
	must(err)
	_, err = svc.StartSession(ctx, lt.Owner, lobby.Session.ID)
	must(err)
	_, err = svc.DrainCampaignMemoryJobs(ctx)
	must(err)
	_, err = svc.PostRecap(ctx, lt.Owner, lobby.Session.ID, nil)
	must(err)
	_, err = svc.EndSession(ctx, lt.Owner, lobby.Session.ID)
	must(err)
	// a detailed recap reaches back past the last session (whose memories
	// the job writes when the next one starts)
	detailed := "detailed"
	_, err = svc.UpdateCampaign(ctx, lt.Owner, lt.CampaignID, table.CampaignChange{RecapStyle: &detailed})
	must(err)
	file, err := svc.ExportCampaign(ctx, lt.Owner, lt.CampaignID)
	must(err)
	if file.Campaign.RecapStyle != "detailed" || len(file.Memories) == 0 || len(file.Sessions) != 2 || file.Sessions[1].Recap == "" {
		t.Fatalf("the exported file: %d memories, sessions %+v", len(file.Memories), file.Sessions)
	}
	data, _ := json.Marshal(file)
	campaigns := func() int {
		t.Helper()
		r, err := svc.GetRoom(ctx, lt.Owner, lt.RoomID)
		must(err)
		return len(r.Campaigns)
	}
	before := campaigns()

	// refusals change nothing
	edit := func(change func(map[string]any)) []byte {
		var m map[string]any
		must(json.Unmarshal(data, &m))
		change(m)
		out, _ := json.Marshal(m)
		return out
	}
	for _, tc := range []struct {
		name string
		as   table.Caller
		data []byte
		want apperr.Code
	}{
		{"a player", lt.Seated, data, apperr.RoomAuthorityRequired},
		{"an unknown field", lt.Owner, edit(func(m map[string]any) { m["secret"] = true }), apperr.InvalidRequest},
		{"duplicate keys", lt.Owner, []byte(`{"format":"adventure-table.campaign","format":"x","version":1}`), apperr.InvalidRequest},
		{"another format", lt.Owner, edit(func(m map[string]any) { m["format"] = "adventure-table.adventure" }), apperr.ImportFormatUnsupported},
		{"another version", lt.Owner, edit(func(m map[string]any) { m["version"] = 2 }), apperr.ImportFormatUnsupported},
		{"too many memories", lt.Owner, edit(func(m map[string]any) {
			mems := make([]any, table.CampaignFileMemoriesMax+1)
			for i := range mems {
				mems[i] = map[string]any{"session": 1, "audience": "table", "text": "x"}
			}
			m["memories"] = mems
		}), apperr.InvalidRequest},
		{"a memory of no session", lt.Owner, edit(func(m map[string]any) {
			m["memories"] = []any{map[string]any{"session": 9, "audience": "table", "text": "x"}}
		}), apperr.InvalidRequest},
		{"a bad journal kind", lt.Owner, edit(func(m map[string]any) {
			m["journal"] = []any{map[string]any{"kind": "dragon", "title": "x", "audience": "table", "confirmed": true}}
		}), apperr.JournalEntryInvalid},
		{"no name", lt.Owner, edit(func(m map[string]any) { m["campaign"].(map[string]any)["name"] = " " }), apperr.CampaignNameInvalid},
	} {
		_, err := svc.ImportCampaign(ctx, tc.as, lt.RoomID, tc.data)
		if apperr.CodeOf(err) != tc.want {
			t.Errorf("%s: got %v, want %s", tc.name, err, tc.want)
		}
	}
	svc.SetFailpoint(func(point string) error {
		if point == "campaign.import" {
			return errors.New("injected failure after the sessions")
		}
		return nil
	})
	if _, err := svc.ImportCampaign(ctx, lt.Owner, lt.RoomID, data); err == nil {
		t.Fatal("the import went through its failure")
	}
	svc.SetFailpoint(nil)
	if got := campaigns(); got != before {
		t.Fatalf("refused imports left %d campaigns, want %d", got, before)
	}

	// the import
	room, err := svc.ImportCampaign(ctx, lt.Owner, lt.RoomID, data)
	must(err)
	if len(room.Campaigns) != before+1 {
		t.Fatalf("campaigns after the import: %d", len(room.Campaigns))
	}
	var imported, dmSeat int64
	for _, c := range room.Campaigns {
		if c.ID != lt.CampaignID && c.ID != lt.SpareCampaignID {
			imported, dmSeat = c.ID, c.Seats[0].ID
		}
	}
	again, err := svc.ExportCampaign(ctx, lt.Owner, imported)
	must(err)
	if again.Campaign.Name != file.Campaign.Name || !reflect.DeepEqual(again.Campaign.World, file.Campaign.World) || len(again.Sessions) != 2 ||
		again.Sessions[1].Recap != file.Sessions[1].Recap || len(again.Memories) != len(file.Memories) || len(again.Journal) != 2 {
		t.Fatalf("the imported campaign:\n%+v\nwant what the file holds:\n%+v", again, file)
	}
	for _, e := range again.Journal {
		if e.Title == "A's secret" && e.Audience != "dm" {
			t.Errorf("what seat A alone knew is the DM's in the new campaign: %+v", e)
		}
	}
	// its first session opens remembering the old campaign
	_, err = svc.AssignSeat(ctx, lt.Owner, dmSeat, lt.OwnerAccess)
	must(err)
	_, err = svc.UpdateRoom(ctx, lt.Owner, lt.RoomID, table.RoomChange{ActiveCampaignID: &imported})
	must(err)
	next, err := svc.OpenSession(ctx, lt.Owner, imported)
	must(err)
	_, err = svc.StartSession(ctx, lt.Owner, next.Session.ID)
	must(err)
	_, err = svc.DrainCampaignMemoryJobs(ctx)
	must(err)
	r, err := svc.Resume(ctx, lt.Owner, next.Session.ID)
	must(err)
	if r.Recap.Status != "draft" || !strings.Contains(r.Recap.Text, "Bertha") {
		t.Fatalf("the imported campaign's first session recalls the innkeeper: %+v", r.Recap)
	}
}
