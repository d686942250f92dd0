package narrative

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/adventure-table/adventure-table/gameplay/analytics"
	"github.com/adventure-table/adventure-table/gameplay/llm"
	"github.com/adventure-table/adventure-table/gameplay/narrative/prompt"
	"github.com/adventure-table/adventure-table/gameplay/scripting"
	"github.com/adventure-table/adventure-table/models"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// Turn modes.
const (
	ModeDo       = "do"
	ModeSay      = "say"
	ModeStory    = "story"
	ModeContinue = "continue"
)

// maxTurnText bounds what a player types in one turn.
const maxTurnText = 4000

// Stream event types (seed §2.10).
const (
	EventPlayer    = "player"
	EventReasoning = "reasoning"
	EventChunk     = "chunk"
	EventStopped   = "stopped"
	EventError     = "error"
	EventDone      = "done"
)

// Event is one server-sent event of a turn.
type Event struct {
	Type      string         `json:"type"`
	Text      string         `json:"text,omitempty"`
	Reason    string         `json:"reason,omitempty"`
	Code      string         `json:"code,omitempty"`
	Message   string         `json:"message,omitempty"`
	Action    *ActionView    `json:"action,omitempty"`
	Adventure *AdventureView `json:"adventure,omitempty"`
	// Notices are messages for the player from scripts (state.message, or
	// a script failure the turn continued without), on done and error.
	Notices []Notice `json:"notices,omitempty"`
}

// Notice codes: what a notice says, for the web app to write in the
// reader's language.
const (
	// NoticeScriptMessage is a script's state.message: the script's own
	// words, in params.text (never translated).
	NoticeScriptMessage = "script.message"
	// NoticeScriptError is a script that failed and was skipped; params
	// hook (input, context or output), kind (error, timeout, memory) and
	// error (the script's error text).
	NoticeScriptError = "script.error"
)

// Notice is one message for the player. Code says what it is and Params
// fill it in; Text is the same in English, for clients that do not
// translate.
type Notice struct {
	Code   string            `json:"code" jsonschema:"script.message (params.text: the script's own words) or script.error (params.hook, params.kind, params.error)"`
	Params map[string]string `json:"params"`
	Text   string            `json:"text" jsonschema:"the notice in English"`
}

// Turn is one claimed generation. The claim is taken when the request is
// accepted, before any byte is streamed, so a second request for the same
// adventure is refused with turn_in_progress instead of racing (seed §2.9).
// Its heartbeat runs from then on; Run always releases it (or Abandon).
type Turn struct {
	s           *Service
	userID      int64
	adventureID int64
	claim       *turnClaim
	mode        string
	player      *ActionView // the stored player action, for the player event
	parentID    int64       // the node the narration continues
	depth       int         // where the narration goes
	skip        []int64     // the take being replaced, excluded from every reader
	// notices collect the scripts' messages for the player; stopped is set
	// when the input script stopped the action (nothing was stored).
	notices []Notice
	stopped error
	scripts *scriptRun // the context and output hooks' run
}

// playerLine is how a player's action reads in the story the model sees.
func playerLine(mode, text string) string {
	switch mode {
	case ModeSay:
		return "> You say \"" + strings.Trim(strings.TrimSpace(text), "\"") + "\""
	case ModeStory:
		return text
	default:
		return "> " + strings.TrimSpace(text)
	}
}

// StartTurn accepts a player's move: it claims the turn, stores the player
// action (so a failed turn still shows what was typed) and returns the turn
// to Run. Continue stores nothing and narrates on from the tip.
func (s *Service) StartTurn(ctx context.Context, userID, adventureID int64, in TurnInput) (*Turn, error) {
	switch in.Mode {
	case ModeDo, ModeSay, ModeStory:
		if !models.StorableText(in.Text) {
			return nil, models.UnstorableText(apperr.TurnTextInvalid, "text")
		}
		if strings.TrimSpace(in.Text) == "" || utf8.RuneCountInString(in.Text) > maxTurnText {
			return nil, apperr.E(apperr.TurnTextInvalid, "Write what you do or say, up to %d characters.", maxTurnText).WithField("text", "1 to 4000 characters")
		}
	case ModeContinue:
		if in.Text != "" {
			return nil, apperr.E(apperr.TurnTextInvalid, "Continue takes no text.").WithField("text", "must be empty for continue")
		}
	default:
		return nil, apperr.E(apperr.InvalidRequest, "mode must be do, say, story or continue.").WithField("mode", "do, say, story or continue")
	}
	if err := s.checkDemoBudget(ctx, userID); err != nil {
		return nil, s.turnFailed(err)
	}
	claim, err := s.claim(ctx, userID, adventureID)
	if err != nil {
		return nil, err
	}
	t := &Turn{s: s, userID: userID, adventureID: adventureID, claim: claim, mode: in.Mode}
	text, input, err := s.inputHook(ctx, userID, adventureID, in)
	if input != nil {
		t.notices = input.notices
	}
	if apperr.CodeOf(err) == apperr.ScriptStopped {
		// Answered as the stream's error event, with the script's notices.
		t.stopped = err
		return t, nil
	}
	if err != nil {
		claim.release()
		return nil, err
	}
	err = s.store.Tx(ctx, func(tx *models.Store) error {
		h, tip, err := ownTip(ctx, tx, userID, adventureID, true)
		if err != nil {
			return err
		}
		if in.Mode == ModeContinue {
			t.parentID, t.depth = tip.ID, tip.Depth+1
			return nil
		}
		line := playerLine(in.Mode, text)
		node := &models.Action{AdventureID: adventureID, Depth: tip.Depth + 1, ParentID: &tip.ID, Kind: models.ActionPlayer,
			Mode: in.Mode, Text: text, TokenCount: countTokens(line), WorldStateAfter: tip.WorldStateAfter,
			ScriptStateAfter: input.stateOr(tip.ScriptStateAfter), Outcomes: "[]", CreatedAt: s.now()}
		b, err := s.place(ctx, tx, h, node)
		if err != nil {
			return err
		}
		if err := input.persist(ctx, tx, &node.ID); err != nil {
			return err
		}
		if err := s.setHead(ctx, tx, adventureID, b.ID, node.Depth); err != nil {
			return err
		}
		views, err := s.actionViews(ctx, tx, []models.ActionRow{{Action: *node}})
		if err != nil {
			return err
		}
		t.player = &views[0]
		t.parentID, t.depth = node.ID, node.Depth+1
		return nil
	})
	if err != nil {
		claim.release()
		return nil, err
	}
	return t, nil
}

// inputHook runs the scenario's onInput script over a player's text (not
// for continue or retry, as upstream). It runs before the transaction that
// stores the action, so a slow script never holds the database; the turn
// claim keeps the story still meanwhile. A stop ends the turn before
// anything is stored; its console lines are kept.
func (s *Service) inputHook(ctx context.Context, userID, adventureID int64, in TurnInput) (string, *scriptRun, error) {
	if in.Mode == ModeContinue {
		return in.Text, nil, nil
	}
	h, tip, err := ownTip(ctx, s.store, userID, adventureID, false)
	if err != nil || h.adv.ScriptInput == "" {
		return in.Text, nil, err
	}
	adv := h.adv
	run, err := s.newScriptRun(ctx, s.store, adv, tip.ScriptStateAfter, h.line, nil)
	if err != nil {
		return "", nil, err
	}
	text, stop := run.hook(ctx, scripting.HookInput, adv.ScriptInput, in.Text, scripting.Info{})
	if stop || strings.TrimSpace(text) == "" {
		run.keepConsole(context.WithoutCancel(ctx), s.store)
		return "", run, scriptStopped(scripting.HookInput, run.notices)
	}
	if utf8.RuneCountInString(text) > maxTextField {
		text = clip(text, maxTextField)
	}
	return text, run, nil
}

// characterNames are the protagonist and the NPCs of the stat schema (for
// the memory prompts; scripts get scriptCharacters).
func characterNames(adv *models.Adventure) []string {
	names := []string{}
	if adv.PersonaName != "" {
		names = append(names, adv.PersonaName)
	}
	seen := map[string]bool{}
	// Sorted: the schema is a map, and the names reach prompts and scripts,
	// which should not change from one call to the next.
	for _, path := range slices.Sorted(maps.Keys(parseSchema(adv.StatSchema))) {
		parts := strings.Split(path, ".")
		if len(parts) >= 3 && parts[0] == "npc" && !seen[parts[1]] {
			seen[parts[1]] = true
			names = append(names, parts[1])
		}
	}
	return names
}

// StartRetry accepts a retry of the newest narration: a new take at the same
// depth (so cooldowns measured along the path do not advance), with the old
// take excluded from every reader. When the tip is a player action whose
// narration failed, it narrates that action instead.
func (s *Service) StartRetry(ctx context.Context, userID, adventureID int64) (*Turn, error) {
	if err := s.checkDemoBudget(ctx, userID); err != nil {
		return nil, s.turnFailed(err)
	}
	claim, err := s.claim(ctx, userID, adventureID)
	if err != nil {
		return nil, err
	}
	t := &Turn{s: s, userID: userID, adventureID: adventureID, claim: claim, mode: ""}
	err = func() error {
		_, tip, err := ownTip(ctx, s.store, userID, adventureID, false)
		if err != nil {
			return err
		}
		switch {
		case tip.Kind == models.ActionNarration && tip.ParentID != nil:
			t.parentID, t.depth, t.skip, t.mode = *tip.ParentID, tip.Depth, []int64{tip.ID}, tip.Mode
		case tip.Kind == models.ActionPlayer:
			t.parentID, t.depth = tip.ID, tip.Depth+1
		default:
			return apperr.E(apperr.NothingToRetry, "There is no narration to retry yet.")
		}
		return nil
	}()
	if err != nil {
		claim.release()
		return nil, err
	}
	return t, nil
}

// Player is the stored player action of this turn (nil for retry and continue).
func (t *Turn) Player() *ActionView { return t.player }

// Abandon releases a turn that will not be run.
func (t *Turn) Abandon() { t.claim.release() }

// snapshot is what Insights shows of a narration, stored compressed.
type snapshot struct {
	Messages     []InsightMessage `json:"messages"`
	Sections     []InsightSection `json:"sections"`
	Cards        []InsightCard    `json:"cards"`
	Budget       int              `json:"budget"`
	TotalTokens  int              `json:"total_tokens"`
	HistoryTurns int              `json:"history_turns"`
	Memories     []InsightMemory  `json:"memories"`
}

// built is a prepared generation: the prompt and what the referee needs.
type built struct {
	adv      *models.Adventure
	messages []llm.Message // what is sent: the builder's, or a context script's rewrite
	settings models.ProviderSetting
	llm      llm.Settings
	// demo: the narration goes to the server's demo narrator (turnEndpoint),
	// whose tokens are counted against the user's daily budget.
	demo     bool
	result   prompt.Result
	schema   Schema
	state    State
	script   string
	world    string // the parent's world state, as stored
	snapshot packed
	// snapshotRaw is the snapshot's JSON, remembered once the turn is
	// saved so the next turn's snapshot is a delta against it.
	snapshotRaw []byte
	// memoryIDs are the memories the prompt carries; their use is counted
	// when the narration is saved.
	memoryIDs []int64
}

// build assembles the context for t (seed §1.3 steps 3–6).
func (t *Turn) build(ctx context.Context) (*built, error) {
	s := t.s
	h, err := ownHead(ctx, s.store, t.userID, t.adventureID, false)
	if err != nil {
		return nil, err
	}
	adv := h.adv
	parent, err := s.store.FindActionRow(ctx, t.parentID)
	if err != nil {
		return nil, err
	}
	settings, err := s.loadSettings(ctx, s.store, t.userID)
	if err != nil {
		return nil, err
	}
	// A key sealed under the previous server secret moves to the current one.
	if err := s.resealOnTurn(ctx, &settings); err != nil {
		return nil, err
	}
	ls, demo, err := s.turnEndpoint(ctx, t.userID, settings)
	if err != nil {
		return nil, err
	}
	// Every card's keys, and later only the entries of those that fire.
	triggers, err := enabledCards(s.store.AdventureCardTriggers(ctx, adv.ID, h.line))
	if err != nil {
		return nil, err
	}
	contextBudget, budget := s.contextBudget(settings, demo)
	schema := parseSchema(adv.StatSchema)
	state := parseState(parent.WorldStateAfter)
	run, err := s.newScriptRun(ctx, s.store, adv, parent.ScriptStateAfter, h.line, t.skip)
	if err != nil {
		return nil, err
	}
	t.scripts = run
	// Recall's query embedding is the user's own endpoint's work, never
	// the demo's: a demo turn recalls with the lexical scorer.
	recallSettings, recallLLM := settings, ls
	if demo {
		recallSettings.EmbeddingModel, recallLLM = "", llm.Settings{}
	}
	memories, err := s.recall(ctx, h, recallSettings, recallLLM, t.skip)
	if err != nil {
		return nil, err
	}
	in := prompt.Input{
		Premise: adv.Premise, StatGuide: StatGuide(schema), AIInstructions: adv.AIInstructions,
		PersonaName: adv.PersonaName, PersonaPronouns: adv.PersonaPronouns, PersonaDesc: adv.PersonaDesc,
		PlotEssentials: adv.PlotEssentials, Summary: memories.summary, Memories: memories.texts(), StateLine: StateLine(schema, state),
		AuthorsNote: adv.AuthorsNote, Budget: budget, MaxOutputTokens: ls.MaxOutputTokens,
	}
	// A script's state.memory takes precedence over the adventure's own
	// without changing it, each in the place §2.1 gives it; "" keeps the
	// adventure's value, so a script cannot clear memory.
	if mem := run.memory(); mem != (scripting.Memory{}) {
		in.PlotEssentials = cmp.Or(mem.Context, in.PlotEssentials)
		in.AuthorsNote = cmp.Or(mem.AuthorsNote, in.AuthorsNote)
		in.FrontMemory = mem.FrontMemory
	}
	// The story gets what the fixed sections and the lore leave: read just
	// enough of it to cover that. The lore depends on the newest turns only,
	// so once the first of them are read, the cards that fire are known and
	// a build with those turns alone (the sections' counts are memoised, so
	// it costs little) gives the story's share.
	var cards []prompt.Card
	history, err := historyWindow(ctx, s.store, h.line, t.skip, func(newest []storyTurn) (int, error) {
		ids := prompt.Triggered(promptCards(triggers), promptTurns(newest))
		rows, err := s.store.AdventureCardsByID(ctx, adv.ID, ids)
		if err != nil {
			return 0, err
		}
		cards = promptCards(rows)
		dry := in
		dry.Cards, dry.History = cards, promptTurns(newest)
		return prompt.Build(dry).HistoryBudget, nil
	})
	if err != nil {
		return nil, err
	}
	in.Cards, in.History = cards, promptTurns(history)
	res := prompt.Build(in)
	messages, err := t.contextHook(ctx, adv, res, budget)
	if err != nil {
		return nil, err
	}
	snap := snapshot{Budget: contextBudget, TotalTokens: res.TotalTokens, HistoryTurns: res.HistoryTurns,
		Messages: []InsightMessage{}, Sections: []InsightSection{}, Cards: []InsightCard{}, Memories: memories.chosen}
	for _, m := range messages {
		snap.Messages = append(snap.Messages, InsightMessage{Role: m.Role, Content: m.Content})
	}
	for _, sec := range res.Sections {
		snap.Sections = append(snap.Sections, InsightSection{Name: sec.Name, Tokens: sec.Tokens, Fixed: sec.Fixed})
	}
	for _, c := range res.Cards {
		snap.Cards = append(snap.Cards, InsightCard{ID: c.ID, Title: c.Title, Trigger: c.Trigger, Constant: c.Constant, Tokens: c.Tokens, Included: c.Included})
	}
	raw, _ := json.Marshal(snap)
	return &built{adv: adv, settings: settings, llm: ls, demo: demo, result: res, messages: messages, schema: schema, state: state,
		script: parent.ScriptStateAfter, world: parent.WorldStateAfter, snapshot: s.packSnapshot(raw, history), snapshotRaw: raw,
		memoryIDs: memories.ids()}, nil
}

// contextHook lets the onModelContext script rewrite the assembled prompt.
// The script sees it as one text, the static block first (its length is
// info.memoryLength). A rewrite that keeps the static block in front is sent
// as that system block plus one user message; any other rewrite is sent as
// one user message. The snapshot keeps what was actually sent.
func (t *Turn) contextHook(ctx context.Context, adv *models.Adventure, res prompt.Result, budget int) ([]llm.Message, error) {
	if t.scripts == nil || adv.ScriptContext == "" {
		return res.Messages, nil
	}
	var rest []string
	for _, m := range res.Messages[1:] {
		rest = append(rest, m.Content)
	}
	text := flattenPrompt(res.StaticBlock, rest)
	out, stop := t.scripts.hook(ctx, scripting.HookContext, adv.ScriptContext, text,
		scripting.Info{MaxChars: budget * 4, MemoryLength: len(res.StaticBlock)})
	if stop {
		return nil, scriptStopped(scripting.HookContext, t.scripts.notices)
	}
	if out == text {
		return res.Messages, nil
	}
	if body, ok := strings.CutPrefix(out, res.StaticBlock+"\n\n"); ok {
		return []llm.Message{{Role: llm.RoleSystem, Content: res.StaticBlock}, {Role: llm.RoleUser, Content: body}}, nil
	}
	return []llm.Message{{Role: llm.RoleUser, Content: out}}, nil
}

// providerError maps a provider failure to a stable code.
func providerError(err error) *apperr.Error {
	var le *llm.Error
	if !errors.As(err, &le) {
		return apperr.Wrap(err, apperr.ProviderUnavailable, "The model endpoint failed.")
	}
	msg := le.Message
	switch le.Kind {
	case llm.KindAuth:
		return apperr.E(apperr.ProviderAuthFailed, "The model endpoint refused the API key (%s).", msg)
	case llm.KindRateLimited:
		return apperr.E(apperr.ProviderRateLimited, "The model endpoint is rate limiting requests (%s).", msg)
	case llm.KindBadRequest:
		return apperr.E(apperr.ProviderRejected, "The model endpoint rejected the request (%s). Check the model name and settings.", msg)
	case llm.KindConnectTimeout:
		return apperr.E(apperr.ProviderConnectTimeout, "The model endpoint could not be reached in time (%s).", msg)
	case llm.KindHeadersTimeout:
		return apperr.E(apperr.ProviderHeadersTimeout, "The model endpoint did not start answering in time (%s).", msg)
	case llm.KindIdleTimeout:
		return apperr.E(apperr.ProviderIdleTimeout, "The model stopped sending text (%s); the turn was ended.", msg)
	case llm.KindTotalTimeout:
		return apperr.E(apperr.ProviderTotalTimeout, "The model took too long (%s); the turn was ended.", msg)
	default:
		return apperr.E(apperr.ProviderUnavailable, "The model endpoint failed (%s).", msg)
	}
}

// Run generates the narration and streams it through emit: reasoning and
// chunk events as they arrive, then stopped (if the reply was cut) and done,
// or a single error event. Nothing of the narration is stored unless it
// succeeds, so a provider error, an empty reply, a client hang-up or the
// server shutting down (turn_interrupted) leaves the previous take in charge.
// The one exception is the player's Stop (StopTurn): the text streamed so
// far is saved as a take marked stopped, then stopped (reason "player") and
// done; a stop before any story text stores nothing more and ends with
// stopped and a done without an action.
func (t *Turn) Run(ctx context.Context, emit func(Event)) {
	defer t.claim.release()
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	defer context.AfterFunc(t.s.stopping, func() { cancel(errShuttingDown) })()
	// A stop cancels only the build and the model call (genCtx): once the
	// reply is in, it is finished and saved as any other, stop or not.
	genCtx, genCancel := context.WithCancelCause(ctx)
	defer genCancel(nil)
	go func() {
		select {
		case <-t.claim.stop:
			genCancel(errStoppedByPlayer)
		case <-genCtx.Done():
		}
	}()
	if t.player != nil {
		emit(Event{Type: EventPlayer, Action: t.player})
	}
	generated := false
	byPlayer := func() bool {
		return t.stopped == nil && !generated && errors.Is(context.Cause(genCtx), errStoppedByPlayer)
	}
	fail := func(err error) {
		if byPlayer() {
			t.endStopped(ctx, emit)
			return
		}
		if errors.Is(context.Cause(ctx), errShuttingDown) {
			err = apperr.E(apperr.TurnInterrupted, "The server stopped while the turn was being written; your action is kept. Retry to narrate it.")
		}
		t.failed(ctx, emit, err)
	}
	if t.stopped != nil {
		fail(t.stopped)
		return
	}
	b, err := t.build(genCtx)
	if err != nil {
		fail(err)
		return
	}
	var reserved demoReservation
	if b.demo {
		if reserved, err = t.s.reserveDemoTokens(genCtx, t.userID, b.messages, b.llm.MaxOutputTokens); err != nil {
			fail(err)
			return
		}
	}
	// streamed is what the player has seen, kept for a stop.
	var streamed strings.Builder
	res, err := t.s.stream(genCtx, t.userID, b.llm, llm.Request{Messages: b.messages}, b.demo, func(ev llm.Event) {
		switch ev.Kind {
		case llm.EventReasoning:
			emit(Event{Type: EventReasoning, Text: ev.Text})
		case llm.EventChunk:
			streamed.WriteString(ev.Text)
			emit(Event{Type: EventChunk, Text: ev.Text})
		}
	})
	if b.demo {
		// Counted whatever happens next: the server pays for what was spent.
		t.s.settleDemoTokens(ctx, t.userID, reserved, demoTokensSpent(b.messages, res, err))
	}
	if err != nil && byPlayer() {
		t.saveStopped(ctx, emit, b, res, streamed.String())
		return
	}
	if err != nil {
		fail(providerError(err))
		return
	}
	generated = true
	// PostgreSQL stores no NUL or invalid UTF-8 (SQLite would): cleaned
	// before anything of the reply is kept.
	reply := models.CleanText(res.Text)
	res.FinishReason = models.CleanText(res.FinishReason)
	if b.adv.ScriptOutput != "" {
		var stop bool
		reply, stop = t.scripts.hook(ctx, scripting.HookOutput, b.adv.ScriptOutput, reply, scripting.Info{})
		if stop {
			fail(scriptStopped(scripting.HookOutput, t.scripts.notices))
			return
		}
	}
	prose, delta := ExtractDelta(reply)
	if strings.TrimSpace(prose) == "" {
		if strings.TrimSpace(res.Reasoning) != "" {
			fail(apperr.E(apperr.ProviderReasoningOnly, "The model spent its whole output budget (%d tokens) thinking and wrote no story. Raise max output tokens, choose a non-reasoning model, or turn the endpoint's reasoning/thinking setting down.", b.llm.MaxOutputTokens))
		} else {
			fail(apperr.E(apperr.ProviderEmptyReply, "The model returned no story text."))
		}
		return
	}
	next, outcomes := Referee(b.schema, b.state, delta, t.depth)
	node := &models.Action{AdventureID: t.adventureID, Depth: t.depth, ParentID: &t.parentID, Kind: models.ActionNarration,
		Text: prose, TokenCount: countTokens(prose), WorldStateAfter: mustJSON(next), ScriptStateAfter: t.scripts.stateOr(b.script),
		Outcomes: mustJSON(outcomes), FinishReason: res.FinishReason, Truncated: res.Truncated, PromptSnapshot: b.snapshot.data, SnapshotBaseID: b.snapshot.baseID,
		PromptTokens: res.PromptTokens, CompletionTokens: res.CompletionTokens, CachedPromptTokens: res.CachedPromptTokens, CreatedAt: t.s.now()}
	if t.mode == ModeContinue {
		node.Mode = ModeContinue
	}
	var before []Event
	if res.Truncated {
		reason, msg := "length", "The reply hit the max output tokens limit and was cut short; raise the limit in the model settings or retry."
		if res.FinishReason == "" {
			reason, msg = "dropped", "The connection to the model ended before the reply finished; the text may be incomplete. Retry to get a full reply."
		}
		before = append(before, Event{Type: EventStopped, Reason: reason, Message: msg})
	}
	t.finish(ctx, emit, fail, node, b, res, before...)
}

// finish saves the narration node (one transaction, under the turn's
// claim), frees the adventure and tells the browser: the events given
// (why the text stopped), then done with the saved action. Saving does not
// depend on the browser staying: the reply is paid for.
func (t *Turn) finish(ctx context.Context, emit func(Event), fail func(error), node *models.Action, b *built, res llm.Result, before ...Event) {
	saveCtx := context.WithoutCancel(ctx)
	if err := t.save(saveCtx, node, b, res); err != nil {
		fail(err)
		return
	}
	// The turn is over once saved: free the adventure before telling the
	// browser, so its next request never meets its own claim.
	t.claim.release()
	page, err := t.s.GetAdventure(saveCtx, t.userID, t.adventureID)
	if err != nil {
		fail(err)
		return
	}
	for _, e := range before {
		emit(e)
	}
	var saved *ActionView
	for i := range page.Story {
		if page.Story[i].ID == node.ID {
			saved = &page.Story[i]
		}
	}
	t.s.analytics.Count(analytics.MetricTurn, "solo", 1)
	t.s.analytics.Reach(t.userID, analytics.Played)
	emit(Event{Type: EventDone, Action: saved, Adventure: &page.Adventure, Notices: t.allNotices()})
}

// playerStopMessage is the stopped event's message for a player's stop.
const playerStopMessage = "You stopped the narrator; the text so far is kept as a take. Continue it, or Retry for a new take."

// saveStopped keeps the text streamed before the player's stop as a take
// marked stopped. It is saved like any narration (one transaction, under
// the turn's claim), but the output script and the referee do not run: the
// text is what the player saw, and a state block cut off mid-way is no
// change of state, so the world stays as the turn found it. A stop before
// any story text stores nothing more (endStopped).
func (t *Turn) saveStopped(ctx context.Context, emit func(Event), b *built, res llm.Result, text string) {
	saveCtx := context.WithoutCancel(ctx)
	prose, _ := ExtractDelta(models.CleanText(text))
	prose = strings.TrimSpace(prose)
	if prose == "" {
		t.endStopped(saveCtx, emit)
		return
	}
	node := &models.Action{AdventureID: t.adventureID, Depth: t.depth, ParentID: &t.parentID, Kind: models.ActionNarration,
		Text: prose, TokenCount: countTokens(prose), WorldStateAfter: b.world, ScriptStateAfter: t.scripts.stateOr(b.script),
		Outcomes: "[]", Stopped: true, PromptSnapshot: b.snapshot.data, SnapshotBaseID: b.snapshot.baseID,
		PromptTokens: res.PromptTokens, CompletionTokens: res.CompletionTokens, CachedPromptTokens: res.CachedPromptTokens, CreatedAt: t.s.now()}
	if t.mode == ModeContinue {
		node.Mode = ModeContinue
	}
	fail := func(err error) { t.failed(saveCtx, emit, err) }
	t.finish(ctx, emit, fail, node, b, res, Event{Type: EventStopped, Reason: "player", Message: playerStopMessage})
}

// failed ends the turn with its error, keeping the script console of what
// ran.
func (t *Turn) failed(ctx context.Context, emit func(Event), err error) {
	t.scripts.keepConsole(context.WithoutCancel(ctx), t.s.store)
	t.emitError(emit, err)
}

// emitError tells the browser the turn's error: its application code, or
// internal for anything else.
func (t *Turn) emitError(emit func(Event), err error) {
	ae := t.s.turnFailed(err)
	emit(Event{Type: EventError, Code: string(ae.Code), Message: ae.Message, Notices: t.allNotices()})
}

// turnFailed is the one way a turn fails, streaming or refused before it
// starts (the demo budget): the error as the application reports it, its
// code counted once.
func (s *Service) turnFailed(err error) *apperr.Error {
	var ae *apperr.Error
	if !errors.As(err, &ae) {
		ae = apperr.Wrap(err, apperr.Internal, "The turn failed.")
	}
	s.analytics.Failed(analytics.SoloTurn, string(ae.Code))
	return ae
}

// endStopped ends a turn the player stopped before any story text: nothing
// of the narration is stored (the player's action stays, waiting for
// Retry), and the stream ends with stopped and a done without an action.
func (t *Turn) endStopped(ctx context.Context, emit func(Event)) {
	ctx = context.WithoutCancel(ctx)
	t.scripts.keepConsole(ctx, t.s.store)
	t.claim.release()
	page, err := t.s.GetAdventure(ctx, t.userID, t.adventureID)
	if err != nil {
		// its console is kept above
		t.emitError(emit, err)
		return
	}
	emit(Event{Type: EventStopped, Reason: "player", Message: "You stopped the narrator before it wrote anything; your action is kept. Retry narrates it."})
	emit(Event{Type: EventDone, Adventure: &page.Adventure, Notices: t.allNotices()})
}

// allNotices are the input hook's notices then the context and output hooks'.
func (t *Turn) allNotices() []Notice {
	out := append([]Notice(nil), t.notices...)
	if t.scripts != nil {
		out = append(out, t.scripts.notices...)
	}
	return out
}

// save stores the narration node and moves the head onto it, in one
// transaction, and updates the tokenizer calibration.
func (t *Turn) save(ctx context.Context, node *models.Action, b *built, res llm.Result) error {
	s := t.s
	err := s.store.Tx(ctx, func(tx *models.Store) error {
		h, err := ownHead(ctx, tx, t.userID, t.adventureID, true)
		if err != nil {
			return err
		}
		if h.adv.TurnToken != t.claim.token {
			return apperr.E(apperr.TurnInProgress, "The turn's claim expired; retry.")
		}
		br, err := s.place(ctx, tx, h, node)
		if err != nil {
			return err
		}
		if err := t.scripts.persist(ctx, tx, &node.ID); err != nil {
			return err
		}
		if err := s.failpoint("turn.after_node"); err != nil {
			return err
		}
		if err := tx.RecordMemoryUse(ctx, b.memoryIDs, node.ID, s.now()); err != nil {
			return err
		}
		if err := s.enqueueMemory(ctx, tx, t.adventureID); err != nil {
			return err
		}
		if res.PromptTokens > 0 && b.result.TotalTokens > 0 {
			measured := float64(res.PromptTokens) / float64(b.result.TotalTokens)
			ratio := b.settings.TokenRatio
			if ratio <= 0 {
				ratio = 1
			}
			b.settings.TokenRatio = min(max(0.7*ratio+0.3*measured, 0.5), 2)
			if b.settings.UpdatedAt.IsZero() {
				b.settings.UpdatedAt = s.now()
			}
			if err := tx.SaveProviderSetting(ctx, &b.settings); err != nil {
				return err
			}
		}
		return s.setHead(ctx, tx, t.adventureID, br.ID, node.Depth)
	})
	if err == nil {
		t.scripts.saved()
		s.wakeMemory()
		s.snapshots.recent.put(node.ID, snapshotOf{raw: b.snapshotRaw, chain: b.snapshot.chain})
	}
	return err
}

// GetInsights returns the context breakdown and exact prompt of a narration
// of any of the user's adventures.
func (s *Service) GetInsights(ctx context.Context, userID, actionID int64) (Insights, error) {
	return s.insights(ctx, userID, 0, actionID)
}

// AdventureInsights is GetInsights for a narration of one adventure: a turn
// of another adventure, the user's or not, is not_found.
func (s *Service) AdventureInsights(ctx context.Context, userID, adventureID, actionID int64) (Insights, error) {
	return s.insights(ctx, userID, adventureID, actionID)
}

// insights reads a narration's snapshot; within, when not 0, is the one
// adventure the turn must belong to.
func (s *Service) insights(ctx context.Context, userID, within, actionID int64) (Insights, error) {
	n, err := s.store.FindActionRow(ctx, actionID)
	if err != nil {
		return Insights{}, err
	}
	if within != 0 && n.AdventureID != within {
		return Insights{}, apperr.E(apperr.NotFound, "The turn does not exist.")
	}
	if _, err := ownAdventure(ctx, s.store, userID, n.AdventureID, false); err != nil {
		return Insights{}, apperr.E(apperr.NotFound, "The turn does not exist.")
	}
	usage := Usage{PromptTokens: n.PromptTokens, CompletionTokens: n.CompletionTokens, CachedPromptTokens: n.CachedPromptTokens}
	expired := Insights{ActionID: actionID, Expired: true, Sections: []InsightSection{}, Cards: []InsightCard{},
		Messages: []InsightMessage{}, Memories: []InsightMemory{}, Usage: usage}
	if n.SnapshotExpired {
		// Retention dropped the prompt; the usage is still known.
		return expired, nil
	}
	if !n.HasPrompt {
		return Insights{}, apperr.E(apperr.NotFound, "This turn has no prompt to inspect.")
	}
	snap, err := s.readSnapshot(ctx, actionID)
	if errors.Is(err, errSnapshotGone) {
		return expired, nil // its base went while it was being written
	} else if err != nil {
		return Insights{}, err
	}
	if snap.Memories == nil {
		snap.Memories = []InsightMemory{}
	}
	return Insights{ActionID: actionID, Budget: snap.Budget, TotalTokens: snap.TotalTokens, Sections: snap.Sections, Cards: snap.Cards,
		HistoryTurns: snap.HistoryTurns, Messages: snap.Messages, Memories: snap.Memories, Usage: usage}, nil
}

// packSnapshot packs a turn's snapshot against the one before it on its
// line: the newest narration of the history it was built from (for a
// retry, the take's parent's, not the sibling take's), when this process
// still remembers it; otherwise as a keyframe, which needs no read.
func (s *Service) packSnapshot(raw []byte, history []storyTurn) packed {
	for i := len(history) - 1; i >= 0; i-- {
		if history[i].Kind != models.ActionNarration {
			continue
		}
		if base, ok := s.snapshots.recent.get(history[i].ID); ok {
			return s.snapshots.pack(raw, history[i].ID, &base)
		}
		break
	}
	return s.snapshots.pack(raw, 0, nil)
}
