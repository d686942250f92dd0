package webui_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/adventure-table/adventure-table/gameplay/table/tabletest"
)

// TestJournalRoutes drives the journal as the web app does: the DM writes
// an entry for one player, who reads it while the other player never
// does; a player's proposal is confirmed by the DM and is then no longer
// theirs to change; bad input is refused with its code and changes
// nothing; a stranger finds no journal. Every answer is checked against
// the OpenAPI document by the fixture.
func TestJournalRoutes(t *testing.T) {
	f0 := newFixture(t, withSecret)
	f := tabletest.New(t, f0.services.Table)
	// Unseated plays the second seat, so there are two players.
	_, err := f0.services.Table.AssignSeat(context.Background(), f.Owner, f.FreeSeatID, f.UnseatedAccess)
	tabletest.Must(t, err)
	base := fmt.Sprintf("/api/campaigns/%d/journal", f.CampaignID)
	type entry struct {
		ID        int64   `json:"id"`
		Title     string  `json:"title"`
		Audience  string  `json:"audience"`
		SeatIDs   []int64 `json:"seat_ids"`
		Confirmed bool    `json:"confirmed"`
		CanEdit   bool    `json:"can_edit"`
	}
	type journal struct {
		Entries   []entry  `json:"entries"`
		DM        bool     `json:"dm"`
		Audiences []string `json:"audiences"`
	}
	read := func(as string, rec int, body string, v any) {
		t.Helper()
		if err := json.Unmarshal([]byte(body), v); err != nil {
			t.Fatalf("%s: %d %s", as, rec, body)
		}
	}

	rec := call(t, f0.handler, f.Owner, "POST", base, fmt.Sprintf(`{"kind":"npc","title":"Bram owes the thieves","text":"SENTINEL-FOR-A","audience":"seats","seat_ids":[%d]}`, f.PlayerSeatID))
	var secret entry
	read("dm add", rec.Code, rec.Body.String(), &secret)
	if rec.Code != http.StatusCreated || !secret.Confirmed || secret.Audience != "seats" {
		t.Fatalf("DM's entry for one seat: %d %s", rec.Code, rec.Body)
	}
	if rec := call(t, f0.handler, f.Seated, "GET", base, ""); rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), "SENTINEL-FOR-A") {
		t.Errorf("the seat it is for: %d %s", rec.Code, rec.Body)
	}
	if rec := call(t, f0.handler, f.Unseated, "GET", base, ""); rec.Code != http.StatusOK || strings.Contains(rec.Body.String(), "SENTINEL-FOR-A") || strings.Contains(rec.Body.String(), "Bram owes") {
		t.Errorf("the other player read an entry for one seat: %d %s", rec.Code, rec.Body)
	}

	rec = call(t, f0.handler, f.Unseated, "POST", base, `{"kind":"clue","title":"Muddy boots by the door"}`)
	var proposal entry
	read("player add", rec.Code, rec.Body.String(), &proposal)
	if rec.Code != http.StatusCreated || proposal.Confirmed || !proposal.CanEdit {
		t.Fatalf("player's proposal: %d %s", rec.Code, rec.Body)
	}
	var seen journal
	rec = call(t, f0.handler, f.Seated, "GET", base+"?kind=clue", "")
	read("filtered", rec.Code, rec.Body.String(), &seen)
	if len(seen.Entries) != 1 || seen.Entries[0].ID != proposal.ID || seen.Entries[0].CanEdit || seen.DM {
		t.Errorf("the other player's view of the proposal: %s", rec.Body)
	}
	if rec := call(t, f0.handler, f.Owner, "POST", fmt.Sprintf("/api/journal/%d/confirm", proposal.ID), ""); rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `"confirmed":true`) {
		t.Fatalf("confirm: %d %s", rec.Code, rec.Body)
	}
	for _, tt := range []struct {
		name         string
		method, path string
		body         string
		status       int
		code         string
	}{
		{"player edits a confirmed entry", "PATCH", fmt.Sprintf("/api/journal/%d", proposal.ID), `{"title":"Clean boots"}`, http.StatusForbidden, "journal_entry_not_editable"},
		{"player deletes a confirmed entry", "DELETE", fmt.Sprintf("/api/journal/%d", proposal.ID), "", http.StatusForbidden, "journal_entry_not_editable"},
		{"player confirms", "POST", fmt.Sprintf("/api/journal/%d/confirm", proposal.ID), "", http.StatusForbidden, "journal_dm_required"},
		{"player writes for the DM", "POST", base, `{"kind":"note","title":"x","audience":"dm"}`, http.StatusForbidden, "journal_audience_not_allowed"},
		{"unknown kind", "POST", base, `{"kind":"dragon","title":"x"}`, http.StatusBadRequest, "journal_entry_invalid"},
		{"unknown field", "POST", base, `{"kind":"npc","title":"x","secret":true}`, http.StatusBadRequest, "invalid_request"},
		{"limit not a number", "GET", base + "?limit=many", "", http.StatusBadRequest, "invalid_request"},
		{"unknown kind filter", "GET", base + "?kind=dragon", "", http.StatusBadRequest, "invalid_request"},
		{"entry for one seat, read by the other player", "PATCH", fmt.Sprintf("/api/journal/%d", secret.ID), `{"title":"x"}`, http.StatusNotFound, "not_found"},
	} {
		rec := call(t, f0.handler, f.Unseated, tt.method, tt.path, tt.body)
		if rec.Code != tt.status || !strings.Contains(rec.Body.String(), `"code":"`+tt.code+`"`) {
			t.Errorf("%s: got %d %s, want %d %s", tt.name, rec.Code, rec.Body, tt.status, tt.code)
		}
	}
	if rec := call(t, f0.handler, f.Stranger, "GET", base, ""); rec.Code != http.StatusNotFound {
		t.Errorf("stranger: %d %s", rec.Code, rec.Body)
	}
	if rec := call(t, f0.handler, f.Unseated, "GET", fmt.Sprintf("/api/campaigns/%d/timeline", f.CampaignID), ""); rec.Code != http.StatusOK ||
		!strings.Contains(rec.Body.String(), "Muddy boots") || strings.Contains(rec.Body.String(), "Bram owes") {
		t.Errorf("the other player's timeline: %d %s", rec.Code, rec.Body)
	}
	if rec := call(t, f0.handler, f.Unseated, "GET", fmt.Sprintf("/api/campaigns/%d/export", f.CampaignID), ""); rec.Code != http.StatusOK ||
		!strings.Contains(rec.Header().Get("Content-Disposition"), ".campaign.json") || !strings.Contains(rec.Body.String(), "Muddy boots") ||
		strings.Contains(rec.Body.String(), "SENTINEL-FOR-A") {
		t.Errorf("the other player's export: %d %v %s", rec.Code, rec.Header(), rec.Body)
	}
	if rec := call(t, f0.handler, f.Owner, "DELETE", fmt.Sprintf("/api/journal/%d", secret.ID), ""); rec.Code != http.StatusOK {
		t.Fatalf("DM deletes: %d %s", rec.Code, rec.Body)
	}
	// the DM's file imports as a new campaign of the room; a player's import is refused
	export := call(t, f0.handler, f.Owner, "GET", fmt.Sprintf("/api/campaigns/%d/export", f.CampaignID), "")
	importPath := fmt.Sprintf("/api/rooms/%d/campaigns/import", f.RoomID)
	if rec := call(t, f0.handler, f.Seated, "POST", importPath, export.Body.String()); rec.Code != http.StatusForbidden {
		t.Errorf("a player's import: %d %s", rec.Code, rec.Body)
	}
	if rec := call(t, f0.handler, f.Owner, "POST", importPath, `{"format":"adventure-table.campaign","version":9}`); rec.Code != http.StatusBadRequest ||
		!strings.Contains(rec.Body.String(), "import_format_unsupported") {
		t.Errorf("another version: %d %s", rec.Code, rec.Body)
	}
	if rec := call(t, f0.handler, f.Owner, "POST", importPath, export.Body.String()); rec.Code != http.StatusCreated || strings.Count(rec.Body.String(), `"name":"Lost Mine"`) != 2 {
		t.Errorf("the DM's import: %d %s", rec.Code, rec.Body)
	}
	var all journal
	rec = call(t, f0.handler, f.Owner, "GET", base, "")
	read("dm list", rec.Code, rec.Body.String(), &all)
	if !all.DM || len(all.Entries) != 1 || all.Entries[0].ID != proposal.ID || all.Entries[0].Title != "Muddy boots by the door" {
		t.Errorf("after the refusals and the deletion the DM reads %s", rec.Body)
	}
}
