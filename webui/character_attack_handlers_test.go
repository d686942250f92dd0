package webui_test

import (
	"strings"
	"testing"

	"github.com/adventure-table/adventure-table/gameplay/table/tabletest"
)

// TestCharacterListRoutes: attacks, spells, inventory and notes go in over
// HTTP and come back (checked against the OpenAPI document by the fixture)
// with each attack's derived to-hit and damage; a bad entry is refused as
// character_invalid naming the entry's field.
func TestCharacterListRoutes(t *testing.T) {
	f := newFixture(t, withSecret)
	owner := tabletest.NewUser(t, f.services.Table, "Owner")
	body := characterWith("Grukk", `"attacks":[{"name":"Handaxe","ability":"str","proficient":true,"bonus":0,"damage":"1d6","damage_type":"slashing","add_modifier":true}],`+
		`"spells":[{"name":"Light","level":0,"prepared":true,"notes":""}],"inventory":[{"name":"Torch","quantity":5,"notes":""}],"notes":"Brave."`)
	v := createCharacter(t, f, owner, body)
	str := v.Derived.Modifiers["str"]
	if len(v.Derived.Attacks) != 1 || v.Derived.Attacks[0].ToHit != str+v.ProficiencyBonus || len(v.Spells) != 1 || v.Inventory[0].Quantity != 5 || v.Notes != "Brave." {
		t.Fatalf("created %+v", v)
	}

	for field, bad := range map[string]string{
		"attacks.0.damage_type": strings.Replace(body, `"slashing"`, `"holy"`, 1),
		"attacks.0.damage":      strings.Replace(body, `"1d6"`, `"1d"`, 1),
		"spells.0.level":        strings.Replace(body, `"level":0`, `"level":10`, 1),
		"inventory.0.quantity":  strings.Replace(body, `"quantity":5`, `"quantity":-1`, 1),
	} {
		if rec := call(t, f.handler, owner, "POST", "/api/characters", bad); !refusedNaming(rec, field) {
			t.Errorf("%s: got %d %s", field, rec.Code, rec.Body)
		}
	}
}
