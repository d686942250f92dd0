package webui_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/adventure-table/adventure-table/gameplay/table/tabletest"
)

// TestWorldRoutes: the owner writes the world and reads all of it; a
// seated player reads the premise and never a plot essential or a stat
// block; a too-long premise is refused with its code and field.
func TestWorldRoutes(t *testing.T) {
	f0 := newFixture(t, withSecret)
	f := tabletest.New(t, f0.services.Table)
	path := fmt.Sprintf("/api/campaigns/%d/world", f.CampaignID)
	rec := call(t, f0.handler, f.Owner, "PUT", path,
		`{"premise":"PREMISE: a drowned city.","plot_essentials":"SECRET-PLOT","npcs":[{"name":"Vell","description":"SECRET-NPC","stat_block":"SECRET-STATS"}]}`)
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), "SECRET-STATS") || !strings.Contains(rec.Body.String(), `"can_edit":true`) {
		t.Fatalf("owner PUT: got %d %s", rec.Code, rec.Body)
	}
	rec = call(t, f0.handler, f.Seated, "GET", path, "")
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), "PREMISE") || strings.Contains(rec.Body.String(), "SECRET") {
		t.Errorf("player GET: got %d %s, want the premise only", rec.Code, rec.Body)
	}
	rec = call(t, f0.handler, f.Owner, "PUT", path, `{"premise":"`+strings.Repeat("x", 2001)+`"}`)
	if rec.Code != http.StatusBadRequest && rec.Code != http.StatusUnprocessableEntity || !strings.Contains(rec.Body.String(), `"code":"campaign_world_invalid"`) || !strings.Contains(rec.Body.String(), `"premise"`) {
		t.Errorf("too long: got %d %s", rec.Code, rec.Body)
	}
}
