package narrator

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/adventure-table/adventure-table/gameplay/llm"
)

// A model without native tool calling writes its calls as fenced blocks:
//
//	```action
//	{"tool": "request_check", "arguments": {"skill": "perception", "dc": 14}}
//	```
//
// A block may hold one call or a list of them; "name" is accepted for
// "tool", and "args" or "parameters" for "arguments". A block that does not
// parse is left in the text (the model said it; nothing is called).
var actionFence = regexp.MustCompile("(?s)```(?:action|tool|tool_call|json)[ \t]*\r?\n(.*?)```")

type blockCall struct {
	Tool       string          `json:"tool"`
	Name       string          `json:"name"`
	Arguments  json.RawMessage `json:"arguments"`
	Args       json.RawMessage `json:"args"`
	Parameters json.RawMessage `json:"parameters"`
}

func (b blockCall) call() (llm.ToolCall, bool) {
	name := strings.TrimSpace(b.Tool)
	if name == "" {
		name = strings.TrimSpace(b.Name)
	}
	args := b.Arguments
	for _, alt := range []json.RawMessage{b.Args, b.Parameters} {
		if len(args) == 0 {
			args = alt
		}
	}
	if name == "" {
		return llm.ToolCall{}, false
	}
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	// Some models write the arguments as a JSON string.
	var asString string
	if json.Unmarshal(args, &asString) == nil {
		args = json.RawMessage(asString)
	}
	return llm.ToolCall{Name: name, Arguments: string(args)}, true
}

// actionBlocks takes the calls out of fenced action blocks and returns the
// text without them.
func actionBlocks(text string) ([]llm.ToolCall, string) {
	var calls []llm.ToolCall
	rest := actionFence.ReplaceAllStringFunc(text, func(block string) string {
		body := actionFence.FindStringSubmatch(block)[1]
		var one blockCall
		var many []blockCall
		found := false
		if json.Unmarshal([]byte(body), &many) == nil {
			for _, b := range many {
				if c, ok := b.call(); ok {
					calls, found = append(calls, c), true
				}
			}
		} else if json.Unmarshal([]byte(body), &one) == nil {
			if c, ok := one.call(); ok {
				calls, found = append(calls, c), true
			}
		}
		if !found {
			return block
		}
		return ""
	})
	for i := range calls {
		calls[i].ID = fmt.Sprintf("block-%d", i+1)
	}
	return calls, strings.TrimSpace(rest)
}
