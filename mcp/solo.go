package mcp

import (
	"context"
	"fmt"
	"strings"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/adventure-table/adventure-table/gameplay/limits"
	"github.com/adventure-table/adventure-table/gameplay/narrative"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// The solo door: a solo grant's token plays one adventure (adventureTools)
// or works on one scenario (scenarioTools) of its owner's. Each tool is one
// call of the narrative service the web app's solo routes call, with the
// owner and the grant's adventure or scenario; no tool takes an adventure
// id, and every id a tool does take (a turn, a card, a memory, a branch) is
// checked by the service to belong to that adventure.

const adventureInstructions = "Adventure Table: a solo interactive story narrated by a language model. " +
	"Your token plays one adventure: read_story, then take_turn; the narration streams as progress notifications and ends in the result."

const scenarioInstructions = "Adventure Table: a scenario for solo interactive stories. " +
	"Your token works on one scenario: get_scenario, then draft story cards with scenario_cards and try its scripts with test_scripts."

// Inputs of the solo tools.
type (
	storyInput struct {
		Before int `json:"before,omitempty" jsonschema:"older turns: the older cursor of the previous page; omit for the newest"`
		Limit  int `json:"limit,omitempty" jsonschema:"turns per page, 1-50, default 20"`
	}
	turnInput struct {
		Mode string `json:"mode,omitempty" jsonschema:"default do"`
		Text string `json:"text,omitempty" jsonschema:"≤4000 chars; empty only for continue"`
	}
	turnIDInput struct {
		ActionID int64 `json:"action_id" jsonschema:"a turn's id (read_story)"`
	}
	branchesInput struct {
		Action   string `json:"action,omitempty" jsonschema:"default list"`
		ActionID int64  `json:"action_id,omitempty" jsonschema:"fork: the turn the new branch starts after"`
		BranchID int64  `json:"branch_id,omitempty" jsonschema:"switch"`
	}
	cardsInput struct {
		Action  string   `json:"action,omitempty" jsonschema:"default list"`
		CardID  int64    `json:"card_id,omitempty" jsonschema:"edit"`
		Title   *string  `json:"title,omitempty" jsonschema:"add (required), edit"`
		Keys    []string `json:"keys,omitempty" jsonschema:"trigger words; add, edit"`
		Entry   *string  `json:"entry,omitempty" jsonschema:"≤4000 chars; add, edit"`
		Type    *string  `json:"type,omitempty" jsonschema:"character, location, item, lore…"`
		Enabled *bool    `json:"enabled,omitempty" jsonschema:"edit: false sets it aside"`
	}
	scenarioCardsInput struct {
		Action string   `json:"action"`
		CardID int64    `json:"card_id,omitempty" jsonschema:"edit, delete"`
		Title  string   `json:"title,omitempty" jsonschema:"add, edit: the whole card"`
		Keys   []string `json:"keys,omitempty"`
		Entry  string   `json:"entry,omitempty" jsonschema:"≤4000 chars"`
		Type   string   `json:"type,omitempty"`
	}
	insightsInput struct {
		ActionID      int64 `json:"action_id" jsonschema:"a narration's id"`
		IncludePrompt bool  `json:"include_prompt,omitempty" jsonschema:"also the exact messages sent"`
	}
	memoriesInput struct {
		Action   string `json:"action,omitempty" jsonschema:"default list"`
		MemoryID int64  `json:"memory_id,omitempty" jsonschema:"pin, unpin, forget, restore"`
		Text     string `json:"text,omitempty" jsonschema:"add: ≤1000 chars"`
	}
	scriptsInput struct {
		Text  string             `json:"text,omitempty" jsonschema:"the player's action the input hook gets; omit for a sample"`
		Draft *narrative.Scripts `json:"draft,omitempty" jsonschema:"try these scripts instead of the stored ones"`
	}
)

func (turnInput) enums() map[string][]any {
	return map[string][]any{"mode": {narrative.ModeDo, narrative.ModeSay, narrative.ModeStory, narrative.ModeContinue}}
}

func (branchesInput) enums() map[string][]any {
	return map[string][]any{"action": {"list", "fork", "switch"}}
}

func (cardsInput) enums() map[string][]any {
	return map[string][]any{"action": {"list", "add", "edit"}}
}

func (scenarioCardsInput) enums() map[string][]any {
	return map[string][]any{"action": {"add", "edit", "delete"}}
}

func (memoriesInput) enums() map[string][]any {
	return map[string][]any{"action": {"list", "add", "pin", "unpin", "forget", "restore"}}
}

// Results of the solo tools: compact, like the table's events.
type (
	// StoryTurn is one node of the story.
	StoryTurn struct {
		ID      int64   `json:"id"`
		Depth   int     `json:"depth"`
		Kind    string  `json:"kind" jsonschema:"opening, player or narration"`
		Mode    string  `json:"mode,omitempty"`
		Text    string  `json:"text"`
		Take    string  `json:"take,omitempty" jsonschema:"this take of several, e.g. 2/3 (switch_take)"`
		TakeIDs []int64 `json:"take_ids,omitempty"`
		Stopped bool    `json:"stopped,omitempty"`
	}
	// Story is a page of the line being played, newest last.
	Story struct {
		Title          string      `json:"title,omitempty"`
		Protagonist    string      `json:"protagonist,omitempty"`
		State          string      `json:"state,omitempty" jsonschema:"the world state in one line"`
		BranchID       int64       `json:"branch_id,omitempty"`
		TurnInProgress bool        `json:"turn_in_progress,omitempty"`
		Turns          []StoryTurn `json:"turns"`
		Older          int         `json:"older,omitempty" jsonschema:"read_story before=this for older turns; absent at the start"`
	}
	// Narrated is a turn played: the player's move and the narration.
	Narrated struct {
		Player    *StoryTurn `json:"player,omitempty"`
		Narration StoryTurn  `json:"narration"`
		State     string     `json:"state,omitempty"`
		Notices   []string   `json:"notices,omitempty" jsonschema:"messages from the scenario's scripts"`
	}
	// Branches lists the adventure's branches.
	Branches struct {
		Branches []BranchRow `json:"branches"`
	}
	BranchRow struct {
		ID        int64  `json:"id"`
		Name      string `json:"name"`
		ForkDepth int    `json:"fork_depth"`
		TipDepth  int    `json:"tip_depth"`
		Playing   bool   `json:"playing,omitempty"`
	}
	// StoryCards are the cards of the line being played.
	StoryCards struct {
		Cards []StoryCard `json:"cards"`
	}
	StoryCard struct {
		ID      int64    `json:"id"`
		Title   string   `json:"title"`
		Keys    []string `json:"keys,omitempty"`
		Type    string   `json:"type,omitempty"`
		Entry   string   `json:"entry"`
		Off     bool     `json:"off,omitempty" jsonschema:"set aside"`
		LastIn  bool     `json:"last_in,omitempty" jsonschema:"in the newest narration's prompt"`
		Trigger string   `json:"trigger,omitempty" jsonschema:"the key that named it then"`
	}
	// PromptReport is what went into one narration's prompt.
	PromptReport struct {
		ActionID    int64           `json:"action_id"`
		Budget      int             `json:"budget,omitempty"`
		TotalTokens int             `json:"total_tokens,omitempty"`
		Sections    []PromptSection `json:"sections"`
		Cards       []PromptCard    `json:"cards,omitempty"`
		Memories    []PromptMemory  `json:"memories,omitempty"`
		Usage       narrative.Usage `json:"usage"`
		Expired     bool            `json:"expired,omitempty" jsonschema:"the prompt was dropped by retention"`
		Messages    []PromptMessage `json:"messages,omitempty"`
		History     int             `json:"history_turns,omitempty"`
	}
	PromptSection struct {
		Name   string `json:"name"`
		Tokens int    `json:"tokens"`
	}
	PromptCard struct {
		Title    string `json:"title"`
		Trigger  string `json:"trigger,omitempty"`
		Tokens   int    `json:"tokens"`
		Included bool   `json:"included"`
	}
	PromptMemory struct {
		ID     int64   `json:"id"`
		Text   string  `json:"text"`
		Scorer string  `json:"scorer"`
		Score  float64 `json:"score"`
	}
	PromptMessage struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	}
	// Memories is the memory bank of the line being played.
	Memories struct {
		Summary  string      `json:"summary,omitempty"`
		Memories []MemoryRow `json:"memories"`
	}
	MemoryRow struct {
		ID        int64  `json:"id"`
		Kind      string `json:"kind" jsonschema:"block, note or summary"`
		Text      string `json:"text"`
		Depth     int    `json:"depth"`
		Pinned    bool   `json:"pinned,omitempty"`
		Forgotten bool   `json:"forgotten,omitempty"`
		LastIn    bool   `json:"last_in,omitempty" jsonschema:"in the newest narration's prompt"`
	}
	// ScriptRun is what each hook did in one test run.
	ScriptRun struct {
		Hooks []HookRun `json:"hooks"`
	}
	HookRun struct {
		Hook    string       `json:"hook" jsonschema:"library, input, context or output"`
		Text    string       `json:"text" jsonschema:"the text the hook left"`
		Stop    bool         `json:"stop,omitempty" jsonschema:"the hook stopped the action"`
		Message string       `json:"message,omitempty" jsonschema:"state.message"`
		Logs    []string     `json:"logs,omitempty" jsonschema:"its log() lines"`
		Failure *HookFailure `json:"failure,omitempty"`
	}
	HookFailure struct {
		Kind        string `json:"kind" jsonschema:"throw, timeout, memory, compile, empty, canceled or internal"`
		Message     string `json:"message"`
		Line        int    `json:"line,omitempty" jsonschema:"in the hook's script"`
		LibraryLine int    `json:"library_line,omitempty" jsonschema:"in the Library"`
	}
	// ScenarioCard is one story card of a scenario.
	ScenarioCard struct {
		ID    int64    `json:"id"`
		Title string   `json:"title"`
		Keys  []string `json:"keys,omitempty"`
		Type  string   `json:"type,omitempty"`
		Entry string   `json:"entry"`
	}
	// ScenarioSheet is a scenario as its writer sees it.
	ScenarioSheet struct {
		ID             int64          `json:"id"`
		Title          string         `json:"title"`
		Premise        string         `json:"premise,omitempty"`
		PlotEssentials string         `json:"plot_essentials,omitempty"`
		AIInstructions string         `json:"ai_instructions,omitempty"`
		AuthorsNote    string         `json:"authors_note,omitempty"`
		Opening        string         `json:"opening,omitempty"`
		Cards          []ScenarioCard `json:"cards"`
		Scripts        []string       `json:"scripts,omitempty" jsonschema:"the hooks that have a script: library, input, context, output"`
	}
)

// soloTool builds a tool for a solo grant's token: call gets the agent.
func soloTool[In, Out any](name, title string, h hints, description string, call func(ctx context.Context, n *narrative.Service, a narrative.SoloAgent, in In) (Out, error)) tool {
	return soloToolWith(name, title, h, description, func(ctx context.Context, d toolDeps, a narrative.SoloAgent, in In) (Out, error) {
		return call(ctx, d.narrative, a, in)
	})
}

// soloToolWith is soloTool for a call that needs the tool's dependencies
// (turnCost).
func soloToolWith[In, Out any](name, title string, h hints, description string, call func(ctx context.Context, d toolDeps, a narrative.SoloAgent, in In) (Out, error)) tool {
	return newTool(name, title, h, description, func(ctx context.Context, d toolDeps, p Principal, in In) (Out, error) {
		if p.Solo == nil || d.narrative == nil {
			var zero Out
			return zero, apperr.E(apperr.AITokenInvalid, "This tool needs a solo story's token.")
		}
		return call(ctx, d, *p.Solo, in)
	})
}

// turnCost makes a call spend the owner's turn budget first, as the web
// app's turn, retry and script-test routes do (one budget for both doors).
func turnCost[In, Out any](call func(ctx context.Context, n *narrative.Service, a narrative.SoloAgent, in In) (Out, error)) func(context.Context, toolDeps, narrative.SoloAgent, In) (Out, error) {
	return func(ctx context.Context, d toolDeps, a narrative.SoloAgent, in In) (Out, error) {
		if err := d.limits.Allow(limits.Turn, limits.UserKey(a.UserID)); err != nil {
			var zero Out
			return zero, err
		}
		return call(ctx, d.narrative, a, in)
	}
}

// pageTurns is how many turns a change (undo, fork, a take) answers with:
// enough to see where the story now stands.
const pageTurns = 6

func storyTurn(v narrative.ActionView) StoryTurn {
	t := StoryTurn{ID: v.ID, Depth: v.Depth, Kind: v.Kind, Mode: v.Mode, Text: v.Text, Stopped: v.Stopped}
	if v.Takes.Count > 1 {
		t.Take, t.TakeIDs = fmt.Sprintf("%d/%d", v.Takes.Index, v.Takes.Count), v.Takes.IDs
	}
	return t
}

func storyOf(p narrative.AdventurePage, keep int) Story {
	a := p.Adventure
	s := Story{Title: a.Title, Protagonist: a.PersonaName, State: a.StateLine, BranchID: a.HeadBranchID, TurnInProgress: a.TurnInProgress}
	turns, more := p.Story, p.HasMore
	if keep > 0 && len(turns) > keep {
		turns, more = turns[len(turns)-keep:], true
	}
	s.Turns = make([]StoryTurn, len(turns))
	for i, v := range turns {
		s.Turns[i] = storyTurn(v)
	}
	if more && len(turns) > 0 {
		s.Older = turns[0].Depth
	}
	return s
}

// progressKey carries, for a call whose client asked for progress, the
// function that sends a progress notification.
type progressKey struct{}

type progressFunc func(ctx context.Context, message string)

// withProgress returns ctx with a progress sender for the request's token:
// each message goes out as notifications/progress with a growing count.
func withProgress(ctx context.Context, session *mcpsdk.ServerSession, token any) context.Context {
	n := 0.0
	send := func(ctx context.Context, message string) {
		n++
		// A client gone mid-turn does not stop the turn: it is saved.
		_ = session.NotifyProgress(ctx, &mcpsdk.ProgressNotificationParams{ProgressToken: token, Progress: n, Message: message})
	}
	return context.WithValue(ctx, progressKey{}, progressFunc(send))
}

// runTurn runs a started turn to its end, sending each piece of the
// narration as progress, and answers the turn played.
func runTurn(ctx context.Context, t *narrative.Turn) (Narrated, error) {
	progress, _ := ctx.Value(progressKey{}).(progressFunc)
	var out Narrated
	var failed error
	t.Run(ctx, func(ev narrative.Event) {
		switch ev.Type {
		case narrative.EventPlayer:
			if ev.Action != nil {
				p := storyTurn(*ev.Action)
				out.Player = &p
			}
		case narrative.EventChunk:
			if progress != nil && ev.Text != "" {
				progress(ctx, ev.Text)
			}
		case narrative.EventError:
			failed = apperr.E(apperr.Code(ev.Code), "%s", ev.Message)
		case narrative.EventDone:
			if ev.Action != nil {
				out.Narration = storyTurn(*ev.Action)
			}
			if ev.Adventure != nil {
				out.State = ev.Adventure.StateLine
			}
			for _, n := range ev.Notices {
				out.Notices = append(out.Notices, n.Text)
			}
		}
	})
	if failed != nil {
		return Narrated{}, failed
	}
	return out, nil
}

func branchRows(l narrative.BranchList) Branches {
	out := Branches{Branches: make([]BranchRow, len(l.Branches))}
	for i, b := range l.Branches {
		out.Branches[i] = BranchRow{ID: b.ID, Name: b.Name, ForkDepth: b.ForkDepth, TipDepth: b.TipDepth, Playing: b.IsHead}
	}
	return out
}

func storyCards(c narrative.PlayCards) StoryCards {
	out := StoryCards{Cards: make([]StoryCard, len(c.Cards))}
	for i, pc := range c.Cards {
		sc := StoryCard{ID: pc.ID, Title: pc.Title, Keys: pc.Keys, Type: pc.Type, Entry: pc.Entry, Off: !pc.Enabled}
		if pc.LastTurn != nil {
			sc.LastIn, sc.Trigger = pc.LastTurn.Included, pc.LastTurn.Trigger
		}
		out.Cards[i] = sc
	}
	return out
}

func memoryRow(m narrative.MemoryView) MemoryRow {
	return MemoryRow{ID: m.ID, Kind: m.Kind, Text: m.Text, Depth: m.Depth, Pinned: m.Pinned, Forgotten: m.Forgotten, LastIn: m.UsedLastTurn}
}

func promptReport(in narrative.Insights, withPrompt bool) PromptReport {
	r := PromptReport{ActionID: in.ActionID, Budget: in.Budget, TotalTokens: in.TotalTokens, Usage: in.Usage, Expired: in.Expired,
		History: in.HistoryTurns, Sections: make([]PromptSection, len(in.Sections))}
	for i, s := range in.Sections {
		r.Sections[i] = PromptSection{Name: s.Name, Tokens: s.Tokens}
	}
	for _, c := range in.Cards {
		r.Cards = append(r.Cards, PromptCard{Title: c.Title, Trigger: c.Trigger, Tokens: c.Tokens, Included: c.Included})
	}
	for _, m := range in.Memories {
		r.Memories = append(r.Memories, PromptMemory{ID: m.ID, Text: m.Text, Scorer: m.Scorer, Score: m.Score})
	}
	if withPrompt {
		for _, m := range in.Messages {
			r.Messages = append(r.Messages, PromptMessage{Role: m.Role, Content: m.Content})
		}
	}
	return r
}

func scenarioSheet(v narrative.ScenarioView) ScenarioSheet {
	out := ScenarioSheet{ID: v.ID, Title: v.Title, Premise: v.Premise, PlotEssentials: v.PlotEssentials, AIInstructions: v.AIInstructions,
		AuthorsNote: v.AuthorsNote, Opening: v.Opening, Cards: make([]ScenarioCard, len(v.Cards))}
	for i, c := range v.Cards {
		out.Cards[i] = ScenarioCard{ID: c.ID, Title: c.Title, Keys: c.Keys, Type: c.Type, Entry: c.Entry}
	}
	// In hook order, so the answer is the same every time.
	for _, h := range []struct{ hook, script string }{{"library", v.Scripts.Library}, {"input", v.Scripts.Input}, {"context", v.Scripts.Context}, {"output", v.Scripts.Output}} {
		if strings.TrimSpace(h.script) != "" {
			out.Scripts = append(out.Scripts, h.hook)
		}
	}
	return out
}

// testScripts is the one test_scripts tool of both kinds of solo grant:
// the scripts of the grant's adventure or scenario, or a draft of them.
var testScripts = soloToolWith("test_scripts", "Test the scripts", read,
	"Run the scripts once against a sample story as a turn would (Library, then input, context and output hooks) and see what each did: text, log() lines, state.message, errors with their line. Nothing is stored.",
	turnCost(func(ctx context.Context, n *narrative.Service, a narrative.SoloAgent, in scriptsInput) (ScriptRun, error) {
		r, err := n.TestStoredScripts(ctx, a.UserID, narrative.StoredScriptTest{AdventureID: a.AdventureID, ScenarioID: a.ScenarioID, Text: in.Text, Draft: in.Draft})
		out := ScriptRun{Hooks: make([]HookRun, len(r.Hooks))}
		for i, h := range r.Hooks {
			out.Hooks[i] = HookRun{Hook: h.Hook, Text: h.Text, Stop: h.Stop, Message: h.Message, Logs: h.Logs}
			if e := h.Error; e != nil {
				out.Hooks[i].Failure = &HookFailure{Kind: e.Kind, Message: e.Message, Line: e.Line, LibraryLine: e.LibraryLine}
			}
		}
		return out, err
	}))

// adventureTools play one adventure: each is one call of the narrative
// service, as the play screen makes it.
var adventureTools = []tool{
	soloTool("read_story", "Read the story", read,
		"Start here. The adventure (title, protagonist, world state) and the story being played, newest last, a page at a time (older for the page before). Turn ids are what the other tools take.",
		func(ctx context.Context, n *narrative.Service, a narrative.SoloAgent, in storyInput) (Story, error) {
			limit := in.Limit
			if limit == 0 {
				limit = 20
			}
			if limit < 1 || limit > 50 {
				return Story{}, apperr.E(apperr.InvalidRequest, "limit is 1 to 50.").WithField("limit", "1-50")
			}
			if in.Before == 0 {
				p, err := n.GetAdventure(ctx, a.UserID, a.AdventureID)
				return storyOf(p, limit), err
			}
			p, err := n.GetStory(ctx, a.UserID, a.AdventureID, in.Before, limit)
			if err != nil {
				return Story{}, err
			}
			return storyOf(narrative.AdventurePage{Story: p.Story, HasMore: p.HasMore}, 0), nil
		}),
	soloToolWith("take_turn", "Take a turn", write,
		"Play a turn: do (an action), say (your character speaks), story (write the next lines yourself) or continue (no text: the narrator goes on). The narration streams as progress notifications and the result holds it whole. turn_in_progress: another turn is being written; wait and read_story.",
		turnCost(func(ctx context.Context, n *narrative.Service, a narrative.SoloAgent, in turnInput) (Narrated, error) {
			mode := in.Mode
			if mode == "" {
				mode = narrative.ModeDo
			}
			t, err := n.StartTurn(ctx, a.UserID, a.AdventureID, narrative.TurnInput{Mode: mode, Text: in.Text})
			if err != nil {
				return Narrated{}, err
			}
			return runTurn(ctx, t)
		})),
	soloToolWith("retry", "Retry the narration", write,
		"Write a new take of the newest narration (the old one stays as another take; switch_take goes back). Streams like take_turn.",
		turnCost(func(ctx context.Context, n *narrative.Service, a narrative.SoloAgent, _ noInput) (Narrated, error) {
			t, err := n.StartRetry(ctx, a.UserID, a.AdventureID)
			if err != nil {
				return Narrated{}, err
			}
			return runTurn(ctx, t)
		})),
	soloTool("undo", "Undo the newest turn", destructive,
		"Remove the newest turn; the world state rewinds to the turn before.",
		func(ctx context.Context, n *narrative.Service, a narrative.SoloAgent, _ noInput) (Story, error) {
			p, err := n.Undo(ctx, a.UserID, a.AdventureID)
			return storyOf(p, pageTurns), err
		}),
	soloTool("switch_take", "Switch take", idempotent,
		"Stand on another take of a turn (its take_ids); the story goes on from there.",
		func(ctx context.Context, n *narrative.Service, a narrative.SoloAgent, in turnIDInput) (Story, error) {
			p, err := n.SelectTake(ctx, a.UserID, a.AdventureID, in.ActionID)
			return storyOf(p, pageTurns), err
		}),
	soloTool("branches", "Branches", write,
		"list the story's branches; fork a new branch after a turn of the story being played (action_id) and play on there; switch to another branch (branch_id).",
		func(ctx context.Context, n *narrative.Service, a narrative.SoloAgent, in branchesInput) (Branches, error) {
			var err error
			switch in.Action {
			case "", "list":
			case "fork":
				_, err = n.Fork(ctx, a.UserID, a.AdventureID, in.ActionID)
			case "switch":
				_, err = n.SwitchBranch(ctx, a.UserID, a.AdventureID, in.BranchID)
			default:
				err = apperr.E(apperr.InvalidRequest, "Unknown action %q.", in.Action).WithField("action", "list, fork or switch")
			}
			if err != nil {
				return Branches{}, err
			}
			l, err := n.ListBranches(ctx, a.UserID, a.AdventureID)
			return branchRows(l), err
		}),
	soloTool("story_cards", "Story cards", write,
		"The story cards (lore the narrator reads when a key word comes up) of the story being played, and whether the newest prompt held each. add one (title, keys, entry, type) or edit one (card_id and what changes).",
		func(ctx context.Context, n *narrative.Service, a narrative.SoloAgent, in cardsInput) (StoryCards, error) {
			var err error
			switch in.Action {
			case "", "list":
			case "add":
				c := narrative.CardInput{Keys: in.Keys}
				if in.Title != nil {
					c.Title = *in.Title
				}
				if in.Entry != nil {
					c.Entry = *in.Entry
				}
				if in.Type != nil {
					c.Type = *in.Type
				}
				if c.Keys == nil {
					c.Keys = []string{}
				}
				_, err = n.AddCard(ctx, a.UserID, a.AdventureID, c)
			case "edit":
				_, err = n.ChangeCard(ctx, a.UserID, a.AdventureID, in.CardID, narrative.CardEdit{Title: in.Title, Keys: in.Keys, Entry: in.Entry, Type: in.Type, Enabled: in.Enabled})
			default:
				err = apperr.E(apperr.InvalidRequest, "Unknown action %q.", in.Action).WithField("action", "list, add or edit")
			}
			if err != nil {
				return StoryCards{}, err
			}
			c, err := n.ListCards(ctx, a.UserID, a.AdventureID)
			return storyCards(c), err
		}),
	soloTool("insights", "Prompt insights", read,
		"What went into a narration's prompt: token budget by section, the story cards and memories it held, the provider's usage; include_prompt for the exact messages.",
		func(ctx context.Context, n *narrative.Service, a narrative.SoloAgent, in insightsInput) (PromptReport, error) {
			v, err := n.AdventureInsights(ctx, a.UserID, a.AdventureID, in.ActionID)
			return promptReport(v, in.IncludePrompt), err
		}),
	soloTool("memories", "Memories", write,
		"The memory bank of the story being played (what the narrator recalls of older turns) and its running summary. add a note; pin one so it is always recalled, unpin, forget it, restore it.",
		func(ctx context.Context, n *narrative.Service, a narrative.SoloAgent, in memoriesInput) (Memories, error) {
			yes, no := true, false
			var err error
			switch in.Action {
			case "", "list":
			case "add":
				_, err = n.AddMemory(ctx, a.UserID, a.AdventureID, narrative.MemoryInput{Text: in.Text})
			case "pin", "unpin", "forget", "restore":
				var ch narrative.MemoryChange
				switch in.Action {
				case "pin":
					ch.Pinned = &yes
				case "unpin":
					ch.Pinned = &no
				case "forget":
					ch.Forgotten = &yes
				default:
					ch.Forgotten = &no
				}
				_, err = n.ChangeMemory(ctx, a.UserID, a.AdventureID, in.MemoryID, ch)
			default:
				err = apperr.E(apperr.InvalidRequest, "Unknown action %q.", in.Action).WithField("action", "list, add, pin, unpin, forget or restore")
			}
			if err != nil {
				return Memories{}, err
			}
			b, err := n.GetMemoryBank(ctx, a.UserID, a.AdventureID)
			if err != nil {
				return Memories{}, err
			}
			out := Memories{Memories: make([]MemoryRow, len(b.Memories))}
			for i, m := range b.Memories {
				out.Memories[i] = memoryRow(m)
			}
			if b.Summary != nil {
				out.Summary = b.Summary.Text
			}
			return out, nil
		}),
	testScripts,
}

// scenarioTools work on one scenario: a writer's assistant reads it, drafts
// its story cards one at a time and tries its scripts.
var scenarioTools = []tool{
	soloTool("get_scenario", "Read the scenario", read,
		"Start here. The scenario: premise, plot essentials, instructions for the narrator, author's note, opening, its story cards and which scripts it has.",
		func(ctx context.Context, n *narrative.Service, a narrative.SoloAgent, _ noInput) (ScenarioSheet, error) {
			v, err := n.GetScenario(ctx, a.UserID, a.ScenarioID)
			return scenarioSheet(v), err
		}),
	soloTool("scenario_cards", "Scenario story cards", write,
		"add a story card (title, keys: the words that bring it into the prompt, entry: what the narrator reads, type), edit one (card_id and the whole card) or delete one (card_id). Answers the scenario.",
		func(ctx context.Context, n *narrative.Service, a narrative.SoloAgent, in scenarioCardsInput) (ScenarioSheet, error) {
			keys := in.Keys
			if keys == nil {
				keys = []string{}
			}
			v, err := n.ChangeScenarioCard(ctx, a.UserID, a.ScenarioID, narrative.ScenarioCardChange{Action: in.Action, CardID: in.CardID,
				Card: narrative.CardInput{Title: in.Title, Keys: keys, Entry: in.Entry, Type: in.Type}})
			return scenarioSheet(v), err
		}),
	testScripts,
}

// addSoloPrompts add the co-writing brief to the solo servers.
func addSoloPrompts(adventure, scenario *mcpsdk.Server) {
	for _, s := range []*mcpsdk.Server{adventure, scenario} {
		text := coWriteAdventure
		if s == scenario {
			text = coWriteScenario
		}
		s.AddPrompt(&mcpsdk.Prompt{Name: "brief_cowriter", Description: "How to play, co-write and test an Adventure Table story"},
			func(ctx context.Context, req *mcpsdk.GetPromptRequest) (*mcpsdk.GetPromptResult, error) {
				return &mcpsdk.GetPromptResult{Description: "Co-writing brief", Messages: []*mcpsdk.PromptMessage{
					{Role: "user", Content: &mcpsdk.TextContent{Text: text}}}}, nil
			})
	}
}

const coWriteAdventure = "You are co-writing a solo interactive story with its author. A language model narrates; you play the protagonist and help the author shape the world. " +
	"Begin with read_story. Play with take_turn: do for actions, say for speech, story to write lines yourself, continue to let the narrator go on; keep each move short and in the story's voice. " +
	"If a narration misses, retry it (the old take stays: switch_take returns to it), or undo your move. Try a different direction with branches fork and come back with branches switch. " +
	"When the narrator forgets or contradicts the world, look at insights for that narration: which story cards and memories its prompt held. " +
	"Fix lore with story_cards (a card enters the prompt when one of its keys appears in recent text), keep a fact with memories add or pin. " +
	"test_scripts runs the adventure's scripts on a sample turn. Tell the author what you changed and why."

const coWriteScenario = "You help an author write a scenario for solo interactive stories. Begin with get_scenario and read it whole. " +
	"Draft story cards with scenario_cards add: one card per character, place, item or faction; a short entry in present tense that a narrator can use; " +
	"keys are the words that bring the card into the prompt (names, nicknames, distinctive nouns), not common words. Edit a card with its whole new text; delete duplicates. " +
	"Run test_scripts after any change to the scripts, or with a draft, and report each hook's errors with their lines. Tell the author what you changed and why."
