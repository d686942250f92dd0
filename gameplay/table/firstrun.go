package table

import (
	"context"
	"fmt"

	"github.com/adventure-table/adventure-table/gameplay/analytics"
	"github.com/adventure-table/adventure-table/models"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// First runs: a table in one call (the owner seated as DM, free player
// seats, a lobby and the invite link) and a friend seated by the link in
// one call (a name, a character, a free seat, and the running session when
// there is one). Each composes the single-step rules the room page uses,
// in one transaction.

// Bounds on the player seats of a new table.
const (
	defaultTableSeats = 4
	maxTableSeats     = 12
)

// TableInput is a new table: its name, its campaign's name and the labels
// of its player seats.
type TableInput struct {
	Name string `json:"name" jsonschema:"1 to 80 characters"`
	// Campaign defaults to the table's name.
	Campaign string `json:"campaign,omitempty" jsonschema:"the campaign's name, 1 to 80 characters; the table's name when empty"`
	// SeatLabels name the player seats (the web app sends them in the
	// owner's language); four seats "Player 1" to "Player 4" when empty.
	SeatLabels []string `json:"seat_labels,omitempty" jsonschema:"labels of the player seats, 1 to 12, each 1 to 80 characters; Player 1 to Player 4 when empty"`
	// DisplayName, when given, renames the caller: the name the friends
	// see on the invite and at the table.
	DisplayName string `json:"display_name,omitempty" jsonschema:"the caller's new display name, 1 to 80 characters; unchanged when empty"`
}

// TableView is a new table: the room page, the lobby the friends sit down
// in, and the invite code of the link.
type TableView struct {
	Room       RoomView        `json:"room"`
	CampaignID int64           `json:"campaign_id"`
	Session    OpenSessionView `json:"session"`
	InviteCode string          `json:"invite_code"`
}

// CreateTable makes a table ready to play in one transaction: a room owned
// by the caller that lets members claim seats, its campaign (the room's
// active one) with the DM seat controlled by the caller, free player seats
// and a lobby session; with a display name, the caller is renamed too.
// Returns room_name_invalid, campaign_name_invalid, seat_label_invalid,
// display_name_invalid; nothing is written on any error.
func (s *Service) CreateTable(ctx context.Context, c Caller, in TableInput) (TableView, error) {
	name, err := cleanName(in.Name, apperr.RoomNameInvalid, "name")
	if err != nil {
		return TableView{}, err
	}
	campaign := name
	if in.Campaign != "" {
		if campaign, err = cleanName(in.Campaign, apperr.CampaignNameInvalid, "campaign"); err != nil {
			return TableView{}, err
		}
	}
	labels := in.SeatLabels
	if len(labels) == 0 {
		for i := range defaultTableSeats {
			labels = append(labels, fmt.Sprintf("Player %d", i+1))
		}
	}
	if len(labels) > maxTableSeats {
		return TableView{}, apperr.E(apperr.SeatLabelInvalid, "A new table has at most %d player seats.", maxTableSeats).WithField("seat_labels", fmt.Sprintf("1 to %d labels", maxTableSeats))
	}
	for i, l := range labels {
		if labels[i], err = cleanName(l, apperr.SeatLabelInvalid, fmt.Sprintf("seat_labels.%d", i)); err != nil {
			return TableView{}, err
		}
	}
	var rename *string
	if in.DisplayName != "" {
		n, err := cleanName(in.DisplayName, apperr.DisplayNameInvalid, "display_name")
		if err != nil {
			return TableView{}, err
		}
		rename = &n
	}
	var out TableView
	err = s.store.Tx(ctx, func(tx *models.Store) error {
		if rename != nil {
			if err := tx.UpdateUser(ctx, c.UserID, rename, nil); err != nil {
				return err
			}
		}
		a, err := s.createRoom(ctx, tx, c, name, true)
		if err != nil {
			return err
		}
		camp, dm, err := s.createCampaign(ctx, tx, a.RoomID, campaign)
		if err != nil {
			return err
		}
		if err := changeController(ctx, tx, dm, models.SeatController{Kind: models.ControllerHuman, AccessSessionID: &a.AccessSessionID}); err != nil {
			return err
		}
		for _, l := range labels {
			if err := s.addSeat(ctx, tx, camp.ID, l); err != nil {
				return err
			}
		}
		if err := s.failpoint("create_table.seats"); err != nil {
			return err
		}
		id, err := s.openLobby(ctx, tx, camp, dm.ID)
		if err != nil {
			return err
		}
		if out.Room, err = roomView(ctx, tx, a); err != nil {
			return err
		}
		out.CampaignID, out.Session, out.InviteCode = camp.ID, OpenSessionView{ID: id, Status: models.SessionLobby}, out.Room.InviteCode
		return nil
	})
	if err != nil {
		return TableView{}, err
	}
	s.analytics.Reach(c.UserID, analytics.Made)
	return out, nil
}

// InvitePreview is what an invite link shows before anyone sits down.
type InvitePreview struct {
	RoomName     string  `json:"room_name"`
	CampaignName string  `json:"campaign_name" jsonschema:"the room's active campaign; empty when it has none"`
	DMName       *string `json:"dm_name" jsonschema:"who controls the DM seat, when a person does"`
	// DMNameCode is the DM's name code (see UserView).
	DMNameCode   string            `json:"dm_name_code,omitempty" jsonschema:"user.guest (dm_name_params.number) while dm_name is the server-made guest name"`
	DMNameParams map[string]string `json:"dm_name_params,omitempty" jsonschema:"the parameters of dm_name_code"`
	FreeSeats    int               `json:"free_seats" jsonschema:"player seats no one controls"`
	SelfClaim    bool              `json:"self_claim" jsonschema:"the owner lets members claim seats: joining by the link seats you"`
	// Session is the campaign's lobby or running session.
	Session *OpenSessionView `json:"session"`
	// Member and Seated say where the caller already is.
	Member bool   `json:"member"`
	SeatID *int64 `json:"seat_id" jsonschema:"the caller's player seat in the active campaign, when they hold one"`
	// Revoked: the caller's access to the room was revoked.
	Revoked bool `json:"revoked"`
}

// PreviewInvite reads what an invite link leads to, without joining.
// Returns invite_code_invalid.
func (s *Service) PreviewInvite(ctx context.Context, c Caller, inviteCode string) (InvitePreview, error) {
	if !models.StorableText(inviteCode) {
		return InvitePreview{}, models.UnstorableText(apperr.InviteCodeInvalid, "invite_code")
	}
	room, err := roomByInvite(ctx, s.store, inviteCode)
	if err != nil {
		return InvitePreview{}, err
	}
	out := InvitePreview{RoomName: room.Name, SelfClaim: room.AllowSelfClaim}
	access, err := s.store.FindAccessSession(ctx, room.ID, c.UserID, false)
	switch {
	case err == nil:
		out.Member, out.Revoked = true, access.Status != models.AccessActive
	case apperr.CodeOf(err) != apperr.NotFound:
		return InvitePreview{}, err
	}
	if room.ActiveCampaignID == nil {
		return out, nil
	}
	camp, err := s.store.FindCampaignByID(ctx, *room.ActiveCampaignID)
	if err != nil {
		return InvitePreview{}, err
	}
	out.CampaignName = camp.Name
	seats, err := s.store.FindSeatsOfCampaigns(ctx, []int64{camp.ID})
	if err != nil {
		return InvitePreview{}, err
	}
	names, err := memberNames(ctx, s.store, seatControllerIDs(seats))
	if err != nil {
		return InvitePreview{}, err
	}
	for _, seat := range seats {
		switch {
		case seat.Role == models.SeatDM && seat.ControllerAccessSessionID != nil:
			if n, ok := names[*seat.ControllerAccessSessionID]; ok {
				out.DMName = &n
				out.DMNameCode, out.DMNameParams = GuestNameCode(n)
			}
		case seat.Role == models.SeatPlayer && seat.ControllerKind == models.ControllerNone:
			out.FreeSeats++
		case seat.Role == models.SeatPlayer && access != nil && eqID(seat.ControllerAccessSessionID, &access.ID) && out.SeatID == nil:
			id := seat.ID
			out.SeatID = &id
		}
	}
	open, err := s.store.FindOpenSessions(ctx, []int64{camp.ID})
	if err != nil {
		return InvitePreview{}, err
	}
	if len(open) > 0 {
		out.Session = &OpenSessionView{ID: open[0].ID, Status: open[0].Status}
	}
	return out, nil
}

// JoinInput is a friend sitting down by an invite link: the name the table
// sees and the character they play, one of theirs or a new one from a
// quick template.
type JoinInput struct {
	InviteCode  string `json:"invite_code"`
	DisplayName string `json:"display_name" jsonschema:"1 to 80 characters: the caller's name at every table"`
	// CharacterID or Template, exactly one.
	CharacterID *int64 `json:"character_id,omitempty" jsonschema:"one of the caller's characters"`
	Template    string `json:"template,omitempty" jsonschema:"a quick character template (GET /api/characters/templates): a new level-1 character of the caller"`
	// CharacterName names the template's new character.
	CharacterName string `json:"character_name,omitempty" jsonschema:"the new character's name (with template); the template's own when empty"`
}

// JoinView is where a friend sat down.
type JoinView struct {
	RoomID      int64 `json:"room_id"`
	CampaignID  int64 `json:"campaign_id"`
	SeatID      int64 `json:"seat_id"`
	CharacterID int64 `json:"character_id"`
	// Session is the campaign's lobby or running session (joined at once
	// when running), or null when none is open.
	Session *OpenSessionView `json:"session"`
}

// JoinAndSit seats a friend by invite link in one transaction: they join
// the room (again is harmless), take the name they typed, get their
// character (theirs, or a new one from a template), take the first free
// player seat of the active campaign (or keep the one they hold) with that
// character, and, when its session is running, join it at once (a late
// join announced in the feed). The room must let members claim seats.
// Returns display_name_invalid, invalid_request (no or two characters, an
// unknown template), character_invalid, invite_code_invalid,
// room_access_revoked, self_claim_disabled, table_not_ready, table_full,
// seat_not_claimable (the caller is the table's DM), not_found (a
// character not theirs), character_already_in_session. Nothing is written
// on any error.
func (s *Service) JoinAndSit(ctx context.Context, c Caller, in JoinInput) (JoinView, error) {
	if !models.StorableText(in.InviteCode) {
		return JoinView{}, models.UnstorableText(apperr.InviteCodeInvalid, "invite_code")
	}
	name, err := cleanName(in.DisplayName, apperr.DisplayNameInvalid, "display_name")
	if err != nil {
		return JoinView{}, err
	}
	var fresh *CharacterInput
	switch {
	case (in.CharacterID == nil) == (in.Template == ""):
		return JoinView{}, apperr.E(apperr.InvalidRequest, "Choose one of your characters or a quick template.").WithField("character_id", "exactly one of character_id and template")
	case in.Template != "":
		t, ok := quickTemplate(in.Template)
		if !ok {
			return JoinView{}, apperr.E(apperr.InvalidRequest, "There is no quick character %q.", truncate(in.Template, 40)).WithField("template", "one of the quick templates")
		}
		if in.CharacterName != "" {
			t.Name = in.CharacterName
		}
		fresh = &t
	}
	var out JoinView
	var notify int64
	err = s.store.Tx(ctx, func(tx *models.Store) error {
		room, err := roomByInvite(ctx, tx, in.InviteCode)
		if err != nil {
			return err
		}
		a, err := s.joinMember(ctx, tx, c, room.ID)
		if err != nil {
			return err
		}
		if !room.AllowSelfClaim {
			return apperr.E(apperr.SelfClaimDisabled, "The owner has not allowed players to claim seats.")
		}
		if room.ActiveCampaignID == nil {
			return apperr.E(apperr.TableNotReady, "This table has no campaign to sit at yet.")
		}
		if err := tx.UpdateUser(ctx, c.UserID, &name, nil); err != nil {
			return err
		}
		seat, err := s.freeSeat(ctx, tx, a, *room.ActiveCampaignID)
		if err != nil {
			return err
		}
		var charID int64
		if fresh != nil {
			ch, err := s.createCharacter(ctx, tx, c, *fresh)
			if err != nil {
				return err
			}
			charID = ch.ID
		} else {
			ch, err := ownCharacter(ctx, tx, c, *in.CharacterID)
			if err != nil {
				return err
			}
			charID = ch.ID
		}
		if err := changeController(ctx, tx, seat, models.SeatController{Kind: models.ControllerHuman, AccessSessionID: &a.AccessSessionID}); err != nil {
			return err
		}
		if err := tx.SetSeatCharacter(ctx, seat.ID, &charID); err != nil {
			return err
		}
		if err := s.failpoint("join_and_sit.seated"); err != nil {
			return err
		}
		out = JoinView{RoomID: room.ID, CampaignID: *room.ActiveCampaignID, SeatID: seat.ID, CharacterID: charID}
		open, err := tx.FindOpenSessions(ctx, []int64{out.CampaignID})
		if err != nil || len(open) == 0 {
			return err
		}
		se := open[0]
		out.Session = &OpenSessionView{ID: se.ID, Status: se.Status}
		if se.Status != models.SessionActive {
			return nil // the lobby seats them when the DM starts
		}
		joined, err := s.lateJoinUnlessSeated(ctx, tx, &se, seat.ID)
		if joined {
			notify = se.ID
		}
		return err
	})
	if err != nil {
		return JoinView{}, err
	}
	if notify != 0 {
		s.notifier.Notify(notify)
	}
	return out, nil
}

// freeSeat picks, locked, the caller's player seat in the campaign, or
// else its first free player seat. Returns seat_not_claimable for the
// campaign's DM, table_full.
func (s *Service) freeSeat(ctx context.Context, tx *models.Store, a Actor, campaignID int64) (*models.CampaignSeat, error) {
	seats, err := tx.FindSeatsOfCampaigns(ctx, []int64{campaignID})
	if err != nil {
		return nil, err
	}
	var free []int64
	for _, seat := range seats {
		switch {
		case controls(a, seat) && seat.Role == models.SeatDM:
			return nil, apperr.E(apperr.SeatNotClaimable, "You are this table's DM; share the link with your players.")
		case controls(a, seat):
			return tx.FindSeatByID(ctx, seat.ID, true)
		case seat.Role == models.SeatPlayer && seat.ControllerKind == models.ControllerNone:
			free = append(free, seat.ID)
		}
	}
	// Each is locked and checked again: two friends racing for the last
	// seat get one seat and one table_full, never the same seat.
	for _, id := range free {
		seat, err := tx.FindSeatByID(ctx, id, true)
		if err != nil {
			return nil, err
		}
		if seat.ControllerKind == models.ControllerNone {
			return seat, nil
		}
	}
	return nil, apperr.E(apperr.TableFull, "Every player seat at this table is taken.")
}
