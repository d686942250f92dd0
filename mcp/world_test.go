package mcp

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/gameplay/table/tabletest"
)

// TestWorldThroughTheDoor: the DM seat's agent reads the campaign's whole
// world before and during the session; a player's agent reads the premise
// and never a plot essential or an NPC's stat block.
func TestWorldThroughTheDoor(t *testing.T) {
	ctx := context.Background()
	svc, srv := liveServer(t)
	f := tabletest.New(t, svc)
	_, err := svc.SetCampaignWorld(ctx, f.Owner, f.CampaignID, table.World{
		Premise:        "PREMISE: a drowned city rises at low tide.",
		PlotEssentials: "SECRET-PLOT: the harbourmaster sank it.",
		NPCs:           []table.WorldNPC{{Name: "Vell", Description: "SECRET-NPC harbourmaster", StatBlock: "SECRET-STATS AC 15"}},
	})
	tabletest.Must(t, err)
	dm := aiDM(t, srv.URL, f)
	var pre map[string]any
	dm.must("get_pre_session_context", nil, &pre)
	wantAll := func(who string, v any) {
		t.Helper()
		raw, _ := json.Marshal(v)
		for _, s := range []string{"PREMISE", "SECRET-PLOT", "SECRET-NPC", "SECRET-STATS"} {
			if !strings.Contains(string(raw), s) {
				t.Errorf("%s: got %s, want %s in it", who, raw, s)
			}
		}
	}
	wantAll("pre-session", pre)
	dm.must("session", map[string]any{"action": "start"}, nil)
	var dmCx map[string]any
	dm.must("get_session_context", nil, &dmCx)
	wantAll("DM context", dmCx)

	player := aiPlayer(t, srv.URL, f)
	var pCx map[string]any
	player.must("get_session_context", nil, &pCx)
	raw, _ := json.Marshal(pCx)
	if !strings.Contains(string(raw), "PREMISE") || strings.Contains(string(raw), "SECRET") {
		t.Errorf("player context: got %s, want the premise and no secret", raw)
	}
}
