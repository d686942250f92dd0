package webui_test

import (
	"encoding/json"
	"testing"

	"github.com/adventure-table/adventure-table/gameplay/narrative"
	"github.com/adventure-table/adventure-table/gameplay/table/tabletest"
)

// TestStarterRoutes: the solo page lists the shipped starters and starts one
// with one request, which answers the new adventure's play page; an unknown
// starter is not_found.
func TestStarterRoutes(t *testing.T) {
	f := newFixture(t, withSecret)
	u := tabletest.NewUser(t, f.services.Table, "Newcomer")
	rec := call(t, f.handler, u, "GET", "/api/solo/starters", "")
	var list narrative.StarterList
	if rec.Code != 200 || json.Unmarshal(rec.Body.Bytes(), &list) != nil || len(list.Starters) < 3 {
		t.Fatalf("starters: got %d %s", rec.Code, rec.Body)
	}
	slug := list.Starters[0].Slug
	rec = call(t, f.handler, u, "POST", "/api/solo/starters/"+slug+"/play", "{}")
	var page narrative.AdventurePage
	if rec.Code != 201 || json.Unmarshal(rec.Body.Bytes(), &page) != nil || page.Adventure.Title != list.Starters[0].Title || len(page.Story) != 1 {
		t.Fatalf("start: got %d %s", rec.Code, rec.Body)
	}
	rec = call(t, f.handler, u, "GET", "/api/scenarios", "")
	var scs narrative.ScenarioList
	if rec.Code != 200 || json.Unmarshal(rec.Body.Bytes(), &scs) != nil || len(scs.Scenarios) != 1 {
		t.Fatalf("scenarios after a start: got %d %s", rec.Code, rec.Body)
	}
	if rec = call(t, f.handler, u, "POST", "/api/solo/starters/no-such-story/play", "{}"); rec.Code != 404 {
		t.Fatalf("unknown starter: got %d %s", rec.Code, rec.Body)
	}
}
