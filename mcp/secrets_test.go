package mcp

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/gameplay/table/tabletest"
)

// The secrets of a campaign, each a sentinel that must stay with its
// audience across sessions: a whisper from the DM to Mira, a journal entry
// for Mira's seat, one for the DM alone, a hidden NPC's hit points and the
// secret DC of a check still waiting. (A DC stays secret until every check
// of its request is settled; then roll.revealed opens its commitment for
// all, as session 1's DC 37 is once its session ends.)
var (
	whisperSentinel = "WHISPER-SENTINEL-77: the lantern hides a key."
	miraSentinel    = "SEATA-SENTINEL-34"
	dmSentinel      = "DMONLY-SENTINEL-12"
	hiddenHP        = regexp.MustCompile(`(^|[^0-9])9173([^0-9]|$)`)
	secretDC        = regexp.MustCompile(`(?i)"dc"\s*:\s*38\b|\bDC\s*38\b`)
)

// TestCampaignSecretsKeepTheirAudience plays three sessions of a campaign
// (on SQLite, and on PostgreSQL with AT_TEST_DB=postgres) and then reads
// everything Tomas, the third player, may read — as a human (the campaign's
// memories, recall, both recaps, every session's events and roll history,
// the journal, the board of checks, the campaign's export) and as an AI on his seat over MCP (get_session_context, the
// journal tool, wait_for_event, his sheet) — and finds none of the
// secrets. Mira and the DM read theirs by the same paths, so a secret that
// never reached anyone cannot pass for one kept.
func TestCampaignSecretsKeepTheirAudience(t *testing.T) {
	ctx := context.Background()
	svc, srv := liveServer(t)
	f := tabletest.New(t, svc)
	seatTomas(t, svc, f)
	mira, tomas := f.PlayerSeatID, f.FreeSeatID
	must := func(err error) { t.Helper(); tabletest.Must(t, err) }
	say := func(c table.Caller, session int64, in table.MessageInput) {
		t.Helper()
		_, err := svc.PostMessage(ctx, c, session, in)
		must(err)
	}
	next := func() int64 {
		t.Helper()
		lobby, err := svc.OpenSession(ctx, f.Owner, f.CampaignID)
		must(err)
		_, err = svc.StartSession(ctx, f.Owner, lobby.Session.ID)
		must(err)
		if _, err := svc.DrainCampaignMemoryJobs(ctx); err != nil {
			t.Fatal(err)
		}
		return lobby.Session.ID
	}

	// --- session 1: every kind of secret
	_, err := svc.StartSession(ctx, f.Owner, f.LobbyID)
	must(err)
	one := f.LobbyID
	say(f.Owner, one, table.MessageInput{Kind: "narration", Text: "The innkeeper Bertha Stonebrew wipes the bar of the Drowned Lantern."})
	say(f.Owner, one, table.MessageInput{Kind: "whisper_dm", Text: whisperSentinel, ToSeatID: &mira})
	dc := 37
	checks, err := svc.RequestCheck(ctx, f.Owner, one, table.CheckRequestInput{SeatIDs: []int64{mira, tomas}, Skill: "perception", DC: &dc})
	must(err)
	for _, r := range checks.Requests {
		if r.TargetSeatID == mira {
			_, err = svc.ResolveRequest(ctx, f.Seated, r.ID, table.RollInput{Faces: []int{12}})
			must(err)
		}
	}
	_, err = svc.StartEncounter(ctx, f.Owner, one, table.StartEncounterInput{Name: "Cellar", NPCs: []table.NPCInput{{Name: "Ogre", AC: 17, HP: 9173}}})
	must(err)
	_, err = svc.ChangeCombatant(ctx, f.Owner, one, table.CombatantChangeInput{CombatantID: "npc:1", Op: "damage", Amount: 3})
	must(err)
	_, err = svc.EndEncounter(ctx, f.Owner, one)
	must(err)
	_, err = svc.AddJournalEntry(ctx, f.Owner, f.CampaignID, table.JournalInput{Kind: "clue", Title: "The vault", Text: dmSentinel, Audience: "dm"})
	must(err)
	_, err = svc.AddJournalEntry(ctx, f.Owner, f.CampaignID, table.JournalInput{Kind: "npc", Title: "Bertha's debt", Text: miraSentinel, Audience: "seats", SeatIDs: []int64{mira}})
	must(err)
	_, err = svc.AddJournalEntry(ctx, f.Owner, f.CampaignID, table.JournalInput{Kind: "place", Title: "The Drowned Lantern", Text: "An inn on stilts."})
	must(err)
	_, err = svc.EndSession(ctx, f.Owner, one)
	must(err)

	// --- session 2 posts the drafted recap; session 3 drafts another
	two := next()
	_, err = svc.PostRecap(ctx, f.Owner, two, nil)
	must(err)
	_, err = svc.EndSession(ctx, f.Owner, two)
	must(err)
	three := next()
	// a check waiting in session 3: its DC is the secret now
	waiting := 38
	_, err = svc.RequestCheck(ctx, f.Owner, three, table.CheckRequestInput{SeatIDs: []int64{mira, tomas}, Skill: "insight", DC: &waiting})
	must(err)
	// the table speaks of the innkeeper again: the context recalls her
	say(f.Owner, three, table.MessageInput{Kind: "narration", Text: "The innkeeper Bertha Stonebrew waves from behind the bar."})

	// reads is everything c may read of the campaign as a human, as JSON.
	reads := func(c table.Caller) string {
		t.Helper()
		var b strings.Builder
		add := func(v any, err error) {
			t.Helper()
			must(err)
			raw, _ := json.Marshal(v)
			b.Write(raw)
			b.WriteByte('\n')
		}
		add(svc.CampaignMemories(ctx, c, f.CampaignID))
		add(svc.ListJournal(ctx, c, f.CampaignID, table.JournalFilter{}))
		add(svc.ExportCampaign(ctx, c, f.CampaignID))
		for _, s := range []int64{one, two, three} {
			add(svc.RecallMemories(ctx, c, s, "the innkeeper, the lantern, the key, the ogre, the check", 10))
			add(svc.Resume(ctx, c, s))
			add(svc.ListEvents(ctx, c, s, 0, 200))
			add(svc.RollHistory(ctx, c, s, 0, 200))
			add(svc.Board(ctx, c, s))
		}
		return b.String()
	}
	dm, miraReads, tomasReads := reads(f.Owner), reads(f.Seated), reads(f.Unseated)

	// --- Tomas's seat handed to an AI: what it reads over MCP
	g, err := svc.LetAIControl(ctx, f.Unseated, tomas, table.HandoffInput{})
	must(err)
	agent := connectAgent(t, srv.URL, g.Token)
	// session 1's innkeeper is in the memories session 3's context recalls
	var cx Context
	agent.must("get_session_context", nil, &cx)
	recalled := false
	for _, m := range cx.Memories {
		recalled = recalled || strings.Contains(m, "Bertha Stonebrew")
	}
	if !recalled {
		t.Errorf("session 3's get_session_context does not recall session 1's innkeeper: %+v", cx.Memories)
	}
	var mcpReads strings.Builder
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"get_session_context", nil},
		{"journal", map[string]any{"action": "list"}},
		{"journal", map[string]any{"action": "list", "query": "debt vault lantern"}},
		{"wait_for_event", map[string]any{"after": 0, "timeout_seconds": 0}},
		{"get_character_context", nil},
	} {
		var raw json.RawMessage
		agent.must(c.tool, c.args, &raw)
		mcpReads.Write(raw)
		mcpReads.WriteByte('\n')
	}

	type secret struct {
		name  string
		found func(string) bool
	}
	contains := func(s string) func(string) bool { return func(x string) bool { return strings.Contains(x, s) } }
	whisper := secret{"the whisper to Mira", contains("WHISPER-SENTINEL-77")}
	forMira := secret{"the journal entry for Mira", contains(miraSentinel)}
	forDM := secret{"the DM's journal entry", contains(dmSentinel)}
	hp := secret{"the hidden ogre's HP", hiddenHP.MatchString}
	dcSecret := secret{"the secret DC", secretDC.MatchString}
	for _, tc := range []struct {
		reader string
		text   string
		knows  []secret
		never  []secret
	}{
		{"the DM", dm, []secret{whisper, forMira, forDM, hp, dcSecret}, nil},
		{"Mira", miraReads, []secret{whisper, forMira}, []secret{forDM, hp, dcSecret}},
		{"Tomas", tomasReads, nil, []secret{whisper, forMira, forDM, hp, dcSecret}},
		{"Tomas's AI over MCP", mcpReads.String(), nil, []secret{whisper, forMira, forDM, hp, dcSecret}},
	} {
		for _, s := range tc.knows {
			if !s.found(tc.text) {
				t.Errorf("%s never reads %s: the check below could not fail", tc.reader, s.name)
			}
		}
		for _, s := range tc.never {
			if s.found(tc.text) {
				t.Errorf("%s reads %s", tc.reader, s.name)
			}
		}
	}
	if !strings.Contains(tomasReads, "Bertha Stonebrew") || !strings.Contains(tomasReads, "An inn on stilts") {
		t.Errorf("Tomas reads the table's own memories and journal: %.400s", tomasReads)
	}
}
