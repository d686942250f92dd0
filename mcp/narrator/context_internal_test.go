package narrator

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/adventure-table/adventure-table/gameplay/narrative/prompt"
)

// TestFitOpeningOrder: over budget, the oldest recent events go first,
// then the NPCs' stat blocks (the last NPC's first); the world keeps its
// premise and NPC names, and the instructions are never cut.
func TestFitOpeningOrder(t *testing.T) {
	var recent []string
	for i := range 10 {
		recent = append(recent, fmt.Sprintf(`{"seq":%d,"text":"event-%02d %s"}`, i+1, i, strings.Repeat("word ", 30)))
	}
	cx := json.RawMessage(`{"you":"You are the DM.","recent":[` + strings.Join(recent, ",") + `],"cursor":10,` +
		`"world":{"premise":"PREMISE","plot_essentials":"PLOT","npcs":[{"name":"Vell","stat_block":"STATS-VELL ` + strings.Repeat("x ", 200) +
		`"},{"name":"Oona","stat_block":"STATS-OONA ` + strings.Repeat("y ", 200) + `"}]}}`)
	instructions := "INSTRUCTIONS " + strings.Repeat("rule ", 50)
	cost := func(o opening) int { return prompt.Count(instructions) + prompt.Count(o.table) + prompt.Count(o.world) }

	whole := fitOpening(cx, instructions, nil, 0)
	if strings.Contains(whole.table, "PREMISE") || !strings.Contains(whole.world, "STATS-OONA") || !strings.Contains(whole.table, "event-00") {
		t.Fatalf("unbounded: the world is its own section, all kept: %+v", whole)
	}
	full := cost(whole)

	// A little short: only old events go.
	o := fitOpening(cx, instructions, nil, full-20)
	if strings.Contains(o.table, "event-00") || !strings.Contains(o.table, "event-09") || !strings.Contains(o.world, "STATS-VELL") || !strings.Contains(o.world, "STATS-OONA") {
		t.Errorf("a little short: want the oldest event gone and every stat block kept: %+v", o)
	}
	if cost(o) > full-20 {
		t.Errorf("a little short: %d tokens over a budget of %d", cost(o), full-20)
	}

	// No events fit the budget's room beyond the stat blocks' first cut.
	noEvents := fitOpening(cx, instructions, nil, 1)
	if strings.Contains(noEvents.table, "event-") || strings.Contains(noEvents.world, "STATS-") {
		t.Errorf("tiny budget: want no events and no stat blocks: %+v", noEvents)
	}
	if !strings.Contains(noEvents.world, "PREMISE") || !strings.Contains(noEvents.world, "PLOT") || !strings.Contains(noEvents.world, "Oona") {
		t.Errorf("tiny budget: the premise, plot and NPC names stay: %q", noEvents.world)
	}
	// Room for one stat block: the last NPC's goes first.
	oneBlock := cost(noEvents) + prompt.Count(`"stat_block":"STATS-VELL `+strings.Repeat("x ", 200)+`"`) + 5
	o = fitOpening(cx, instructions, nil, oneBlock)
	if strings.Contains(o.table, "event-") || !strings.Contains(o.world, "STATS-VELL") || strings.Contains(o.world, "STATS-OONA") {
		t.Errorf("room for one stat block: want events gone, Vell's kept, Oona's dropped: %+v", o)
	}

	// Without a world and within budget the context goes as the tool gave it.
	plain := json.RawMessage(`{"you":"x","cursor":3}`)
	if o := fitOpening(plain, instructions, nil, 100000); o.table != tableLead+string(plain)+tableTail || o.world != "" {
		t.Errorf("plain: %+v", o)
	}
}
