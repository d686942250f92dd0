package webui_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/adventure-table/adventure-table/gameplay/table"
)

// TestSaveCheckOverHTTP: the DM asks for a saving throw through the checks
// route however it is typed; the player's roll adds the sheet's save
// modifier, the player's answer carries no DC and the board reveals it once
// rolled; a save that names a skill is check_invalid.
func TestSaveCheckOverHTTP(t *testing.T) {
	f := newFixture(t, withSecret)
	tf := startedTable(t, f)
	h, p := f.handler, fmt.Sprintf

	rec := call(t, h, tf.Owner, "POST", p("/api/sessions/%d/checks", tf.LobbyID), `{"save":"Dexterity saving throw","dc":12}`)
	if rec.Code != 201 {
		t.Fatalf("request a save: %d %s", rec.Code, rec.Body)
	}
	var created table.CheckRequests
	if err := json.Unmarshal(rec.Body.Bytes(), &created); err != nil || len(created.Requests) != 1 {
		t.Fatalf("created %s (%v)", rec.Body, err)
	}
	r := created.Requests[0]
	if r.RequestType != "save" || r.Ability != "dex" || r.Label != "dex_save" || r.DC == nil || *r.DC != 12 {
		t.Fatalf("the DM's request %+v", r)
	}
	rec = call(t, h, tf.Seated, "POST", p("/api/roll-requests/%d/physical", r.ID), `{"faces":[10]}`)
	if rec.Code != 200 {
		t.Fatalf("roll the save: %d %s", rec.Code, rec.Body)
	}
	if strings.Contains(rec.Body.String(), `"dc"`) {
		t.Fatalf("the player's roll answer carries the DC: %s", rec.Body)
	}
	var res table.RollResultView
	json.Unmarshal(rec.Body.Bytes(), &res)
	// Mira: Dex 14 (+2), proficient in Dex saves (+2 at level 3).
	if res.BaseModifier != 4 || res.Total != 14 {
		t.Fatalf("a Dex save of 10 gave base %+d total %d, want +4 and 14", res.BaseModifier, res.Total)
	}
	rec = call(t, h, tf.Seated, "GET", p("/api/sessions/%d/rolls", tf.LobbyID), "")
	// rolled, the DC is revealed with the salt of its commitment
	var board table.RollBoard
	json.Unmarshal(rec.Body.Bytes(), &board)
	if rec.Code != 200 || len(board.Requests) != 1 || board.Requests[0].RequestType != "save" || board.Requests[0].DC == nil ||
		table.DCCommitment(*board.Requests[0].DC, board.Requests[0].DCSalt) != r.DCCommitment {
		t.Fatalf("the player's board: %d %s", rec.Code, rec.Body)
	}
	rec = call(t, h, tf.Owner, "POST", p("/api/sessions/%d/checks", tf.LobbyID), `{"save":"perception"}`)
	if rec.Code != 400 || !strings.Contains(rec.Body.String(), `"code":"check_invalid"`) || !strings.Contains(rec.Body.String(), `"save"`) {
		t.Fatalf("a skill as a save: %d %s", rec.Code, rec.Body)
	}
}
