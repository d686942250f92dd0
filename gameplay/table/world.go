package table

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/adventure-table/adventure-table/models"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// Limits of a campaign's world, in characters.
const (
	WorldPremiseMax   = 2000
	WorldPlotMax      = 4000
	WorldNPCsMax      = 20
	WorldNPCNameMax   = 80
	WorldNPCDescMax   = 400
	WorldStatBlockMax = 1500
)

// WorldNPC is one of the DM's non-player characters.
type WorldNPC struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	StatBlock   string `json:"stat_block,omitempty"`
}

// World is a campaign's world as the caller may see it: everyone at the
// table reads the premise; only the DM (and who may edit it) reads the plot
// essentials and the NPCs.
type World struct {
	Premise        string     `json:"premise,omitempty"`
	PlotEssentials string     `json:"plot_essentials,omitempty"`
	NPCs           []WorldNPC `json:"npcs,omitempty"`
}

// WorldView is the world with what the caller may do with it.
type WorldView struct {
	CampaignID int64 `json:"campaign_id"`
	World
	// Whole says the caller sees the DM's parts too.
	Whole   bool `json:"whole"`
	CanEdit bool `json:"can_edit"`
}

// seesWholeWorld is the world's one audience rule: the DM seat's
// controller and those who may edit it (the room owner, a DM-key holder)
// read all of it; everyone else the premise only.
func seesWholeWorld(a Actor) bool {
	return a.Role == RoleDM || a.hasRoomAuthority()
}

// worldFor projects a stored world for a.
func worldFor(w *models.CampaignWorld, a Actor) World {
	out := World{Premise: w.Premise}
	if !seesWholeWorld(a) {
		return out
	}
	out.PlotEssentials = w.PlotEssentials
	var npcs []WorldNPC
	if json.Unmarshal([]byte(w.NPCs), &npcs) == nil && len(npcs) > 0 {
		out.NPCs = npcs
	}
	return out
}

// CampaignWorld returns a campaign's world as the caller may see it.
// Returns not_found when the caller is not in the campaign's room.
func (s *Service) CampaignWorld(ctx context.Context, c Caller, campaignID int64) (WorldView, error) {
	camp, a, err := campaignActor(ctx, s.store, c, campaignID)
	if err != nil {
		return WorldView{}, err
	}
	seats, err := s.store.FindSeatsOfCampaigns(ctx, []int64{camp.ID})
	if err != nil {
		return WorldView{}, err
	}
	a = a.withSeats(camp.ID, seats)
	w, err := s.store.FindCampaignWorld(ctx, camp.ID)
	if err != nil {
		return WorldView{}, err
	}
	return WorldView{CampaignID: camp.ID, World: worldFor(w, a), Whole: seesWholeWorld(a), CanEdit: a.hasRoomAuthority()}, nil
}

// SetCampaignWorld replaces a campaign's world. Only the room owner or a
// DM-key holder may. Returns room_authority_required,
// campaign_world_invalid (Fields name the field and its limit).
func (s *Service) SetCampaignWorld(ctx context.Context, c Caller, campaignID int64, in World) (WorldView, error) {
	w, err := cleanWorld(in)
	if err != nil {
		return WorldView{}, err
	}
	err = s.store.Tx(ctx, func(tx *models.Store) error {
		camp, a, err := campaignActor(ctx, tx, c, campaignID)
		if err != nil {
			return err
		}
		if err := requireRoomAuthority(a); err != nil {
			return err
		}
		npcs, _ := json.Marshal(w.NPCs)
		return tx.SaveCampaignWorld(ctx, &models.CampaignWorld{CampaignID: camp.ID, Premise: w.Premise,
			PlotEssentials: w.PlotEssentials, NPCs: string(npcs), UpdatedAt: s.now()})
	})
	if err != nil {
		return WorldView{}, err
	}
	return s.CampaignWorld(ctx, c, campaignID)
}

// cleanWorld trims a world's texts and checks them against the limits.
func cleanWorld(in World) (World, error) {
	out := World{NPCs: []WorldNPC{}}
	text := func(raw, field string, max int) (string, error) {
		t := strings.TrimSpace(raw)
		if !models.StorableText(t) {
			return "", models.UnstorableText(apperr.CampaignWorldInvalid, field)
		}
		if utf8.RuneCountInString(t) > max {
			return "", apperr.E(apperr.CampaignWorldInvalid, "%s is longer than %d characters.", field, max).
				WithField(field, fmt.Sprintf("at most %d characters", max))
		}
		return t, nil
	}
	var err error
	if out.Premise, err = text(in.Premise, "premise", WorldPremiseMax); err != nil {
		return World{}, err
	}
	if out.PlotEssentials, err = text(in.PlotEssentials, "plot_essentials", WorldPlotMax); err != nil {
		return World{}, err
	}
	if len(in.NPCs) > WorldNPCsMax {
		return World{}, apperr.E(apperr.CampaignWorldInvalid, "A world has at most %d NPCs.", WorldNPCsMax).
			WithField("npcs", fmt.Sprintf("at most %d", WorldNPCsMax))
	}
	for i, n := range in.NPCs {
		var npc WorldNPC
		at := fmt.Sprintf("npcs[%d].", i)
		if npc.Name, err = text(n.Name, at+"name", WorldNPCNameMax); err != nil {
			return World{}, err
		}
		if npc.Name == "" || strings.IndexFunc(npc.Name, isControl) >= 0 {
			return World{}, apperr.E(apperr.CampaignWorldInvalid, "Each NPC needs a name of 1 to %d characters on one line.", WorldNPCNameMax).
				WithField(at+"name", fmt.Sprintf("1 to %d characters", WorldNPCNameMax))
		}
		if npc.Description, err = text(n.Description, at+"description", WorldNPCDescMax); err != nil {
			return World{}, err
		}
		if npc.StatBlock, err = text(n.StatBlock, at+"stat_block", WorldStatBlockMax); err != nil {
			return World{}, err
		}
		out.NPCs = append(out.NPCs, npc)
	}
	return out, nil
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f }
