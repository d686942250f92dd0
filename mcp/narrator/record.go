package narrator

import (
	"slices"

	"github.com/adventure-table/adventure-table/gameplay/llm"
	"github.com/adventure-table/adventure-table/gameplay/narrative/prompt"
	"github.com/adventure-table/adventure-table/gameplay/table"
)

// A step's record, for the Insights of those who direct the narrator: what
// its prompt held section by section (tokens counted as the solo context
// engine counts them), the exact messages, and the tools it was offered.

// Section names, in the order a prompt holds them.
const (
	sectionInstructions = "instructions"
	sectionTools        = "tool definitions"
	sectionTable        = "the table (get_session_context)"
	sectionWorld        = "the campaign's world"
	sectionReplies      = "the model's replies and calls"
	sectionResults      = "tool results"
	sectionReviews      = "reviews"
)

// stepRecord is the record of st's conversation.
func stepRecord(st *stepState) *table.NarratorStepRecord {
	rec := table.NarratorStepRecord{Sections: []table.PromptSection{}, Messages: []table.StepMessage{}, Tools: []string{}}
	tokens := map[string]int{}
	for _, t := range st.offered {
		rec.Tools = append(rec.Tools, t.Name)
	}
	tokens[sectionTools] = toolTokens(st.offered)
	for i, m := range st.msgs {
		rm := table.StepMessage{Role: m.Role, Content: m.Content, ToolCallID: m.ToolCallID}
		n := prompt.Count(m.Content)
		for _, c := range m.ToolCalls {
			rm.ToolCalls = append(rm.ToolCalls, table.StepCall(c))
			n += prompt.Count(c.Name + " " + c.Arguments)
		}
		rec.Messages = append(rec.Messages, rm)
		switch {
		case m.Role == llm.RoleSystem:
			tokens[sectionInstructions] += n
		case m.Role == llm.RoleUser && i == 1:
			tokens[sectionTable] += n
		case st.world > 0 && i == st.world:
			tokens[sectionWorld] += n
		case m.Role == llm.RoleAssistant:
			tokens[sectionReplies] += n
		case slices.Contains(st.reviews, i):
			tokens[sectionReviews] += n
		default: // tool messages, and fenced blocks' results as user messages
			tokens[sectionResults] += n
		}
	}
	for _, name := range []string{sectionInstructions, sectionTools, sectionTable, sectionWorld, sectionReplies, sectionResults, sectionReviews} {
		if tokens[name] > 0 {
			rec.Sections = append(rec.Sections, table.PromptSection{Name: name, Tokens: tokens[name]})
		}
	}
	return &rec
}
