package narrative_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/adventure-table/adventure-table/gameplay/narrative"
)

func TestBandLabel(t *testing.T) {
	spec := testSchema()["player.hp"]
	tests := []struct {
		v    float64
		want string
	}{
		{0, "very weak"}, {19.9, "very weak"}, {20, "hurt"}, {55, "minor damage"},
		{60, "healthy"}, {90, "full health"}, {100, "full health"}, {-1, ""}, {101, ""},
	}
	for _, tt := range tests {
		if got := spec.BandLabel(tt.v); got != tt.want {
			t.Errorf("BandLabel(%v) = %q, want %q", tt.v, got, tt.want)
		}
	}
	if got := (narrative.StatSpec{}).BandLabel(5); got != "" {
		t.Errorf("no bands: got %q", got)
	}
}

func TestStateLine(t *testing.T) {
	schema := narrative.Schema{
		"player.hp":          testSchema()["player.hp"],
		"npc.gwen.trust":     {Min: 0, Max: 100, Bands: []narrative.Band{{0, 30, "wary"}, {30, 100, "friendly"}}},
		"npc.bob.trust":      {Min: 0, Max: 100, Initial: 50},
		"milestones.escaped": {Kind: narrative.KindBool},
		"npc.gwen.mood":      {Kind: narrative.KindString},
	}
	st := narrative.State{"player.hp": 55.0, "npc.gwen.trust": 12, "milestones.escaped": true, "npc.gwen.mood": "grim"}
	got := narrative.StateLine(schema, st)
	want := "escaped yes, bob.trust 50/100, mood grim, gwen.trust 12/100 (wary), hp 55/100 (minor damage)"
	if got != want {
		t.Errorf("StateLine =\n %q, want\n %q", got, want)
	}
	if got := narrative.StateLine(nil, nil); got != "" {
		t.Errorf("empty schema: %q", got)
	}
}

func TestInitialState(t *testing.T) {
	schema := narrative.Schema{
		"player.hp":          {Min: 0, Max: 100, Initial: 100},
		"player.gold":        {Min: 0, Max: 10, Initial: 50},
		"milestones.escaped": {Kind: narrative.KindBool},
		"milestones.armed":   {Kind: narrative.KindBool, Initial: 1},
		"npc.gwen.mood":      {Kind: narrative.KindString},
		"weird":              {Kind: "enum"},
	}
	want := narrative.State{
		"player.hp": 100.0, "player.gold": 10.0, "milestones.escaped": false,
		"milestones.armed": true, "npc.gwen.mood": "",
	}
	if got := narrative.InitialState(schema); !reflect.DeepEqual(got, want) {
		t.Errorf("InitialState = %#v, want %#v", got, want)
	}
}

func TestSchemaJSON(t *testing.T) {
	const src = `{"player.hp": {"min": 0, "max": 100, "initial": 100,
		"bands": [[0,20,"very weak"], [20,40,"hurt"]], "cooldown": 2}}`
	var s narrative.Schema
	if err := json.Unmarshal([]byte(src), &s); err != nil {
		t.Fatal(err)
	}
	want := narrative.Schema{"player.hp": {Min: 0, Max: 100, Initial: 100, Cooldown: 2,
		Bands: []narrative.Band{{0, 20, "very weak"}, {20, 40, "hurt"}}}}
	if !reflect.DeepEqual(s, want) {
		t.Fatalf("got %#v", s)
	}
	b, err := json.Marshal(s["player.hp"].Bands[0])
	if err != nil || string(b) != `[0,20,"very weak"]` {
		t.Errorf("marshal band = %s, %v", b, err)
	}
	for _, bad := range []string{`[1,2]`, `{"lo":1}`, `["a",2,"x"]`, `[1,"b","x"]`, `[1,2,3]`} {
		var band narrative.Band
		if err := json.Unmarshal([]byte(bad), &band); err == nil {
			t.Errorf("band %s: want error", bad)
		}
	}
}
