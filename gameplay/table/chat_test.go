package table_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/adventure-table/adventure-table/gameplay/clocktest"
	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/gameplay/table/tabletest"
	"github.com/adventure-table/adventure-table/models/apperr"
	"github.com/adventure-table/adventure-table/models/modelstest"
)

// newClockedLiveTable is newLiveTable on a service whose clock the test
// moves.
func newClockedLiveTable(t *testing.T) (liveTable, *clocktest.Clock) {
	t.Helper()
	clk := clocktest.At(time.Now().UTC())
	return liveTableOn(t, table.New(modelstest.MustOpen(t), clk.Now)), clk
}

func (lt liveTable) input(t *testing.T, c table.Caller, line string) table.PostedMessage {
	t.Helper()
	p, err := lt.svc.PostInput(ctx, c, lt.LobbyID, table.InputLine{Text: line})
	tabletest.Must(t, err)
	return p
}

// sees reports whether c's event list holds the event at seq.
func (lt liveTable) sees(t *testing.T, c table.Caller, seq int64) bool {
	t.Helper()
	page, err := lt.svc.ListEvents(ctx, c, lt.LobbyID, seq-1, 1)
	tabletest.Must(t, err)
	return len(page.Events) == 1 && page.Events[0].Seq == seq
}

func TestParseRollCommands(t *testing.T) {
	tests := []struct {
		line, formula, check string
		private              bool
	}{
		{"/r 1d20+5", "1d20+5", "", false},
		{"/roll 4d6dl1", "4d6dl1", "", false},
		{"/R 2d20kh1 + 3", "2d20kh1 + 3", "", false},
		{"/gmroll 1d100", "1d100", "", true},
		{"/r perception", "", "perception", false},
		{"/r Perception", "", "perception", false},
		{"/roll Sleight of Hand", "", "sleight_of_hand", false},
		{"/r animal-handling", "", "animal_handling", false},
		{"/gmroll WIS", "", "wis", true},
		{"/r dexterity", "", "dex", false},
	}
	for _, tt := range tests {
		cmd, err := table.ParseInput(tt.line)
		tabletest.Must(t, err)
		if cmd.Kind != table.KindRoll || cmd.Formula != tt.formula || cmd.Check != tt.check || cmd.Private != tt.private {
			t.Errorf("%q parsed to %+v", tt.line, cmd)
		}
	}
	for _, line := range []string{"/r", "/roll   ", "/gmroll"} {
		_, err := table.ParseInput(line)
		wantCode(t, err, apperr.MessageTextInvalid)
	}
}

// TestRollCommands: /r and /roll roll through QuickRoll for everyone;
// /gmroll only for the roller and the DM; /r <skill> adds the seated
// character's modifier.
func TestRollCommands(t *testing.T) {
	lt, _ := newLiveTable(t)
	p := lt.input(t, lt.Seated, "/r 1d20+5")
	if p.MessageID != 0 || p.Roll == nil || p.Event.Kind != table.EventRollQuick || p.Roll.Visibility != "public" ||
		p.Roll.Total != p.Roll.RawDice[0]+5 || p.Roll.Source != "quick" {
		t.Fatalf("/r posted %+v (roll %+v)", p, p.Roll)
	}
	if *p.Event.ActingSeatID != lt.PlayerSeatID {
		t.Fatalf("/r acted as seat %d", *p.Event.ActingSeatID)
	}
	// Mira: Wis 13 (+1), level 3 (+2), proficient in Perception: +3.
	p = lt.input(t, lt.Seated, "/r Perception")
	if p.Roll.BaseModifier != 3 || p.Roll.Total != p.Roll.RawDice[0]+3 || p.Roll.Formula != "d20 + 3" ||
		!strings.Contains(string(p.Event.Payload), `"check":"perception"`) {
		t.Fatalf("/r perception rolled %+v, payload %s", p.Roll, p.Event.Payload)
	}
	// Stealth with expertise: Dex 14 (+2) + 2×2.
	if p = lt.input(t, lt.Seated, "/roll stealth"); p.Roll.BaseModifier != 6 {
		t.Fatalf("/roll stealth modifier %d, want 6", p.Roll.BaseModifier)
	}
	if p = lt.input(t, lt.Seated, "/r sleight of hand"); p.Roll.BaseModifier != 2 {
		t.Fatalf("/r sleight of hand modifier %d, want 2", p.Roll.BaseModifier)
	}
	if p = lt.input(t, lt.Seated, "/r CHA"); p.Roll.BaseModifier != -1 {
		t.Fatalf("/r cha modifier %d, want -1", p.Roll.BaseModifier)
	}
	// The DM rolls a seat's skill for them; the DM's own seat has no character.
	b := lt.FreeSeatID
	pp, err := lt.svc.PostInput(ctx, lt.Owner, lt.LobbyID, table.InputLine{Text: "/r perception", SubjectSeatID: &b})
	tabletest.Must(t, err)
	if pp.Roll.BaseModifier != 3 || pp.Roll.ExecutionMode != "dm_proxy" || *pp.Roll.SubjectSeatID != b {
		t.Fatalf("DM roll for seat: %+v", pp.Roll)
	}
	_, err = lt.svc.PostInput(ctx, lt.Owner, lt.LobbyID, table.InputLine{Text: "/r perception"})
	wantCode(t, err, apperr.InvalidRequest)
	if e, _ := apperr.As(err); e.Fields["check"] == "" {
		t.Fatalf("no character: %v lacks the check field", err)
	}
	// Refusals: bad dice, nobody to roll as, a formula and a check at once.
	_, err = lt.svc.PostInput(ctx, lt.Seated, lt.LobbyID, table.InputLine{Text: "/r 1d"})
	wantCode(t, err, apperr.DiceInvalidExpression)
	_, err = lt.svc.PostInput(ctx, lt.DMKey, lt.LobbyID, table.InputLine{Text: "/r 1d20"})
	wantCode(t, err, apperr.MessageKindNotAllowed)
	_, err = lt.svc.QuickRoll(ctx, lt.Seated, lt.LobbyID, table.QuickRollInput{Formula: "1d20", Check: "perception"})
	wantCode(t, err, apperr.InvalidRequest)
	_, err = lt.svc.QuickRoll(ctx, lt.Seated, lt.LobbyID, table.QuickRollInput{Check: "luck"})
	wantCode(t, err, apperr.InvalidRequest)
	// A repeated key replays the first roll and its event.
	first, err := lt.svc.PostInput(ctx, lt.Seated, lt.LobbyID, table.InputLine{Text: "/r 1d1000", IdempotencyKey: "roll-1"})
	tabletest.Must(t, err)
	again, err := lt.svc.PostInput(ctx, lt.Seated, lt.LobbyID, table.InputLine{Text: "/r 1d1000", IdempotencyKey: "roll-1"})
	tabletest.Must(t, err)
	if first.Roll.ID != again.Roll.ID || first.Roll.Total != again.Roll.Total || first.Event.Seq != again.Event.Seq {
		t.Fatalf("retry rolled again: %+v then %+v", first.Roll, again.Roll)
	}
	_, err = lt.svc.PostInput(ctx, lt.Unseated, lt.LobbyID, table.InputLine{Text: "/r 1d1000", IdempotencyKey: "roll-1"})
	// Another player's retry never replays (or reveals) someone's roll.
	wantCode(t, err, apperr.Conflict)
}

// TestInlineRolls: [[...]] in a message is rolled on the server, in the
// message's transaction; the text keeps the markers and the event carries
// the results in order.
func TestInlineRolls(t *testing.T) {
	lt, store := newLiveTable(t)
	p := lt.post(t, lt.Seated, table.MessageInput{Kind: "action", Text: "I swing [[1d20+2]] and hit for [[1d8+3]]"})
	var payload struct {
		Text  string                 `json:"text"`
		Rolls []table.RollResultView `json:"rolls"`
	}
	tabletest.Must(t, json.Unmarshal(p.Event.Payload, &payload))
	if payload.Text != "I swing [[1d20+2]] and hit for [[1d8+3]]" || len(payload.Rolls) != 2 {
		t.Fatalf("inline rolls posted %s", p.Event.Payload)
	}
	if r := payload.Rolls[0]; r.Total != r.RawDice[0]+2 || r.RawDice[0] < 1 || r.RawDice[0] > 20 || r.Visibility != "public" {
		t.Fatalf("first inline roll %+v", r)
	}
	if r := payload.Rolls[1]; r.Total != r.RawDice[0]+3 || r.RawDice[0] > 8 {
		t.Fatalf("second inline roll %+v", r)
	}
	// The rolls are in the history, for everyone.
	h, err := lt.svc.RollHistory(ctx, lt.Unseated, lt.LobbyID, 0, 10)
	tabletest.Must(t, err)
	if len(h.Results) != 2 || h.Results[0].ID != payload.Rolls[1].ID {
		t.Fatalf("history %+v", h.Results)
	}
	// A whisper's inline roll has the whisper's audience, in the event and
	// in the history: the DM's whisper to B reaches B, not A.
	b := lt.FreeSeatID
	w := lt.post(t, lt.Owner, table.MessageInput{Kind: "whisper_dm", Text: "You feel [[1d6]] cold", ToSeatID: &b})
	tabletest.Must(t, json.Unmarshal(w.Event.Payload, &payload))
	secret := payload.Rolls[0].ID
	for _, tt := range []struct {
		who  table.Caller
		sees bool
	}{{lt.Owner, true}, {lt.Unseated, true}, {lt.Seated, false}, {lt.DMKey, false}} {
		h, err := lt.svc.RollHistory(ctx, tt.who, lt.LobbyID, 0, 10)
		tabletest.Must(t, err)
		got := false
		for _, r := range h.Results {
			got = got || r.ID == secret
		}
		if got != tt.sees || lt.sees(t, tt.who, w.Event.Seq) != tt.sees {
			t.Fatalf("caller %d sees the whispered roll: %v, want %v", tt.who.UserID, got, tt.sees)
		}
	}
	// Limits: at most 5, each valid dice; nothing is written when refused.
	before, _ := store.CountMessages(ctx, lt.LobbyID)
	_, err = lt.svc.PostMessage(ctx, lt.Seated, lt.LobbyID, table.MessageInput{Kind: "ooc", Text: strings.Repeat("[[1d4]] ", 6)})
	wantCode(t, err, apperr.MessageTextInvalid)
	_, err = lt.svc.PostMessage(ctx, lt.Seated, lt.LobbyID, table.MessageInput{Kind: "ooc", Text: "ok [[1d4]] then [[1d]]"})
	wantCode(t, err, apperr.DiceInvalidExpression)
	wantDetail(t, err, "inline_roll", 1)
	if n, _ := store.CountMessages(ctx, lt.LobbyID); n != before {
		t.Fatalf("refused inline rolls wrote a message")
	}
	// Five are fine, through the typed input too; plain brackets are text.
	p = lt.input(t, lt.Seated, strings.Repeat("[[1d4]] ", 5)+"[not a roll] [[]")
	tabletest.Must(t, json.Unmarshal(p.Event.Payload, &payload))
	if len(payload.Rolls) != 5 {
		t.Fatalf("five inline rolls gave %d", len(payload.Rolls))
	}
	if p = lt.input(t, lt.Seated, "plain words"); strings.Contains(string(p.Event.Payload), `"rolls"`) {
		t.Fatalf("a message without markers carries rolls: %s", p.Event.Payload)
	}
}

// TestRollHistoryPages: newest first, paged by id, audience-filtered.
func TestRollHistoryPages(t *testing.T) {
	lt, _ := newLiveTable(t)
	var ids []int64
	for range 3 {
		ids = append(ids, lt.input(t, lt.Seated, "/r 1d6").Roll.ID)
	}
	secret := lt.input(t, lt.Seated, "/gmroll 1d6").Roll.ID
	h, err := lt.svc.RollHistory(ctx, lt.Owner, lt.LobbyID, 0, 2)
	tabletest.Must(t, err)
	if len(h.Results) != 2 || h.Results[0].ID != secret || h.Results[1].ID != ids[2] || !h.HasMore || h.Before != ids[2] {
		t.Fatalf("first page %+v", h)
	}
	h, err = lt.svc.RollHistory(ctx, lt.Owner, lt.LobbyID, h.Before, 2)
	tabletest.Must(t, err)
	if len(h.Results) != 2 || h.Results[0].ID != ids[1] || h.Results[1].ID != ids[0] || h.HasMore || h.Before != 0 {
		t.Fatalf("second page %+v", h)
	}
	h, err = lt.svc.RollHistory(ctx, lt.Unseated, lt.LobbyID, 0, 10)
	tabletest.Must(t, err)
	if len(h.Results) != 3 {
		t.Fatalf("another player sees %d rolls, want 3 (not the /gmroll)", len(h.Results))
	}
	_, err = lt.svc.RollHistory(ctx, lt.Owner, lt.LobbyID, 0, 201)
	wantCode(t, err, apperr.InvalidRequest)
	_, err = lt.svc.RollHistory(ctx, lt.Stranger, lt.LobbyID, 0, 10)
	wantCode(t, err, apperr.NotFound)
}

// TestEditAndDelete: the author edits and deletes for 10 minutes (service
// clock), the current DM at any time, nobody else; every change is an
// event with the message's audience.
func TestEditAndDelete(t *testing.T) {
	lt, clk := newClockedLiveTable(t)
	svc := lt.svc
	p := lt.post(t, lt.Seated, table.MessageInput{Kind: "say", Text: "I open the dor [[1d20]]"})
	m, err := svc.EditMessage(ctx, lt.Seated, p.MessageID, table.MessageEdit{Text: " I open the door [[1d20]] [[1d4]] "})
	tabletest.Must(t, err)
	if m.Text != "I open the door [[1d20]] [[1d4]]" || m.EditedAt == nil || len(m.Rolls) != 1 || m.Event.Kind != table.EventMessageEdited ||
		m.Event.Visibility != "public" || *m.Event.ActingSeatID != lt.PlayerSeatID {
		t.Fatalf("edit gave %+v", m)
	}
	var first struct {
		Rolls []table.RollResultView `json:"rolls"`
	}
	json.Unmarshal(p.Event.Payload, &first)
	if m.Rolls[0].ID != first.Rolls[0].ID || m.Rolls[0].Total != first.Rolls[0].Total {
		t.Fatalf("the edit rolled again: %+v, first %+v", m.Rolls, first.Rolls)
	}
	for _, who := range []table.Caller{lt.Owner, lt.Unseated, lt.DMKey} {
		if !lt.sees(t, who, m.Event.Seq) {
			t.Fatalf("caller %d misses the public edit", who.UserID)
		}
	}
	// Others are refused; someone who cannot see the message gets not_found.
	_, err = svc.EditMessage(ctx, lt.Unseated, p.MessageID, table.MessageEdit{Text: "mine now"})
	wantCode(t, err, apperr.MessageNotEditable)
	_, err = svc.DeleteMessage(ctx, lt.DMKey, p.MessageID)
	wantCode(t, err, apperr.MessageNotEditable)
	_, err = svc.EditMessage(ctx, lt.Stranger, p.MessageID, table.MessageEdit{Text: "x"})
	wantCode(t, err, apperr.NotFound)
	_, err = svc.EditMessage(ctx, lt.Seated, p.MessageID, table.MessageEdit{Text: "  "})
	wantCode(t, err, apperr.MessageTextInvalid)
	_, err = svc.EditMessage(ctx, lt.Seated, 999999, table.MessageEdit{Text: "x"})
	wantCode(t, err, apperr.NotFound)

	// Ten minutes later the author may not; the DM still may.
	clk.Add(table.EditWindow + time.Second)
	_, err = svc.EditMessage(ctx, lt.Seated, p.MessageID, table.MessageEdit{Text: "too late"})
	wantCode(t, err, apperr.MessageNotEditable)
	wantDetail(t, err, "reason", "too_old")
	_, err = svc.DeleteMessage(ctx, lt.Seated, p.MessageID)
	wantCode(t, err, apperr.MessageNotEditable)
	m, err = svc.EditMessage(ctx, lt.Owner, p.MessageID, table.MessageEdit{Text: "I open the door."})
	tabletest.Must(t, err)
	d, err := svc.DeleteMessage(ctx, lt.Owner, p.MessageID)
	tabletest.Must(t, err)
	if d.Text != "" || d.DeletedAt == nil || *d.DeletedBySeatID != lt.DMSeatID || d.Event.Kind != table.EventMessageDeleted {
		t.Fatalf("delete gave %+v", d)
	}
	// The text is gone from every later read; the tombstone stays.
	for _, who := range []table.Caller{lt.Owner, lt.Seated} {
		page, err := svc.ListEvents(ctx, who, lt.LobbyID, 0, 200)
		tabletest.Must(t, err)
		raw, _ := json.Marshal(page)
		if strings.Contains(string(raw), "open the d") {
			t.Fatalf("deleted text still readable: %s", raw)
		}
		if !strings.Contains(string(raw), `"deleted_by_seat_id":`) || !strings.Contains(string(raw), `"deleted":true`) {
			t.Fatalf("no tombstone in %s", raw)
		}
		r, _ := svc.Resume(ctx, who, lt.LobbyID)
		if raw, _ := json.Marshal(r); strings.Contains(string(raw), "open the d") {
			t.Fatal("deleted text still in the resume")
		}
	}
	_, err = svc.EditMessage(ctx, lt.Owner, p.MessageID, table.MessageEdit{Text: "back"})
	wantCode(t, err, apperr.MessageNotEditable)
	_, err = svc.DeleteMessage(ctx, lt.Owner, p.MessageID)
	wantCode(t, err, apperr.MessageNotEditable)

	// A whisper's edit and delete reach only the whisper's audience.
	w := lt.post(t, lt.Seated, table.MessageInput{Kind: "whisper_dm", Text: "I pocket the gem"})
	e, err := svc.EditMessage(ctx, lt.Seated, w.MessageID, table.MessageEdit{Text: "I pocket both gems"})
	tabletest.Must(t, err)
	del, err := svc.DeleteMessage(ctx, lt.Seated, w.MessageID)
	tabletest.Must(t, err)
	for _, tt := range []struct {
		who  table.Caller
		sees bool
	}{{lt.Owner, true}, {lt.Seated, true}, {lt.Unseated, false}, {lt.DMKey, false}} {
		if lt.sees(t, tt.who, e.Event.Seq) != tt.sees || lt.sees(t, tt.who, del.Event.Seq) != tt.sees {
			t.Fatalf("caller %d sees the whisper's edit/delete: want %v", tt.who.UserID, tt.sees)
		}
	}
	_, err = svc.EditMessage(ctx, lt.Unseated, w.MessageID, table.MessageEdit{Text: "x"})
	wantCode(t, err, apperr.NotFound)

	// The author is the access session that posted, not whoever holds the
	// seat now: after the seat changes hands the new holder may not edit.
	q := lt.post(t, lt.Seated, table.MessageInput{Kind: "ooc", Text: "brb"})
	_, err = svc.AssignSeat(ctx, lt.Owner, lt.PlayerSeatID, lt.DMKeyAccess)
	tabletest.Must(t, err)
	_, err = svc.EditMessage(ctx, lt.DMKey, q.MessageID, table.MessageEdit{Text: "not mine"})
	wantCode(t, err, apperr.MessageNotEditable)

	// After the end, nothing changes.
	_, err = svc.EndSession(ctx, lt.Owner, lt.LobbyID)
	tabletest.Must(t, err)
	_, err = svc.EditMessage(ctx, lt.Owner, q.MessageID, table.MessageEdit{Text: "x"})
	wantCode(t, err, apperr.SessionNotActive)
}

// TestPresence: humans are online from their long poll or event reads,
// AI seats from their calls, for PresenceTTL of the service clock.
func TestPresence(t *testing.T) {
	lt, clk := newClockedLiveTable(t)
	svc := lt.svc
	pr, err := svc.SessionPresence(ctx, lt.Owner, lt.LobbyID)
	tabletest.Must(t, err)
	// Nobody polled yet, but whoever asks who is here is here.
	if len(pr.Online) != 1 || pr.Online[0].Name != "Owner" || pr.TTLSeconds != 90 {
		t.Fatalf("only the asker, got %+v", pr)
	}
	_, err = svc.WaitEvents(ctx, lt.Seated, lt.LobbyID, 0, time.Second)
	tabletest.Must(t, err)
	_, err = svc.ListEvents(ctx, lt.DMKey, lt.LobbyID, 0, 10)
	tabletest.Must(t, err)
	minted, err := svc.LetAIControl(ctx, lt.Unseated, lt.FreeSeatID, table.HandoffInput{})
	tabletest.Must(t, err)
	_, err = svc.AuthenticateGrant(ctx, minted.Token)
	tabletest.Must(t, err)
	pr, err = svc.SessionPresence(ctx, lt.Seated, lt.LobbyID)
	tabletest.Must(t, err)
	got := map[string]table.PresenceEntry{}
	for _, e := range pr.Online {
		got[e.Name] = e
	}
	if len(pr.Online) != 4 || got["Owner"].Role != "dm" || got["Seated"].Kind != "human" || *got["Seated"].SeatID != lt.PlayerSeatID || got["Seated"].Role != "player" ||
		got["Key Holder"].Role != "spectator" || got["Key Holder"].SeatID != nil || got["Tomas"].Kind != "ai" || *got["Tomas"].SeatID != lt.FreeSeatID {
		t.Fatalf("online %+v", pr.Online)
	}
	// The long poll writes the last seen time at most every 20 s: a second
	// read soon after changes nothing.
	seen := got["Seated"].LastSeen
	clk.Add(5 * time.Second)
	_, err = svc.ListEvents(ctx, lt.Seated, lt.LobbyID, 0, 10)
	tabletest.Must(t, err)
	pr, _ = svc.SessionPresence(ctx, lt.Seated, lt.LobbyID)
	for _, e := range pr.Online {
		if e.Name == "Seated" && !e.LastSeen.Equal(seen) {
			t.Fatalf("a read 5 s later wrote the last seen time again: %v then %v", seen, e.LastSeen)
		}
	}
	// Past the TTL only whoever polled (or asked) again is online.
	clk.Add(table.PresenceTTL)
	_, err = svc.ListEvents(ctx, lt.Owner, lt.LobbyID, 0, 10)
	tabletest.Must(t, err)
	pr, _ = svc.SessionPresence(ctx, lt.Seated, lt.LobbyID)
	names := []string{}
	for _, e := range pr.Online {
		names = append(names, e.Name)
	}
	if fmt.Sprint(names) != "[Owner Seated]" && fmt.Sprint(names) != "[Seated Owner]" {
		t.Fatalf("after the TTL: %+v", pr.Online)
	}
	_, err = svc.SessionPresence(ctx, lt.Stranger, lt.LobbyID)
	wantCode(t, err, apperr.NotFound)
	_, err = svc.SessionPresence(ctx, lt.Revoked, lt.LobbyID)
	wantCode(t, err, apperr.RoomAccessRevoked)
}
