package gameplay_test

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/adventure-table/adventure-table/gameplay"
	"github.com/adventure-table/adventure-table/gameplay/accounts"
	"github.com/adventure-table/adventure-table/gameplay/narrative"
	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/gameplay/table/tabletest"
	"github.com/adventure-table/adventure-table/models"
	"github.com/adventure-table/adventure-table/models/apperr"
	"github.com/adventure-table/adventure-table/models/modelstest"
)

// friendsTable is a room where the owner made a friend DM: the friend runs
// the session in the owner's room (narration, a secret check, an action
// window, the stage with an image the friend uploaded, a fight), and a
// player plays their own character there and has handed the seat to an AI.
// The owner also has a character and solo play of their own.
type friendsTable struct {
	tabletest.Fixture
	svc            *gameplay.Services
	store          *models.Store
	friend, player table.Caller
	handoffToken   string
	now            time.Time
}

const friendPassword = "correct horse battery"

func newFriendsTable(t *testing.T, store *models.Store) friendsTable {
	t.Helper()
	ctx := context.Background()
	ft := friendsTable{store: store, now: time.Now()}
	ft.svc = gameplay.New(store, gameplay.Options{Now: func() time.Time { return ft.now }, Secret: []byte(strings.Repeat("k", 40))})
	ft.Fixture = tabletest.New(t, ft.svc.Table)
	ft.friend, ft.player = ft.DMKey, ft.Seated
	svc := ft.svc.Table
	must := func(_ any, err error) {
		t.Helper()
		tabletest.Must(t, err)
	}
	// The owner hands the DM seat to the friend, who registers an account.
	must(svc.AssignSeat(ctx, ft.Owner, ft.DMSeatID, ft.DMKeyAccess))
	browser := accounts.Client{UserAgent: "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"}
	must(ft.svc.Accounts.Register(ctx, ft.friend.UserID, "friend@example.com", friendPassword, browser))
	// The owner has an account too: their browser's session must stay.
	must(ft.svc.Accounts.Register(ctx, ft.Owner.UserID, "owner@example.com", friendPassword, browser))

	// The friend runs the session.
	must(svc.StartSession(ctx, ft.friend, ft.LobbyID))
	must(svc.PostMessage(ctx, ft.friend, ft.LobbyID, table.MessageInput{Kind: "narration", Text: "The mine is dark."}))
	must(svc.PostMessage(ctx, ft.player, ft.LobbyID, table.MessageInput{Kind: "character_dialogue", Text: "I light a torch."}))
	must(svc.QuickRoll(ctx, ft.player, ft.LobbyID, table.QuickRollInput{Formula: "1d20+2"}))
	dc := 15
	checks, err := svc.RequestCheck(ctx, ft.friend, ft.LobbyID, table.CheckRequestInput{SeatIDs: []int64{ft.PlayerSeatID}, Skill: "perception", DC: &dc})
	tabletest.Must(t, err)
	must(svc.ResolveRequest(ctx, ft.player, checks.Requests[0].ID, table.RollInput{Faces: []int{12}}))
	w, err := svc.OpenActionWindow(ctx, ft.friend, ft.LobbyID, table.WindowInput{Prompt: "What does everyone do?"})
	tabletest.Must(t, err)
	must(svc.DeclareAction(ctx, ft.player, ft.LobbyID, table.ActionInput{Text: "I search the cart", WindowID: &w.ID}))
	img, err := svc.UploadStageImage(ctx, ft.friend, ft.LobbyID, testPNG(t))
	tabletest.Must(t, err)
	must(svc.SetStage(ctx, ft.friend, ft.LobbyID, table.StageInput{Text: "A collapsed tunnel.", ImageID: &img.ID}))
	init := 12
	must(svc.StartEncounter(ctx, ft.friend, ft.LobbyID, table.StartEncounterInput{Name: "Goblin ambush",
		NPCs: []table.NPCInput{{Name: "Goblin", AC: 13, HP: 7, Initiative: &init}}}))
	// Another player joins late with their own character (a lease of
	// someone who stays).
	must(svc.AssignSeat(ctx, ft.Owner, ft.FreeSeatID, ft.UnseatedAccess))
	must(svc.SetSeatCharacter(ctx, ft.Unseated, ft.FreeSeatID, &ft.UnseatedCharacterID))
	must(svc.LateJoin(ctx, ft.friend, ft.LobbyID, ft.FreeSeatID))
	// The player hands their seat to an AI for a while.
	minted, err := svc.LetAIControl(ctx, ft.player, ft.PlayerSeatID, table.HandoffInput{TemporaryInstruction: "Play Mira cautiously."})
	tabletest.Must(t, err)
	ft.handoffToken = minted.Token

	// The owner's own character, playing as the narrator's companion in a
	// new seat (a narrator row of someone who stays), and solo play.
	hero, err := svc.CreateCharacter(ctx, ft.Owner, tabletest.Character("Owner's hero"))
	tabletest.Must(t, err)
	room, err := svc.AddSeat(ctx, ft.Owner, ft.CampaignID, "Player 3")
	tabletest.Must(t, err)
	seats := room.Campaigns[0].Seats
	companion, err := svc.SeatNarrator(ctx, ft.Owner, seats[len(seats)-1].ID, table.NarratorInput{CharacterID: &hero.ID})
	tabletest.Must(t, err)
	// One step of it, recorded for its Insights.
	won, err := svc.ClaimNarratorStep(ctx, companion.GrantID, "fixture.1", 0, time.Minute)
	if err != nil || !won {
		t.Fatalf("claim the companion's step: %v %v", won, err)
	}
	tabletest.Must(t, svc.FinishNarratorStep(ctx, companion.GrantID, "fixture.1", table.NarratorStepEnd{State: table.NarratorIdle,
		Record: &table.NarratorStepRecord{Messages: []table.StepMessage{{Role: "assistant", Content: "I draw my sword."}}}}))
	// The campaign's world, set by the owner.
	must(svc.SetCampaignWorld(ctx, ft.Owner, ft.CampaignID, table.World{Premise: "A mining town under the mountain."}))
	// The table's memories of the session so far, and a journal entry.
	if _, err := svc.DrainCampaignMemoryJobs(ctx); err != nil {
		t.Fatal(err)
	}
	must(svc.AddJournalEntry(ctx, ft.Owner, ft.CampaignID, table.JournalInput{Kind: "place", Title: "The mine"}))
	sc, err := ft.svc.Narrative.CreateScenario(ctx, ft.Owner.UserID, narrative.ScenarioInput{Title: "Solo", Premise: "A cave.", Opening: "You wake."})
	tabletest.Must(t, err)
	adv, err := ft.svc.Narrative.Play(ctx, ft.Owner.UserID, sc.ID, narrative.Persona{PersonaName: "Ash"})
	tabletest.Must(t, err)
	must(ft.svc.Narrative.AddMemory(ctx, ft.Owner.UserID, adv.Adventure.ID, narrative.MemoryInput{Text: "Ash fears the dark."}))
	// An agent co-writes the owner's solo story through a solo grant.
	must(ft.svc.Narrative.MintAdventureGrant(ctx, ft.Owner.UserID, adv.Adventure.ID, narrative.SoloGrantInput{Label: "Claude"}))
	return ft
}

func testPNG(t *testing.T) []byte {
	var b bytes.Buffer
	tabletest.Must(t, png.Encode(&b, image.NewRGBA(image.Rect(0, 0, 8, 6))))
	return b.Bytes()
}

// deleteFriendAndPlayer deletes the friend's account (with its password)
// and sweeps the player as an idle guest, the two ways a person goes.
func (ft *friendsTable) deleteFriendAndPlayer(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	tabletest.Must(t, ft.svc.Accounts.DeleteAccount(ctx, ft.friend.UserID, friendPassword))
	// Every other guest was seen a moment ago; the player last came 31 days ago.
	long := ft.now.Add(-31 * 24 * time.Hour)
	tabletest.Must(t, ft.store.UpdateUser(ctx, ft.player.UserID, nil, &long))
	ft.now = ft.now.Add(time.Minute)
	for _, c := range []table.Caller{ft.Owner, ft.Unseated, ft.Revoked, ft.Stranger} {
		now := ft.now
		tabletest.Must(t, ft.store.UpdateUser(ctx, c.UserID, nil, &now))
	}
	n, err := ft.svc.SweepIdleGuests(ctx, 30*24*time.Hour)
	tabletest.Must(t, err)
	if n != 1 {
		t.Fatalf("swept %d guests, want the player", n)
	}
}

// reachableFromUsers lists the tables that hang off users through foreign
// keys, read from the live schema: every table a deletion could reach.
func reachableFromUsers(t *testing.T, store *models.Store) []string {
	t.Helper()
	schema, err := store.DescribeSchema(context.Background())
	tabletest.Must(t, err)
	children := map[string][]string{} // parent table -> tables pointing at it
	for name, ts := range schema.Tables {
		for key, def := range ts.Constraints {
			if !strings.HasPrefix(key, "fk:") && !strings.Contains(def, "FOREIGN KEY") {
				continue
			}
			_, rest, ok := strings.Cut(def, "REFERENCES ")
			if !ok {
				continue
			}
			parent := strings.Trim(strings.TrimSpace(rest[:strings.IndexAny(rest, "(")]), `"`+"`")
			children[parent] = append(children[parent], name)
		}
	}
	seen := map[string]bool{"users": true}
	queue := []string{"users"}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			if !seen[c] {
				seen[c] = true
				queue = append(queue, c)
			}
		}
	}
	var out []string
	for name := range seen {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// Deleting a person takes only what they owned. The owner made a friend
// DM; the friend ran a session in the owner's room and deleted their
// account; a player of that room was swept as an idle guest. Every table a
// deletion can reach (read from the schema, so a new table is covered the
// day it is added) loses exactly the two people's own rows — their users,
// memberships, the player's character and its lease — and nothing else:
// the owner's seats, session, events, messages, rolls, stage image, fight
// and grant history stay. The seats are vacant, the handoff's grant is
// revoked (member_deleted), the lines name a former member, and the
// campaign goes on to its next session. On a fresh schema and on one
// upgraded through every migration.
func TestDeletingAPersonTakesOnlyWhatTheyOwn(t *testing.T) {
	for _, upgraded := range []bool{false, true} {
		name := map[bool]string{false: "fresh", true: "upgraded"}[upgraded]
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			store := openMaybeUpgraded(t, upgraded)
			ft := newFriendsTable(t, store)
			svc := ft.svc.Table
			before, err := store.TableCounts(ctx)
			tabletest.Must(t, err)
			eventsBefore, err := svc.ListEvents(ctx, ft.Owner, ft.LobbyID, 0, 200)
			tabletest.Must(t, err)

			ft.deleteFriendAndPlayer(t)

			after, err := store.TableCounts(ctx)
			tabletest.Must(t, err)
			// Their own rows: two users, two memberships, the player's
			// character (Mira) and its lease in the running session, the
			// friend's browser session.
			own := map[string]int64{"users": 2, "room_access_sessions": 2, "characters": 1, "active_character_session_leases": 1, "browser_sessions": 1}
			for _, table := range reachableFromUsers(t, store) {
				if after[table] != before[table]-own[table] {
					t.Errorf("%s: %d rows → %d, want %d (only the deleted people's own rows go)", table, before[table], after[table], before[table]-own[table])
				}
				if before[table]-own[table] == 0 && !slices.Contains(notPlayedHere, table) {
					t.Errorf("%s hangs off users but the fixture leaves no row of anyone else's in it: the test proves nothing for it", table)
				}
			}

			// The owner's session goes on, with every event.
			eventsAfter, err := svc.ListEvents(ctx, ft.Owner, ft.LobbyID, 0, 200)
			tabletest.Must(t, err)
			if len(eventsAfter.Events) != len(eventsBefore.Events) || len(eventsAfter.Events) == 0 {
				t.Fatalf("owner sees %d events after, %d before", len(eventsAfter.Events), len(eventsBefore.Events))
			}
			resume, err := svc.Resume(ctx, ft.Owner, ft.LobbyID)
			tabletest.Must(t, err)
			for _, seat := range resume.Seats {
				if seat.ID == ft.DMSeatID || seat.ID == ft.PlayerSeatID {
					if seat.ControllerKind != models.ControllerNone || seat.Character != nil || seat.ControllerEpoch < 2 {
						t.Errorf("seat %d: %s controller, character %v, epoch %d; want vacant, no character, epoch moved on", seat.ID, seat.ControllerKind, seat.Character, seat.ControllerEpoch)
					}
				}
			}
			var former int
			for _, p := range resume.Participants {
				if p.ControllerDisplayName != nil && *p.ControllerDisplayName == table.FormerMemberName && p.ControllerNameCode == "user.former" {
					former++
				}
				if p.SeatID == ft.PlayerSeatID && p.Character != nil {
					t.Errorf("the deleted player's character still shows in the session: %+v", p.Character)
				}
			}
			if former == 0 {
				t.Errorf("no participant names a former member: %+v", resume.Participants)
			}
			// The AI the player handed the seat to is out.
			agent, err := svc.AuthenticateGrant(ctx, ft.handoffToken)
			tabletest.Must(t, err)
			if _, err := svc.Resume(ctx, agent, ft.LobbyID); apperr.CodeOf(err) != apperr.AITokenRevoked {
				t.Errorf("the deleted player's handoff grant: %v, want ai_token_revoked", err)
			} else if e, _ := apperr.As(err); e.Details["reason"] != table.RevokedMemberDeleted {
				t.Errorf("revoke reason %v, want %s", e.Details["reason"], table.RevokedMemberDeleted)
			}
			// The fight goes on without the deleted player's character.
			if _, err := svc.GetEncounter(ctx, ft.Owner, ft.LobbyID); err != nil {
				t.Errorf("the fight after the deletion: %v", err)
			}
			// The campaign goes on: the owner closes the session the friend
			// ran (the owner's escape hatch; its history stays), takes the DM
			// seat and starts the next.
			_, err = svc.AbandonSession(ctx, ft.Owner, ft.LobbyID)
			tabletest.Must(t, err)
			_, err = svc.AssignSeat(ctx, ft.Owner, ft.DMSeatID, ft.OwnerAccess)
			tabletest.Must(t, err)
			next, err := svc.OpenSession(ctx, ft.Owner, ft.CampaignID)
			tabletest.Must(t, err)
			if _, err := svc.StartSession(ctx, ft.Owner, next.Session.ID); err != nil {
				t.Fatalf("the campaign cannot start its next session: %v", err)
			}
		})
	}
}

// notPlayedHere are the tables reachable from users that this table
// fixture has no rows of anyone else's in; each is covered elsewhere.
var notPlayedHere = []string{
	"login_failures",         // an account's failed logins: its own (accounts tests)
	"provider_settings",      // a user's narrator settings: their own (narrative tests)
	"script_console_entries", // a solo adventure's script log: its owner's (scripts tests)
	"memory_jobs",            // a solo adventure's memory work: its owner's (memory tests)
	"demo_usage",             // a user's spending of the demo narrator: their own (demo tests)
	"adventure_cards",        // a solo adventure's cards: its owner's (cards tests)
	"scenario_cards",         // a scenario's cards: its owner's (narrative tests)
}

func openMaybeUpgraded(t *testing.T, upgraded bool) *models.Store {
	t.Helper()
	if !upgraded {
		return modelstest.MustOpen(t)
	}
	store := modelstest.MustOpenEmpty(t)
	if _, err := store.MigrateTo(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	return store
}

// The storage refuses to take a seat with the person who controls it: a
// delete that skipped the release fails, and changes nothing.
func TestStoreRefusesToDeleteASeatedMember(t *testing.T) {
	ctx := context.Background()
	store := modelstest.MustOpen(t)
	ft := newFriendsTable(t, store)
	before, err := store.TableCounts(ctx)
	tabletest.Must(t, err)
	if err := store.DeleteUser(ctx, ft.friend.UserID); apperr.CodeOf(err) != apperr.Conflict {
		t.Fatalf("deleting the DM's user row directly: %v, want conflict", err)
	}
	after, err := store.TableCounts(ctx)
	tabletest.Must(t, err)
	for table, n := range before {
		if after[table] != n {
			t.Errorf("%s: %d rows → %d", table, n, after[table])
		}
	}
}
