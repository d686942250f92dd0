package table_test

import (
	"context"
	"strings"
	"testing"

	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/gameplay/table/tabletest"
	"github.com/adventure-table/adventure-table/models/apperr"
	"github.com/google/go-cmp/cmp"
)

// secretWorld has a DM's secrets in every part but the premise.
var secretWorld = table.World{
	Premise:        "A drowned city rises at low tide.",
	PlotEssentials: "SECRET-PLOT: the harbourmaster sank it.",
	NPCs:           []table.WorldNPC{{Name: "Vell", Description: "the harbourmaster", StatBlock: "SECRET-STATS AC 15 HP 40"}},
}

// TestCampaignWorldEditing: only the owner or a DM-key holder writes the
// world; texts are trimmed and held to their limits.
func TestCampaignWorldEditing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svc, _ := newService(t)
	f := tabletest.New(t, svc)
	for _, tt := range []struct {
		name string
		as   table.Caller
		in   table.World
		want apperr.Code
	}{
		{"OK/owner", f.Owner, secretWorld, ""},
		{"OK/dm_key", f.DMKey, table.World{Premise: "  Trimmed.  "}, ""},
		{"ErrSeatedMember", f.Seated, secretWorld, apperr.RoomAuthorityRequired},
		{"ErrUnseatedMember", f.Unseated, secretWorld, apperr.RoomAuthorityRequired},
		{"ErrStranger", f.Stranger, secretWorld, apperr.NotFound},
		{"ErrPremiseTooLong", f.Owner, table.World{Premise: strings.Repeat("é", table.WorldPremiseMax+1)}, apperr.CampaignWorldInvalid},
		{"ErrPlotTooLong", f.Owner, table.World{PlotEssentials: strings.Repeat("x", table.WorldPlotMax+1)}, apperr.CampaignWorldInvalid},
		{"ErrNPCWithoutName", f.Owner, table.World{NPCs: []table.WorldNPC{{Name: "  ", StatBlock: "AC 12"}}}, apperr.CampaignWorldInvalid},
		{"ErrStatBlockTooLong", f.Owner, table.World{NPCs: []table.WorldNPC{{Name: "Vell", StatBlock: strings.Repeat("x", table.WorldStatBlockMax+1)}}}, apperr.CampaignWorldInvalid},
		{"ErrTooManyNPCs", f.Owner, table.World{NPCs: make([]table.WorldNPC, table.WorldNPCsMax+1)}, apperr.CampaignWorldInvalid},
		{"ErrNUL", f.Owner, table.World{Premise: "a\x00b"}, apperr.CampaignWorldInvalid},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := svc.SetCampaignWorld(ctx, tt.as, f.CampaignID, tt.in)
			wantCode(t, err, tt.want)
		})
	}
	// The last successful write stands; the refused ones changed nothing.
	got, err := svc.CampaignWorld(ctx, f.Owner, f.CampaignID)
	tabletest.Must(t, err)
	if diff := cmp.Diff(table.WorldView{CampaignID: f.CampaignID, World: table.World{Premise: "Trimmed."}, Whole: true, CanEdit: true}, got); diff != "" {
		t.Errorf("world after edits (-want +got):\n%s", diff)
	}
	// Too long names its field and limit.
	_, err = svc.SetCampaignWorld(ctx, f.Owner, f.CampaignID, table.World{NPCs: []table.WorldNPC{{Name: "A"}, {Name: "B", Description: strings.Repeat("x", table.WorldNPCDescMax+1)}}})
	if e, ok := err.(*apperr.Error); !ok || e.Fields["npcs[1].description"] != "at most 400 characters" {
		t.Errorf("got %v, want a field error on npcs[1].description", err)
	}
}

// TestCampaignWorldAudience: the DM (and who may edit) read the whole
// world; a player and a spectator the premise only — in the room's read
// and in the session's context alike.
func TestCampaignWorldAudience(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svc, _ := newService(t)
	f := tabletest.New(t, svc)
	_, err := svc.SetCampaignWorld(ctx, f.Owner, f.CampaignID, secretWorld)
	tabletest.Must(t, err)
	premise := table.World{Premise: secretWorld.Premise}
	for _, tt := range []struct {
		name string
		as   table.Caller
		want table.World
	}{
		{"owner", f.Owner, secretWorld},
		{"dm_key", f.DMKey, secretWorld},
		{"seated_player", f.Seated, premise},
		{"unseated", f.Unseated, premise},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := svc.CampaignWorld(ctx, tt.as, f.CampaignID)
			tabletest.Must(t, err)
			if diff := cmp.Diff(tt.want, got.World); diff != "" {
				t.Errorf("world (-want +got):\n%s", diff)
			}
		})
	}
	_, err = svc.CampaignWorld(ctx, f.Stranger, f.CampaignID)
	wantCode(t, err, apperr.NotFound)

	// In the session: an AI DM reads all of it, an AI player the premise.
	dm, err := svc.SetDMSeatAI(ctx, f.Owner, f.CampaignID)
	tabletest.Must(t, err)
	dmAI := table.AI(grantIDOf(t, svc, dm.Token))
	pre, err := svc.GetPreSessionContext(ctx, dmAI)
	tabletest.Must(t, err)
	if diff := cmp.Diff(secretWorld, pre.World); diff != "" {
		t.Errorf("DM's pre-session world (-want +got):\n%s", diff)
	}
	_, err = svc.StartSession(ctx, dmAI, f.LobbyID)
	tabletest.Must(t, err)
	player, err := svc.LetAIControl(ctx, f.Seated, f.PlayerSeatID, table.HandoffInput{})
	tabletest.Must(t, err)
	playerAI := table.AI(grantIDOf(t, svc, player.Token))
	for _, tt := range []struct {
		name string
		as   table.Caller
		want table.World
	}{
		{"ai_dm", dmAI, secretWorld},
		{"ai_player", playerAI, premise},
	} {
		t.Run("now/"+tt.name, func(t *testing.T) {
			now, err := svc.Now(ctx, tt.as, f.LobbyID, 10)
			tabletest.Must(t, err)
			if diff := cmp.Diff(tt.want, now.World); diff != "" {
				t.Errorf("world (-want +got):\n%s", diff)
			}
		})
	}
}
