package table_test

import (
	"encoding/json"
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
