package table

import (
	"context"
	"time"

	"github.com/adventure-table/adventure-table/models"
)

// UserView is a person as the API shows them.
type UserView struct {
	ID          int64  `json:"id"`
	DisplayName string `json:"display_name" jsonschema:"the stored name; English for a name the server gave (see name_code)"`
	// NameCode is set while the person keeps the name the server gave a
	// guest, so the web app writes it in the reader's language.
	NameCode   string            `json:"name_code,omitempty" jsonschema:"user.guest (params.number) while display_name is the server-made guest name; absent once renamed"`
	NameParams map[string]string `json:"name_params,omitempty" jsonschema:"the parameters of name_code: number, the guest's four digits"`
}

// Codes of the text the server writes for people (the web app translates
// each; the English text stays as the fallback).
const (
	codeGuestName     = "user.guest"
	codeSeatDM        = "seat.dm"
	codeFormerMember  = "user.former"
	codeCheckEveryone = "check.everyone"
)

// defaultDMLabel is the label a campaign's DM seat is created with.
const defaultDMLabel = "DM"

// GuestNameCode is the code and parameters of a display name the server
// gave a guest ("Guest 0421"), or "" and nil for a name the person chose.
func GuestNameCode(name string) (string, map[string]string) {
	if n, ok := models.GuestNumber(name); ok {
		return codeGuestName, map[string]string{"number": n}
	}
	return "", nil
}

// FormerMemberName names, in the server's English, a member whose account
// is gone (code user.former).
const FormerMemberName = "Former member"

func userView(id int64, name string) UserView {
	code, params := GuestNameCode(name)
	return UserView{ID: id, DisplayName: name, NameCode: code, NameParams: params}
}

// seatLabelCode is seat.dm while a DM seat keeps its default label.
func seatLabelCode(role, label string) string {
	if role == models.SeatDM && label == defaultDMLabel {
		return codeSeatDM
	}
	return ""
}

// AccessView is a room access session.
type AccessView struct {
	ID        int64  `json:"id"`
	Authority string `json:"authority" jsonschema:"owner, dm or member"`
	Status    string `json:"status" jsonschema:"active or revoked"`
}

// MemberView is a member of a room.
type MemberView struct {
	AccessID    int64  `json:"access_id"`
	UserID      int64  `json:"user_id"`
	DisplayName string `json:"display_name" jsonschema:"the stored name; English for a name the server gave (see name_code)"`
	// NameCode: see UserView.
	NameCode   string            `json:"name_code,omitempty" jsonschema:"user.guest (params.number) while display_name is the server-made guest name; absent once renamed"`
	NameParams map[string]string `json:"name_params,omitempty" jsonschema:"the parameters of name_code: number, the guest's four digits"`
	Authority  string            `json:"authority"`
	Status     string            `json:"status"`
	JoinedAt   time.Time         `json:"joined_at"`
}

// CharacterRef names a character.
type CharacterRef struct {
	ID    int64  `json:"id"`
	Name  string `json:"name"`
	Level int    `json:"level"`
}

// SeatView is a seat with its controller.
type SeatView struct {
	ID         int64  `json:"id"`
	CampaignID int64  `json:"campaign_id"`
	Role       string `json:"role" jsonschema:"dm or player"`
	Label      string `json:"label" jsonschema:"the stored label; English for the DM seat's default (see label_code)"`
	// LabelCode is set while the DM seat keeps the label the server gave it.
	LabelCode             string  `json:"label_code,omitempty" jsonschema:"seat.dm while the DM seat keeps its default label; absent once relabelled"`
	ControllerKind        string  `json:"controller_kind" jsonschema:"none, human or ai"`
	ControllerAccessID    *int64  `json:"controller_access_id"`
	ControllerDisplayName *string `json:"controller_display_name"`
	// ControllerNameCode is the controller's name code (see UserView).
	ControllerNameCode   string            `json:"controller_name_code,omitempty" jsonschema:"user.guest (controller_name_params.number) while controller_display_name is the server-made guest name"`
	ControllerNameParams map[string]string `json:"controller_name_params,omitempty" jsonschema:"the parameters of controller_name_code: number, the guest's four digits"`
	ControllerEpoch      int64             `json:"controller_epoch"`
	Character            *CharacterRef     `json:"character"`
	// AILastSeenAt is when the AI controlling the seat last called (presence;
	// being offline never revokes anything).
	AILastSeenAt *time.Time `json:"ai_last_seen_at"`
}

// OpenSessionView points at a campaign's lobby or active session.
type OpenSessionView struct {
	ID     int64  `json:"id"`
	Status string `json:"status"`
}

// CampaignView is a campaign with its seats.
type CampaignView struct {
	ID          int64            `json:"id"`
	Name        string           `json:"name"`
	Status      string           `json:"status" jsonschema:"active, completed or archived"`
	RecapStyle  string           `json:"recap_style" jsonschema:"brief or detailed: the recap that opens a session"`
	OpenSession *OpenSessionView `json:"open_session"`
	Seats       []SeatView       `json:"seats"`
}

// RoomView is everything the room page shows.
type RoomView struct {
	ID               int64          `json:"id"`
	Name             string         `json:"name"`
	OwnerUserID      int64          `json:"owner_user_id"`
	AllowSelfClaim   bool           `json:"allow_self_claim"`
	ActiveCampaignID *int64         `json:"active_campaign_id"`
	InviteCode       string         `json:"invite_code,omitempty" jsonschema:"only shown to the owner and DM-key holders"`
	MyAccess         AccessView     `json:"my_access"`
	Members          []MemberView   `json:"members"`
	Campaigns        []CampaignView `json:"campaigns"`
}

// RoomSummary is a room in the caller's list.
type RoomSummary struct {
	ID       int64      `json:"id"`
	Name     string     `json:"name"`
	MyAccess AccessView `json:"my_access"`
}

// RoomList is the caller's rooms.
type RoomList struct {
	Rooms []RoomSummary `json:"rooms"`
}

// InviteView carries a fresh invite code.
type InviteView struct {
	InviteCode string `json:"invite_code"`
}

func accessView(a models.RoomAccessSession) AccessView {
	return AccessView{ID: a.ID, Authority: a.Authority, Status: a.Status}
}

// seatViews turns seats into views, naming controllers from members and
// characters from chars (both loaded in one query each by the caller).
func seatViews(seats []models.CampaignSeat, names map[int64]string, chars map[int64]models.Character, seen map[int64]*time.Time) []SeatView {
	out := make([]SeatView, 0, len(seats))
	for _, s := range seats {
		v := SeatView{ID: s.ID, CampaignID: s.CampaignID, Role: s.Role, Label: s.Label, LabelCode: seatLabelCode(s.Role, s.Label),
			ControllerKind: s.ControllerKind, ControllerAccessID: s.ControllerAccessSessionID, ControllerEpoch: s.ControllerEpoch}
		if s.ControllerAccessSessionID != nil {
			if n, ok := names[*s.ControllerAccessSessionID]; ok {
				v.ControllerDisplayName = &n
				v.ControllerNameCode, v.ControllerNameParams = GuestNameCode(n)
			}
		}
		if s.CharacterID != nil {
			if c, ok := chars[*s.CharacterID]; ok {
				v.Character = &CharacterRef{ID: c.ID, Name: c.Name, Level: c.Level}
			}
		}
		if s.AIControllerGrantID != nil {
			v.AILastSeenAt = seen[*s.AIControllerGrantID]
		}
		out = append(out, v)
	}
	return out
}

// charactersByID loads the characters of the seats in one query.
func charactersByID(ctx context.Context, tx *models.Store, ids []int64) (map[int64]models.Character, error) {
	chars, err := tx.FindCharactersByIDs(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := make(map[int64]models.Character, len(chars))
	for _, c := range chars {
		out[c.ID] = c
	}
	return out, nil
}

func seatCharacterIDs(seats []models.CampaignSeat) []int64 {
	var ids []int64
	for _, s := range seats {
		if s.CharacterID != nil {
			ids = append(ids, *s.CharacterID)
		}
	}
	return ids
}

// roomView reads a room page in a fixed number of queries, whatever the
// number of members, campaigns or seats.
func roomView(ctx context.Context, tx *models.Store, a Actor) (RoomView, error) {
	room, err := tx.FindRoomByID(ctx, a.RoomID)
	if err != nil {
		return RoomView{}, err
	}
	members, err := tx.FindMembers(ctx, room.ID)
	if err != nil {
		return RoomView{}, err
	}
	campaigns, err := tx.FindCampaignsOfRoom(ctx, room.ID)
	if err != nil {
		return RoomView{}, err
	}
	ids := make([]int64, len(campaigns))
	for i, c := range campaigns {
		ids[i] = c.ID
	}
	seats, err := tx.FindSeatsOfCampaigns(ctx, ids)
	if err != nil {
		return RoomView{}, err
	}
	chars, err := charactersByID(ctx, tx, seatCharacterIDs(seats))
	if err != nil {
		return RoomView{}, err
	}
	open, err := tx.FindOpenSessions(ctx, ids)
	if err != nil {
		return RoomView{}, err
	}
	seen, err := aiPresence(ctx, tx, seats)
	if err != nil {
		return RoomView{}, err
	}
	v := RoomView{ID: room.ID, Name: room.Name, OwnerUserID: room.OwnerUserID, AllowSelfClaim: room.AllowSelfClaim,
		ActiveCampaignID: room.ActiveCampaignID, Members: []MemberView{}, Campaigns: []CampaignView{}}
	if a.hasRoomAuthority() {
		v.InviteCode = room.InviteCode
	}
	names := map[int64]string{}
	for _, m := range members {
		names[m.ID] = m.DisplayName
		code, params := GuestNameCode(m.DisplayName)
		v.Members = append(v.Members, MemberView{AccessID: m.ID, UserID: m.UserID, DisplayName: m.DisplayName, NameCode: code, NameParams: params,
			Authority: m.Authority, Status: m.Status, JoinedAt: m.CreatedAt})
		if m.ID == a.AccessSessionID {
			v.MyAccess = accessView(m.RoomAccessSession)
		}
	}
	openBy := map[int64]*OpenSessionView{}
	for _, s := range open {
		openBy[s.CampaignID] = &OpenSessionView{ID: s.ID, Status: s.Status}
	}
	seatsBy := map[int64][]models.CampaignSeat{}
	for _, s := range seats {
		seatsBy[s.CampaignID] = append(seatsBy[s.CampaignID], s)
	}
	for _, c := range campaigns {
		v.Campaigns = append(v.Campaigns, CampaignView{ID: c.ID, Name: c.Name, Status: c.Status, RecapStyle: c.RecapStyle,
			OpenSession: openBy[c.ID], Seats: seatViews(seatsBy[c.ID], names, chars, seen)})
	}
	return v, nil
}

// mutateRoom runs fn in one transaction and returns the room page as the
// actor fn resolved sees it, read in the same transaction.
func (s *Service) mutateRoom(ctx context.Context, fn func(tx *models.Store) (Actor, error)) (RoomView, error) {
	var v RoomView
	err := s.store.Tx(ctx, func(tx *models.Store) error {
		a, err := fn(tx)
		if err != nil {
			return err
		}
		v, err = roomView(ctx, tx, a)
		return err
	})
	return v, err
}

// aiGrants loads the grants of the seats' AI controllers, in one query,
// without secrets or instructions.
func aiGrants(ctx context.Context, tx *models.Store, seats []models.CampaignSeat) (map[int64]models.AIControllerGrant, error) {
	var ids []int64
	for _, s := range seats {
		if s.AIControllerGrantID != nil {
			ids = append(ids, *s.AIControllerGrantID)
		}
	}
	grants, err := tx.FindGrantsByIDs(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := map[int64]models.AIControllerGrant{}
	for _, g := range grants {
		out[g.ID] = g
	}
	return out, nil
}

// aiPresence loads when each seat's AI grant was last seen, in one query.
func aiPresence(ctx context.Context, tx *models.Store, seats []models.CampaignSeat) (map[int64]*time.Time, error) {
	grants, err := aiGrants(ctx, tx, seats)
	out := map[int64]*time.Time{}
	for id, g := range grants {
		out[id] = g.LastSeenAt
	}
	return out, err
}
