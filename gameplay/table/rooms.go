package table

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/adventure-table/adventure-table/gameplay/analytics"
	"github.com/adventure-table/adventure-table/models"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// EnsureGuest returns the browser's user, creating a guest when userID is 0
// or names no user (a cookie from a wiped database). It marks the user as
// seen at most once an hour, so reads do not turn into writes.
func (s *Service) EnsureGuest(ctx context.Context, userID int64) (UserView, bool, error) {
	now := s.now()
	if userID != 0 {
		u, err := s.store.FindUserByID(ctx, userID)
		if err == nil {
			if u.LastSeenAt == nil || now.Sub(*u.LastSeenAt).Hours() >= 1 {
				if err := s.store.UpdateUser(ctx, u.ID, nil, &now); err != nil {
					return UserView{}, false, err
				}
			}
			return userView(u.ID, u.DisplayName), false, nil
		}
		if apperr.CodeOf(err) != apperr.NotFound {
			return UserView{}, false, err
		}
	}
	u := models.NewGuest(now)
	if err := s.store.CreateUser(ctx, u); err != nil {
		return UserView{}, false, err
	}
	return userView(u.ID, u.DisplayName), true, nil
}

// RenameMe changes the caller's display name. Returns display_name_invalid.
func (s *Service) RenameMe(ctx context.Context, c Caller, displayName string) (UserView, error) {
	name, err := cleanName(displayName, apperr.DisplayNameInvalid, "display_name")
	if err != nil {
		return UserView{}, err
	}
	if err := s.store.UpdateUser(ctx, c.UserID, &name, nil); err != nil {
		return UserView{}, err
	}
	return userView(c.UserID, name), nil
}

// cleanName trims a human-entered name and checks it is 1–80 characters
// without control characters.
func cleanName(raw string, code apperr.Code, field string) (string, error) {
	name := strings.TrimSpace(raw)
	if !models.StorableText(name) {
		return "", models.UnstorableText(code, field)
	}
	n := utf8.RuneCountInString(name)
	bad := n < 1 || n > 80 || strings.IndexFunc(name, unicode.IsControl) >= 0
	if bad {
		return "", apperr.E(code, "A name must be 1 to 80 characters without control characters.").WithField(field, "1 to 80 characters")
	}
	return name, nil
}

func newInviteCode() string {
	var b [15]byte
	rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// CreateRoom creates a room owned by the caller. Returns room_name_invalid.
func (s *Service) CreateRoom(ctx context.Context, c Caller, name string) (RoomView, error) {
	name, err := cleanName(name, apperr.RoomNameInvalid, "name")
	if err != nil {
		return RoomView{}, err
	}
	r, err := s.mutateRoom(ctx, func(tx *models.Store) (Actor, error) {
		return s.createRoom(ctx, tx, c, name, false)
	})
	if err == nil {
		s.analytics.Reach(c.UserID, analytics.Made)
	}
	return r, err
}

// createRoom writes a room owned by the caller (name already checked) with
// the owner's access session, and returns the owner's actor in it.
func (s *Service) createRoom(ctx context.Context, tx *models.Store, c Caller, name string, selfClaim bool) (Actor, error) {
	room := &models.Room{OwnerUserID: c.UserID, Name: name, InviteCode: newInviteCode(), AllowSelfClaim: selfClaim, CreatedAt: s.now()}
	owner := &models.RoomAccessSession{UserID: c.UserID, Authority: models.AuthorityOwner, Status: models.AccessActive, CreatedAt: s.now()}
	if err := tx.CreateRoom(ctx, room, owner); err != nil {
		return Actor{}, err
	}
	return Actor{Kind: ActorHuman, UserID: c.UserID, AccessSessionID: owner.ID, Authority: owner.Authority, RoomID: room.ID}, nil
}

// ListRooms returns the rooms the caller belongs to (revoked ones included,
// so a revoked member sees why a room stopped working).
func (s *Service) ListRooms(ctx context.Context, c Caller) (RoomList, error) {
	rooms, access, err := s.store.FindRoomsOfUser(ctx, c.UserID)
	if err != nil {
		return RoomList{}, err
	}
	byRoom := map[int64]models.RoomAccessSession{}
	for _, a := range access {
		byRoom[a.RoomID] = a
	}
	out := RoomList{Rooms: []RoomSummary{}}
	for _, r := range rooms {
		out.Rooms = append(out.Rooms, RoomSummary{ID: r.ID, Name: r.Name, MyAccess: accessView(byRoom[r.ID])})
	}
	return out, nil
}

// GetRoom returns the room page. Returns not_found, room_access_revoked.
func (s *Service) GetRoom(ctx context.Context, c Caller, roomID int64) (RoomView, error) {
	a, err := roomActor(ctx, s.store, c, roomID, "room")
	if err != nil {
		return RoomView{}, err
	}
	return roomView(ctx, s.store, a)
}

// JoinRoom joins the room with that invite code as a member; joining again
// is harmless. Returns invite_code_invalid, room_access_revoked.
func (s *Service) JoinRoom(ctx context.Context, c Caller, inviteCode string) (RoomView, error) {
	if !models.StorableText(inviteCode) {
		return RoomView{}, models.UnstorableText(apperr.InviteCodeInvalid, "invite_code")
	}
	return s.mutateRoom(ctx, func(tx *models.Store) (Actor, error) {
		room, err := roomByInvite(ctx, tx, inviteCode)
		if err != nil {
			return Actor{}, err
		}
		return s.joinMember(ctx, tx, c, room.ID)
	})
}

// roomByInvite finds the room of an invite code. Returns invite_code_invalid.
func roomByInvite(ctx context.Context, tx *models.Store, inviteCode string) (*models.Room, error) {
	room, err := tx.FindRoomByInviteCode(ctx, strings.TrimSpace(inviteCode))
	if apperr.CodeOf(err) == apperr.NotFound {
		return nil, apperr.E(apperr.InviteCodeInvalid, "This invite link is not valid (it may have been replaced).")
	}
	return room, err
}

// joinMember makes the caller a member of the room unless they already
// are, and returns their actor there. Returns room_access_revoked.
func (s *Service) joinMember(ctx context.Context, tx *models.Store, c Caller, roomID int64) (Actor, error) {
	existing, err := tx.FindAccessSession(ctx, roomID, c.UserID, true)
	switch {
	case err == nil && existing.Status != models.AccessActive:
		return Actor{}, apperr.E(apperr.RoomAccessRevoked, "Your access to this room was revoked.")
	case apperr.CodeOf(err) == apperr.NotFound:
		if err := tx.CreateAccessSession(ctx, &models.RoomAccessSession{RoomID: roomID, UserID: c.UserID,
			Authority: models.AuthorityMember, Status: models.AccessActive, CreatedAt: s.now()}); err != nil {
			return Actor{}, err
		}
	case err != nil:
		return Actor{}, err
	}
	return roomActor(ctx, tx, c, roomID, "room")
}

// RoomChange is a partial update of a room; nil fields stay as they are.
type RoomChange struct {
	Name             *string `json:"name,omitempty"`
	AllowSelfClaim   *bool   `json:"allow_self_claim,omitempty"`
	ActiveCampaignID *int64  `json:"active_campaign_id,omitempty" jsonschema:"a campaign of this room; 0 clears it"`
}

// UpdateRoom changes a room. Name and self-claim are the owner's; the
// active campaign may also be chosen by a DM-key holder. Returns
// room_owner_required, room_authority_required, room_name_invalid, not_found.
func (s *Service) UpdateRoom(ctx context.Context, c Caller, roomID int64, ch RoomChange) (RoomView, error) {
	return s.mutateRoom(ctx, func(tx *models.Store) (Actor, error) {
		a, err := roomActor(ctx, tx, c, roomID, "room")
		if err != nil {
			return Actor{}, err
		}
		var u models.RoomUpdate
		if ch.Name != nil || ch.AllowSelfClaim != nil {
			if err := requireOwner(a); err != nil {
				return Actor{}, err
			}
		}
		if ch.Name != nil {
			name, err := cleanName(*ch.Name, apperr.RoomNameInvalid, "name")
			if err != nil {
				return Actor{}, err
			}
			u.Name = &name
		}
		u.AllowSelfClaim = ch.AllowSelfClaim
		if ch.ActiveCampaignID != nil {
			if err := requireRoomAuthority(a); err != nil {
				return Actor{}, err
			}
			var id *int64
			if *ch.ActiveCampaignID != 0 {
				camp, err := tx.FindCampaignByID(ctx, *ch.ActiveCampaignID)
				if err != nil || camp.RoomID != roomID {
					return Actor{}, notFound("campaign")
				}
				id = &camp.ID
			}
			u.ActiveCampaignID = &id
			// Switching the active campaign away revokes the old one's
			// unbound DM grants: no dormant bearer stays behind.
			room, err := tx.FindRoomByID(ctx, roomID)
			if err != nil {
				return Actor{}, err
			}
			if room.ActiveCampaignID != nil && !eqID(room.ActiveCampaignID, id) {
				if err := tx.RevokeUnboundCampaignGrants(ctx, *room.ActiveCampaignID, "active_campaign_switched", s.now()); err != nil {
					return Actor{}, err
				}
			}
		}
		if err := tx.UpdateRoom(ctx, roomID, u); err != nil {
			return Actor{}, err
		}
		return a, nil
	})
}

// RotateInvite replaces the invite code; the old one stops working at once.
// Returns room_owner_required.
func (s *Service) RotateInvite(ctx context.Context, c Caller, roomID int64) (InviteView, error) {
	code := newInviteCode()
	err := s.store.Tx(ctx, func(tx *models.Store) error {
		a, err := roomActor(ctx, tx, c, roomID, "room")
		if err != nil {
			return err
		}
		if err := requireOwner(a); err != nil {
			return err
		}
		return tx.UpdateRoom(ctx, roomID, models.RoomUpdate{InviteCode: &code})
	})
	return InviteView{InviteCode: code}, err
}

// memberOfRoom loads an access session of the room, or not_found.
func memberOfRoom(ctx context.Context, tx *models.Store, roomID, accessID int64) (*models.RoomAccessSession, error) {
	m, err := tx.FindAccessSessionByID(ctx, accessID)
	if err != nil || m.RoomID != roomID {
		return nil, notFound("member")
	}
	return m, nil
}

// RevokeMember revokes an access session: it can do nothing afterwards, and
// every seat it controlled is released (each a controller change). Returns
// room_owner_required, owner_cannot_be_revoked, not_found.
func (s *Service) RevokeMember(ctx context.Context, c Caller, roomID, accessID int64) (RoomView, error) {
	return s.mutateRoom(ctx, func(tx *models.Store) (Actor, error) {
		a, err := roomActor(ctx, tx, c, roomID, "room")
		if err != nil {
			return Actor{}, err
		}
		if err := requireOwner(a); err != nil {
			return Actor{}, err
		}
		m, err := memberOfRoom(ctx, tx, roomID, accessID)
		if err != nil {
			return Actor{}, err
		}
		if m.Authority == models.AuthorityOwner {
			return Actor{}, apperr.E(apperr.OwnerCannotBeRevoked, "The room owner cannot be revoked.")
		}
		if m.Status != models.AccessRevoked {
			now := s.now()
			revoked := models.AccessRevoked
			if err := tx.UpdateAccessSession(ctx, m.ID, models.AccessUpdate{Status: &revoked, RevokedAt: &now}); err != nil {
				return Actor{}, err
			}
			if err := releaseSeatsOf(ctx, tx, m.ID, RevokedMember); err != nil {
				return Actor{}, err
			}
		}
		return a, nil
	})
}

// releaseSeatsOf releases every seat a member holds: those they control,
// and those they handed to an AI (whose grant dies with the member, for
// reason). Each is a controller change: the epoch moves on and the seat's
// character leaves with its controller.
func releaseSeatsOf(ctx context.Context, tx *models.Store, accessID int64, reason string) error {
	own, err := tx.FindSeatsControlledBy(ctx, accessID)
	if err != nil {
		return err
	}
	handedOff, err := tx.FindSeatsHeldFor(ctx, accessID)
	if err != nil {
		return err
	}
	for _, seat := range append(own, handedOff...) {
		if err := changeControllerFor(ctx, tx, &seat, models.SeatController{Kind: models.ControllerNone}, reason); err != nil {
			return err
		}
	}
	return nil
}

// DeleteUser deletes a person and takes only what they own: their rooms
// (with everything played in them), characters, scenarios and adventures.
// What they hold in other people's rooms is released first, in the same
// transaction, as a revoked member's is (reason member_deleted): the
// seats stay, vacant, with their sessions, events, messages and rolls;
// their lines name a former member. The foreign keys into those rooms no
// longer cascade (schema v22), and a seat still controlled by the person
// makes the delete fail rather than take it. keep, when not nil, is asked
// inside the transaction, after the person's row is locked, whether to go
// on (the idle-guest sweep checks the guest is still idle); false deletes
// nothing and reports false. Returns not_found for no such user.
func (s *Service) DeleteUser(ctx context.Context, userID int64, keep func(*models.User) bool) (bool, error) {
	deleted := false
	err := s.store.Tx(ctx, func(tx *models.Store) error {
		u, err := tx.LockUser(ctx, userID)
		if err != nil {
			return err
		}
		if keep != nil && !keep(u) {
			return nil
		}
		_, access, err := tx.FindRoomsOfUser(ctx, userID)
		if err != nil {
			return err
		}
		for _, m := range access {
			if m.Authority == models.AuthorityOwner {
				continue // their own room goes with them
			}
			if err := releaseSeatsOf(ctx, tx, m.ID, RevokedMemberDeleted); err != nil {
				return err
			}
		}
		if err := s.failpoint("delete_user.released"); err != nil {
			return err
		}
		if err := tx.DeleteUser(ctx, userID); err != nil {
			return err
		}
		deleted = true
		return nil
	})
	return deleted, err
}

// SetMemberAuthority grants or removes the DM key (authority dm or member).
// Returns room_owner_required, invalid_request, not_found.
func (s *Service) SetMemberAuthority(ctx context.Context, c Caller, roomID, accessID int64, authority string) (RoomView, error) {
	if authority != models.AuthorityDM && authority != models.AuthorityMember {
		return RoomView{}, apperr.E(apperr.InvalidRequest, "Authority must be dm or member.").WithField("authority", "dm or member")
	}
	return s.mutateRoom(ctx, func(tx *models.Store) (Actor, error) {
		a, err := roomActor(ctx, tx, c, roomID, "room")
		if err != nil {
			return Actor{}, err
		}
		if err := requireOwner(a); err != nil {
			return Actor{}, err
		}
		m, err := memberOfRoom(ctx, tx, roomID, accessID)
		if err != nil {
			return Actor{}, err
		}
		if m.Authority == models.AuthorityOwner {
			return Actor{}, apperr.E(apperr.InvalidRequest, "The owner's authority cannot be changed.")
		}
		if m.Status != models.AccessActive {
			return Actor{}, apperr.E(apperr.RoomAccessRevoked, "That member's access was revoked.")
		}
		if err := tx.UpdateAccessSession(ctx, m.ID, models.AccessUpdate{Authority: &authority}); err != nil {
			return Actor{}, err
		}
		return a, nil
	})
}
