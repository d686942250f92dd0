package table_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/gameplay/table/tabletest"
	"github.com/adventure-table/adventure-table/models"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// journalTable is the live table with a spectator who joined the room and
// holds no seat: Owner is the DM, Seated plays A, Unseated plays B, the
// DM-key holder keeps the journal as DM too (the world's rule).
type journalTable struct {
	liveTable
	spectator table.Caller
	a, b      int64
}

func newJournalTable(t *testing.T) (journalTable, *models.Store) {
	t.Helper()
	lt, store := newLiveTable(t)
	spectator := tabletest.NewUser(t, lt.svc, "Watcher")
	_, err := lt.svc.JoinRoom(ctx, spectator, lt.InviteCode)
	tabletest.Must(t, err)
	return journalTable{liveTable: lt, spectator: spectator, a: lt.PlayerSeatID, b: lt.FreeSeatID}, store
}

func (jt journalTable) add(t *testing.T, c table.Caller, in table.JournalInput) table.JournalEntryView {
	t.Helper()
	v, err := jt.svc.AddJournalEntry(ctx, c, jt.CampaignID, in)
	tabletest.Must(t, err)
	return v
}

// list is everything c reads of the journal, as JSON.
func (jt journalTable) list(t *testing.T, c table.Caller, f table.JournalFilter) (table.JournalView, string) {
	t.Helper()
	v, err := jt.svc.ListJournal(ctx, c, jt.CampaignID, f)
	tabletest.Must(t, err)
	raw, _ := json.Marshal(v)
	return v, string(raw)
}

func ids(ids ...int64) []int64 { return ids }

// TestJournalAdd: who may write what. The DM (the DM seat's controller,
// and room authority) writes confirmed entries for any audience; a player
// proposes entries authored by their seat, for the table or for some
// players among them themselves; a spectator, a stranger and a revoked
// member write nothing; bad input is refused with its code and field, and
// no refused call leaves a row.
func TestJournalAdd(t *testing.T) {
	t.Parallel()
	jt, _ := newJournalTable(t)
	npc := func(title string) table.JournalInput { return table.JournalInput{Kind: "npc", Title: title} }
	for _, tt := range []struct {
		name      string
		as        table.Caller
		in        table.JournalInput
		want      apperr.Code
		field     string
		confirmed bool
		author    *int64
	}{
		{"OK/dm_table", jt.Owner, npc("Innkeeper Bram"), "", "", true, &jt.DMSeatID},
		{"OK/dm_secret", jt.Owner, table.JournalInput{Kind: "clue", Title: "The vault code", Audience: "dm"}, "", "", true, &jt.DMSeatID},
		{"OK/dm_key_holder_without_seat", jt.DMKey, table.JournalInput{Kind: "place", Title: "Old mill", Audience: "seats", SeatIDs: ids(jt.b)}, "", "", true, nil},
		{"OK/player_table", jt.Seated, table.JournalInput{Kind: "clue", Title: "  Muddy boots  ", Text: "By the door."}, "", "", false, &jt.a},
		{"OK/player_just_me", jt.Seated, table.JournalInput{Kind: "note", Title: "My hunch", Audience: "seats", SeatIDs: ids(jt.a)}, "", "", false, &jt.a},
		{"OK/player_some", jt.Unseated, table.JournalInput{Kind: "item", Title: "Silver key", Audience: "seats", SeatIDs: ids(jt.b, jt.a, jt.b)}, "", "", false, &jt.b},
		{"ErrPlayerForDM", jt.Seated, table.JournalInput{Kind: "note", Title: "x", Audience: "dm"}, apperr.JournalAudienceNotAllowed, "audience", false, nil},
		{"ErrPlayerSeatsWithoutOwn", jt.Seated, table.JournalInput{Kind: "note", Title: "x", Audience: "seats", SeatIDs: ids(jt.b)}, apperr.JournalAudienceNotAllowed, "seat_ids", false, nil},
		{"ErrSpectator", jt.spectator, npc("x"), apperr.SeatControllerRequired, "", false, nil},
		{"ErrStranger", jt.Stranger, npc("x"), apperr.NotFound, "", false, nil},
		{"ErrRevoked", jt.Revoked, npc("x"), apperr.RoomAccessRevoked, "", false, nil},
		{"ErrKind", jt.Owner, table.JournalInput{Kind: "monster", Title: "x"}, apperr.JournalEntryInvalid, "kind", false, nil},
		{"ErrNoTitle", jt.Owner, table.JournalInput{Kind: "npc", Title: "   "}, apperr.JournalEntryInvalid, "title", false, nil},
		{"ErrTitleTooLong", jt.Owner, npc(strings.Repeat("é", table.JournalTitleMax+1)), apperr.JournalEntryInvalid, "title", false, nil},
		{"ErrTitleTwoLines", jt.Owner, npc("one\ntwo"), apperr.JournalEntryInvalid, "title", false, nil},
		{"ErrTextTooLong", jt.Owner, table.JournalInput{Kind: "npc", Title: "x", Text: strings.Repeat("x", table.JournalTextMax+1)}, apperr.JournalEntryInvalid, "text", false, nil},
		{"ErrNUL", jt.Owner, table.JournalInput{Kind: "npc", Title: "x", Text: "a\x00b"}, apperr.JournalEntryInvalid, "text", false, nil},
		{"ErrAudience", jt.Owner, table.JournalInput{Kind: "npc", Title: "x", Audience: "party"}, apperr.JournalEntryInvalid, "audience", false, nil},
		{"ErrSeatsEmpty", jt.Owner, table.JournalInput{Kind: "npc", Title: "x", Audience: "seats"}, apperr.JournalEntryInvalid, "seat_ids", false, nil},
		{"ErrSeatsWithTable", jt.Owner, table.JournalInput{Kind: "npc", Title: "x", SeatIDs: ids(jt.a)}, apperr.JournalEntryInvalid, "seat_ids", false, nil},
		{"ErrDMSeatAsPlayer", jt.Owner, table.JournalInput{Kind: "npc", Title: "x", Audience: "seats", SeatIDs: ids(jt.DMSeatID)}, apperr.JournalEntryInvalid, "seat_ids", false, nil},
		{"ErrSeatOfNoOne", jt.Owner, table.JournalInput{Kind: "npc", Title: "x", Audience: "seats", SeatIDs: ids(999999)}, apperr.JournalEntryInvalid, "seat_ids", false, nil},
		{"ErrHalfCitation", jt.Owner, table.JournalInput{Kind: "npc", Title: "x", SourceSeq: ptr[int64](1)}, apperr.JournalEntryInvalid, "source_seq", false, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := jt.svc.AddJournalEntry(ctx, tt.as, jt.CampaignID, tt.in)
			wantCode(t, err, tt.want)
			if tt.want != "" {
				if e, _ := apperr.As(err); tt.field != "" && e.Fields[tt.field] == "" {
					t.Errorf("got fields %v, want one on %s", e.Fields, tt.field)
				}
				return
			}
			if got.Confirmed != tt.confirmed || !eqPtr(got.AuthorSeatID, tt.author) {
				t.Errorf("got confirmed %v author %v, want %v %v", got.Confirmed, deref(got.AuthorSeatID), tt.confirmed, deref(tt.author))
			}
		})
	}
	v, _ := jt.list(t, jt.Owner, table.JournalFilter{})
	var titles []string
	for _, e := range v.Entries {
		titles = append(titles, e.Title)
	}
	want := "Silver key|My hunch|Muddy boots|Old mill|The vault code|Innkeeper Bram"
	if got := strings.Join(titles, "|"); got != want {
		t.Errorf("the DM's journal, newest first: got %s, want %s (and no refused entry)", got, want)
	}
	if e := v.Entries[0]; e.Audience != "seats" || len(e.SeatIDs) != 2 || e.SeatIDs[0] > e.SeatIDs[1] {
		t.Errorf("seats are stored once each, in order: %+v", e)
	}
}

func eqPtr(a, b *int64) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }
func deref(p *int64) any {
	if p == nil {
		return nil
	}
	return *p
}

// TestJournalChanges: the DM edits, confirms and deletes any entry; a
// player edits and deletes only their own proposal while it is
// unconfirmed, never confirms, and cannot even find an entry they may not
// read; a refused edit changes nothing.
func TestJournalChanges(t *testing.T) {
	t.Parallel()
	jt, _ := newJournalTable(t)
	svc := jt.svc
	mine := jt.add(t, jt.Seated, table.JournalInput{Kind: "clue", Title: "Muddy boots"})
	theirs := jt.add(t, jt.Unseated, table.JournalInput{Kind: "clue", Title: "A torn map"})
	dms := jt.add(t, jt.Owner, table.JournalInput{Kind: "npc", Title: "Innkeeper Bram"})
	secret := jt.add(t, jt.Owner, table.JournalInput{Kind: "npc", Title: "Bram is a spy", Audience: "dm"})
	bOnly := jt.add(t, jt.Owner, table.JournalInput{Kind: "item", Title: "B's ring", Audience: "seats", SeatIDs: ids(jt.b)})
	title := func(s string) table.JournalChange { return table.JournalChange{Title: &s} }

	for _, tt := range []struct {
		name string
		as   table.Caller
		id   int64
		ch   table.JournalChange
		want apperr.Code
	}{
		{"ErrOthersProposal", jt.Seated, theirs.ID, title("Mine now"), apperr.JournalEntryNotEditable},
		{"ErrDMsEntry", jt.Seated, dms.ID, title("Bram the Bold"), apperr.JournalEntryNotEditable},
		{"ErrUnreadableSecret", jt.Seated, secret.ID, title("x"), apperr.NotFound},
		{"ErrUnreadableSeats", jt.Seated, bOnly.ID, title("x"), apperr.NotFound},
		{"ErrSpectator", jt.spectator, dms.ID, title("x"), apperr.JournalEntryNotEditable},
		{"ErrOwnToDM", jt.Seated, mine.ID, table.JournalChange{Audience: ptr("dm")}, apperr.JournalAudienceNotAllowed},
		{"ErrOwnToOthers", jt.Seated, mine.ID, table.JournalChange{Audience: ptr("seats"), SeatIDs: ids(jt.b)}, apperr.JournalAudienceNotAllowed},
		{"ErrOwnTitleTooLong", jt.Seated, mine.ID, title(strings.Repeat("x", table.JournalTitleMax+1)), apperr.JournalEntryInvalid},
		{"ErrNoSuchEntry", jt.Owner, 999999, title("x"), apperr.NotFound},
		{"OK/own", jt.Seated, mine.ID, table.JournalChange{Title: ptr("Muddy boots, size 12"), Kind: ptr("item")}, ""},
		{"OK/dm_others", jt.Owner, theirs.ID, table.JournalChange{Text: ptr("Drawn in charcoal.")}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := svc.EditJournalEntry(ctx, tt.as, tt.id, tt.ch)
			wantCode(t, err, tt.want)
		})
	}
	v, _ := jt.list(t, jt.Seated, table.JournalFilter{})
	byID := map[int64]table.JournalEntryView{}
	for _, e := range v.Entries {
		byID[e.ID] = e
	}
	if e := byID[mine.ID]; e.Title != "Muddy boots, size 12" || e.Kind != "item" || e.Confirmed || !e.CanEdit || e.CanConfirm {
		t.Errorf("the player's own edited proposal: %+v", e)
	}
	if e := byID[dms.ID]; e.Title != "Innkeeper Bram" || e.CanEdit {
		t.Errorf("the DM's entry as the player reads it: %+v", e)
	}
	if e := byID[theirs.ID]; e.Text != "Drawn in charcoal." || e.Title != "A torn map" || e.CanEdit {
		t.Errorf("the other player's proposal after the DM's edit: %+v", e)
	}

	// Only the DM confirms, once; a confirmed proposal is its author's no more.
	_, err := svc.ConfirmJournalEntry(ctx, jt.Seated, mine.ID)
	wantCode(t, err, apperr.JournalDMRequired)
	_, err = svc.ConfirmJournalEntry(ctx, jt.Unseated, bOnly.ID)
	wantCode(t, err, apperr.JournalDMRequired)
	_, err = svc.ConfirmJournalEntry(ctx, jt.Seated, secret.ID)
	wantCode(t, err, apperr.NotFound)
	c, err := svc.ConfirmJournalEntry(ctx, jt.Owner, mine.ID)
	tabletest.Must(t, err)
	if !c.Confirmed || c.CanConfirm {
		t.Errorf("confirmed: %+v", c)
	}
	again, err := svc.ConfirmJournalEntry(ctx, jt.DMKey, mine.ID)
	tabletest.Must(t, err)
	if !again.UpdatedAt.Equal(c.UpdatedAt) {
		t.Errorf("confirming twice changed the entry: %v then %v", c.UpdatedAt, again.UpdatedAt)
	}
	_, err = svc.EditJournalEntry(ctx, jt.Seated, mine.ID, title("After confirmation"))
	wantCode(t, err, apperr.JournalEntryNotEditable)
	_, err = svc.DeleteJournalEntry(ctx, jt.Seated, mine.ID)
	wantCode(t, err, apperr.JournalEntryNotEditable)

	// Deleting: a player their own proposal, the DM anything; gone is gone.
	_, err = svc.DeleteJournalEntry(ctx, jt.Seated, theirs.ID)
	wantCode(t, err, apperr.JournalEntryNotEditable)
	own := jt.add(t, jt.Seated, table.JournalInput{Kind: "note", Title: "Scratch that"})
	_, err = svc.DeleteJournalEntry(ctx, jt.Seated, own.ID)
	tabletest.Must(t, err)
	_, err = svc.DeleteJournalEntry(ctx, jt.Seated, own.ID)
	wantCode(t, err, apperr.NotFound)
	_, err = svc.DeleteJournalEntry(ctx, jt.Seated, secret.ID)
	wantCode(t, err, apperr.NotFound)
	_, err = svc.DeleteJournalEntry(ctx, jt.Owner, secret.ID)
	tabletest.Must(t, err)
	// The DM moves an entry between audiences; leaving seats drops them.
	moved, err := svc.EditJournalEntry(ctx, jt.Owner, bOnly.ID, table.JournalChange{Audience: ptr("table")})
	tabletest.Must(t, err)
	if moved.Audience != "table" || len(moved.SeatIDs) != 0 {
		t.Errorf("moved to the table: %+v", moved)
	}
	v, raw := jt.list(t, jt.Owner, table.JournalFilter{})
	if len(v.Entries) != 4 || strings.Contains(raw, "Bram is a spy") || strings.Contains(raw, "Scratch that") {
		t.Errorf("after the deletions the DM reads %s", raw)
	}
}

// TestJournalAudience: every reader of the journal reads exactly the
// entries its audience rule gives them, checked by sentinel strings in
// everything the list returns: the DM and room authority all; a player
// the table's and those naming their seat; a spectator the table's; an AI
// player through its grant like its seat. A stranger finds no journal.
func TestJournalAudience(t *testing.T) {
	t.Parallel()
	jt, _ := newJournalTable(t)
	jt.add(t, jt.Owner, table.JournalInput{Kind: "npc", Title: "TABLE-NPC Bram"})
	jt.add(t, jt.Owner, table.JournalInput{Kind: "clue", Title: "Secret", Text: "SENTINEL-DM the DC is 17", Audience: "dm"})
	jt.add(t, jt.Owner, table.JournalInput{Kind: "item", Title: "SENTINEL-A ring", Audience: "seats", SeatIDs: ids(jt.a)})
	jt.add(t, jt.Unseated, table.JournalInput{Kind: "note", Title: "SENTINEL-B hunch", Audience: "seats", SeatIDs: ids(jt.b)})
	jt.add(t, jt.Unseated, table.JournalInput{Kind: "quest", Title: "SENTINEL-AB pact", Audience: "seats", SeatIDs: ids(jt.a, jt.b)})
	all := []string{"TABLE-NPC", "SENTINEL-DM", "SENTINEL-A ", "SENTINEL-B ", "SENTINEL-AB"}
	aiA, err := jt.svc.LetAIControl(ctx, jt.Seated, jt.a, table.HandoffInput{})
	tabletest.Must(t, err)
	for _, tt := range []struct {
		name string
		as   table.Caller
		sees []string
	}{
		{"dm", jt.Owner, all},
		{"dm_key", jt.DMKey, all},
		{"player_b", jt.Unseated, []string{"TABLE-NPC", "SENTINEL-B ", "SENTINEL-AB"}},
		{"spectator", jt.spectator, []string{"TABLE-NPC"}},
		{"ai_player_a", table.AI(grantIDOf(t, jt.svc, aiA.Token)), []string{"TABLE-NPC", "SENTINEL-A ", "SENTINEL-AB"}},
		// Seated handed seat A to the AI: the human reads as a spectator now.
		{"seated_after_handoff", jt.Seated, []string{"TABLE-NPC"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			v, raw := jt.list(t, tt.as, table.JournalFilter{})
			for _, s := range all {
				if want := contains(tt.sees, s); strings.Contains(raw, s) != want {
					t.Errorf("%s in what %s reads: %v, want %v\n%s", s, tt.name, !want, want, raw)
				}
			}
			if len(v.Entries) != len(tt.sees) {
				t.Errorf("got %d entries, want %d", len(v.Entries), len(tt.sees))
			}
		})
	}
	_, err = jt.svc.ListJournal(ctx, jt.Stranger, jt.CampaignID, table.JournalFilter{})
	wantCode(t, err, apperr.NotFound)
	_, err = jt.svc.ListJournal(ctx, jt.Revoked, jt.CampaignID, table.JournalFilter{})
	wantCode(t, err, apperr.RoomAccessRevoked)

	// Filters and pages apply after the audience: a player's page is full
	// of what they may read, and a search never finds a hidden entry.
	v, _ := jt.list(t, jt.Unseated, table.JournalFilter{Limit: 2})
	if len(v.Entries) != 2 || !v.HasMore {
		t.Fatalf("first page of 2: %+v", v)
	}
	next, _ := jt.list(t, jt.Unseated, table.JournalFilter{Limit: 2, Before: v.Entries[1].ID})
	if len(next.Entries) != 1 || next.HasMore || next.Entries[0].Title != "TABLE-NPC Bram" {
		t.Errorf("second page: %+v", next)
	}
	if _, raw := jt.list(t, jt.Unseated, table.JournalFilter{Query: "sentinel"}); strings.Contains(raw, "SENTINEL-DM") || strings.Contains(raw, "SENTINEL-A ") || !strings.Contains(raw, "SENTINEL-AB") {
		t.Errorf("player B searching sentinel: %s", raw)
	}
	if v, _ := jt.list(t, jt.Owner, table.JournalFilter{Query: "dc is 17"}); len(v.Entries) != 1 || v.Entries[0].Title != "Secret" {
		t.Errorf("the DM searching the text: %+v", v.Entries)
	}
	if v, _ := jt.list(t, jt.Owner, table.JournalFilter{Query: "100%_"}); len(v.Entries) != 0 {
		t.Errorf("LIKE wildcards are searched as themselves: %+v", v.Entries)
	}
	if v, _ := jt.list(t, jt.Owner, table.JournalFilter{Kind: "npc"}); len(v.Entries) != 1 || v.Entries[0].Kind != "npc" {
		t.Errorf("kind npc: %+v", v.Entries)
	}
	for _, f := range []table.JournalFilter{{Kind: "monster"}, {Limit: table.MaxJournalLimit + 1}, {Before: -1}, {Query: strings.Repeat("x", table.JournalQueryMax+1)}} {
		_, err := jt.svc.ListJournal(ctx, jt.Owner, jt.CampaignID, f)
		wantCode(t, err, apperr.InvalidRequest)
	}

	// What each may write.
	for _, tt := range []struct {
		name      string
		as        table.Caller
		dm        bool
		audiences string
	}{
		{"dm", jt.Owner, true, "table,seats,dm"},
		{"player", jt.Unseated, false, "table,seats"},
		{"spectator", jt.spectator, false, ""},
	} {
		v, _ := jt.list(t, tt.as, table.JournalFilter{Limit: 1})
		if v.DM != tt.dm || strings.Join(v.Audiences, ",") != tt.audiences || len(v.Seats) != 3 {
			t.Errorf("%s: dm %v audiences %v seats %d", tt.name, v.DM, v.Audiences, len(v.Seats))
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestJournalCitations: an entry cites an event of its campaign that its
// writer may see (else not_found, as if there were none), and reaches no
// reader the event did not: a whisper at most its parties, a DM-only
// event the DM alone.
func TestJournalCitations(t *testing.T) {
	t.Parallel()
	jt, _ := newJournalTable(t)
	svc, session := jt.svc, jt.LobbyID
	narration := jt.post(t, jt.Owner, table.MessageInput{Kind: "narration", Text: "Bram pours the ale."}).Event.Seq
	aWhisper := jt.post(t, jt.Seated, table.MessageInput{Kind: "whisper_dm", Text: "I pocket the gem"}).Event.Seq
	b := jt.b
	toB := jt.post(t, jt.Owner, table.MessageInput{Kind: "whisper_dm", Text: "You hear a voice", ToSeatID: &b}).Event.Seq
	dc := 15
	checks, err := svc.RequestCheck(ctx, jt.Owner, session, table.CheckRequestInput{SeatIDs: []int64{jt.a}, Skill: "perception", DC: &dc})
	tabletest.Must(t, err)
	_, err = svc.ResolveRequest(ctx, jt.Seated, checks.Requests[0].ID, table.RollInput{Faces: []int{12}})
	tabletest.Must(t, err)
	dmOnly := dmOnlySeq(t, jt)
	cite := func(seq int64, audience string, seats ...int64) table.JournalInput {
		return table.JournalInput{Kind: "clue", Title: "cited", Audience: audience, SeatIDs: seats, SourceSessionID: &session, SourceSeq: &seq}
	}
	for _, tt := range []struct {
		name string
		as   table.Caller
		in   table.JournalInput
		want apperr.Code
	}{
		{"OK/public_for_table", jt.Seated, cite(narration, "table"), ""},
		{"OK/public_for_dm", jt.Owner, cite(narration, "dm"), ""},
		{"OK/whisper_for_its_party", jt.Seated, cite(aWhisper, "seats", jt.a), ""},
		{"OK/whisper_by_dm_for_party", jt.Owner, cite(aWhisper, "seats", jt.a), ""},
		{"OK/whisper_for_dm", jt.Owner, cite(aWhisper, "dm"), ""},
		{"OK/dm_whisper_for_its_recipient", jt.Unseated, cite(toB, "seats", jt.b), ""},
		{"OK/dm_only_for_dm", jt.Owner, cite(dmOnly, "dm"), ""},
		{"ErrWhisperForTable", jt.Seated, cite(aWhisper, "table"), apperr.JournalWiderThanSource},
		{"ErrWhisperForAnother", jt.Owner, cite(aWhisper, "seats", jt.a, jt.b), apperr.JournalWiderThanSource},
		{"ErrDMWhisperForTable", jt.Owner, cite(toB, "table"), apperr.JournalWiderThanSource},
		{"ErrDMOnlyForTable", jt.Owner, cite(dmOnly, "table"), apperr.JournalWiderThanSource},
		{"ErrDMOnlyForSeats", jt.Owner, cite(dmOnly, "seats", jt.a), apperr.JournalWiderThanSource},
		{"ErrOthersWhisper", jt.Unseated, cite(aWhisper, "seats", jt.b), apperr.NotFound},
		{"ErrWhisperToOther", jt.Seated, cite(toB, "seats", jt.a), apperr.NotFound},
		{"ErrDMOnlyByPlayer", jt.Seated, cite(dmOnly, "seats", jt.a), apperr.NotFound},
		{"ErrNoSuchSeq", jt.Owner, cite(99999, "table"), apperr.NotFound},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := svc.AddJournalEntry(ctx, tt.as, jt.CampaignID, tt.in)
			wantCode(t, err, tt.want)
		})
	}
	// A session of another campaign is not this journal's to cite.
	other, err := svc.OpenSession(ctx, jt.Owner, jt.SpareCampaignID)
	tabletest.Must(t, err)
	otherID, seq := other.Session.ID, int64(1)
	_, err = svc.AddJournalEntry(ctx, jt.Owner, jt.CampaignID, table.JournalInput{Kind: "clue", Title: "x", SourceSessionID: &otherID, SourceSeq: &seq})
	wantCode(t, err, apperr.NotFound)

	// An edit cannot widen an entry past its source, nor cite what its
	// writer cannot see; dropping the citation frees it.
	e := jt.add(t, jt.Seated, cite(aWhisper, "seats", jt.a))
	_, err = svc.EditJournalEntry(ctx, jt.Seated, e.ID, table.JournalChange{Audience: ptr("table")})
	wantCode(t, err, apperr.JournalWiderThanSource)
	_, err = svc.EditJournalEntry(ctx, jt.Seated, e.ID, table.JournalChange{SourceSessionID: &session, SourceSeq: &toB})
	wantCode(t, err, apperr.NotFound)
	freed, err := svc.EditJournalEntry(ctx, jt.Seated, e.ID, table.JournalChange{Audience: ptr("table"), ClearSource: true})
	tabletest.Must(t, err)
	if freed.Audience != "table" || freed.SourceSeq != nil || freed.SourceSessionID != nil {
		t.Errorf("freed: %+v", freed)
	}
	cited := jt.add(t, jt.Owner, cite(narration, "table"))
	if cited.SourceSessionID == nil || *cited.SourceSessionID != session || cited.SourceSeq == nil || *cited.SourceSeq != narration {
		t.Errorf("the citation is kept: %+v", cited)
	}
}

// dmOnlySeq is the seq of a DM-only event of the session (a secret DC's
// outcome).
func dmOnlySeq(t *testing.T, jt journalTable) int64 {
	t.Helper()
	page, err := jt.svc.ListEvents(ctx, jt.Owner, jt.LobbyID, 0, table.MaxEventLimit)
	tabletest.Must(t, err)
	for _, e := range page.Events {
		if e.Visibility == models.VisibilityDMOnly {
			return e.Seq
		}
	}
	t.Fatal("no DM-only event")
	return 0
}

// TestJournalCap: a campaign holds at most JournalEntriesMax entries; the
// one past it is refused and not written.
func TestJournalCap(t *testing.T) {
	t.Parallel()
	jt, store := newJournalTable(t)
	// Fill to one short of the cap through the store (the rules are not
	// what this test is about), then reach it through the service.
	for i := 0; i < table.JournalEntriesMax-1; i++ {
		tabletest.Must(t, store.CreateJournalEntry(ctx, &models.JournalEntry{CampaignID: jt.CampaignID, Kind: "note", Title: "filler",
			Audience: models.AudienceTable, Confirmed: true, CreatedAt: time.Now(), UpdatedAt: time.Now()}))
	}
	jt.add(t, jt.Seated, table.JournalInput{Kind: "note", Title: "The last one"})
	_, err := jt.svc.AddJournalEntry(ctx, jt.Owner, jt.CampaignID, table.JournalInput{Kind: "note", Title: "One too many"})
	wantCode(t, err, apperr.JournalFull)
	n, err := store.CountJournalEntries(ctx, jt.CampaignID, false)
	tabletest.Must(t, err)
	if n != table.JournalEntriesMax {
		t.Errorf("got %d entries, want %d", n, table.JournalEntriesMax)
	}
}

// TestJournalAIGrants: an AI reaches its own campaign's journal with a
// grant bound to a session (as DM: everything), not before its session,
// and never another campaign's.
func TestJournalAIGrants(t *testing.T) {
	t.Parallel()
	svc, _ := newService(t)
	f := tabletest.New(t, svc)
	dm, err := svc.SetDMSeatAI(ctx, f.Owner, f.CampaignID)
	tabletest.Must(t, err)
	dmAI := table.AI(grantIDOf(t, svc, dm.Token))
	_, err = svc.ListJournal(ctx, dmAI, f.CampaignID, table.JournalFilter{})
	wantCode(t, err, apperr.AIGrantPreSessionOnly)
	_, err = svc.StartSession(ctx, dmAI, f.LobbyID)
	tabletest.Must(t, err)
	secret, err := svc.AddJournalEntry(ctx, dmAI, f.CampaignID, table.JournalInput{Kind: "npc", Title: "SENTINEL-DM", Audience: "dm"})
	tabletest.Must(t, err)
	if !secret.Confirmed || secret.AuthorSeatID == nil || *secret.AuthorSeatID != f.DMSeatID {
		t.Errorf("the AI DM's entry: %+v", secret)
	}
	campaign, err := svc.GrantCampaign(ctx, dmAI)
	tabletest.Must(t, err)
	if campaign != f.CampaignID {
		t.Errorf("GrantCampaign: got %d, want %d", campaign, f.CampaignID)
	}
	_, err = svc.ListJournal(ctx, dmAI, f.SpareCampaignID, table.JournalFilter{})
	wantCode(t, err, apperr.NotFound)
	player, err := svc.LetAIControl(ctx, f.Seated, f.PlayerSeatID, table.HandoffInput{})
	tabletest.Must(t, err)
	playerAI := table.AI(grantIDOf(t, svc, player.Token))
	_, err = svc.AddJournalEntry(ctx, playerAI, f.CampaignID, table.JournalInput{Kind: "clue", Title: "Proposed by an AI"})
	tabletest.Must(t, err)
	_, err = svc.EditJournalEntry(ctx, playerAI, secret.ID, table.JournalChange{Title: ptr("x")})
	wantCode(t, err, apperr.NotFound)
	v, err := svc.ListJournal(ctx, playerAI, f.CampaignID, table.JournalFilter{})
	tabletest.Must(t, err)
	if len(v.Entries) != 1 || v.Entries[0].Confirmed || v.Entries[0].Title != "Proposed by an AI" {
		t.Errorf("the AI player's journal: %+v", v.Entries)
	}
}
