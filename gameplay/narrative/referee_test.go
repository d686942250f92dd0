package narrative_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/adventure-table/adventure-table/gameplay/narrative"
)

func testSchema() narrative.Schema {
	return narrative.Schema{
		"player.hp": {Min: 0, Max: 100, Initial: 100, Bands: []narrative.Band{
			{0, 20, "very weak"}, {20, 40, "hurt"}, {40, 60, "minor damage"},
			{60, 90, "healthy"}, {90, 100, "full health"},
		}},
		"npc.gwen.trust":     {Min: -100, Max: 100, Initial: 0, Cooldown: 5},
		"milestones.escaped": {Kind: narrative.KindBool},
		"npc.gwen.mood":      {Kind: narrative.KindString},
		"weird.stat":         {Kind: "enum"},
	}
}

func TestReferee(t *testing.T) {
	base := narrative.State{"player.hp": 50.0, "npc.gwen.trust": 0.0, "milestones.escaped": false, "npc.gwen.mood": ""}
	with := func(kv ...any) narrative.State {
		s := narrative.State{}
		for k, v := range base {
			s[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			s[kv[i].(string)] = kv[i+1]
		}
		return s
	}
	tests := []struct {
		name  string
		state narrative.State
		delta map[string]any
		turn  int
		want  narrative.State
		out   []narrative.Outcome
	}{
		{
			name:  "applied",
			state: base,
			delta: map[string]any{"player.hp": -15.0},
			turn:  1,
			want:  with("player.hp", 35.0, "_meta.last_changed.player.hp", 1),
			out:   []narrative.Outcome{{Path: "player.hp", Status: "applied", From: 50.0, To: 35.0}},
		},
		{
			name:  "int change accepted",
			state: base,
			delta: map[string]any{"player.hp": 5},
			turn:  1,
			want:  with("player.hp", 55.0, "_meta.last_changed.player.hp", 1),
			out:   []narrative.Outcome{{Path: "player.hp", Status: "applied", From: 50.0, To: 55.0}},
		},
		{
			name:  "clamped to min",
			state: base,
			delta: map[string]any{"player.hp": -80.0},
			turn:  2,
			want:  with("player.hp", 0.0, "_meta.last_changed.player.hp", 2),
			out:   []narrative.Outcome{{Path: "player.hp", Status: "clamped", From: 50.0, To: 0.0, Reason: "clamped_to_min"}},
		},
		{
			name:  "clamped to max",
			state: base,
			delta: map[string]any{"player.hp": 80.0},
			turn:  2,
			want:  with("player.hp", 100.0, "_meta.last_changed.player.hp", 2),
			out:   []narrative.Outcome{{Path: "player.hp", Status: "clamped", From: 50.0, To: 100.0, Reason: "clamped_to_max"}},
		},
		{
			name:  "clamp that changes nothing does not record the turn",
			state: with("player.hp", 100.0),
			delta: map[string]any{"player.hp": 10.0},
			turn:  2,
			want:  with("player.hp", 100.0),
			out:   []narrative.Outcome{{Path: "player.hp", Status: "clamped", From: 100.0, To: 100.0, Reason: "clamped_to_max"}},
		},
		{
			name:  "unknown path",
			state: base,
			delta: map[string]any{"player.mana": 5.0, "_meta.last_changed.player.hp": 0.0},
			turn:  1,
			want:  base,
			out: []narrative.Outcome{
				{Path: "_meta.last_changed.player.hp", Status: "rejected", Reason: "unknown_path"},
				{Path: "player.mana", Status: "rejected", Reason: "unknown_path"},
			},
		},
		{
			name:  "wrong types",
			state: base,
			delta: map[string]any{"player.hp": "-5", "milestones.escaped": 1.0, "npc.gwen.mood": true, "npc.gwen.trust": nil, "weird.stat": 1.0},
			turn:  1,
			want:  base,
			out: []narrative.Outcome{
				{Path: "milestones.escaped", Status: "rejected", From: false, Reason: "wrong_type"},
				{Path: "npc.gwen.mood", Status: "rejected", From: "", Reason: "wrong_type"},
				{Path: "npc.gwen.trust", Status: "rejected", From: 0.0, Reason: "wrong_type"},
				{Path: "player.hp", Status: "rejected", From: 50.0, Reason: "wrong_type"},
				{Path: "weird.stat", Status: "rejected", Reason: "wrong_type"},
			},
		},
		{
			name:  "bool and string set",
			state: base,
			delta: map[string]any{"milestones.escaped": true, "npc.gwen.mood": "grateful"},
			turn:  4,
			want: with("milestones.escaped", true, "npc.gwen.mood", "grateful",
				"_meta.last_changed.milestones.escaped", 4, "_meta.last_changed.npc.gwen.mood", 4),
			out: []narrative.Outcome{
				{Path: "milestones.escaped", Status: "applied", From: false, To: true},
				{Path: "npc.gwen.mood", Status: "applied", From: "", To: "grateful"},
			},
		},
		{
			name:  "cooldown: changed at 3, cooldown 5, rejected at 6",
			state: with("npc.gwen.trust", 5.0, "_meta.last_changed.npc.gwen.trust", 3),
			delta: map[string]any{"npc.gwen.trust": 5.0},
			turn:  6,
			want:  with("npc.gwen.trust", 5.0, "_meta.last_changed.npc.gwen.trust", 3),
			out:   []narrative.Outcome{{Path: "npc.gwen.trust", Status: "rejected", From: 5.0, Reason: "cooldown"}},
		},
		{
			// A state that went through JSON holds the turn as float64.
			name:  "cooldown: changed at 3, cooldown 5, applied at 8",
			state: with("npc.gwen.trust", 5.0, "_meta.last_changed.npc.gwen.trust", 3.0),
			delta: map[string]any{"npc.gwen.trust": 5.0},
			turn:  8,
			want:  with("npc.gwen.trust", 10.0, "_meta.last_changed.npc.gwen.trust", 8),
			out:   []narrative.Outcome{{Path: "npc.gwen.trust", Status: "applied", From: 5.0, To: 10.0}},
		},
		{
			name:  "missing value starts from initial",
			state: narrative.State{},
			delta: map[string]any{"player.hp": -1.0},
			turn:  1,
			want:  narrative.State{"player.hp": 99.0, "_meta.last_changed.player.hp": 1},
			out:   []narrative.Outcome{{Path: "player.hp", Status: "applied", From: 100.0, To: 99.0}},
		},
		{
			name:  "nil state and delta",
			state: nil,
			delta: nil,
			turn:  1,
			want:  narrative.State{},
			out:   []narrative.Outcome{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := snapshot(t, tt.state)
			got, out := narrative.Referee(testSchema(), tt.state, tt.delta, tt.turn)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("state = %#v, want %#v", got, tt.want)
			}
			if !reflect.DeepEqual(out, tt.out) {
				t.Errorf("outcomes = %#v, want %#v", out, tt.out)
			}
			if after := snapshot(t, tt.state); after != before {
				t.Errorf("input state mutated: %s -> %s", before, after)
			}
		})
	}
}

func TestRefereeOutcomesSorted(t *testing.T) {
	delta := map[string]any{"z.a": 1.0, "player.hp": -1.0, "a.b": 1.0, "milestones.escaped": true, "m.n": 1.0}
	_, out := narrative.Referee(testSchema(), narrative.InitialState(testSchema()), delta, 1)
	var paths []string
	for _, o := range out {
		paths = append(paths, o.Path)
	}
	want := []string{"a.b", "m.n", "milestones.escaped", "player.hp", "z.a"}
	if !reflect.DeepEqual(paths, want) {
		t.Errorf("paths = %v, want %v", paths, want)
	}
}

func TestRefereeEndToEnd(t *testing.T) {
	schema := testSchema()
	_, delta := narrative.ExtractDelta("Ouch.\n```state\n{\"player.hp\": -45, \"npc.gwen.trust\": +12, \"milestones.escaped\": true}\n```")
	st, _ := narrative.Referee(schema, narrative.InitialState(schema), delta, 1)
	got := narrative.StateLine(schema, st)
	want := "escaped yes, mood -, trust 12/100, hp 55/100 (minor damage)"
	if got != want {
		t.Errorf("StateLine = %q, want %q", got, want)
	}
}

func snapshot(t *testing.T, s narrative.State) string {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
