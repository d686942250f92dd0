package webui_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/gameplay/table/tabletest"
)

// TestCharacterSheetRoutes: the sheet fields go in over HTTP, come back
// (the answers checked against the OpenAPI document by the fixture) with
// the values the server derives from them, and a bad one is refused as
// character_invalid naming the field, writing nothing.
func TestCharacterSheetRoutes(t *testing.T) {
	f := newFixture(t, withSecret)
	owner := tabletest.NewUser(t, f.services.Table, "Owner")
	sheet := `"class":"Barbarian 2","species":"Half-orc","background":"Outlander","save_proficiencies":["str","con"],` +
		`"armor":{"body":"","shield":true,"unarmored":"barbarian","bonus":0},"speed":40,"hit_die":12}`
	body := strings.TrimSuffix(strings.TrimSpace(characterJSON("Grukk")), "}") + "," + sheet
	rec := call(t, f.handler, owner, "POST", "/api/characters", body)
	if rec.Code != 201 {
		t.Fatalf("create: got %d %s", rec.Code, rec.Body)
	}
	var v table.CharacterView
	tabletest.Must(t, json.Unmarshal(rec.Body.Bytes(), &v))
	// Level 2 (+2): Dex 12 (+1), Con 14 (+2); barbarian 10 + Dex + Con,
	// shield +2.
	d := v.Derived
	if v.Class != "Barbarian 2" || d.AC != 10+1+2+2 || d.Saves["str"] != 0+2 || d.Saves["con"] != 2+2 || d.Saves["dex"] != 1 ||
		d.Speed != 40 || d.HitDice != "2d12" {
		t.Fatalf("created %s", rec.Body)
	}

	bad := strings.Replace(body, `"hit_die":12`, `"hit_die":7`, 1)
	rec = call(t, f.handler, owner, "PUT", fmt.Sprintf("/api/characters/%d", v.ID), bad)
	if rec.Code != 400 || !strings.Contains(rec.Body.String(), `"code":"character_invalid"`) || !strings.Contains(rec.Body.String(), `"hit_die"`) {
		t.Fatalf("bad hit die: got %d %s", rec.Code, rec.Body)
	}
	rec = call(t, f.handler, owner, "GET", fmt.Sprintf("/api/characters/%d", v.ID), "")
	if rec.Code != 200 || !strings.Contains(rec.Body.String(), `"hit_die":12`) {
		t.Fatalf("after the refused edit: %d %s", rec.Code, rec.Body)
	}
}
