package webui_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/adventure-table/adventure-table/gameplay/table"
)

// TestSheetRollOverHTTP: the reading view's two routes. The seated player's
// sheet names the running table; a click there rolls as the seat with the
// stored sheet's modifier (a modifier in the body is refused, not used),
// and the DM reads it in the events; another player, or the owner of a
// character not at the table, is refused.
func TestSheetRollOverHTTP(t *testing.T) {
	f := newFixture(t, withSecret)
	tf := startedTable(t, f)
	h, p := f.handler, fmt.Sprintf

	rec := call(t, h, tf.Seated, "GET", p("/api/characters/%d/sheet", tf.CharacterID), "")
	var sheet table.CharacterSheet
	if rec.Code != 200 || json.Unmarshal(rec.Body.Bytes(), &sheet) != nil || sheet.Table == nil || sheet.Table.SessionID != tf.LobbyID {
		t.Fatalf("GET sheet: %d %s", rec.Code, rec.Body)
	}
	stealth := sheet.Character.Derived.Skills["stealth"]

	rec = call(t, h, tf.Seated, "POST", p("/api/characters/%d/roll", tf.CharacterID), `{"check":"stealth","base_modifier":30}`)
	if rec.Code != 400 {
		t.Fatalf("a roll naming its own modifier: got %d %s, want 400", rec.Code, rec.Body)
	}
	rec = call(t, h, tf.Seated, "POST", p("/api/characters/%d/roll", tf.CharacterID), `{"check":"stealth","idempotency_key":"sheet-1"}`)
	var rolled table.SheetRoll
	if rec.Code != 201 || json.Unmarshal(rec.Body.Bytes(), &rolled) != nil {
		t.Fatalf("roll stealth: %d %s", rec.Code, rec.Body)
	}
	r := rolled.Result
	if rolled.SessionID != tf.LobbyID || r.Check != "stealth" || r.BaseModifier != stealth || r.ActingSeatID != tf.PlayerSeatID || r.Total != r.KeptDice[0]+stealth {
		t.Fatalf("rolled %+v, want stealth + %d as seat %d", rolled, stealth, tf.PlayerSeatID)
	}
	rec = call(t, h, tf.Owner, "GET", p("/api/sessions/%d/events?after=0&limit=200", tf.LobbyID), "")
	if want := p(`"check":"stealth","result":{"id":%d,`, r.ID); rec.Code != 200 || !strings.Contains(rec.Body.String(), want) {
		t.Fatalf("the DM's events lack %s: %s", want, rec.Body)
	}

	for _, c := range []struct {
		name   string
		caller table.Caller
		id     int64
		status int
		code   string
	}{
		{"another player", tf.Unseated, tf.CharacterID, 404, "not_found"},
		{"the DM", tf.Owner, tf.CharacterID, 404, "not_found"},
		{"a character not at the table", tf.Unseated, tf.UnseatedCharacterID, 409, "character_not_at_table"},
	} {
		rec := call(t, h, c.caller, "POST", p("/api/characters/%d/roll", c.id), `{"check":"stealth"}`)
		if rec.Code != c.status || !strings.Contains(rec.Body.String(), c.code) {
			t.Errorf("%s: got %d %s, want %d %s", c.name, rec.Code, rec.Body, c.status, c.code)
		}
	}
	rec = call(t, h, tf.Unseated, "GET", p("/api/characters/%d/sheet", tf.UnseatedCharacterID), "")
	if rec.Code != 200 || !strings.Contains(rec.Body.String(), `"table":null`) {
		t.Fatalf("the unseated character's sheet: %d %s", rec.Code, rec.Body)
	}
}
