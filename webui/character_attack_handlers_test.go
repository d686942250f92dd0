package webui_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/gameplay/table/tabletest"
)

// TestCharacterListRoutes: attacks, spells, inventory and notes go in over
// HTTP and come back (checked against the OpenAPI document by the fixture)
// with each attack's derived to-hit and damage; a bad entry is refused as
// character_invalid naming the entry's field.
func TestCharacterListRoutes(t *testing.T) {
	f := newFixture(t, withSecret)
	owner := tabletest.NewUser(t, f.services.Table, "Owner")
	lists := `"attacks":[{"name":"Handaxe","ability":"str","proficient":true,"bonus":0,"damage":"1d6","damage_type":"slashing","add_modifier":true}],` +
		`"spells":[{"name":"Light","level":0,"prepared":true,"notes":""}],"inventory":[{"name":"Torch","quantity":5,"notes":""}],"notes":"Brave."}`
	body := strings.TrimSuffix(strings.TrimSpace(characterJSON("Grukk")), "}") + "," + lists
	rec := call(t, f.handler, owner, "POST", "/api/characters", body)
	if rec.Code != 201 {
		t.Fatalf("create: got %d %s", rec.Code, rec.Body)
	}
	var v table.CharacterView
	tabletest.Must(t, json.Unmarshal(rec.Body.Bytes(), &v))
	str := v.Derived.Modifiers["str"]
	if len(v.Derived.Attacks) != 1 || v.Derived.Attacks[0].ToHit != str+v.ProficiencyBonus || len(v.Spells) != 1 || v.Inventory[0].Quantity != 5 || v.Notes != "Brave." {
		t.Fatalf("created %s", rec.Body)
	}

	for field, bad := range map[string]string{
		"attacks.0.damage_type": strings.Replace(body, `"slashing"`, `"holy"`, 1),
		"attacks.0.damage":      strings.Replace(body, `"1d6"`, `"1d"`, 1),
		"spells.0.level":        strings.Replace(body, `"level":0`, `"level":10`, 1),
		"inventory.0.quantity":  strings.Replace(body, `"quantity":5`, `"quantity":-1`, 1),
	} {
		rec = call(t, f.handler, owner, "POST", "/api/characters", bad)
		if rec.Code != 400 || !strings.Contains(rec.Body.String(), `"code":"character_invalid"`) || !strings.Contains(rec.Body.String(), `"`+field+`"`) {
			t.Errorf("%s: got %d %s", field, rec.Code, rec.Body)
		}
	}
}
