package table_test

import (
	"context"
	"encoding/json"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/gameplay/table/tabletest"
	"github.com/adventure-table/adventure-table/models"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// aiCaller authenticates a token the way the MCP edge does.
func aiCaller(t *testing.T, svc *table.Service, token string) table.Caller {
	t.Helper()
	c, err := svc.AuthenticateGrant(ctx, token)
	tabletest.Must(t, err)
	return c
}

func TestHandoffAndTakeBack(t *testing.T) {
	lt, _ := newLiveTable(t)
	svc := lt.svc
	_, err := svc.LetAIControl(ctx, lt.Unseated, lt.PlayerSeatID, table.HandoffInput{})
	wantCode(t, err, apperr.SeatControllerRequired)
	before := seatEpoch(t, svc, lt.Owner, lt.RoomID, lt.PlayerSeatID)
	minted, err := svc.LetAIControl(ctx, lt.Seated, lt.PlayerSeatID, table.HandoffInput{TemporaryInstruction: "Play Mira as cautious; never open chests."})
	tabletest.Must(t, err)
	if !strings.HasPrefix(minted.Token, "at_ai_") || seatEpoch(t, svc, lt.Owner, lt.RoomID, lt.PlayerSeatID) != before+1 {
		t.Fatalf("minted %+v, epoch %d", minted.Grant, seatEpoch(t, svc, lt.Owner, lt.RoomID, lt.PlayerSeatID))
	}
	ai := aiCaller(t, svc, minted.Token)

	// The AI plays Mira through the same gameplay functions.
	p, err := svc.PostMessage(ctx, ai, lt.LobbyID, table.MessageInput{Kind: "say", Text: "I stay back."})
	tabletest.Must(t, err)
	if *p.Event.ActingSeatID != lt.PlayerSeatID || *p.Event.SubjectCharacterID != lt.CharacterID {
		t.Fatalf("AI post recorded as %+v", p.Event)
	}
	r, err := svc.Resume(ctx, ai, lt.LobbyID)
	tabletest.Must(t, err)
	if r.Me.Role != "player" || r.Me.Controller != "ai" || !strings.Contains(r.Me.TemporaryInstruction, "cautious") {
		t.Fatalf("AI's own view %+v", r.Me)
	}
	// The instruction is the AI's alone: not in what others read.
	for _, who := range []table.Caller{lt.Owner, lt.Unseated, lt.Seated} {
		r, _ := svc.Resume(ctx, who, lt.LobbyID)
		page, _ := svc.ListEvents(ctx, who, lt.LobbyID, 0, 200)
		raw, _ := json.Marshal([]any{r, page})
		if strings.Contains(string(raw), "cautious") {
			t.Fatal("the temporary instruction leaked into a human's view")
		}
	}
	ch, _ := svc.GetCharacter(ctx, lt.Seated, lt.CharacterID)
	if raw, _ := json.Marshal(ch); strings.Contains(string(raw), "cautious") {
		t.Fatal("the instruction reached the character")
	}

	// The player's own view offers the take-back; nobody else's does.
	if r, _ := svc.Resume(ctx, lt.Seated, lt.LobbyID); len(r.Me.TakeBackSeatIDs) != 1 || r.Me.TakeBackSeatIDs[0] != lt.PlayerSeatID {
		t.Fatalf("take-back seats %v", r.Me.TakeBackSeatIDs)
	}
	if r, _ := svc.Resume(ctx, lt.Owner, lt.LobbyID); len(r.Me.TakeBackSeatIDs) != 0 {
		t.Fatalf("the owner may take back %v", r.Me.TakeBackSeatIDs)
	}
	// Someone else — even with the same display name — cannot take it back.
	impostor := tabletest.NewUser(t, svc, "Seated")
	_, err = svc.JoinRoom(ctx, impostor, lt.InviteCode)
	tabletest.Must(t, err)
	_, err = svc.TakeBackControl(ctx, impostor, lt.PlayerSeatID)
	wantCode(t, err, apperr.TakeBackOriginRequired)
	_, err = svc.TakeBackControl(ctx, lt.Owner, lt.PlayerSeatID)
	wantCode(t, err, apperr.TakeBackOriginRequired)

	v, err := svc.TakeBackControl(ctx, lt.Seated, lt.PlayerSeatID)
	tabletest.Must(t, err)
	for _, camp := range v.Campaigns {
		for _, s := range camp.Seats {
			if s.ID == lt.PlayerSeatID && (s.ControllerKind != "human" || s.Character == nil || s.Character.ID != lt.CharacterID) {
				t.Fatalf("after take-back the seat is %+v", s)
			}
		}
	}
	// The token is still authentic, so the edge lets it through; every call
	// then says why it no longer works.
	_, err = svc.AuthenticateGrant(ctx, minted.Token)
	tabletest.Must(t, err)
	_, err = svc.PostMessage(ctx, ai, lt.LobbyID, table.MessageInput{Kind: "say", Text: "still here?"})
	wantCode(t, err, apperr.AITokenRevoked)
	wantDetail(t, err, "reason", table.RevokedTakenBack)
	// The human plays again.
	_, err = svc.PostMessage(ctx, lt.Seated, lt.LobbyID, table.MessageInput{Kind: "say", Text: "I'm back."})
	tabletest.Must(t, err)
}

// aiDMTable is a fixture whose DM seat the owner gave to an AI before the
// session started.
func aiDMTable(t *testing.T) (liveTable, table.MintedGrant) {
	t.Helper()
	svc, _ := newService(t)
	f := tabletest.New(t, svc)
	minted, err := svc.SetDMSeatAI(ctx, f.Owner, f.CampaignID)
	tabletest.Must(t, err)
	agentCalled(t, svc, minted.Token)
	return liveTable{Fixture: f, svc: svc}, minted
}

func TestAIDMLifecycle(t *testing.T) {
	lt, minted := aiDMTable(t)
	svc := lt.svc
	_, err := svc.SetDMSeatAI(ctx, lt.DMKey, lt.CampaignID)
	wantCode(t, err, apperr.RoomOwnerRequired)
	ai := aiCaller(t, svc, minted.Token)
	if minted.Grant.PreSessionExpiresAt == nil || minted.Grant.SessionID != nil {
		t.Fatalf("pre-session grant %+v", minted.Grant)
	}
	pre, err := svc.GetPreSessionContext(ctx, ai)
	tabletest.Must(t, err)
	if !pre.ReadyToStart || pre.LobbySessionID == nil || *pre.LobbySessionID != lt.LobbyID {
		t.Fatalf("pre-session context %+v", pre)
	}
	// Before the start it can read nothing else and write nothing.
	_, err = svc.Resume(ctx, ai, lt.LobbyID)
	wantCode(t, err, apperr.AIGrantPreSessionOnly)
	_, err = svc.ListEvents(ctx, ai, lt.LobbyID, 0, 10)
	wantCode(t, err, apperr.AIGrantPreSessionOnly)
	// The human owner is no longer the DM.
	_, err = svc.StartSession(ctx, lt.Owner, lt.LobbyID)
	wantCode(t, err, apperr.NotCurrentDM)

	r, err := svc.StartSession(ctx, ai, lt.LobbyID)
	tabletest.Must(t, err)
	if r.Session.Status != "active" || r.Me.Role != "dm" {
		t.Fatalf("AI DM start: %+v %+v", r.Session, r.Me)
	}
	_, err = svc.PostMessage(ctx, ai, lt.LobbyID, table.MessageInput{Kind: "narration", Text: "The gate creaks."})
	tabletest.Must(t, err)
	_, err = svc.SetDMSeatAI(ctx, lt.Owner, lt.CampaignID)
	wantCode(t, err, apperr.AIGrantAlreadyBound)

	_, err = svc.EndSession(ctx, ai, lt.LobbyID)
	tabletest.Must(t, err)
	_, err = svc.AuthenticateGrant(ctx, minted.Token)
	tabletest.Must(t, err)
	_, err = svc.Resume(ctx, ai, lt.LobbyID)
	wantCode(t, err, apperr.SessionEnded)
	wantDetail(t, err, "reason", table.RevokedEnded)
}

// handedOff is a live table whose seated player handed the seat to an AI.
func handedOff(t *testing.T) (liveTable, table.MintedGrant) {
	lt, _ := newLiveTable(t)
	m, err := lt.svc.LetAIControl(ctx, lt.Seated, lt.PlayerSeatID, table.HandoffInput{})
	tabletest.Must(t, err)
	agentCalled(t, lt.svc, m.Token)
	return lt, m
}

// agentCalled authenticates a token once, as an agent's first call does:
// its grant row is kept from then on (verifiedGrants), so every way the
// token goes stale afterwards is checked against a kept row.
func agentCalled(t *testing.T, svc *table.Service, token string) {
	t.Helper()
	if _, err := svc.AuthenticateGrant(ctx, token); err != nil {
		t.Fatal(err)
	}
	cctx, n := models.WithQueryCounter(ctx)
	if _, err := svc.AuthenticateGrant(cctx, token); err != nil || n.Load() != 0 {
		t.Fatalf("a second call's bearer check: %v, %d statements (want the kept row, 0)", err, n.Load())
	}
}

// TestStaleTokenMatrix: every way a token goes stale, against every kind
// of call, is refused with its code, although the agent called before and
// its grant row was kept.
func TestStaleTokenMatrix(t *testing.T) {
	type setup func(t *testing.T) (svc *table.Service, token string, sessionID int64)
	cases := []struct {
		name string
		make setup
		want apperr.Code
	}{
		{"RevokedByTakeBack", func(t *testing.T) (*table.Service, string, int64) {
			lt, m := handedOff(t)
			_, err := lt.svc.TakeBackControl(ctx, lt.Seated, lt.PlayerSeatID)
			tabletest.Must(t, err)
			return lt.svc, m.Token, lt.LobbyID
		}, apperr.AITokenRevoked},
		{"MemberRevoked", func(t *testing.T) (*table.Service, string, int64) {
			// The player who handed the seat over is revoked: the AI holding
			// their seat loses it too.
			lt, m := handedOff(t)
			_, err := lt.svc.RevokeMember(ctx, lt.Owner, lt.RoomID, lt.SeatedAccess)
			tabletest.Must(t, err)
			return lt.svc, m.Token, lt.LobbyID
		}, apperr.AITokenRevoked},
		{"SeatReassignedToHuman", func(t *testing.T) (*table.Service, string, int64) {
			lt, m := handedOff(t)
			_, err := lt.svc.AssignSeat(ctx, lt.Owner, lt.PlayerSeatID, lt.UnseatedAccess)
			tabletest.Must(t, err)
			return lt.svc, m.Token, lt.LobbyID
		}, apperr.AITokenRevoked},
		{"SessionEnded", func(t *testing.T) (*table.Service, string, int64) {
			lt, m := handedOff(t)
			_, err := lt.svc.EndSession(ctx, lt.Owner, lt.LobbyID)
			tabletest.Must(t, err)
			return lt.svc, m.Token, lt.LobbyID
		}, apperr.SessionEnded},
		{"SessionAbandonedByOwner", func(t *testing.T) (*table.Service, string, int64) {
			lt, m := handedOff(t)
			_, err := lt.svc.AbandonSession(ctx, lt.Owner, lt.LobbyID)
			tabletest.Must(t, err)
			return lt.svc, m.Token, lt.LobbyID
		}, apperr.SessionEnded},
		{"WrongSession", func(t *testing.T) (*table.Service, string, int64) {
			lt, m := handedOff(t)
			other, err := lt.svc.OpenSession(ctx, lt.Owner, lt.SpareCampaignID)
			tabletest.Must(t, err)
			return lt.svc, m.Token, other.Session.ID
		}, apperr.AIGrantWrongSession},
		{"UnboundDMGrantPlaysGame", func(t *testing.T) (*table.Service, string, int64) {
			lt, m := aiDMTable(t)
			return lt.svc, m.Token, lt.LobbyID
		}, apperr.AIGrantPreSessionOnly},
		{"RotatedDMGrant", func(t *testing.T) (*table.Service, string, int64) {
			lt, m := aiDMTable(t)
			_, err := lt.svc.SetDMSeatAI(ctx, lt.Owner, lt.CampaignID)
			tabletest.Must(t, err)
			return lt.svc, m.Token, lt.LobbyID
		}, apperr.AITokenRevoked},
		{"DMSeatGivenToHuman", func(t *testing.T) (*table.Service, string, int64) {
			lt, m := aiDMTable(t)
			_, err := lt.svc.AssignSeat(ctx, lt.Owner, lt.DMSeatID, lt.OwnerAccess)
			tabletest.Must(t, err)
			return lt.svc, m.Token, lt.LobbyID
		}, apperr.AITokenRevoked},
		{"DMSeatUnassigned", func(t *testing.T) (*table.Service, string, int64) {
			lt, m := aiDMTable(t)
			_, err := lt.svc.UnassignSeat(ctx, lt.DMKey, lt.DMSeatID)
			tabletest.Must(t, err)
			return lt.svc, m.Token, lt.LobbyID
		}, apperr.AITokenRevoked},
		{"CampaignArchived", func(t *testing.T) (*table.Service, string, int64) {
			lt, m := aiDMTable(t)
			archived := "archived"
			_, err := lt.svc.UpdateCampaign(ctx, lt.Owner, lt.CampaignID, table.CampaignChange{Status: &archived})
			tabletest.Must(t, err)
			return lt.svc, m.Token, lt.LobbyID
		}, apperr.AITokenRevoked},
		{"ActiveCampaignSwitched", func(t *testing.T) (*table.Service, string, int64) {
			lt, m := aiDMTable(t)
			_, err := lt.svc.UpdateRoom(ctx, lt.Owner, lt.RoomID, table.RoomChange{ActiveCampaignID: &lt.SpareCampaignID})
			tabletest.Must(t, err)
			return lt.svc, m.Token, lt.LobbyID
		}, apperr.AITokenRevoked},
		{"ExpiredPreSession", func(t *testing.T) (*table.Service, string, int64) {
			lt, m := aiDMTable(t)
			restore := table.SetClock(func() time.Time { return time.Now().Add(table.PreSessionGrantTTL + time.Minute) })
			t.Cleanup(restore)
			return lt.svc, m.Token, lt.LobbyID
		}, apperr.AITokenExpired},
	}
	calls := []struct {
		name string
		do   func(svc *table.Service, c table.Caller, sessionID int64) error
	}{
		{"resume", func(svc *table.Service, c table.Caller, id int64) error { _, err := svc.Resume(ctx, c, id); return err }},
		{"list_events", func(svc *table.Service, c table.Caller, id int64) error {
			// From a cursor past the end: a finished session's events stay
			// readable up to the end (see TestEndReachesWaitingAgent).
			_, err := svc.ListEvents(ctx, c, id, 1<<40, 10)
			return err
		}},
		{"post message", func(svc *table.Service, c table.Caller, id int64) error {
			_, err := svc.PostMessage(ctx, c, id, table.MessageInput{Kind: "say", Text: "hello"})
			return err
		}},
		{"quick_roll", func(svc *table.Service, c table.Caller, id int64) error {
			_, err := svc.QuickRoll(ctx, c, id, table.QuickRollInput{Formula: "1d20"})
			return err
		}},
		{"board", func(svc *table.Service, c table.Caller, id int64) error { _, err := svc.Board(ctx, c, id); return err }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			svc, token, sessionID := tc.make(t)
			if tc.name == "RevokedByTakeBack" {
				// The same token with another secret: the kept row's hash
				// refuses it as the database's would.
				forged := token[:len(token)-4] + "AAAA"
				if forged == token {
					forged = token[:len(token)-4] + "BBBB"
				}
				_, err := svc.AuthenticateGrant(ctx, forged)
				wantCode(t, err, apperr.AITokenInvalid)
			}
			// The edge's check refuses dead tokens outright...
			c, err := svc.AuthenticateGrant(ctx, token)
			if err != nil {
				wantCode(t, err, tc.want)
				// ...and a caller that slipped past it is refused inside
				// every call too.
				c = table.AI(grantIDOf(t, svc, token))
			}
			for _, call := range calls {
				if got := apperr.CodeOf(call.do(svc, c, sessionID)); got != tc.want {
					t.Errorf("%s: got %q, want %q", call.name, got, tc.want)
				}
			}
		})
	}
}

// grantIDOf finds a grant's id even when its token no longer authenticates.
func grantIDOf(t *testing.T, svc *table.Service, token string) int64 {
	t.Helper()
	id, err := svc.GrantIDOfToken(ctx, token)
	tabletest.Must(t, err)
	return id
}

var _ = models.GrantActive

// TestTokenNeverStored mints tokens and finds neither the token nor its
// secret anywhere in the database.
func TestTokenNeverStored(t *testing.T) {
	lt, store := newLiveTable(t)
	m1, err := lt.svc.LetAIControl(ctx, lt.Seated, lt.PlayerSeatID, table.HandoffInput{TemporaryInstruction: "x"})
	tabletest.Must(t, err)
	m2, err := lt.svc.SetDMSeatAI(ctx, lt.Owner, lt.SpareCampaignID)
	tabletest.Must(t, err)
	dump, err := store.DumpText(ctx)
	tabletest.Must(t, err)
	if !strings.Contains(dump, "ai_controller_grants") {
		t.Fatal("the dump does not cover the grants table")
	}
	for _, tok := range []string{m1.Token, m2.Token} {
		_, secret, _ := strings.Cut(strings.TrimPrefix(tok, "at_ai_"), "_")
		if len(secret) < 43 {
			t.Fatalf("token %q has no full secret", tok[:10])
		}
		for _, needle := range []string{tok, secret} {
			if strings.Contains(dump, needle) {
				t.Fatalf("the database holds a token or its secret (%q…)", needle[:8])
			}
		}
	}
}

// TestEndReachesWaitingAgent: an AI player's wait in flight when the
// session ends returns the end event, not an error; the next read says
// session_ended, with the reason in the details.
func TestEndReachesWaitingAgent(t *testing.T) {
	lt, m := handedOff(t)
	ai := table.AI(grantIDOf(t, lt.svc, m.Token))
	first, err := lt.svc.ListEvents(ctx, ai, lt.LobbyID, 0, 200)
	tabletest.Must(t, err)
	type result struct {
		page table.EventPage
		err  error
	}
	done := make(chan result, 1)
	go func() {
		p, err := lt.svc.WaitEvents(ctx, ai, lt.LobbyID, first.Cursor, table.MaxWait)
		done <- result{p, err}
	}()
	for lt.svc.Notifier().Waiters(lt.LobbyID) == 0 {
		runtime.Gosched()
	}
	_, err = lt.svc.EndSession(ctx, lt.Owner, lt.LobbyID)
	tabletest.Must(t, err)
	r := <-done
	tabletest.Must(t, r.err)
	if n := len(r.page.Events); n == 0 || r.page.Events[n-1].Kind != table.EventSessionEnded {
		t.Fatalf("the wait in flight returned %+v, want the session.ended event", r.page.Events)
	}
	_, err = lt.svc.WaitEvents(ctx, ai, lt.LobbyID, r.page.Cursor, time.Second)
	wantCode(t, err, apperr.SessionEnded)
	wantDetail(t, err, "reason", table.RevokedEnded)
	wantDetail(t, err, "status", "ended")
	_, err = lt.svc.PostMessage(ctx, ai, lt.LobbyID, table.MessageInput{Kind: "say", Text: "one more?"})
	wantCode(t, err, apperr.SessionEnded)
}

// TestRevocationSaysWhy: each way a token is revoked names its reason.
func TestRevocationSaysWhy(t *testing.T) {
	lt, m := aiDMTable(t)
	_, err := lt.svc.SetDMSeatAI(ctx, lt.Owner, lt.CampaignID)
	tabletest.Must(t, err)
	_, err = lt.svc.GetPreSessionContext(ctx, table.AI(grantIDOf(t, lt.svc, m.Token)))
	wantCode(t, err, apperr.AITokenRevoked)
	wantDetail(t, err, "reason", table.RevokedRotated)

	hl, hm := handedOff(t)
	_, err = hl.svc.RevokeMember(ctx, hl.Owner, hl.RoomID, hl.SeatedAccess)
	tabletest.Must(t, err)
	_, err = hl.svc.Resume(ctx, table.AI(grantIDOf(t, hl.svc, hm.Token)), hl.LobbyID)
	wantCode(t, err, apperr.AITokenRevoked)
	wantDetail(t, err, "reason", table.RevokedMember)

	lt, m = aiDMTable(t)
	_, err = lt.svc.AssignSeat(ctx, lt.Owner, lt.DMSeatID, lt.OwnerAccess)
	tabletest.Must(t, err)
	_, err = lt.svc.GetPreSessionContext(ctx, table.AI(grantIDOf(t, lt.svc, m.Token)))
	wantCode(t, err, apperr.AITokenRevoked)
	wantDetail(t, err, "reason", table.RevokedReassigned)
}

// TestTakeBackChecksPermissionFirst: on a seat no AI holds, another player
// is refused for lack of permission (403), and only the seat's own player
// hears that no AI holds it (409).
func TestTakeBackChecksPermissionFirst(t *testing.T) {
	lt, _ := newLiveTable(t)
	_, err := lt.svc.TakeBackControl(ctx, lt.Unseated, lt.PlayerSeatID)
	wantCode(t, err, apperr.TakeBackOriginRequired)
	_, err = lt.svc.TakeBackControl(ctx, lt.Seated, lt.PlayerSeatID)
	wantCode(t, err, apperr.SeatNotAIControlled)
}

// TestAgentCallsShareOneGrantRead: the calls of one agent that arrive
// together when its kept grant row is no longer trusted (a wake answers
// all its waits, and they all call again) share one read of the row, and
// one of them, not each, writes its last-seen time.
func TestAgentCallsShareOneGrantRead(t *testing.T) {
	lt, m := handedOff(t)
	tabletest.NewUser(t, lt.svc, "Newcomer") // an authority change: the kept row is stale
	later := time.Now().Add(time.Minute)     // and its last-seen time is due
	defer table.SetClock(func() time.Time { return later })()

	const calls = 50
	reads, statements := tabletest.Herd(lt.svc.SetFailpoint, "grant.read", calls, func(qctx context.Context, _ int) {
		if _, err := lt.svc.AuthenticateGrant(qctx, m.Token); err != nil {
			t.Error(err)
		}
	})
	t.Logf("%d calls: %d reads of the grant, %d statements", calls, reads, statements)
	if reads != 1 || statements != 2 {
		t.Fatalf("%d calls of one agent read its grant %d times and ran %d statements; want one read and one last-seen write", calls, reads, statements)
	}
}
