package table

import (
	"context"
	"time"

	"github.com/adventure-table/adventure-table/models"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// CreateCampaign adds a campaign with its DM seat; the room's first
// campaign becomes its active one. Returns room_authority_required,
// campaign_name_invalid.
func (s *Service) CreateCampaign(ctx context.Context, c Caller, roomID int64, name string) (RoomView, error) {
	name, err := cleanName(name, apperr.CampaignNameInvalid, "name")
	if err != nil {
		return RoomView{}, err
	}
	return s.mutateRoom(ctx, func(tx *models.Store) (Actor, error) {
		a, err := roomActor(ctx, tx, c, roomID, "room")
		if err != nil {
			return Actor{}, err
		}
		if err := requireRoomAuthority(a); err != nil {
			return Actor{}, err
		}
		_, _, err = s.createCampaign(ctx, tx, roomID, name)
		return a, err
	})
}

// createCampaign writes a campaign (name already checked) with its DM seat,
// and makes it the room's active one when the room has none.
func (s *Service) createCampaign(ctx context.Context, tx *models.Store, roomID int64, name string) (*models.Campaign, *models.CampaignSeat, error) {
	camp := &models.Campaign{RoomID: roomID, Name: name, Status: models.CampaignActive, CreatedAt: s.now()}
	dm := &models.CampaignSeat{Role: models.SeatDM, Label: defaultDMLabel, ControllerKind: models.ControllerNone, CreatedAt: s.now()}
	if err := tx.CreateCampaign(ctx, camp, dm); err != nil {
		return nil, nil, err
	}
	room, err := tx.FindRoomByID(ctx, roomID)
	if err != nil {
		return nil, nil, err
	}
	if room.ActiveCampaignID == nil {
		id := &camp.ID
		if err := tx.UpdateRoom(ctx, roomID, models.RoomUpdate{ActiveCampaignID: &id}); err != nil {
			return nil, nil, err
		}
	}
	return camp, dm, nil
}

// CampaignChange is a partial update of a campaign.
type CampaignChange struct {
	Name   *string `json:"name,omitempty"`
	Status *string `json:"status,omitempty" jsonschema:"active, completed or archived"`
	// RecapStyle is how long the recap that opens a session is.
	RecapStyle *string `json:"recap_style,omitempty" jsonschema:"brief or detailed"`
}

// campaignActor loads a campaign and resolves the caller in its room.
func campaignActor(ctx context.Context, tx *models.Store, c Caller, campaignID int64) (*models.Campaign, Actor, error) {
	camp, err := tx.FindCampaignByID(ctx, campaignID)
	if apperr.CodeOf(err) == apperr.NotFound {
		return nil, Actor{}, notFound("campaign")
	}
	if err != nil {
		return nil, Actor{}, err
	}
	a, err := roomActor(ctx, tx, c, camp.RoomID, "campaign")
	return camp, a, err
}

// UpdateCampaign renames a campaign or changes its status. Returns
// room_authority_required, campaign_name_invalid, invalid_request.
func (s *Service) UpdateCampaign(ctx context.Context, c Caller, campaignID int64, ch CampaignChange) (RoomView, error) {
	return s.mutateRoom(ctx, func(tx *models.Store) (Actor, error) {
		_, a, err := campaignActor(ctx, tx, c, campaignID)
		if err != nil {
			return Actor{}, err
		}
		if err := requireRoomAuthority(a); err != nil {
			return Actor{}, err
		}
		var u models.CampaignUpdate
		if ch.Name != nil {
			name, err := cleanName(*ch.Name, apperr.CampaignNameInvalid, "name")
			if err != nil {
				return Actor{}, err
			}
			u.Name = &name
		}
		if ch.Status != nil {
			switch *ch.Status {
			case models.CampaignActive, models.CampaignCompleted, models.CampaignArchived:
				u.Status = ch.Status
				if *ch.Status != models.CampaignActive {
					// A campaign that can no longer start leaves no dormant DM token.
					if err := tx.RevokeUnboundCampaignGrants(ctx, campaignID, "campaign_"+*ch.Status, time.Now().UTC()); err != nil {
						return Actor{}, err
					}
				}
			default:
				return Actor{}, apperr.E(apperr.InvalidRequest, "Status must be active, completed or archived.").WithField("status", "active, completed or archived")
			}
		}
		if ch.RecapStyle != nil {
			if *ch.RecapStyle != models.RecapBrief && *ch.RecapStyle != models.RecapDetailed {
				return Actor{}, apperr.E(apperr.InvalidRequest, "The recap is brief or detailed.").WithField("recap_style", "brief or detailed")
			}
			u.RecapStyle = ch.RecapStyle
		}
		if err := tx.UpdateCampaign(ctx, campaignID, u); err != nil {
			return Actor{}, err
		}
		return a, nil
	})
}

// AddSeat adds a player seat. Returns room_authority_required, seat_label_invalid.
func (s *Service) AddSeat(ctx context.Context, c Caller, campaignID int64, label string) (RoomView, error) {
	label, err := cleanName(label, apperr.SeatLabelInvalid, "label")
	if err != nil {
		return RoomView{}, err
	}
	return s.mutateRoom(ctx, func(tx *models.Store) (Actor, error) {
		_, a, err := campaignActor(ctx, tx, c, campaignID)
		if err != nil {
			return Actor{}, err
		}
		if err := requireRoomAuthority(a); err != nil {
			return Actor{}, err
		}
		return a, s.addSeat(ctx, tx, campaignID, label)
	})
}

// addSeat writes a free player seat (label already checked).
func (s *Service) addSeat(ctx context.Context, tx *models.Store, campaignID int64, label string) error {
	seat := &models.CampaignSeat{CampaignID: campaignID, Role: models.SeatPlayer, Label: label, ControllerKind: models.ControllerNone, CreatedAt: s.now()}
	return tx.CreateSeat(ctx, seat)
}

// seatActor loads a seat (locked) and resolves the caller in its room.
func seatActor(ctx context.Context, tx *models.Store, c Caller, seatID int64) (*models.CampaignSeat, *models.Campaign, Actor, error) {
	seat, err := tx.FindSeatByID(ctx, seatID, true)
	if apperr.CodeOf(err) == apperr.NotFound {
		return nil, nil, Actor{}, notFound("seat")
	}
	if err != nil {
		return nil, nil, Actor{}, err
	}
	camp, err := tx.FindCampaignByID(ctx, seat.CampaignID)
	if err != nil {
		return nil, nil, Actor{}, err
	}
	a, err := roomActor(ctx, tx, c, camp.RoomID, "seat")
	return seat, camp, a, err
}

// changeController binds a seat to a new controller unless it already has
// exactly that one: only a real change moves the epoch.
func changeController(ctx context.Context, tx *models.Store, seat *models.CampaignSeat, to models.SeatController) error {
	return changeControllerFor(ctx, tx, seat, to, RevokedReassigned)
}

// changeControllerFor is the one rule of a controller change: an AI grant
// the seat held is revoked, with the reason, in the same transaction.
func changeControllerFor(ctx context.Context, tx *models.Store, seat *models.CampaignSeat, to models.SeatController, reason string) error {
	same := seat.ControllerKind == to.Kind && eqID(seat.ControllerAccessSessionID, to.AccessSessionID) && eqID(seat.AIControllerGrantID, to.AIGrantID)
	if same {
		return nil
	}
	// Reassigning away from an AI revokes its grant in the same transaction.
	if seat.ControllerKind == models.ControllerAI && seat.AIControllerGrantID != nil {
		if err := tx.RevokeGrant(ctx, *seat.AIControllerGrantID, reason, time.Now().UTC()); err != nil {
			return err
		}
	}
	_, err := tx.SetSeatController(ctx, seat.ID, to)
	return err
}

func eqID(a, b *int64) bool { return (a == nil && b == nil) || (a != nil && b != nil && *a == *b) }

// AssignSeat makes an active member the seat's human controller. Returns
// room_authority_required, not_found (member of another room),
// room_access_revoked.
func (s *Service) AssignSeat(ctx context.Context, c Caller, seatID, accessID int64) (RoomView, error) {
	return s.mutateRoom(ctx, func(tx *models.Store) (Actor, error) {
		seat, camp, a, err := seatActor(ctx, tx, c, seatID)
		if err != nil {
			return Actor{}, err
		}
		if err := requireRoomAuthority(a); err != nil {
			return Actor{}, err
		}
		m, err := memberOfRoom(ctx, tx, camp.RoomID, accessID)
		if err != nil {
			return Actor{}, err
		}
		if m.Status != models.AccessActive {
			return Actor{}, apperr.E(apperr.RoomAccessRevoked, "That member's access was revoked.")
		}
		if err := changeController(ctx, tx, seat, models.SeatController{Kind: models.ControllerHuman, AccessSessionID: &m.ID}); err != nil {
			return Actor{}, err
		}
		return a, nil
	})
}

// UnassignSeat leaves a seat without controller. Room authority may do it
// to any seat; a controller may leave their own. Returns
// room_authority_required.
func (s *Service) UnassignSeat(ctx context.Context, c Caller, seatID int64) (RoomView, error) {
	return s.mutateRoom(ctx, func(tx *models.Store) (Actor, error) {
		seat, _, a, err := seatActor(ctx, tx, c, seatID)
		if err != nil {
			return Actor{}, err
		}
		if !controls(a, *seat) {
			if err := requireRoomAuthority(a); err != nil {
				return Actor{}, err
			}
		}
		if err := changeController(ctx, tx, seat, models.SeatController{Kind: models.ControllerNone}); err != nil {
			return Actor{}, err
		}
		return a, nil
	})
}

// ClaimSeat lets a member take an unassigned player seat when the owner
// allows self-claim. Returns self_claim_disabled, seat_not_claimable,
// seat_already_controlled.
func (s *Service) ClaimSeat(ctx context.Context, c Caller, seatID int64) (RoomView, error) {
	return s.mutateRoom(ctx, func(tx *models.Store) (Actor, error) {
		seat, camp, a, err := seatActor(ctx, tx, c, seatID)
		if err != nil {
			return Actor{}, err
		}
		room, err := tx.FindRoomByID(ctx, camp.RoomID)
		if err != nil {
			return Actor{}, err
		}
		switch {
		case !room.AllowSelfClaim:
			return Actor{}, apperr.E(apperr.SelfClaimDisabled, "The owner has not allowed players to claim seats.")
		case seat.Role != models.SeatPlayer:
			return Actor{}, apperr.E(apperr.SeatNotClaimable, "Only player seats can be claimed.")
		case seat.ControllerKind != models.ControllerNone:
			return Actor{}, apperr.E(apperr.SeatAlreadyControlled, "Someone already controls this seat.")
		}
		if err := changeController(ctx, tx, seat, models.SeatController{Kind: models.ControllerHuman, AccessSessionID: &a.AccessSessionID}); err != nil {
			return Actor{}, err
		}
		return a, nil
	})
}

// SetSeatCharacter chooses which of the controller's own characters the
// seat plays (nil clears it). Returns seat_controller_required, not_found.
func (s *Service) SetSeatCharacter(ctx context.Context, c Caller, seatID int64, characterID *int64) (RoomView, error) {
	return s.mutateRoom(ctx, func(tx *models.Store) (Actor, error) {
		seat, _, a, err := seatActor(ctx, tx, c, seatID)
		if err != nil {
			return Actor{}, err
		}
		if !controls(a, *seat) {
			return Actor{}, apperr.E(apperr.SeatControllerRequired, "Only the seat's controller can choose its character.")
		}
		if characterID != nil {
			ch, err := tx.FindCharacterByID(ctx, *characterID)
			if err != nil || ch.OwnerUserID != a.UserID {
				return Actor{}, notFound("character")
			}
		}
		if err := tx.SetSeatCharacter(ctx, seat.ID, characterID); err != nil {
			return Actor{}, err
		}
		return a, nil
	})
}
