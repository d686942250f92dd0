package webui_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/adventure-table/adventure-table/gameplay/table/tabletest"
)

// TestCharacterSheetRoutes: the sheet fields go in over HTTP, come back
// (the answers checked against the OpenAPI document by the fixture) with
// the values the server derives from them, and a bad one is refused as
// character_invalid naming the field, writing nothing.
func TestCharacterSheetRoutes(t *testing.T) {
	f := newFixture(t, withSecret)
	owner := tabletest.NewUser(t, f.services.Table, "Owner")
	body := characterWith("Grukk", `"class":"Barbarian 2","species":"Half-orc","background":"Outlander","save_proficiencies":["str","con"],`+
		`"armor":{"body":"","shield":true,"unarmored":"barbarian","bonus":0},"speed":40,"hit_die":12`)
	v := createCharacter(t, f, owner, body)
	// Level 2 (+2): Dex 12 (+1), Con 14 (+2); barbarian 10 + Dex + Con,
	// shield +2.
	d := v.Derived
	if v.Class != "Barbarian 2" || d.AC != 10+1+2+2 || d.Saves["str"] != 0+2 || d.Saves["con"] != 2+2 || d.Saves["dex"] != 1 ||
		d.Speed != 40 || d.HitDice != "2d12" {
		t.Fatalf("created %+v", v)
	}

	bad := strings.Replace(body, `"hit_die":12`, `"hit_die":7`, 1)
	rec := call(t, f.handler, owner, "PUT", fmt.Sprintf("/api/characters/%d", v.ID), bad)
	if !refusedNaming(rec, "hit_die") {
		t.Fatalf("bad hit die: got %d %s", rec.Code, rec.Body)
	}
	rec = call(t, f.handler, owner, "GET", fmt.Sprintf("/api/characters/%d", v.ID), "")
	if rec.Code != 200 || !strings.Contains(rec.Body.String(), `"hit_die":12`) {
		t.Fatalf("after the refused edit: %d %s", rec.Code, rec.Body)
	}
}
