package narrator

import (
	"context"
	"encoding/json"

	"github.com/adventure-table/adventure-table/gameplay/llm"
	"github.com/adventure-table/adventure-table/gameplay/narrative/prompt"
	"github.com/adventure-table/adventure-table/gameplay/table"
)

// Budgeter is a Model that also says how many tokens (as prompt.Count
// counts them) a prompt of a user's model work may hold: the narrative
// service's ContextBudget.
type Budgeter interface {
	ContextBudget(ctx context.Context, userID int64) (int, error)
}

// opening is a step's first messages: the instructions, the table as the
// seat sees it and, as its own message (and Insights section), the
// campaign's world.
type opening struct {
	table, world string
}

const (
	tableLead = "The table now, as your seat sees it (get_session_context):\n"
	tableTail = "\n\nAct now: call the tools you need, then write what you say to the table (or nothing)."
	worldLead = "The campaign's world, as your seat may see it (its premise; for the DM also the plot essentials and the NPCs):\n"
)

// toolTokens is what the tool definitions cost a prompt.
func toolTokens(tools []llm.Tool) int {
	n := 0
	for _, t := range tools {
		schema, _ := json.Marshal(t.Parameters)
		n += prompt.Count(t.Name + " " + t.Description + " " + string(schema))
	}
	return n
}

// fitOpening splits the world out of the context JSON and, when the
// instructions, the tool definitions, the table and the world exceed
// budget (0: no budget), drops the oldest recent events first, then the
// NPCs' stat blocks (the last NPC's first). The instructions are never
// cut; what cannot be cut is sent as it is.
func fitOpening(contextJSON json.RawMessage, instructions string, tools []llm.Tool, budget int) opening {
	var fields map[string]json.RawMessage
	if json.Unmarshal(contextJSON, &fields) != nil {
		return opening{table: tableLead + string(contextJSON) + tableTail}
	}
	var world *table.World
	if raw, ok := fields["world"]; ok {
		world = &table.World{}
		if json.Unmarshal(raw, world) != nil {
			world = nil
		}
		delete(fields, "world")
	}
	var recent []json.RawMessage
	if raw, ok := fields["recent"]; ok {
		_ = json.Unmarshal(raw, &recent)
	}
	// changed says something was taken out of the context; until then it
	// is sent exactly as the tool gave it.
	changed := world != nil
	render := func() opening {
		var o opening
		if !changed {
			o.table = tableLead + string(contextJSON) + tableTail
			return o
		}
		if len(recent) > 0 {
			fields["recent"], _ = json.Marshal(recent)
		} else {
			delete(fields, "recent")
		}
		tbl, _ := json.Marshal(fields)
		o.table = tableLead + string(tbl) + tableTail
		if world != nil {
			w, _ := json.Marshal(world)
			o.world = worldLead + string(w)
		}
		return o
	}
	o := render()
	if budget <= 0 {
		return o
	}
	fixed := prompt.Count(instructions) + toolTokens(tools)
	over := func(o opening) bool { return fixed+prompt.Count(o.table)+prompt.Count(o.world) > budget }
	for over(o) && len(recent) > 0 {
		recent, changed = recent[1:], true
		o = render()
	}
	for i := 0; world != nil && over(o) && i < len(world.NPCs); i++ {
		world.NPCs[len(world.NPCs)-1-i].StatBlock = ""
		o = render()
	}
	return o
}
