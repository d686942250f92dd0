// Package tabletest builds table fixtures through the real services, for
// the tests of gameplay/table and of the edges.
package tabletest

import (
	"context"
	"testing"

	"github.com/adventure-table/adventure-table/gameplay/table"
)

// Fixture is one room with every kind of person in it:
//   - Owner controls the DM seat of Campaign (the room's active campaign);
//   - DMKey holds the DM key but no seat;
//   - Seated controls PlayerSeat and plays Character in it;
//   - Unseated is a member without seat;
//   - Revoked was a member and was revoked;
//   - Stranger belongs to another room only.
//
// FreeSeat is an unassigned player seat; self-claim is allowed; Lobby is a
// session in the lobby of Campaign; Spare is a second campaign with no session.
type Fixture struct {
	Svc                                               *table.Service
	Owner, DMKey, Seated, Unseated, Revoked, Stranger table.Caller
	OwnerAccess, DMKeyAccess, SeatedAccess            int64
	UnseatedAccess, RevokedAccess                     int64
	RoomID, OtherRoomID                               int64
	InviteCode                                        string
	CampaignID, SpareCampaignID                       int64
	DMSeatID, PlayerSeatID, FreeSeatID                int64
	CharacterID, UnseatedCharacterID                  int64
	LobbyID                                           int64
}

// NewUser creates a guest and returns it as a caller.
func NewUser(tb testing.TB, svc *table.Service, name string) table.Caller {
	tb.Helper()
	u, _, err := svc.EnsureGuest(context.Background(), 0)
	Must(tb, err)
	c := table.Human(u.ID)
	_, err = svc.RenameMe(context.Background(), c, name)
	Must(tb, err)
	return c
}

// Must fails the test on err.
func Must(tb testing.TB, err error) {
	tb.Helper()
	if err != nil {
		tb.Fatal(err)
	}
}

// Character returns a valid character input.
func Character(name string) table.CharacterInput {
	return table.CharacterInput{Name: name, Level: 3, Abilities: table.Abilities{Str: 10, Dex: 14, Con: 12, Int: 10, Wis: 13, Cha: 8},
		SkillProficiencies: []string{"perception", "stealth"}, SkillExpertise: []string{"stealth"}, SaveProficiencies: []string{"dex", "int"},
		HP: table.HP{Max: 20, Current: 20}, Conditions: []string{}, Resources: []table.ResourceView{{Name: "Ki", Current: 3, Max: 3}}}
}

// accessOf finds a caller's access session id in a room view.
func accessOf(v table.RoomView, userID int64) int64 {
	for _, m := range v.Members {
		if m.UserID == userID {
			return m.AccessID
		}
	}
	return 0
}

// New builds the fixture.
func New(tb testing.TB, svc *table.Service) Fixture {
	tb.Helper()
	ctx := context.Background()
	f := Fixture{Svc: svc}
	f.Owner = NewUser(tb, svc, "Owner")
	f.DMKey = NewUser(tb, svc, "Key Holder")
	f.Seated = NewUser(tb, svc, "Seated")
	f.Unseated = NewUser(tb, svc, "Unseated")
	f.Revoked = NewUser(tb, svc, "Revoked")
	f.Stranger = NewUser(tb, svc, "Stranger")

	v, err := svc.CreateRoom(ctx, f.Owner, "Friday group")
	Must(tb, err)
	f.RoomID, f.InviteCode, f.OwnerAccess = v.ID, v.InviteCode, v.MyAccess.ID
	other, err := svc.CreateRoom(ctx, f.Stranger, "Elsewhere")
	Must(tb, err)
	f.OtherRoomID = other.ID
	for _, c := range []table.Caller{f.DMKey, f.Seated, f.Unseated, f.Revoked} {
		_, err := svc.JoinRoom(ctx, c, f.InviteCode)
		Must(tb, err)
	}
	v, err = svc.CreateCampaign(ctx, f.Owner, f.RoomID, "Lost Mine")
	Must(tb, err)
	f.CampaignID = v.Campaigns[0].ID
	f.DMSeatID = v.Campaigns[0].Seats[0].ID
	f.DMKeyAccess, f.SeatedAccess = accessOf(v, f.DMKey.UserID), accessOf(v, f.Seated.UserID)
	f.UnseatedAccess, f.RevokedAccess = accessOf(v, f.Unseated.UserID), accessOf(v, f.Revoked.UserID)
	_, err = svc.SetMemberAuthority(ctx, f.Owner, f.RoomID, f.DMKeyAccess, "dm")
	Must(tb, err)
	_, err = svc.AddSeat(ctx, f.Owner, f.CampaignID, "Player 1")
	Must(tb, err)
	v, err = svc.AddSeat(ctx, f.Owner, f.CampaignID, "Player 2")
	Must(tb, err)
	f.PlayerSeatID, f.FreeSeatID = v.Campaigns[0].Seats[1].ID, v.Campaigns[0].Seats[2].ID
	_, err = svc.AssignSeat(ctx, f.Owner, f.DMSeatID, f.OwnerAccess)
	Must(tb, err)
	_, err = svc.AssignSeat(ctx, f.Owner, f.PlayerSeatID, f.SeatedAccess)
	Must(tb, err)
	ch, err := svc.CreateCharacter(ctx, f.Seated, Character("Mira"))
	Must(tb, err)
	f.CharacterID = ch.ID
	ch, err = svc.CreateCharacter(ctx, f.Unseated, Character("Tomas"))
	Must(tb, err)
	f.UnseatedCharacterID = ch.ID
	_, err = svc.SetSeatCharacter(ctx, f.Seated, f.PlayerSeatID, &f.CharacterID)
	Must(tb, err)
	_, err = svc.RevokeMember(ctx, f.Owner, f.RoomID, f.RevokedAccess)
	Must(tb, err)
	yes := true
	_, err = svc.UpdateRoom(ctx, f.Owner, f.RoomID, table.RoomChange{AllowSelfClaim: &yes})
	Must(tb, err)
	v, err = svc.CreateCampaign(ctx, f.Owner, f.RoomID, "Side quest")
	Must(tb, err)
	f.SpareCampaignID = v.Campaigns[1].ID
	lobby, err := svc.OpenSession(ctx, f.Owner, f.CampaignID)
	Must(tb, err)
	f.LobbyID = lobby.Session.ID
	return f
}

// Personas lists the fixture's people by name, for authorization matrices.
func (f Fixture) Personas() []Persona {
	return []Persona{
		{"owner", f.Owner}, {"dm_key", f.DMKey}, {"seated", f.Seated},
		{"unseated", f.Unseated}, {"revoked", f.Revoked}, {"stranger", f.Stranger},
	}
}

// Persona is a named caller.
type Persona struct {
	Name   string
	Caller table.Caller
}
