package table_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/gameplay/table/tabletest"
	"github.com/adventure-table/adventure-table/models"
	"github.com/adventure-table/adventure-table/models/apperr"
	"github.com/adventure-table/adventure-table/models/modelstest"
)

var ctx = context.Background()

func newService(t *testing.T) (*table.Service, *models.Store) {
	t.Helper()
	store := modelstest.MustOpen(t)
	return table.New(store, nil), store
}

func wantCode(t *testing.T, err error, want apperr.Code) {
	t.Helper()
	if got := apperr.CodeOf(err); got != want {
		t.Fatalf("got code %q (%v), want %q", got, err, want)
	}
}

func wantDetail(t *testing.T, err error, key string, want any) {
	t.Helper()
	e, ok := apperr.As(err)
	if !ok || e.Details[key] != want {
		t.Fatalf("error %v: details[%q] = %v, want %v", err, key, e.Details, want)
	}
}

func seatEpoch(t *testing.T, svc *table.Service, c table.Caller, roomID, seatID int64) int64 {
	t.Helper()
	v, err := svc.GetRoom(ctx, c, roomID)
	tabletest.Must(t, err)
	for _, camp := range v.Campaigns {
		for _, s := range camp.Seats {
			if s.ID == seatID {
				return s.ControllerEpoch
			}
		}
	}
	t.Fatalf("seat %d not in room %d", seatID, roomID)
	return 0
}

// TestControllerEpoch: every path that really changes a seat's controller
// moves controller_epoch by exactly one; a path that changes nothing
// leaves it alone.
func TestControllerEpoch(t *testing.T) {
	svc, _ := newService(t)
	f := tabletest.New(t, svc)
	tests := []struct {
		name  string
		seat  func(f tabletest.Fixture) int64
		do    func(f tabletest.Fixture) error
		delta int64
	}{
		{"AssignNoneToHuman", func(f tabletest.Fixture) int64 { return f.FreeSeatID }, func(f tabletest.Fixture) error {
			_, err := svc.AssignSeat(ctx, f.Owner, f.FreeSeatID, f.UnseatedAccess)
			return err
		}, 1},
		{"AssignSameControllerAgain", func(f tabletest.Fixture) int64 { return f.FreeSeatID }, func(f tabletest.Fixture) error {
			_, err := svc.AssignSeat(ctx, f.Owner, f.FreeSeatID, f.UnseatedAccess)
			return err
		}, 0},
		{"ReassignHumanToOtherHuman", func(f tabletest.Fixture) int64 { return f.FreeSeatID }, func(f tabletest.Fixture) error {
			_, err := svc.AssignSeat(ctx, f.DMKey, f.FreeSeatID, f.DMKeyAccess)
			return err
		}, 1},
		{"UnassignByAuthority", func(f tabletest.Fixture) int64 { return f.FreeSeatID }, func(f tabletest.Fixture) error {
			_, err := svc.UnassignSeat(ctx, f.Owner, f.FreeSeatID)
			return err
		}, 1},
		{"UnassignAlreadyEmpty", func(f tabletest.Fixture) int64 { return f.FreeSeatID }, func(f tabletest.Fixture) error {
			_, err := svc.UnassignSeat(ctx, f.Owner, f.FreeSeatID)
			return err
		}, 0},
		{"SelfClaim", func(f tabletest.Fixture) int64 { return f.FreeSeatID }, func(f tabletest.Fixture) error {
			_, err := svc.ClaimSeat(ctx, f.Unseated, f.FreeSeatID)
			return err
		}, 1},
		{"LeaveOwnSeat", func(f tabletest.Fixture) int64 { return f.FreeSeatID }, func(f tabletest.Fixture) error {
			_, err := svc.UnassignSeat(ctx, f.Unseated, f.FreeSeatID)
			return err
		}, 1},
		{"RevokeController", func(f tabletest.Fixture) int64 { return f.PlayerSeatID }, func(f tabletest.Fixture) error {
			_, err := svc.RevokeMember(ctx, f.Owner, f.RoomID, f.SeatedAccess)
			return err
		}, 1},
		{"FailedClaimChangesNothing", func(f tabletest.Fixture) int64 { return f.DMSeatID }, func(f tabletest.Fixture) error {
			_, err := svc.ClaimSeat(ctx, f.Unseated, f.DMSeatID)
			if apperr.CodeOf(err) != apperr.SeatNotClaimable {
				t.Fatalf("claiming the DM seat: got %v, want seat_not_claimable", err)
			}
			return nil
		}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			seat := tt.seat(f)
			before := seatEpoch(t, svc, f.Owner, f.RoomID, seat)
			tabletest.Must(t, tt.do(f))
			if got := seatEpoch(t, svc, f.Owner, f.RoomID, seat) - before; got != tt.delta {
				t.Fatalf("epoch moved by %d, want %d", got, tt.delta)
			}
		})
	}
}

func TestSessionLifecycle(t *testing.T) {
	svc, store := newService(t)
	f := tabletest.New(t, svc)

	_, err := svc.StartSession(ctx, f.DMKey, f.LobbyID)
	wantCode(t, err, apperr.NotCurrentDM) // the DM key is not the DM seat

	r, err := svc.StartSession(ctx, f.Owner, f.LobbyID)
	tabletest.Must(t, err)
	if r.Session.Status != models.SessionActive || r.Session.StartedAt == nil {
		t.Fatalf("got %+v, want active with a start time", r.Session)
	}
	if len(r.Participants) != 1 || r.Participants[0].SeatID != f.PlayerSeatID || r.Participants[0].Character == nil ||
		r.Participants[0].Character.Name != "Mira" || r.Participants[0].ControllerKind != "human" || *r.Participants[0].ControllerDisplayName != "Seated" {
		t.Fatalf("got participants %+v, want the seated player with Mira", r.Participants)
	}
	se, err := store.FindSessionByID(ctx, f.LobbyID, false)
	tabletest.Must(t, err)
	if se.DMControllerKind != "human" || se.DMControllerAccessSessionID == nil || *se.DMControllerAccessSessionID != f.OwnerAccess {
		t.Fatalf("DM snapshot %+v, want the owner's access session", se)
	}
	if _, err := store.FindLease(ctx, f.CharacterID); err != nil {
		t.Fatalf("no lease for Mira after start: %v", err)
	}
	if !r.Can.End || !r.Can.LateJoin || r.Can.Start || r.Me.Role != "dm" {
		t.Fatalf("DM's allowed actions %+v role %s", r.Can, r.Me.Role)
	}
	seen, err := svc.Resume(ctx, f.Seated, f.LobbyID)
	tabletest.Must(t, err)
	if seen.Me.Role != "player" || seen.Can.End || seen.Can.Abandon || seen.Me.SeatID == nil || *seen.Me.SeatID != f.PlayerSeatID {
		t.Fatalf("player's view %+v %+v", seen.Me, seen.Can)
	}

	// Late join: the free seat gets a controller and a character, then joins.
	_, err = svc.LateJoin(ctx, f.Owner, f.LobbyID, f.FreeSeatID)
	wantCode(t, err, apperr.SeatNotReady)
	_, err = svc.AssignSeat(ctx, f.Owner, f.FreeSeatID, f.UnseatedAccess)
	tabletest.Must(t, err)
	_, err = svc.SetSeatCharacter(ctx, f.Unseated, f.FreeSeatID, &f.UnseatedCharacterID)
	tabletest.Must(t, err)
	_, err = svc.LateJoin(ctx, f.Seated, f.LobbyID, f.FreeSeatID)
	wantCode(t, err, apperr.NotCurrentDM)
	r, err = svc.LateJoin(ctx, f.Owner, f.LobbyID, f.FreeSeatID)
	tabletest.Must(t, err)
	if len(r.Participants) != 2 || !r.Participants[1].Late {
		t.Fatalf("got %+v, want a second, late participant", r.Participants)
	}
	_, err = svc.LateJoin(ctx, f.Owner, f.LobbyID, f.FreeSeatID)
	wantCode(t, err, apperr.ParticipantAlreadyJoined)

	// End keeps every row and the characters as they are, releases leases.
	before, _ := store.FindCharacterByID(ctx, f.CharacterID)
	r, err = svc.EndSession(ctx, f.Owner, f.LobbyID)
	tabletest.Must(t, err)
	if r.Session.Status != models.SessionEnded || r.Session.EndedAt == nil || len(r.Participants) != 2 {
		t.Fatalf("after end: %+v with %d participants", r.Session, len(r.Participants))
	}
	if _, err := store.FindLease(ctx, f.CharacterID); apperr.CodeOf(err) != apperr.NotFound {
		t.Fatalf("lease still held after end: %v", err)
	}
	after, _ := store.FindCharacterByID(ctx, f.CharacterID)
	if after.HPCurrent != before.HPCurrent || after.Name != before.Name {
		t.Fatal("ending the session changed the character")
	}
	_, err = svc.EndSession(ctx, f.Owner, f.LobbyID)
	wantCode(t, err, apperr.SessionNotActive)
	_, err = svc.LateJoin(ctx, f.Owner, f.LobbyID, f.FreeSeatID)
	wantCode(t, err, apperr.SessionNotActive)

	// A new lobby can open once the last session is over.
	_, err = svc.OpenSession(ctx, f.Owner, f.CampaignID)
	tabletest.Must(t, err)
	_, err = svc.OpenSession(ctx, f.Owner, f.CampaignID)
	wantCode(t, err, apperr.SessionAlreadyOpen)
}

func TestAbandonEscapeHatch(t *testing.T) {
	svc, store := newService(t)
	f := tabletest.New(t, svc)
	// The DM-key holder becomes the DM; the owner is then not the DM.
	_, err := svc.AssignSeat(ctx, f.Owner, f.DMSeatID, f.DMKeyAccess)
	tabletest.Must(t, err)
	_, err = svc.StartSession(ctx, f.Owner, f.LobbyID)
	wantCode(t, err, apperr.NotCurrentDM)
	_, err = svc.StartSession(ctx, f.DMKey, f.LobbyID)
	tabletest.Must(t, err)
	_, err = svc.EndSession(ctx, f.Owner, f.LobbyID)
	wantCode(t, err, apperr.NotCurrentDM)
	_, err = svc.AbandonSession(ctx, f.Seated, f.LobbyID)
	wantCode(t, err, apperr.NotCurrentDM)
	r, err := svc.AbandonSession(ctx, f.Owner, f.LobbyID)
	tabletest.Must(t, err)
	if r.Session.Status != models.SessionAbandoned {
		t.Fatalf("got %s, want abandoned", r.Session.Status)
	}
	if _, err := store.FindLease(ctx, f.CharacterID); apperr.CodeOf(err) != apperr.NotFound {
		t.Fatal("abandon kept the lease")
	}
}

func TestStartNeedsActiveRoomCampaign(t *testing.T) {
	svc, _ := newService(t)
	f := tabletest.New(t, svc)
	spare := f.SpareCampaignID
	_, err := svc.UpdateRoom(ctx, f.Owner, f.RoomID, table.RoomChange{ActiveCampaignID: &spare})
	tabletest.Must(t, err)
	_, err = svc.StartSession(ctx, f.Owner, f.LobbyID)
	wantCode(t, err, apperr.CampaignNotRoomActive)

	camp := f.CampaignID
	_, err = svc.UpdateRoom(ctx, f.DMKey, f.RoomID, table.RoomChange{ActiveCampaignID: &camp})
	tabletest.Must(t, err)
	done := "completed"
	_, err = svc.UpdateCampaign(ctx, f.Owner, f.CampaignID, table.CampaignChange{Status: &done})
	tabletest.Must(t, err)
	_, err = svc.StartSession(ctx, f.Owner, f.LobbyID)
	wantCode(t, err, apperr.CampaignNotActive)

	// A campaign of another room cannot be made active here.
	_, err = svc.UpdateRoom(ctx, f.Owner, f.RoomID, table.RoomChange{ActiveCampaignID: ptr(int64(999999))})
	wantCode(t, err, apperr.NotFound)
}

func ptr[T any](v T) *T { return &v }

// twoRoomsSameCharacter puts one character in a player seat of two rooms'
// campaigns, each with a lobby, and returns the two lobbies and DMs.
func twoRoomsSameCharacter(t *testing.T, svc *table.Service) (player table.Caller, charID int64, dms [2]table.Caller, lobbies [2]int64) {
	player = tabletest.NewUser(t, svc, "Wanderer")
	ch, err := svc.CreateCharacter(ctx, player, tabletest.Character("Aria"))
	tabletest.Must(t, err)
	charID = ch.ID
	for i := range 2 {
		dm := tabletest.NewUser(t, svc, "DM")
		v, err := svc.CreateRoom(ctx, dm, "Room")
		tabletest.Must(t, err)
		_, err = svc.JoinRoom(ctx, player, v.InviteCode)
		tabletest.Must(t, err)
		v, err = svc.CreateCampaign(ctx, dm, v.ID, "Campaign")
		tabletest.Must(t, err)
		camp := v.Campaigns[0]
		v, err = svc.AddSeat(ctx, dm, camp.ID, "Seat")
		tabletest.Must(t, err)
		seat := v.Campaigns[0].Seats[1].ID
		_, err = svc.AssignSeat(ctx, dm, camp.Seats[0].ID, v.MyAccess.ID)
		tabletest.Must(t, err)
		var playerAccess int64
		for _, m := range v.Members {
			if m.UserID == player.UserID {
				playerAccess = m.AccessID
			}
		}
		_, err = svc.AssignSeat(ctx, dm, seat, playerAccess)
		tabletest.Must(t, err)
		_, err = svc.SetSeatCharacter(ctx, player, seat, &charID)
		tabletest.Must(t, err)
		r, err := svc.OpenSession(ctx, dm, camp.ID)
		tabletest.Must(t, err)
		dms[i], lobbies[i] = dm, r.Session.ID
	}
	return player, charID, dms, lobbies
}

// TestLeaseRace starts two sessions holding the same character at the same
// moment: exactly one starts, the other is refused naming the character.
func TestLeaseRace(t *testing.T) {
	svc, store := newService(t)
	for round := range 5 {
		_, charID, dms, lobbies := twoRoomsSameCharacter(t, svc)
		var wg sync.WaitGroup
		errs := make([]error, 2)
		start := make(chan struct{})
		for i := range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				_, errs[i] = svc.StartSession(ctx, dms[i], lobbies[i])
			}()
		}
		close(start)
		wg.Wait()
		okCount := 0
		for i, err := range errs {
			switch apperr.CodeOf(err) {
			case "":
				okCount++
			case apperr.CharacterAlreadyInSession:
				e, _ := apperr.As(err)
				if e.Details["character_name"] != "Aria" {
					t.Fatalf("round %d: refusal does not name the character: %+v", round, e.Details)
				}
				// The refused start left nothing behind.
				r, rerr := svc.Resume(ctx, dms[i], lobbies[i])
				tabletest.Must(t, rerr)
				if r.Session.Status != models.SessionLobby || len(r.Participants) != 0 {
					t.Fatalf("round %d: refused start left %s with %d participants", round, r.Session.Status, len(r.Participants))
				}
			default:
				t.Fatalf("round %d: unexpected error %v", round, err)
			}
		}
		if okCount != 1 {
			t.Fatalf("round %d: %d sessions started, want exactly 1 (%v)", round, okCount, errs)
		}
		l, err := store.FindLease(ctx, charID)
		tabletest.Must(t, err)
		if l.SessionID != lobbies[0] && l.SessionID != lobbies[1] {
			t.Fatalf("lease held by session %d", l.SessionID)
		}
		// Release for the next round's independence.
		for i := range 2 {
			svc.AbandonSession(ctx, dms[i], lobbies[i])
		}
	}
}

// TestStartIsAtomic: a start that fails on its second player's lease
// (after the first participant and lease were written) leaves nothing.
func TestStartIsAtomic(t *testing.T) {
	svc, store := newService(t)
	f := tabletest.New(t, svc)
	// The free seat gets the unseated member and Tomas, who is already in
	// another active session.
	_, err := svc.AssignSeat(ctx, f.Owner, f.FreeSeatID, f.UnseatedAccess)
	tabletest.Must(t, err)
	_, err = svc.SetSeatCharacter(ctx, f.Unseated, f.FreeSeatID, &f.UnseatedCharacterID)
	tabletest.Must(t, err)
	other := tabletest.New(t, svc)
	_, err = svc.JoinRoom(ctx, f.Unseated, other.InviteCode)
	tabletest.Must(t, err)
	ov, err := svc.GetRoom(ctx, other.Owner, other.RoomID)
	tabletest.Must(t, err)
	var acc int64
	for _, m := range ov.Members {
		if m.UserID == f.Unseated.UserID {
			acc = m.AccessID
		}
	}
	_, err = svc.AssignSeat(ctx, other.Owner, other.FreeSeatID, acc)
	tabletest.Must(t, err)
	_, err = svc.SetSeatCharacter(ctx, f.Unseated, other.FreeSeatID, &f.UnseatedCharacterID)
	tabletest.Must(t, err)
	_, err = svc.StartSession(ctx, other.Owner, other.LobbyID)
	tabletest.Must(t, err)

	_, err = svc.StartSession(ctx, f.Owner, f.LobbyID)
	wantCode(t, err, apperr.CharacterAlreadyInSession)
	r, err := svc.Resume(ctx, f.Owner, f.LobbyID)
	tabletest.Must(t, err)
	if r.Session.Status != models.SessionLobby || len(r.Participants) != 0 || r.Session.StartedAt != nil {
		t.Fatalf("failed start left %s, %d participants", r.Session.Status, len(r.Participants))
	}
	if _, err := store.FindLease(ctx, f.CharacterID); apperr.CodeOf(err) != apperr.NotFound {
		t.Fatalf("Mira's lease survived the rolled-back start: %v", err)
	}
	se, _ := store.FindSessionByID(ctx, f.LobbyID, false)
	if se.DMControllerKind != "none" {
		t.Fatal("DM snapshot survived the rolled-back start")
	}
}

// TestResumeQueryCountIsFlat: the resume read costs the same number of SQL
// statements with 1 or 8 participants.
func TestResumeQueryCountIsFlat(t *testing.T) {
	svc, _ := newService(t)
	count := func(players int) int64 {
		dm := tabletest.NewUser(t, svc, "DM")
		v, err := svc.CreateRoom(ctx, dm, "Big table")
		tabletest.Must(t, err)
		roomID, invite := v.ID, v.InviteCode
		v, err = svc.CreateCampaign(ctx, dm, roomID, "Campaign")
		tabletest.Must(t, err)
		camp := v.Campaigns[0]
		_, err = svc.AssignSeat(ctx, dm, camp.Seats[0].ID, v.MyAccess.ID)
		tabletest.Must(t, err)
		for i := range players {
			p := tabletest.NewUser(t, svc, "Player")
			jv, err := svc.JoinRoom(ctx, p, invite)
			tabletest.Must(t, err)
			v, err = svc.AddSeat(ctx, dm, camp.ID, "Seat")
			tabletest.Must(t, err)
			seat := v.Campaigns[0].Seats[i+1].ID
			_, err = svc.AssignSeat(ctx, dm, seat, jv.MyAccess.ID)
			tabletest.Must(t, err)
			ch, err := svc.CreateCharacter(ctx, p, tabletest.Character("Hero"))
			tabletest.Must(t, err)
			_, err = svc.SetSeatCharacter(ctx, p, seat, &ch.ID)
			tabletest.Must(t, err)
		}
		r, err := svc.OpenSession(ctx, dm, camp.ID)
		tabletest.Must(t, err)
		r, err = svc.StartSession(ctx, dm, r.Session.ID)
		tabletest.Must(t, err)
		if len(r.Participants) != players {
			t.Fatalf("got %d participants, want %d", len(r.Participants), players)
		}
		cctx, n := models.WithQueryCounter(ctx)
		_, err = svc.Resume(cctx, dm, r.Session.ID)
		tabletest.Must(t, err)
		return n.Load()
	}
	one, eight := count(1), count(8)
	if one == 0 || one != eight || eight > 12 {
		t.Fatalf("resume ran %d statements for 1 participant and %d for 8; want the same, at most 12", one, eight)
	}
	t.Logf("resume: %d statements", eight)
}

func TestInviteRotation(t *testing.T) {
	svc, _ := newService(t)
	f := tabletest.New(t, svc)
	newcomer := tabletest.NewUser(t, svc, "New")
	inv, err := svc.RotateInvite(ctx, f.Owner, f.RoomID)
	tabletest.Must(t, err)
	_, err = svc.JoinRoom(ctx, newcomer, f.InviteCode)
	wantCode(t, err, apperr.InviteCodeInvalid)
	v, err := svc.JoinRoom(ctx, newcomer, inv.InviteCode)
	tabletest.Must(t, err)
	if v.MyAccess.Authority != "member" || v.InviteCode != "" {
		t.Fatalf("newcomer got %+v and invite %q; members must not see the invite", v.MyAccess, v.InviteCode)
	}
	_, err = svc.JoinRoom(ctx, f.Revoked, inv.InviteCode)
	wantCode(t, err, apperr.RoomAccessRevoked)
	_, err = svc.GetRoom(ctx, f.Revoked, f.RoomID)
	wantCode(t, err, apperr.RoomAccessRevoked)
	_, err = svc.GetRoom(ctx, f.Stranger, f.RoomID)
	wantCode(t, err, apperr.NotFound)
}

func TestCharacterValidation(t *testing.T) {
	svc, store := newService(t)
	c := tabletest.NewUser(t, svc, "Player")
	good := tabletest.Character("Mira")
	v, err := svc.CreateCharacter(ctx, c, good)
	tabletest.Must(t, err)
	if v.ProficiencyBonus != 2 {
		t.Fatalf("level 3 proficiency %d, want 2", v.ProficiencyBonus)
	}
	wantSheetsRefused(t, svc, c, v.ID, []badSheet{
		{"ErrEmptyName", func(in *table.CharacterInput) { in.Name = "   " }, "name"},
		{"ErrLongName", func(in *table.CharacterInput) { in.Name = string(make([]rune, 81)) }, "name"},
		{"ErrLevel0", func(in *table.CharacterInput) { in.Level = 0 }, "level"},
		{"ErrLevel21", func(in *table.CharacterInput) { in.Level = 21 }, "level"},
		{"ErrScore0", func(in *table.CharacterInput) { in.Abilities.Str = 0 }, "abilities.str"},
		{"ErrScore31", func(in *table.CharacterInput) { in.Abilities.Cha = 31 }, "abilities.cha"},
		{"ErrHPAboveMax", func(in *table.CharacterInput) { in.HP.Current = 21 }, "hp.current"},
		{"ErrUnknownSkill", func(in *table.CharacterInput) { in.SkillProficiencies = []string{"hacking"} }, "skill_proficiencies"},
		{"ErrExpertiseWithoutProficiency", func(in *table.CharacterInput) { in.SkillExpertise = []string{"arcana"} }, "skill_expertise"},
		{"ErrUnknownCondition", func(in *table.CharacterInput) { in.Conditions = []string{"sleepy"} }, "conditions"},
		{"ErrResourceAboveMax", func(in *table.CharacterInput) { in.Resources = []table.ResourceView{{Name: "Ki", Current: 4, Max: 3}} }, "resources.0.current"},
		{"ErrLongClass", func(in *table.CharacterInput) { in.Class = strings.Repeat("x", 81) }, "class"},
		{"ErrLongSpecies", func(in *table.CharacterInput) { in.Species = strings.Repeat("x", 81) }, "species"},
		{"ErrLongBackground", func(in *table.CharacterInput) { in.Background = strings.Repeat("x", 81) }, "background"},
		{"ErrUnknownSave", func(in *table.CharacterInput) { in.SaveProficiencies = []string{"dex", "luck"} }, "save_proficiencies"},
		{"ErrUnknownArmor", func(in *table.CharacterInput) { in.Armor.Body = "mithral_robe" }, "armor.body"},
		{"ErrUnknownUnarmored", func(in *table.CharacterInput) { in.Armor.Unarmored = "draconic" }, "armor.unarmored"},
		{"ErrArmorBonus", func(in *table.CharacterInput) { in.Armor.Bonus = 11 }, "armor.bonus"},
		{"ErrArmorMalus", func(in *table.CharacterInput) { in.Armor.Bonus = -6 }, "armor.bonus"},
		{"ErrNegativeSpeed", func(in *table.CharacterInput) { in.Speed = -5 }, "speed"},
		{"ErrSpeed", func(in *table.CharacterInput) { in.Speed = 201 }, "speed"},
		{"ErrHitDie", func(in *table.CharacterInput) { in.HitDie = 4 }, "hit_die"},
	})
	chars, _ := store.FindCharactersOfUser(ctx, c.UserID)
	if len(chars) != 1 || chars[0].Name != "Mira" || chars[0].HPCurrent != 20 {
		t.Fatalf("bad input wrote something: %+v", chars)
	}
	other := tabletest.NewUser(t, svc, "Other")
	_, err = svc.GetCharacter(ctx, other, v.ID)
	wantCode(t, err, apperr.NotFound)
}

// badSheet is a change to Mira's sheet that is character_invalid naming field.
type badSheet struct {
	name   string
	change func(*table.CharacterInput)
	field  string
}

// wantSheetsRefused: each sheet is character_invalid naming its field when
// created, and when it updates character updateID (unless 0).
func wantSheetsRefused(t *testing.T, svc *table.Service, c table.Caller, updateID int64, sheets []badSheet) {
	t.Helper()
	for _, tt := range sheets {
		t.Run(tt.name, func(t *testing.T) {
			in := tabletest.Character("Mira")
			tt.change(&in)
			_, err := svc.CreateCharacter(ctx, c, in)
			wantCode(t, err, apperr.CharacterInvalid)
			if e, _ := apperr.As(err); e.Fields[tt.field] == "" {
				t.Fatalf("fields %v lack %s", e.Fields, tt.field)
			}
			if updateID != 0 {
				_, err = svc.UpdateCharacter(ctx, c, updateID, in)
				wantCode(t, err, apperr.CharacterInvalid)
			}
		})
	}
}

func TestDisplayName(t *testing.T) {
	svc, _ := newService(t)
	c := tabletest.NewUser(t, svc, "Ann")
	for _, bad := range []string{"", "  ", "a\x00b", string(make([]rune, 81))} {
		_, err := svc.RenameMe(ctx, c, bad)
		wantCode(t, err, apperr.DisplayNameInvalid)
	}
	u, err := svc.RenameMe(ctx, c, "  Ann the Bold ")
	tabletest.Must(t, err)
	if u.DisplayName != "Ann the Bold" {
		t.Fatalf("got %q", u.DisplayName)
	}
}
