package table_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/gameplay/table/tabletest"
	"github.com/adventure-table/adventure-table/models"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// TestSaveRequests: the DM asks for a saving throw with a secret DC however
// it is typed ("/check dex save 15", "Dexterity saving throw", "dex_save",
// a save given as the ability); the request names the ability only, the
// player's view holds no DC, and the resolved roll adds the stored sheet's
// save modifier (Mira: Dex save +4 with proficiency, Wis save +1 without).
func TestSaveRequests(t *testing.T) {
	lt, _ := newLiveTable(t)
	p := lt.input(t, lt.Owner, "/check dex save 15")
	if !strings.Contains(string(p.Event.Payload), `"check":"dex_save"`) {
		t.Fatalf("the announcement %s", p.Event.Payload)
	}
	board, err := lt.svc.Board(ctx, lt.Owner, lt.LobbyID)
	tabletest.Must(t, err)
	if len(board.Requests) != 2 {
		t.Fatalf("got %d requests, want one per participant", len(board.Requests))
	}
	var mine table.RollRequestView
	for _, r := range board.Requests {
		if r.RequestType != models.RequestSave || r.Ability != "dex" || r.Skill != "" || r.Label != "dex_save" || r.DC == nil || *r.DC != 15 {
			t.Fatalf("the DM's view of the request %+v", r)
		}
		if r.TargetSeatID == lt.PlayerSeatID {
			mine = r
		}
	}
	playerBoard, err := lt.svc.Board(ctx, lt.Seated, lt.LobbyID)
	tabletest.Must(t, err)
	if raw, _ := json.Marshal(playerBoard); strings.Contains(string(raw), `"dc"`) {
		t.Fatal("the player's board carries the DC")
	}
	res, err := lt.svc.ResolveRequest(ctx, lt.Seated, mine.ID, table.RollInput{Faces: []int{11}})
	tabletest.Must(t, err)
	if res.BaseModifier != 4 || res.Total != 15 {
		t.Fatalf("a Dex save of 11 gave base %+d total %d, want +4 and 15", res.BaseModifier, res.Total)
	}
	dmBoard, err := lt.svc.Board(ctx, lt.Owner, lt.LobbyID)
	tabletest.Must(t, err)
	for _, r := range dmBoard.Requests {
		if r.ID == mine.ID && (r.Result == nil || r.Result.Success == nil || !*r.Result.Success) {
			t.Fatalf("the DM sees %+v, want a success against DC 15", r.Result)
		}
	}

	for _, tt := range []struct {
		name string
		in   table.CheckRequestInput
		want string
		mod  int
	}{
		{"FullName", table.CheckRequestInput{Save: "Dexterity saving throw"}, "dex", 4},
		{"Key", table.CheckRequestInput{Save: "wis_save"}, "wis", 1},
		{"Ability", table.CheckRequestInput{Save: "INT"}, "int", 2},
		{"SaveAsAbility", table.CheckRequestInput{Ability: "con save"}, "con", 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tt.in.SeatIDs = []int64{lt.PlayerSeatID}
			out, err := lt.svc.RequestCheck(ctx, lt.Owner, lt.LobbyID, tt.in)
			tabletest.Must(t, err)
			r := out.Requests[0]
			if r.RequestType != models.RequestSave || r.Ability != tt.want || r.Label != tt.want+"_save" {
				t.Fatalf("got %+v, want a %s save", r, tt.want)
			}
			res, err := lt.svc.ResolveRequest(ctx, lt.Seated, r.ID, table.RollInput{Faces: []int{10}})
			tabletest.Must(t, err)
			if res.BaseModifier != tt.mod {
				t.Fatalf("a %s save added %+d, the sheet says %+d", tt.want, res.BaseModifier, tt.mod)
			}
		})
	}

	for _, tt := range []struct {
		name  string
		in    table.CheckRequestInput
		field string
	}{
		{"ErrSkillAsSave", table.CheckRequestInput{Save: "perception"}, "save"},
		{"ErrUnknownSave", table.CheckRequestInput{Save: "luck save"}, "save"},
		{"ErrSaveAndSkill", table.CheckRequestInput{Save: "dex", Skill: "stealth"}, "save"},
		{"ErrSaveAndAbility", table.CheckRequestInput{Save: "dex", Ability: "dex"}, "save"},
		{"ErrSaveDC", table.CheckRequestInput{Save: "dex", DC: ptrInt(41)}, "dc"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := lt.svc.RequestCheck(ctx, lt.Owner, lt.LobbyID, tt.in)
			wantCode(t, err, apperr.CheckInvalid)
			if e, _ := apperr.As(err); e.Fields[tt.field] == "" {
				t.Fatalf("got fields %v, want %q", e.Fields, tt.field)
			}
		})
	}
}

// TestSlashCheckNamesASave: "/check" takes a check of several words (a
// saving throw, a skill with spaces) before the DC or the note.
func TestSlashCheckNamesASave(t *testing.T) {
	for _, tt := range []struct{ line, check, text string }{
		{"/check dex save 15", "dex_save", "15"},
		{"/check Dexterity saving throw", "dex_save", "dex_save"},
		{"/check wis_save 12 the spell", "wis_save", "12 the spell"},
		{"/check sleight of hand 12", "sleight_of_hand", "12"},
		{"/check perception is anyone there?", "perception", "is anyone there?"},
		{"/check wisdom", "wis", "wis"},
	} {
		cmd, err := table.ParseInput(tt.line)
		tabletest.Must(t, err)
		if cmd.Intent != table.IntentCheck || cmd.Check != tt.check || cmd.Text != tt.text {
			t.Errorf("%q: got check %q text %q, want %q %q", tt.line, cmd.Check, cmd.Text, tt.check, tt.text)
		}
	}
	for _, line := range []string{"/check luck save", "/check save", "/check"} {
		_, err := table.ParseInput(line)
		wantCode(t, err, apperr.MessageTextInvalid)
	}
	// A player's "/check dex save" records the intent for the DM.
	lt, _ := newLiveTable(t)
	p := lt.input(t, lt.Seated, "/check dex save")
	if !strings.Contains(string(p.Event.Payload), `"intent":"check"`) || !strings.Contains(string(p.Event.Payload), `"check":"dex_save"`) {
		t.Fatalf("a player's /check posted %s", p.Event.Payload)
	}
}
