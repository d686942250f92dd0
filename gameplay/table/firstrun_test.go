package table_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/gameplay/table/tabletest"
	"github.com/adventure-table/adventure-table/models"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// playerSeats returns the player seats of the room's only campaign.
func playerSeats(v table.RoomView) []table.SeatView {
	var out []table.SeatView
	for _, s := range v.Campaigns[0].Seats {
		if s.Role == models.SeatPlayer {
			out = append(out, s)
		}
	}
	return out
}

// TestCreateTable: one call makes a table ready to play: a room that lets
// friends claim seats, its active campaign with the caller in the DM seat,
// four free player seats and a lobby, and the invite code.
func TestCreateTable(t *testing.T) {
	svc, _ := newService(t)
	owner := tabletest.NewUser(t, svc, "Alice")
	v, err := svc.CreateTable(ctx, owner, table.TableInput{Name: "  Friday Night "})
	tabletest.Must(t, err)
	r := v.Room
	if r.Name != "Friday Night" || !r.AllowSelfClaim || r.MyAccess.Authority != models.AuthorityOwner || v.InviteCode == "" || v.InviteCode != r.InviteCode {
		t.Fatalf("room %+v invite %q", r, v.InviteCode)
	}
	if len(r.Campaigns) != 1 || r.Campaigns[0].Name != "Friday Night" || r.ActiveCampaignID == nil || *r.ActiveCampaignID != v.CampaignID {
		t.Fatalf("campaigns %+v active %v", r.Campaigns, r.ActiveCampaignID)
	}
	camp := r.Campaigns[0]
	if camp.OpenSession == nil || camp.OpenSession.ID != v.Session.ID || v.Session.Status != models.SessionLobby {
		t.Fatalf("session %+v open %+v", v.Session, camp.OpenSession)
	}
	var labels []string
	for _, s := range camp.Seats {
		switch s.Role {
		case models.SeatDM:
			if s.ControllerKind != models.ControllerHuman || s.ControllerAccessID == nil || *s.ControllerAccessID != r.MyAccess.ID {
				t.Fatalf("DM seat %+v, owner access %d", s, r.MyAccess.ID)
			}
		default:
			if s.ControllerKind != models.ControllerNone {
				t.Fatalf("player seat %+v is taken", s)
			}
			labels = append(labels, s.Label)
		}
	}
	if strings.Join(labels, ",") != "Player 1,Player 2,Player 3,Player 4" {
		t.Fatalf("player seats %v", labels)
	}
	// The caller is the session's DM: they can start it at once.
	res, err := svc.StartSession(ctx, owner, v.Session.ID)
	tabletest.Must(t, err)
	if res.Me.Role != table.RoleDM || res.Session.Status != models.SessionActive {
		t.Fatalf("started %+v as %+v", res.Session, res.Me)
	}

	// Named campaign and seats; the owner names themself on the way.
	v, err = svc.CreateTable(ctx, owner, table.TableInput{Name: "Tuesday", Campaign: "Curse of the Bells", SeatLabels: []string{"玩家 1", "玩家 2"}, DisplayName: " Ann "})
	tabletest.Must(t, err)
	if p, err := svc.PreviewInvite(ctx, owner, v.InviteCode); err != nil || p.DMName == nil || *p.DMName != "Ann" {
		t.Fatalf("preview %+v %v: the DM is not named Ann", p, err)
	}
	if v.Room.Campaigns[0].Name != "Curse of the Bells" || len(playerSeats(v.Room)) != 2 || playerSeats(v.Room)[0].Label != "玩家 1" {
		t.Fatalf("room %+v", v.Room)
	}
}

// TestCreateTableRefusals: bad input has a stable code and writes nothing;
// a failure after the seats leaves no room behind.
func TestCreateTableRefusals(t *testing.T) {
	svc, store := newService(t)
	owner := tabletest.NewUser(t, svc, "Alice")
	tooMany := make([]string, 13)
	for i := range tooMany {
		tooMany[i] = "Seat"
	}
	for _, tc := range []struct {
		name string
		in   table.TableInput
		code apperr.Code
	}{
		{"EmptyName", table.TableInput{Name: "  "}, apperr.RoomNameInvalid},
		{"LongName", table.TableInput{Name: strings.Repeat("x", 81)}, apperr.RoomNameInvalid},
		{"ControlInCampaign", table.TableInput{Name: "T", Campaign: "a\x01b"}, apperr.CampaignNameInvalid},
		{"BlankSeat", table.TableInput{Name: "T", SeatLabels: []string{"One", " "}}, apperr.SeatLabelInvalid},
		{"TooManySeats", table.TableInput{Name: "T", SeatLabels: tooMany}, apperr.SeatLabelInvalid},
		{"BadDisplayName", table.TableInput{Name: "T", DisplayName: "a\nb"}, apperr.DisplayNameInvalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := svc.CreateTable(ctx, owner, tc.in)
			wantCode(t, err, tc.code)
		})
	}
	boom := errors.New("boom")
	svc.SetFailpoint(func(point string) error {
		if point == "create_table.seats" {
			return boom
		}
		return nil
	})
	_, err := svc.CreateTable(ctx, owner, table.TableInput{Name: "Half made", DisplayName: "Renamed"})
	svc.SetFailpoint(nil)
	if !errors.Is(err, boom) {
		t.Fatalf("err %v, want the injected failure", err)
	}
	list, err := svc.ListRooms(ctx, owner)
	tabletest.Must(t, err)
	if len(list.Rooms) != 0 {
		t.Fatalf("a failed CreateTable left rooms %+v", list.Rooms)
	}
	if u, err := store.FindUserByID(ctx, owner.UserID); err != nil || u.DisplayName != "Alice" {
		t.Fatalf("a failed CreateTable renamed the owner: %v %v", u, err)
	}
}

// newTable makes a table with n player seats for owner.
func newTable(t *testing.T, svc *table.Service, owner table.Caller, n int) table.TableView {
	t.Helper()
	labels := make([]string, n)
	for i := range labels {
		labels[i] = "Seat " + string(rune('A'+i))
	}
	v, err := svc.CreateTable(ctx, owner, table.TableInput{Name: "Friday Night", SeatLabels: labels})
	tabletest.Must(t, err)
	return v
}

// TestJoinAndSitLobby: a friend with the link types a name, takes a quick
// character and a free seat in one call; the DM's start seats them.
func TestJoinAndSitLobby(t *testing.T) {
	svc, _ := newService(t)
	owner := tabletest.NewUser(t, svc, "Alice")
	tv := newTable(t, svc, owner, 2)
	friend := table.Human(mustGuest(t, svc))

	p, err := svc.PreviewInvite(ctx, friend, tv.InviteCode)
	tabletest.Must(t, err)
	if p.RoomName != "Friday Night" || p.CampaignName != "Friday Night" || p.DMName == nil || *p.DMName != "Alice" || p.FreeSeats != 2 ||
		!p.SelfClaim || p.Member || p.SeatID != nil || p.Session == nil || p.Session.Status != models.SessionLobby {
		t.Fatalf("preview %+v", p)
	}

	j, err := svc.JoinAndSit(ctx, friend, table.JoinInput{InviteCode: tv.InviteCode, DisplayName: " Bob ", Template: "rogue", CharacterName: "Nim"})
	tabletest.Must(t, err)
	if j.RoomID != tv.Room.ID || j.CampaignID != tv.CampaignID || j.Session == nil || j.Session.ID != tv.Session.ID || j.Session.Status != models.SessionLobby {
		t.Fatalf("joined %+v", j)
	}
	ch, err := svc.GetCharacter(ctx, friend, j.CharacterID)
	tabletest.Must(t, err)
	if ch.Name != "Nim" || ch.Class != "Rogue" || ch.Level != 1 || ch.HP.Max != 10 || ch.Derived.AC != 13 {
		t.Fatalf("character %+v", ch)
	}
	room, err := svc.GetRoom(ctx, owner, tv.Room.ID)
	tabletest.Must(t, err)
	seat := playerSeats(room)[0]
	if seat.ID != j.SeatID || seat.ControllerDisplayName == nil || *seat.ControllerDisplayName != "Bob" || seat.Character == nil || seat.Character.ID != j.CharacterID {
		t.Fatalf("seat %+v", seat)
	}

	// Sitting down again keeps the seat and takes the new character.
	mine, err := svc.CreateCharacter(ctx, friend, tabletest.Character("Sable"))
	tabletest.Must(t, err)
	again, err := svc.JoinAndSit(ctx, friend, table.JoinInput{InviteCode: tv.InviteCode, DisplayName: "Bob", CharacterID: &mine.ID})
	tabletest.Must(t, err)
	if again.SeatID != j.SeatID || again.CharacterID != mine.ID {
		t.Fatalf("again %+v, first %+v", again, j)
	}
	p, err = svc.PreviewInvite(ctx, friend, tv.InviteCode)
	tabletest.Must(t, err)
	if !p.Member || p.SeatID == nil || *p.SeatID != j.SeatID || p.FreeSeats != 1 {
		t.Fatalf("preview after joining %+v", p)
	}

	res, err := svc.StartSession(ctx, owner, tv.Session.ID)
	tabletest.Must(t, err)
	if len(res.Participants) != 1 || res.Participants[0].SeatID != j.SeatID || res.Participants[0].Late ||
		res.Participants[0].Character == nil || res.Participants[0].Character.Name != "Sable" {
		t.Fatalf("participants %+v", res.Participants)
	}
}

func mustGuest(t *testing.T, svc *table.Service) int64 {
	t.Helper()
	u, _, err := svc.EnsureGuest(ctx, 0)
	tabletest.Must(t, err)
	return u.ID
}

// TestJoinAndSitRunning: a friend who sits down while the session runs is
// in it at once, and the DM sees them arrive, named as they typed.
func TestJoinAndSitRunning(t *testing.T) {
	svc, _ := newService(t)
	owner := tabletest.NewUser(t, svc, "Alice")
	tv := newTable(t, svc, owner, 2)
	started, err := svc.StartSession(ctx, owner, tv.Session.ID)
	tabletest.Must(t, err)
	friend := table.Human(mustGuest(t, svc))

	j, err := svc.JoinAndSit(ctx, friend, table.JoinInput{InviteCode: tv.InviteCode, DisplayName: "Bob", Template: "fighter"})
	tabletest.Must(t, err)
	if j.Session == nil || j.Session.Status != models.SessionActive {
		t.Fatalf("joined %+v", j)
	}
	res, err := svc.Resume(ctx, owner, tv.Session.ID)
	tabletest.Must(t, err)
	if len(res.Participants) != 1 {
		t.Fatalf("participants %+v", res.Participants)
	}
	part := res.Participants[0]
	if part.SeatID != j.SeatID || !part.Late || part.ControllerDisplayName == nil || *part.ControllerDisplayName != "Bob" ||
		part.Character == nil || part.Character.Name != "Brenna Stoutshield" {
		t.Fatalf("participant %+v", part)
	}
	var arrived bool
	for _, e := range res.RecentEvents {
		if e.Seq > started.Cursor && e.Kind == table.EventParticipantJoined {
			arrived = true
		}
	}
	if !arrived {
		t.Fatalf("no participant.joined event for the DM: %+v", res.RecentEvents)
	}
	// The friend plays: their resume says they are a player in it.
	mine, err := svc.Resume(ctx, friend, tv.Session.ID)
	tabletest.Must(t, err)
	if mine.Me.Role != table.RolePlayer || mine.Me.SeatID == nil || *mine.Me.SeatID != j.SeatID {
		t.Fatalf("friend's view %+v", mine.Me)
	}
	// Sitting down again does not join twice.
	_, err = svc.JoinAndSit(ctx, friend, table.JoinInput{InviteCode: tv.InviteCode, DisplayName: "Bob", CharacterID: &j.CharacterID})
	tabletest.Must(t, err)
	res, err = svc.Resume(ctx, owner, tv.Session.ID)
	tabletest.Must(t, err)
	if len(res.Participants) != 1 {
		t.Fatalf("participants after sitting again %+v", res.Participants)
	}
}

// TestJoinAndSitRefusals: every refusal has its stable code and writes
// nothing: the friend keeps their name and gets no member row, seat or
// character.
func TestJoinAndSitRefusals(t *testing.T) {
	svc, store := newService(t)
	owner := tabletest.NewUser(t, svc, "Alice")
	tv := newTable(t, svc, owner, 1)
	f := tabletest.New(t, svc)

	// A full table: the only seat is taken.
	first := table.Human(mustGuest(t, svc))
	_, err := svc.JoinAndSit(ctx, first, table.JoinInput{InviteCode: tv.InviteCode, DisplayName: "Bob", Template: "wizard"})
	tabletest.Must(t, err)

	// A room made the old way: no self-claim.
	closed, err := svc.CreateRoom(ctx, owner, "Closed")
	tabletest.Must(t, err)
	_, err = svc.CreateCampaign(ctx, owner, closed.ID, "C")
	tabletest.Must(t, err)
	// A self-claim room without campaign.
	bare, err := svc.CreateRoom(ctx, owner, "Bare")
	tabletest.Must(t, err)
	_, err = svc.UpdateRoom(ctx, owner, bare.ID, table.RoomChange{AllowSelfClaim: ptr(true)})
	tabletest.Must(t, err)
	// A character leased by another running session.
	busyOwner := tabletest.NewUser(t, svc, "Busy")
	busy := newTable(t, svc, owner, 2)
	busyJoin, err := svc.JoinAndSit(ctx, busyOwner, table.JoinInput{InviteCode: busy.InviteCode, DisplayName: "Busy", Template: "cleric"})
	tabletest.Must(t, err)
	_, err = svc.StartSession(ctx, owner, busy.Session.ID)
	tabletest.Must(t, err)
	running := newTable(t, svc, owner, 2)
	_, err = svc.StartSession(ctx, owner, running.Session.ID)
	tabletest.Must(t, err)
	stranger := tabletest.NewUser(t, svc, "Stranger")
	theirs, err := svc.CreateCharacter(ctx, stranger, tabletest.Character("Not yours"))
	tabletest.Must(t, err)

	fresh := func() table.Caller { return table.Human(mustGuest(t, svc)) }
	for _, tc := range []struct {
		name   string
		caller table.Caller
		in     table.JoinInput
		code   apperr.Code
	}{
		{"BadName", fresh(), table.JoinInput{InviteCode: tv.InviteCode, DisplayName: " ", Template: "fighter"}, apperr.DisplayNameInvalid},
		{"ControlCharInName", fresh(), table.JoinInput{InviteCode: tv.InviteCode, DisplayName: "Bo\x07b", Template: "fighter"}, apperr.DisplayNameInvalid},
		{"NoCharacter", fresh(), table.JoinInput{InviteCode: tv.InviteCode, DisplayName: "Carl"}, apperr.InvalidRequest},
		{"TwoCharacters", fresh(), table.JoinInput{InviteCode: tv.InviteCode, DisplayName: "Carl", Template: "fighter", CharacterID: &theirs.ID}, apperr.InvalidRequest},
		{"UnknownTemplate", fresh(), table.JoinInput{InviteCode: tv.InviteCode, DisplayName: "Carl", Template: "bard"}, apperr.InvalidRequest},
		{"BadCharacterName", fresh(), table.JoinInput{InviteCode: running.InviteCode, DisplayName: "Carl", Template: "fighter", CharacterName: strings.Repeat("n", 81)}, apperr.CharacterInvalid},
		{"BadInvite", fresh(), table.JoinInput{InviteCode: "nope", DisplayName: "Carl", Template: "fighter"}, apperr.InviteCodeInvalid},
		{"FullTable", fresh(), table.JoinInput{InviteCode: tv.InviteCode, DisplayName: "Carl", Template: "fighter"}, apperr.TableFull},
		{"RevokedMember", f.Revoked, table.JoinInput{InviteCode: f.InviteCode, DisplayName: "Carl", Template: "fighter"}, apperr.RoomAccessRevoked},
		{"SelfClaimDisabled", fresh(), table.JoinInput{InviteCode: closed.InviteCode, DisplayName: "Carl", Template: "fighter"}, apperr.SelfClaimDisabled},
		{"NoCampaign", fresh(), table.JoinInput{InviteCode: bare.InviteCode, DisplayName: "Carl", Template: "fighter"}, apperr.TableNotReady},
		{"OwnLink", owner, table.JoinInput{InviteCode: running.InviteCode, DisplayName: "Alice", Template: "fighter"}, apperr.SeatNotClaimable},
		{"SomeoneElsesCharacter", fresh(), table.JoinInput{InviteCode: running.InviteCode, DisplayName: "Carl", CharacterID: &theirs.ID}, apperr.NotFound},
		{"CharacterPlayingElsewhere", busyOwner, table.JoinInput{InviteCode: running.InviteCode, DisplayName: "Renamed", CharacterID: &busyJoin.CharacterID}, apperr.CharacterAlreadyInSession},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before, err := store.FindUserByID(ctx, tc.caller.UserID)
			tabletest.Must(t, err)
			chars, err := svc.ListCharacters(ctx, tc.caller)
			tabletest.Must(t, err)
			rooms, err := svc.ListRooms(ctx, tc.caller)
			tabletest.Must(t, err)

			_, err = svc.JoinAndSit(ctx, tc.caller, tc.in)
			wantCode(t, err, tc.code)

			after, err := store.FindUserByID(ctx, tc.caller.UserID)
			tabletest.Must(t, err)
			chars2, err := svc.ListCharacters(ctx, tc.caller)
			tabletest.Must(t, err)
			rooms2, err := svc.ListRooms(ctx, tc.caller)
			tabletest.Must(t, err)
			if after.DisplayName != before.DisplayName || len(chars2.Characters) != len(chars.Characters) || len(rooms2.Rooms) != len(rooms.Rooms) {
				t.Fatalf("a refused join wrote: name %q -> %q, characters %d -> %d, rooms %d -> %d", before.DisplayName, after.DisplayName,
					len(chars.Characters), len(chars2.Characters), len(rooms.Rooms), len(rooms2.Rooms))
			}
		})
	}
	// The running table's seats are all still free.
	p, err := svc.PreviewInvite(ctx, owner, running.InviteCode)
	tabletest.Must(t, err)
	if p.FreeSeats != 2 {
		t.Fatalf("free seats after refusals: %d", p.FreeSeats)
	}
}

// TestJoinAndSitAtomic: a failure after the seat is taken undoes the whole
// join: membership, name, new character and seat.
func TestJoinAndSitAtomic(t *testing.T) {
	svc, store := newService(t)
	owner := tabletest.NewUser(t, svc, "Alice")
	tv := newTable(t, svc, owner, 1)
	friend := table.Human(mustGuest(t, svc))
	before, err := store.FindUserByID(ctx, friend.UserID)
	tabletest.Must(t, err)
	boom := errors.New("boom")
	svc.SetFailpoint(func(point string) error {
		if point == "join_and_sit.seated" {
			return boom
		}
		return nil
	})
	_, err = svc.JoinAndSit(ctx, friend, table.JoinInput{InviteCode: tv.InviteCode, DisplayName: "Bob", Template: "fighter"})
	svc.SetFailpoint(nil)
	if !errors.Is(err, boom) {
		t.Fatalf("err %v, want the injected failure", err)
	}
	after, err := store.FindUserByID(ctx, friend.UserID)
	tabletest.Must(t, err)
	chars, err := svc.ListCharacters(ctx, friend)
	tabletest.Must(t, err)
	p, err := svc.PreviewInvite(ctx, friend, tv.InviteCode)
	tabletest.Must(t, err)
	if after.DisplayName != before.DisplayName || len(chars.Characters) != 0 || p.Member || p.FreeSeats != 1 {
		t.Fatalf("half a join stayed: name %q, characters %d, preview %+v", after.DisplayName, len(chars.Characters), p)
	}
}

// TestQuickTemplates: every quick character is a valid level-1 sheet.
func TestQuickTemplates(t *testing.T) {
	svc, _ := newService(t)
	c := tabletest.NewUser(t, svc, "Alice")
	list := svc.ListQuickTemplates(ctx)
	if len(list.Templates) < 4 {
		t.Fatalf("templates %d", len(list.Templates))
	}
	for _, tpl := range list.Templates {
		v, err := svc.CreateCharacter(ctx, c, tpl.Character)
		tabletest.Must(t, err)
		if v.Level != 1 || v.HP.Current != v.HP.Max || v.HP.Max < 6 || v.Derived.AC != tpl.Derived.AC || len(v.Derived.Attacks) == 0 {
			t.Fatalf("%s: %+v", tpl.Key, v)
		}
	}
}
