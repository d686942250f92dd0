package mcp

import (
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"testing"

	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/gameplay/table/tabletest"
)

// The hidden NPC's numbers, as JSON numbers or in an "hp" text: distinctive
// enough that nothing else in a small scene reads the same (timestamps are
// never in agent results, and a fractional second would sit after a dot).
var (
	secretHP = regexp.MustCompile(`[:\[, "/]9173[,}\]/" ]`)
	secretAC = regexp.MustCompile(`[:\[, "/]93[,}\]/" ]`)
)

// fightTable is a session in play with an AI DM, Mira's AI player and
// Tomas (seated by a human), and the two seats' combatant ids.
func fightTable(t *testing.T) (dm, player *agent, mira, tomas string) {
	t.Helper()
	svc, srv := liveServer(t)
	f := tabletest.New(t, svc)
	dm = aiDM(t, srv.URL, f)
	dm.must("session", map[string]any{"action": "start"}, nil)
	seatTomas(t, svc, f)
	dm.must("session", map[string]any{"action": "admit", "seat_id": f.FreeSeatID}, nil)
	player = aiPlayer(t, srv.URL, f)
	return dm, player, fmt.Sprintf("seat:%d", f.PlayerSeatID), fmt.Sprintf("seat:%d", f.FreeSeatID)
}

// TestEncounterOverMCP runs a two-round fight through the real HTTP
// handler: an AI DM starts it with the seats and a hidden NPC, the AI
// player and the DM roll initiative, the turns go round twice with a hit
// and a miss on the NPC and the NPC's own attack, and the DM ends it. Every
// result is validated against the listed schema; the player's results,
// context and events never hold the NPC's AC or HP, while the DM's do.
func TestEncounterOverMCP(t *testing.T) {
	dm, player, mira, tomas := fightTable(t)

	// Everything the player reads, to search for the secret at the end.
	var seen []byte
	var pcx Context
	playerCall := func(tool string, args map[string]any, out any) string {
		t.Helper()
		var raw json.RawMessage
		code := player.call(tool, args, &raw)
		seen = append(seen, raw...)
		if tool == "get_session_context" && len(raw) > contextBudget {
			t.Errorf("get_session_context in a fight is %d bytes (budget %d)", len(raw), contextBudget)
		}
		if code == "" && out != nil {
			reflect.ValueOf(out).Elem().SetZero() // absent fields mean zero
			tabletest.Must(t, json.Unmarshal(raw, out))
		}
		return code
	}
	playerCall("get_session_context", nil, &pcx)
	if pcx.Encounter != nil || hasStep(pcx.Next, "fight") {
		t.Fatalf("a fight before one started: %+v", pcx)
	}
	var cx Context
	dm.must("get_session_context", nil, &cx)
	if !hasStepArgText(cx.Next, "fight", "action", "start") {
		t.Fatalf("the DM is not offered to start a fight: %+v", cx.Next)
	}

	// Refusals with their stable codes.
	for _, c := range []struct {
		a    *agent
		tool string
		args map[string]any
		want string
	}{
		{player, "fight", map[string]any{"action": "end_turn"}, "encounter_not_running"},
		{player, "fight", map[string]any{"action": "start"}, "not_current_dm"},
		{dm, "fight", map[string]any{"action": "summon"}, "invalid_request"},
		{dm, "fight", map[string]any{"action": "start", "npcs": []any{map[string]any{"name": "", "ac": 10, "hp": 5}}}, "encounter_invalid"},
	} {
		if code := c.a.call(c.tool, c.args, nil); code != c.want {
			t.Fatalf("%s %v: got %q, want %q", c.tool, c.args, code, c.want)
		}
	}

	var fg Fought
	dm.must("fight", map[string]any{"action": "start", "name": "Bridge ambush",
		"npcs": []any{map[string]any{"name": "Shadow Ogre", "ac": 93, "hp": 9173}}}, &fg)
	if fg.Seq == 0 || fg.Encounter.Phase != table.PhaseInitiative || len(fg.Encounter.Order) != 3 {
		t.Fatalf("started: %+v", fg)
	}
	if code := dm.call("fight", map[string]any{"action": "start"}, nil); code != "encounter_already_running" {
		t.Fatalf("a second fight: %q", code)
	}

	// The player is told to roll initiative for their own combatant.
	playerCall("get_session_context", nil, &pcx)
	if pcx.Encounter == nil || pcx.Encounter.Phase != table.PhaseInitiative || !hasStepArgText(pcx.Next, "fight", "combatant_id", mira) {
		t.Fatalf("the player's context in the initiative phase: %+v", pcx)
	}
	for _, c := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"action": "initiative", "combatant_id": tomas}, "not_your_combatant"},
		{map[string]any{"action": "end_turn"}, "not_your_turn"},
		{map[string]any{"action": "roll"}, "invalid_request"},
		{map[string]any{"action": "initiative", "combatant_id": mira, "faces": []int{12}}, ""},
	} {
		if code := playerCall("fight", c.args, nil); code != c.want {
			t.Fatalf("player fight %v: got %q, want %q", c.args, code, c.want)
		}
	}
	var fought Fought
	dm.must("fight", map[string]any{"action": "initiative", "combatant_id": tomas, "faces": []int{5}}, &fought)
	dm.must("fight", map[string]any{"action": "end_turn"}, &fought)
	if fought.Encounter.Phase != table.PhaseFighting || fought.Encounter.Round != 1 || fought.Encounter.Turn == "" {
		t.Fatalf("the fight did not begin: %+v", fought)
	}

	// Two rounds: Mira hits (a natural 20: AC 93 falls only to that) and
	// misses, the ogre hits Mira, Tomas's turn the DM ends.
	miraAttacks := 0
	for fought.Encounter.Round <= 2 {
		turn := fought.Encounter.Turn
		switch turn {
		case mira:
			playerCall("get_session_context", nil, &pcx)
			if !pcx.Encounter.YourTurn || pcx.Encounter.Turn != mira || pcx.Encounter.TurnName != "Mira" || !hasStepArgText(pcx.Next, "fight", "combatant_id", mira) {
				t.Fatalf("Mira's turn as she reads it: %+v", pcx)
			}
			face := []int{20, 2}[miraAttacks]
			miraAttacks++
			var out Fought
			playerCall("fight", map[string]any{"action": "attack", "combatant_id": mira, "target_id": "npc:1", "weapon": "Rapier", "bonus": 5,
				"damage": "1d8+3", "damage_type": "piercing", "faces": []int{face}}, &out)
			if out.Attack == nil || out.Attack.Hit != (face == 20) || out.Attack.Natural != face || (face == 20) != (out.Attack.Damage != nil) {
				t.Fatalf("Mira's attack with a %d: %+v", face, out.Attack)
			}
			ogre := out.Encounter.Order[indexOf(out.Encounter, "npc:1")]
			if !ogre.Hidden || ogre.HP != "" || ogre.AC != nil {
				t.Fatalf("the player sees the hidden ogre's numbers: %+v", ogre)
			}
			playerCall("fight", map[string]any{"action": "end_turn"}, &fought)
		case "npc:1":
			dm.must("get_session_context", nil, &cx)
			if cx.Encounter == nil || !cx.Encounter.YourTurn || !hasStepArgText(cx.Next, "fight", "combatant_id", "npc:1") {
				t.Fatalf("the ogre's turn as the DM reads it: %+v", cx)
			}
			if code := playerCall("fight", map[string]any{"action": "end_turn"}, nil); code != "not_your_turn" {
				t.Fatalf("the player ended the ogre's turn: %q", code)
			}
			var out Fought
			dm.must("fight", map[string]any{"action": "attack", "combatant_id": "npc:1", "target_id": mira, "weapon": "Greatclub", "bonus": 4,
				"damage": "1d4", "faces": []int{15}}, &out)
			if out.Attack == nil || !out.Attack.Hit || out.Attack.Damage == nil {
				t.Fatalf("the ogre's attack: %+v", out.Attack)
			}
			dm.must("fight", map[string]any{"action": "end_turn"}, &fought)
		case tomas:
			dm.must("fight", map[string]any{"action": "end_turn"}, &fought)
		default:
			t.Fatalf("whose turn? %q", turn)
		}
	}
	if miraAttacks != 2 {
		t.Fatalf("Mira attacked %d times in two rounds", miraAttacks)
	}
	if code := playerCall("fight", map[string]any{"action": "end"}, nil); code != "not_current_dm" {
		t.Fatalf("a player ended the fight: %q", code)
	}
	dm.must("fight", map[string]any{"action": "end"}, &fg)
	if fg.Encounter.Phase != table.PhaseEnded {
		t.Fatalf("ended: %+v", fg)
	}
	playerCall("get_session_context", nil, &pcx)
	if pcx.Encounter != nil {
		t.Fatalf("the fight is still in the context: %+v", pcx.Encounter)
	}

	// Every event the player may read, by paging and by waiting.
	var pg EventPage
	for after := int64(0); ; after = pg.Cursor {
		playerCall("wait_for_event", map[string]any{"after": after, "timeout_seconds": 0}, &pg)
		if !pg.HasMore {
			break
		}
	}
	playerCall("wait_for_event", map[string]any{"after": 0, "timeout_seconds": 1}, &pg)
	if pg.Cursor >= 93 {
		t.Fatalf("the scene has %d events: the AC sentinel could match a seq", pg.Cursor)
	}
	if m := secretHP.Find(seen); m != nil {
		t.Errorf("the player read the hidden HP: %q", m)
	}
	if m := secretAC.Find(seen); m != nil {
		t.Errorf("the player read the hidden AC: %q", m)
	}
	// A fight's results and pages stay within the per-call budget.
	for _, a := range []*agent{player, dm} {
		for i, b := range a.bytes {
			if b > maxTurnOutputBudget {
				t.Errorf("call %d read %d bytes (budget %d)", i, b, maxTurnOutputBudget)
			}
		}
	}
	// The DM does read them: in the fight's results and in encounter.secret.
	var dmSeen []byte
	for after := int64(0); ; {
		var raw json.RawMessage
		dm.must("wait_for_event", map[string]any{"after": after, "timeout_seconds": 0}, &raw)
		dmSeen = append(dmSeen, raw...)
		pg = EventPage{}
		tabletest.Must(t, json.Unmarshal(raw, &pg))
		if after = pg.Cursor; !pg.HasMore {
			break
		}
	}
	var started json.RawMessage
	dm.must("fight", map[string]any{"action": "start", "npcs": []any{map[string]any{"name": "Shadow Ogre", "ac": 93, "hp": 9173}}}, &started)
	if secretHP.Find(started) == nil || secretAC.Find(started) == nil || secretAC.Find(dmSeen) == nil {
		t.Fatalf("the DM lacks the ogre's numbers: %s %s", started, dmSeen)
	}
}

func indexOf(f Fight, id string) int {
	for i, c := range f.Order {
		if c.ID == id {
			return i
		}
	}
	return -1
}

func hasStepArgText(steps []Step, tool, arg, want string) bool {
	for _, s := range steps {
		if s.Tool == tool && fmt.Sprint(s.Args[arg]) == want {
			return true
		}
	}
	return false
}

// TestEncounterEventsAreCompact: an encounter event reaches an agent as
// what changed, with dice as formula, dice and total; the whole encounter
// it carries (the fight is in get_session_context) and the dice audit do
// not.
func TestEncounterEventsAreCompact(t *testing.T) {
	payload := `{"version":1,"encounter_id":3,"encounter":{"id":3,"name":"Bridge","phase":"fighting","round":1,"current_id":"seat:2","combatants":[{"id":"seat:2","name":"Mira"}]},` +
		`"attack":{"attacker_id":"seat:2","target_id":"npc:1","roll":{"formula":"1d20+5","normalized":"1d20+5","groups":[{"notation":"1d20","sides":20,"dice":[{"value":20}],"subtotal":20}],"total":25,"min":6,"max":25},` +
		`"natural":20,"total":25,"hit":true,"critical":true,"damage":{"type":"piercing","critical":true,"roll":{"formula":"1d8+3","normalized":"2d8+3","groups":[{"notation":"2d8","sides":8,"dice":[{"value":3},{"value":5}],"subtotal":8}],"total":11,"min":5,"max":19},"amount":11}}}`
	e := newRoster(nil).compactEvent(table.EventView{Seq: 7, Kind: table.EventEncounterAttack, Payload: table.EventPayload(payload)})
	raw, _ := json.Marshal(e)
	for _, want := range []string{`"roll":{"dice":[20],"formula":"1d20+5","total":25}`, `"roll":{"dice":[3,5],"formula":"1d8+3","total":11}`, `"name":"Bridge","round":1`} {
		if !regexp.MustCompile(regexp.QuoteMeta(want)).Match(raw) {
			t.Errorf("compact attack lacks %s: %s", want, raw)
		}
	}
	for _, gone := range []string{"groups", "normalized", "combatants", "encounter_id"} {
		if regexp.MustCompile(`"` + gone + `"`).Match(raw) {
			t.Errorf("compact attack keeps %s: %s", gone, raw)
		}
	}
}

// nulls lists where a JSON value holds null, as paths.
func nulls(v any, path string) []string {
	switch x := v.(type) {
	case nil:
		return []string{path}
	case map[string]any:
		var out []string
		for k, val := range x {
			out = append(out, nulls(val, path+"."+k)...)
		}
		return out
	case []any:
		var out []string
		for i, val := range x {
			out = append(out, nulls(val, fmt.Sprintf("%s[%d]", path, i))...)
		}
		return out
	}
	return nil
}

// TestFightEventsHaveNoNulls runs a fight with a hidden NPC over MCP (an AI
// DM and an AI player: initiative, turns, attacks on the NPC and by it,
// the DM's damage and healing, a hidden NPC joining, the end) and reads
// every event as each audience does, through wait_for_event and the
// recent window of get_session_context: no compact event holds a null,
// and each encounter.secret the DM reads holds something of its own
// beyond the fight's name and round and the public event it completes.
func TestFightEventsHaveNoNulls(t *testing.T) {
	dm, player, mira, tomas := fightTable(t)

	var recent []Event
	look := func() {
		t.Helper()
		for _, a := range []*agent{dm, player} {
			var cx Context
			a.must("get_session_context", nil, &cx)
			recent = append(recent, cx.Recent...)
		}
	}
	var fg Fought
	dm.must("fight", map[string]any{"action": "start", "name": "Bridge", "npcs": []any{map[string]any{"name": "Ogre", "ac": 14, "hp": 60}}}, &fg)
	player.must("fight", map[string]any{"action": "initiative", "combatant_id": mira, "faces": []int{12}}, nil)
	dm.must("fight", map[string]any{"action": "initiative", "combatant_id": tomas, "faces": []int{5}}, nil)
	dm.must("fight", map[string]any{"action": "end_turn"}, &fg)
	look()
	for round := fg.Encounter.Round; fg.Encounter.Round == round; {
		switch fg.Encounter.Turn {
		case mira:
			player.must("fight", map[string]any{"action": "attack", "combatant_id": mira, "target_id": "npc:1", "bonus": 5, "damage": "1d8+3", "faces": []int{20}, "damage_faces": []int{4, 4}}, nil)
			player.must("fight", map[string]any{"action": "attack", "combatant_id": mira, "target_id": "npc:1", "bonus": 5, "damage": "1d8+3", "faces": []int{1}}, nil)
			look()
			player.must("fight", map[string]any{"action": "end_turn"}, &fg)
		case "npc:1":
			dm.must("fight", map[string]any{"action": "attack", "combatant_id": "npc:1", "target_id": tomas, "bonus": 4, "damage": "1d6", "faces": []int{18}, "damage_faces": []int{3}}, nil)
			dm.must("fight", map[string]any{"action": "change", "combatant_id": "npc:1", "change": "damage", "amount": 7}, nil)
			dm.must("fight", map[string]any{"action": "change", "combatant_id": "npc:1", "change": "heal", "amount": 2}, nil)
			look()
			dm.must("fight", map[string]any{"action": "end_turn"}, &fg)
		default:
			dm.must("fight", map[string]any{"action": "end_turn"}, &fg)
		}
	}
	dm.must("fight", map[string]any{"action": "change", "combatant_id": "npc:1", "change": "add_condition", "condition": "prone"}, nil)
	dm.must("fight", map[string]any{"action": "add", "npcs": []any{map[string]any{"name": "Wolf", "ac": 13, "hp": 11}}}, nil)
	dm.must("fight", map[string]any{"action": "end"}, nil)
	look()

	check := func(who string, events []Event) {
		t.Helper()
		raw, _ := json.Marshal(events)
		var all []any
		tabletest.Must(t, json.Unmarshal(raw, &all))
		if where := nulls(all, who); len(where) > 0 {
			t.Errorf("%s reads nulls at %v in %s", who, where, raw)
		}
	}
	for _, a := range []struct {
		name string
		*agent
	}{{"dm", dm}, {"player", player}} {
		var events []Event
		for after := int64(0); ; {
			var pg EventPage
			a.must("wait_for_event", map[string]any{"after": after, "timeout_seconds": 0}, &pg)
			events = append(events, pg.Events...)
			if after = pg.Cursor; !pg.HasMore {
				break
			}
		}
		check(a.name, events)
		secrets := 0
		for _, e := range events {
			if e.Kind != table.EventEncounterSecret {
				continue
			}
			secrets++
			own := []string{}
			for k := range e.Data {
				if k != "name" && k != "round" && k != "of" && k != "of_seq" {
					own = append(own, k)
				}
			}
			if len(own) == 0 {
				t.Errorf("%s's secret %d holds nothing of its own: %+v", a.name, e.Seq, e.Data)
			}
		}
		// start, the two attacks on the ogre, the DM's damage and healing
		// of it, the wolf joining and the end.
		if want := map[string]int{"dm": 7, "player": 0}[a.name]; secrets != want {
			t.Errorf("%s reads %d encounter.secret events, want %d", a.name, secrets, want)
		}
	}
	check("recent", recent)
}
