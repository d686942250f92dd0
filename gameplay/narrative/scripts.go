package narrative

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"github.com/adventure-table/adventure-table/gameplay/narrative/prompt"
	"github.com/adventure-table/adventure-table/gameplay/scripting"
	"github.com/adventure-table/adventure-table/models"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// Console levels.
const (
	ConsoleLog     = "log"
	ConsoleError   = "error"
	ConsoleMessage = "message"
)

// consoleTail is how many console lines the player can read back.
const consoleTail = 200

// scriptHistory is how many recent actions a script sees as `history`.
const scriptHistory = 50

// scriptRun carries what a turn's hooks change — the script state, the
// story cards, the console and the player's notices — until the node that
// owns them is saved, so all of it lands in the node's transaction (and
// undo/retry restore the script state like any other state_after).
type scriptRun struct {
	s           *Service
	adv         *models.Adventure
	state       string
	cards       []models.AdventureCard // as stored when the run began
	scCards     []scripting.Card       // as the scripts left them
	startCards  []scripting.Card
	history     []scripting.HistoryEntry
	actionCount int
	console     []models.ScriptConsoleEntry
	notices     []Notice
}

func hasScripts(adv *models.Adventure) bool {
	return adv.ScriptInput != "" || adv.ScriptContext != "" || adv.ScriptOutput != ""
}

// newScriptRun prepares the hooks of one turn; nil when the adventure has
// no scripts (every hook is then a no-op). state is the script state in
// front of the turn; line is the story the scripts see.
func (s *Service) newScriptRun(ctx context.Context, store *models.Store, adv *models.Adventure, state string, line []models.LineSegment, skip []int64) (*scriptRun, error) {
	if !hasScripts(adv) {
		return nil, nil
	}
	cards, err := enabledCards(store.AdventureCards(ctx, adv.ID, line))
	if err != nil {
		return nil, err
	}
	rows, err := store.LineTail(ctx, models.LineQuery{Line: line, SkipIDs: skip, Limit: scriptHistory, TextOnly: true})
	if err != nil {
		return nil, err
	}
	count, err := store.LineCount(ctx, line)
	if err != nil {
		return nil, err
	}
	r := &scriptRun{s: s, adv: adv, state: state, cards: cards, actionCount: int(count)}
	for i := len(rows) - 1; i >= 0; i-- {
		row := rows[i]
		kind := "continue"
		switch {
		case row.Kind == models.ActionOpening:
			kind = "start"
		case row.Kind == models.ActionPlayer:
			kind = row.Mode
		}
		r.history = append(r.history, scripting.HistoryEntry{Text: storyLine(row.Kind, row.Mode, row.Text), Type: kind})
	}
	for _, c := range cards {
		r.scCards = append(r.scCards, scripting.Card{ID: strconv.FormatInt(c.ID, 10), Keys: strings.Join(cardKeys(c.Keys), ","),
			Entry: c.Entry, Type: c.Type, Title: c.Title, Description: c.Description,
			SecondaryKeys: strings.Join(cardKeys(c.SecondaryKeys), ","), Logic: c.Logic, Constant: c.Constant, Priority: c.Priority,
			CreatedAt: c.CreatedAt.UTC().Format("2006-01-02T15:04:05.000Z"), UpdatedAt: c.UpdatedAt.UTC().Format("2006-01-02T15:04:05.000Z")})
	}
	r.startCards = append([]scripting.Card(nil), r.scCards...)
	return r, nil
}

// hook runs one hook script over text and returns the text it leaves and
// whether it stopped the action. A script that throws, times out or runs out
// of memory is skipped: the text comes back unchanged and the player gets a
// notice naming the error and the line; the console records it.
// info.ActionCount and info.CharacterNames are the adventure's, set here.
func (r *scriptRun) hook(ctx context.Context, name, script, text string, info scripting.Info) (string, bool) {
	if r == nil || script == "" {
		return text, false
	}
	info.ActionCount = r.actionCount
	info.CharacterNames = scriptCharacters(r.adv)
	out := r.s.sandbox().Run(ctx, scripting.Input{Hook: name, Library: r.adv.ScriptLibrary, Script: script, Text: text,
		State: []byte(r.state), History: r.history, Cards: r.scCards, Info: info, Now: r.s.now()})
	for _, line := range out.Logs {
		r.log(name, ConsoleLog, line)
	}
	if out.Error != nil {
		msg := scriptErrorText(name, string(out.Error.Kind), out.Error.Error())
		r.log(name, ConsoleError, msg)
		r.notices = append(r.notices, Notice{Code: NoticeScriptError, Text: msg,
			Params: scriptErrorParams(name, string(out.Error.Kind), models.CleanText(out.Error.Error()))})
		return text, false
	}
	if out.Message != "" {
		r.log(name, ConsoleMessage, out.Message)
		r.notices = append(r.notices, Notice{Code: NoticeScriptMessage, Text: out.Message, Params: map[string]string{"text": out.Message}})
	}
	r.state = string(out.State)
	// What a script writes is cleaned like a model's reply (see
	// models.CleanText): it reaches the story, the cards and the console.
	for i := range out.Cards {
		c := &out.Cards[i]
		for _, f := range []*string{&c.Keys, &c.Entry, &c.Type, &c.Title, &c.Description} {
			*f = models.CleanText(*f)
		}
	}
	r.scCards = out.Cards
	return models.CleanText(out.Text), out.Stop
}

// scriptCharacters is info.characters (and info.characterNames): on AI
// Dungeon the player characters of the adventure, here the protagonist, or
// [] when the persona has no name. The stat schema's NPCs are not in it:
// scripts treat these names as the players.
func scriptCharacters(adv *models.Adventure) []string {
	if adv.PersonaName == "" {
		return []string{}
	}
	return []string{adv.PersonaName}
}

func (r *scriptRun) log(hook, level, text string) {
	r.console = append(r.console, models.ScriptConsoleEntry{AdventureID: r.adv.ID, Hook: hook, Level: level, Text: models.CleanText(text), CreatedAt: r.s.now()})
}

// memory returns state.memory as the scripts left it; "" means "use the
// adventure's own", so a script cannot clear memory.
func (r *scriptRun) memory() scripting.Memory {
	if r == nil {
		return scripting.Memory{}
	}
	var st struct {
		Memory struct {
			Context     any `json:"context"`
			AuthorsNote any `json:"authorsNote"`
			FrontMemory any `json:"frontMemory"`
		} `json:"memory"`
	}
	_ = json.Unmarshal([]byte(r.state), &st)
	str := func(v any) string { s, _ := v.(string); return s }
	return scripting.Memory{Context: str(st.Memory.Context), AuthorsNote: str(st.Memory.AuthorsNote), FrontMemory: str(st.Memory.FrontMemory)}
}

// stateOr is the script state after the hooks, or fallback without scripts.
func (r *scriptRun) stateOr(fallback string) string {
	if r == nil {
		return fallback
	}
	return r.state
}

// persist writes what the hooks changed, inside the caller's transaction:
// the story cards (in-place edits, new cards, removals, the order) and the
// console lines, stamped with the node they belong to.
func (r *scriptRun) persist(ctx context.Context, tx *models.Store, actionID *int64) error {
	if r == nil {
		return nil
	}
	if err := r.persistConsole(ctx, tx, actionID); err != nil {
		return err
	}
	if reflect.DeepEqual(r.scCards, r.startCards) {
		return nil
	}
	byID := map[string]models.AdventureCard{}
	for _, c := range r.cards {
		byID[strconv.FormatInt(c.ID, 10)] = c
	}
	var added []models.AdventureCard
	now := r.s.now()
	for i, c := range r.scCards {
		keys := prompt.SplitKeys(c.Keys)
		rules := scriptRules(c)
		title := c.Title
		if title == "" {
			title = c.Keys
		}
		old, ok := byID[c.ID]
		if !ok {
			// A card a turn invents belongs to the lines that turn is on.
			added = append(added, models.AdventureCard{AdventureID: r.adv.ID, Position: i, Title: clip(title, maxCardTitle), Keys: mustJSON(keys),
				Entry: c.Entry, Type: clip(c.Type, 40), Description: c.Description, CardRules: rules, OriginActionID: actionID, CreatedAt: now, UpdatedAt: now})
			continue
		}
		delete(byID, c.ID)
		next := old
		next.Position, next.Title, next.Keys, next.Entry, next.Type, next.Description = i, clip(title, maxCardTitle), mustJSON(keys), c.Entry, clip(c.Type, 40), c.Description
		next.CardRules = rules
		if next != old {
			next.UpdatedAt = now
			if err := tx.SaveAdventureCard(ctx, &next); err != nil {
				return err
			}
		}
	}
	var removed []int64
	for _, c := range byID {
		removed = append(removed, c.ID)
	}
	if err := tx.DeleteAdventureCards(ctx, removed); err != nil {
		return err
	}
	return tx.CreateAdventureCards(ctx, added)
}

func (r *scriptRun) persistConsole(ctx context.Context, tx *models.Store, actionID *int64) error {
	if r == nil || len(r.console) == 0 {
		return nil
	}
	for i := range r.console {
		r.console[i].ActionID = actionID
	}
	// Copies: a rolled-back transaction must leave the lines to keepConsole.
	return tx.CreateConsoleEntries(ctx, append([]models.ScriptConsoleEntry(nil), r.console...))
}

// saved forgets the console lines once the transaction holding them committed.
func (r *scriptRun) saved() {
	if r != nil {
		r.console = nil
	}
}

// keepConsole saves the console of a turn that failed, so a script's logs
// and errors are never lost with the turn.
func (r *scriptRun) keepConsole(ctx context.Context, store *models.Store) {
	if r == nil || len(r.console) == 0 {
		return
	}
	_ = store.Tx(ctx, func(tx *models.Store) error { return r.persistConsole(ctx, tx, nil) })
}

// scriptRules stores the rules a script left on a card: an unknown logic
// reads as and_any, a priority is already within bounds (the prelude
// clamps it).
func scriptRules(c scripting.Card) models.CardRules {
	logic := c.Logic
	if logic == prompt.LogicAndAny || !prompt.ValidLogic(logic) {
		logic = ""
	}
	return models.CardRules{SecondaryKeys: mustJSON(prompt.SplitKeys(c.SecondaryKeys)), Logic: logic, Constant: c.Constant, Priority: c.Priority}
}

// clip bounds a script-written string to a column's size.
func clip(s string, max int) string {
	r := []rune(s)
	if len(r) > max {
		return string(r[:max])
	}
	return s
}

// flattenPrompt is the prompt as scripts see it (onModelContext's text):
// the static block, then every other message, separated by blank lines.
func flattenPrompt(static string, rest []string) string {
	return strings.Join(append([]string{static}, rest...), "\n\n")
}

// scriptErrorText is the English notice of a script that failed and was
// skipped (the console stores it; scriptErrorCode reads it back).
func scriptErrorText(hook, kind, errText string) string {
	return fmt.Sprintf("Script error in the %s hook (%s): %s — the turn continued without it.", hook, kind, errText)
}

var scriptErrorLine = regexp.MustCompile(`(?s)^Script error in the (\w+) hook \((\w+)\): (.*) — the turn continued without it\.$`)

// scriptErrorCode is the code and params of a console line scriptErrorText
// wrote, so the web app can show it in the reader's language; none for
// another line.
func scriptErrorCode(text string) (string, map[string]string) {
	m := scriptErrorLine.FindStringSubmatch(text)
	if m == nil {
		return "", nil
	}
	return NoticeScriptError, scriptErrorParams(m[1], m[2], m[3])
}

// scriptErrorParams are the params of a script.error notice or console
// line: the hook, the kind and the English error, plus "line" (the line of
// the hook's own script) and "library_line" (of the Library) when the error
// names them, so an editor can mark the line.
func scriptErrorParams(hook, kind, errText string) map[string]string {
	p := map[string]string{"hook": hook, "kind": kind, "error": errText}
	line, lib := scripting.ErrorLines(errText)
	if line > 0 {
		p["line"] = strconv.Itoa(line)
	}
	if lib > 0 {
		p["library_line"] = strconv.Itoa(lib)
	}
	return p
}

// scriptStopped is the turn error when a script stops the action.
func scriptStopped(hook string, notices []Notice) error {
	msg := fmt.Sprintf("A script stopped this action (%s hook).", hook)
	if len(notices) > 0 {
		msg += " " + notices[len(notices)-1].Text
	}
	return apperr.E(apperr.ScriptStopped, "%s", msg)
}

// GetConsole returns the newest lines of an adventure's script console.
func (s *Service) GetConsole(ctx context.Context, userID, adventureID int64) (Console, error) {
	if _, err := ownAdventure(ctx, s.store, userID, adventureID, false); err != nil {
		return Console{}, err
	}
	rows, err := s.store.ConsoleTail(ctx, adventureID, consoleTail)
	out := Console{Entries: make([]ConsoleEntry, len(rows))}
	for i, r := range rows {
		out.Entries[i] = ConsoleEntry{ID: r.ID, ActionID: r.ActionID, Hook: r.Hook, Level: r.Level, Text: r.Text, CreatedAt: r.CreatedAt}
		if r.Level == ConsoleError {
			out.Entries[i].Code, out.Entries[i].Params = scriptErrorCode(r.Text)
		}
	}
	return out, err
}
