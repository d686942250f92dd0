package mcp

import (
	"context"
	"encoding/json"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// renamedTool is where a tool of the earlier, 24-tool surface went: the
// tool that does it now and the arguments that pick that behaviour.
type renamedTool struct {
	tool string
	// set are arguments the old name implies (kind, action, timeout).
	set map[string]any
	// drop are arguments the new tool no longer takes.
	drop []string
}

// renamed lets agents, prompts and scripts written for the earlier tool
// names keep working: combat merged tools so that the list stays inside
// its byte budget. The old names are not listed (they would cost that
// budget again); a call to one is the call of the tool it became, with the
// result of that tool.
var renamed = map[string]renamedTool{
	"post_dialogue":       {tool: "post_message"},
	"post_action":         {tool: "post_message", set: map[string]any{"kind": "action"}},
	"post_ooc":            {tool: "post_message", set: map[string]any{"kind": "ooc"}},
	"whisper":             {tool: "post_message", set: map[string]any{"kind": "whisper"}},
	"get_events":          {tool: "wait_for_event", set: map[string]any{"timeout_seconds": 0}, drop: []string{"limit"}},
	"start_session":       {tool: "session", set: map[string]any{"action": "start"}},
	"admit_seat":          {tool: "session", set: map[string]any{"action": "admit"}},
	"end_session":         {tool: "session", set: map[string]any{"action": "end"}},
	"open_action_window":  {tool: "action_window"},
	"close_action_window": {tool: "action_window"},
	"run_encounter":       {tool: "fight"},
}

// followRenames is the server middleware that turns a call of an old name
// into the call of its tool. Arguments that are not a JSON object are left
// for the tool to refuse.
func followRenames(next mcpsdk.MethodHandler) mcpsdk.MethodHandler {
	return func(ctx context.Context, method string, req mcpsdk.Request) (mcpsdk.Result, error) {
		if call, ok := req.(*mcpsdk.CallToolRequest); ok && method == "tools/call" && call.Params != nil {
			if to, ok := renamed[call.Params.Name]; ok {
				var args map[string]json.RawMessage
				if len(call.Params.Arguments) == 0 || json.Unmarshal(call.Params.Arguments, &args) == nil {
					if args == nil {
						args = map[string]json.RawMessage{}
					}
					for _, name := range to.drop {
						delete(args, name)
					}
					for name, v := range to.set {
						args[name], _ = json.Marshal(v)
					}
					raw, _ := json.Marshal(args)
					call.Params.Name, call.Params.Arguments = to.tool, raw
				}
			}
		}
		return next(ctx, method, req)
	}
}
