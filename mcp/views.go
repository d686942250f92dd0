package mcp

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/adventure-table/adventure-table/gameplay/sheet"
	"github.com/adventure-table/adventure-table/gameplay/table"
)

// The compact forms an agent reads. A model pays for every byte it reads,
// so results name speakers instead of seat ids, and leave out empty fields,
// nulls, timestamps and what the agent cannot act on. They are views of the
// gameplay results, built after every rule has run.

// Event is one event: what happened, who did it and the text, if any.
type Event struct {
	Seq  int64  `json:"seq"`
	Kind string `json:"kind"`
	By   string `json:"by,omitempty" jsonschema:"who acted: DM, a character (its player), an NPC, or DM for a character"`
	Msg  string `json:"msg,omitempty" jsonschema:"message.posted: narration, npc, say, action, ooc or whisper"`
	To   string `json:"to,omitempty" jsonschema:"a whisper's recipient"`
	Text string `json:"text,omitempty"`
	// Data holds the event's other fields (ids, rolls, outcomes).
	Data map[string]any `json:"data,omitempty"`
}

// EventPage is events after a cursor.
type EventPage struct {
	Events  []Event `json:"events,omitempty"`
	Cursor  int64   `json:"cursor" jsonschema:"pass as after next time"`
	HasMore bool    `json:"has_more,omitempty"`
}

// Roll is a roll's outcome.
type Roll struct {
	RollID    int64  `json:"roll_id"`
	RequestID int64  `json:"request_id,omitempty"`
	Formula   string `json:"formula"`
	Dice      []int  `json:"dice,omitempty" jsonschema:"every die rolled"`
	Kept      []int  `json:"kept,omitempty" jsonschema:"the dice that count, when some were dropped"`
	Total     int    `json:"total"`
	Success   *bool  `json:"success,omitempty" jsonschema:"only for the DM, or when the DM reveals it"`
}

// Check is a check request.
type Check struct {
	RequestID int64  `json:"request_id"`
	SeatID    int64  `json:"seat_id"`
	Check     string `json:"check" jsonschema:"the skill, ability or saving throw (dex_save)"`
	Mode      string `json:"mode,omitempty"`
	DC        int    `json:"dc,omitempty" jsonschema:"DM only, until revealed"`
	// A secret DC's commitment, and once rolled the salt that opens it
	// (table.DCCommitment).
	Commitment string `json:"dc_commitment,omitempty"`
	Salt       string `json:"dc_salt,omitempty"`
	DiceNeeded int    `json:"dice_needed"`
	Label      string `json:"label,omitempty"`
	Status     string `json:"status,omitempty"`
}

// Seat is a seat at the table.
type Seat struct {
	SeatID     int64    `json:"seat_id"`
	Role       string   `json:"role"`
	Name       string   `json:"name" jsonschema:"how events name it"`
	AI         bool     `json:"ai,omitempty"`
	Playing    bool     `json:"playing,omitempty" jsonschema:"taking part in this session"`
	HP         string   `json:"hp,omitempty" jsonschema:"current/max (+temp)"`
	Conditions []string `json:"conditions,omitempty"`
}

// Action is a declared action waiting for the DM.
type Action struct {
	ActionID int64  `json:"action_id"`
	SeatID   int64  `json:"seat_id"`
	By       string `json:"by"`
	Text     string `json:"text"`
	Status   string `json:"status"`
}

// Window is an open "what does everyone do?" window.
type Window struct {
	WindowID int64  `json:"window_id"`
	Prompt   string `json:"prompt"`
	Status   string `json:"status,omitempty"`
}

// Step is a tool the agent may call now, with the ids it needs.
type Step struct {
	Tool string         `json:"tool"`
	Args map[string]any `json:"args,omitempty"`
}

// Stage is the scene on the stage.
type Stage struct {
	Text     string `json:"text,omitempty"`
	Image    bool   `json:"image,omitempty" jsonschema:"an image is shown"`
	Revision int64  `json:"revision"`
}

// SessionRef names the session.
type SessionRef struct {
	ID       int64  `json:"id"`
	Status   string `json:"status"`
	Campaign string `json:"campaign"`
	Room     string `json:"room"`
}

// Context is get_session_context: who you are, what you may do, what waits
// for you, a short window of recent events and the cursor.
type Context struct {
	You         string       `json:"you"`
	Role        string       `json:"role"`
	SeatID      int64        `json:"seat_id,omitempty"`
	Session     SessionRef   `json:"session"`
	Stage       Stage        `json:"stage"`
	Seats       []Seat       `json:"seats,omitempty"`
	Checks      []Check      `json:"checks,omitempty" jsonschema:"pending checks (yours, or all for the DM)"`
	Actions     []Action     `json:"actions,omitempty"`
	Window      *Window      `json:"window,omitempty"`
	Encounter   *Fight       `json:"encounter,omitempty" jsonschema:"the running fight"`
	Next        []Step       `json:"next,omitempty" jsonschema:"tools you may call now"`
	Instruction string       `json:"instruction,omitempty" jsonschema:"temporary guidance from the seat's owner"`
	World       *table.World `json:"world,omitempty"`
	Recap       *Recap       `json:"recap,omitempty" jsonschema:"DM: the \"Previously on…\" recap waiting for you (session post_recap or skip_recap)"`
	Recent      []Event      `json:"recent,omitempty" jsonschema:"the newest events; older ones: wait_for_event, timeout_seconds 0"`
	Memories    []string     `json:"memories,omitempty" jsonschema:"what the campaign remembers of earlier play that bears on now"`
	Cursor      int64        `json:"cursor"`
}

// Recap is a session's recap still to be posted: drafting (being
// written), or draft with its text.
type Recap struct {
	Status string `json:"status"`
	Text   string `json:"text,omitempty"`
}

// Posted is a message posted.
type Posted struct {
	Seq       int64 `json:"seq"`
	MessageID int64 `json:"message_id"`
}

// Sheet is a character sheet.
type Sheet struct {
	SeatID           int64                `json:"seat_id"`
	Name             string               `json:"name"`
	Level            int                  `json:"level"`
	ProficiencyBonus int                  `json:"proficiency_bonus"`
	Abilities        table.Abilities      `json:"abilities"`
	Skills           []string             `json:"skills,omitempty" jsonschema:"proficient skills"`
	Expertise        []string             `json:"expertise,omitempty"`
	HP               table.HP             `json:"hp"`
	Conditions       []string             `json:"conditions,omitempty"`
	Resources        []table.ResourceView `json:"resources,omitempty"`
	Biography        string               `json:"biography,omitempty"`
	Guidance         string               `json:"roleplay_guidance,omitempty"`
	// Attacks are the sheet's attacks as the server derives them: what
	// quick_roll's attack and a fight's attack (weapon) roll.
	Attacks   []sheet.AttackDerived `json:"attacks,omitempty" jsonschema:"each attack's to_hit and damage (with the modifier), by name"`
	Spells    []table.SpellView     `json:"spells,omitempty" jsonschema:"spells (level 0 is a cantrip); spell slots are resources"`
	Inventory []table.ItemView      `json:"inventory,omitempty"`
	Notes     string                `json:"notes,omitempty"`
}

// StateChanged is a character's live state after a change.
type StateChanged struct {
	SeatID     int64                `json:"seat_id"`
	Character  string               `json:"character"`
	HP         table.HP             `json:"hp"`
	Conditions []string             `json:"conditions,omitempty"`
	Resources  []table.ResourceView `json:"resources,omitempty"`
}

// Checks is what request_check created.
type Checks struct {
	GroupID int64   `json:"group_id"`
	Checks  []Check `json:"checks"`
}

// Declared is a declared action.
type Declared struct {
	ActionID int64  `json:"action_id"`
	Status   string `json:"status"`
}

// Done is the result of a lifecycle call.
type Done struct {
	Status string `json:"status" jsonschema:"the session's status, or the thing's new status"`
	Cursor int64  `json:"cursor,omitempty"`
}

// PreSession is get_pre_session_context.
type PreSession struct {
	CampaignID     int64        `json:"campaign_id"`
	Campaign       string       `json:"campaign"`
	DMSeatID       int64        `json:"dm_seat_id"`
	LobbySessionID int64        `json:"lobby_session_id,omitempty"`
	ReadyToStart   bool         `json:"ready_to_start"`
	ExpiresAt      string       `json:"expires_at,omitempty"`
	World          *table.World `json:"world,omitempty"`
}

// worldOf is the campaign's world as the caller's seat may see it (the DM
// all of it, a player the premise: table.World), or nil when there is
// nothing in it.
func worldOf(w table.World) *table.World {
	if w.Premise == "" && w.PlotEssentials == "" && len(w.NPCs) == 0 {
		return nil
	}
	return &w
}

// roster names seats the way events name them.
type roster map[int64]table.SeatView

func newRoster(seats []table.SeatView) roster {
	r := roster{}
	for _, s := range seats {
		r[s.ID] = s
	}
	return r
}

// name is "DM", "Aria (Mira)" (character and the person playing it),
// "Aria (AI)", or the seat's label when it has no character.
func (r roster) name(id int64) string {
	s, ok := r[id]
	switch {
	case !ok:
		return fmt.Sprintf("seat %d", id)
	case s.Role == "dm":
		return "DM"
	case s.Character == nil:
		return s.Label
	case s.ControllerKind == "ai":
		return s.Character.Name + " (AI)"
	case s.ControllerDisplayName != nil && *s.ControllerDisplayName != "":
		return s.Character.Name + " (" + *s.ControllerDisplayName + ")"
	}
	return s.Character.Name
}

// messageKinds are the message kinds as agents read them.
var messageKinds = map[string]string{"narration": "narration", "character_dialogue": "say", "action": "action", "ooc": "ooc", "whisper_dm": "whisper"}

// compactEvent turns an event the caller may see into its compact form.
func (r roster) compactEvent(e table.EventView) Event {
	out := Event{Seq: e.Seq, Kind: e.Kind}
	var payload map[string]any
	_ = json.Unmarshal(e.Payload, &payload)
	if e.ActingSeatID != nil {
		out.By = r.name(*e.ActingSeatID)
		if e.ExecutionMode == "dm_proxy" && e.SubjectSeatID != nil {
			out.By = "DM for " + r.name(*e.SubjectSeatID)
		}
	}
	delete(payload, "version")
	if strings.HasPrefix(e.Kind, "encounter.") {
		compactEncounterData(payload)
	}
	if text, ok := payload["text"].(string); ok {
		out.Text = text
		delete(payload, "text")
	}
	if e.Kind == table.EventMessagePosted {
		kind, _ := payload["kind"].(string)
		out.Msg = messageKinds[kind]
		if speaker, _ := payload["speaker"].(string); speaker != "" {
			out.Msg, out.By = "npc", speaker+" (NPC)"
		}
		if out.Msg == "whisper" {
			out.To = "DM"
			if ids, _ := payload["recipient_seat_ids"].([]any); len(ids) > 0 {
				if id, ok := ids[0].(float64); ok {
					out.To = r.name(int64(id))
				}
			}
		}
		for _, k := range []string{"kind", "speaker", "message_id", "recipient_seat_ids"} {
			delete(payload, k)
		}
	}
	if res, ok := payload["result"].(map[string]any); ok {
		payload["result"] = compactRollMap(res)
	}
	// A message's inline [[...]] rolls, in the Roll form too.
	if rolls, ok := payload["rolls"].([]any); ok {
		for i, r := range rolls {
			if m, ok := r.(map[string]any); ok {
				rolls[i] = compactRollMap(m)
			}
		}
	}
	if d, ok := prune(payload).(map[string]any); ok && len(d) > 0 {
		out.Data = d
	}
	return out
}

// prune drops what an agent cannot use from event data: nulls, empty
// strings and lists, timestamps, audit trails and visibility bookkeeping,
// in the objects of lists too. A false stays: "success": false is news.
func prune(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, val := range x {
			if strings.HasSuffix(k, "_at") || k == "audit" || k == "visibility" || k == "execution_mode" {
				continue
			}
			if p := prune(val); p != nil {
				out[k] = p
			}
		}
		if len(out) == 0 {
			return nil
		}
		return out
	case []any:
		if len(x) == 0 {
			return nil
		}
		for i, el := range x {
			if m, ok := el.(map[string]any); ok {
				p, _ := prune(m).(map[string]any)
				if p == nil {
					p = map[string]any{}
				}
				x[i] = p
			}
		}
		return x
	case string:
		if x == "" {
			return nil
		}
	case nil:
		return nil
	}
	return v
}

// compactRollMap is a roll result inside event data, in the Roll form.
func compactRollMap(res map[string]any) map[string]any {
	out := map[string]any{}
	for _, k := range []string{"formula", "total", "success", "raw_dice"} {
		if v, ok := res[k]; ok && v != nil {
			out[k] = v
		}
	}
	if d, ok := out["raw_dice"]; ok {
		out["dice"] = d
		delete(out, "raw_dice")
	}
	return out
}

func compactRoll(v table.RollResultView) Roll {
	out := Roll{RollID: v.ID, Formula: v.Formula, Dice: v.RawDice, Total: v.Total, Success: v.Success}
	if v.RollRequestID != nil {
		out.RequestID = *v.RollRequestID
	}
	if len(v.KeptDice) != len(v.RawDice) {
		out.Kept = v.KeptDice
	}
	return out
}

func compactCheck(v table.RollRequestView) Check {
	out := Check{RequestID: v.ID, SeatID: v.TargetSeatID, Check: v.Skill, DiceNeeded: v.DiceNeeded, Label: v.Label}
	if out.Check == "" {
		out.Check = v.Ability
	}
	if v.RequestType == "save" {
		out.Check = v.Ability + sheet.SaveSuffix
	}
	if v.Mode != "normal" {
		out.Mode = v.Mode
	}
	if v.DC != nil {
		out.DC = *v.DC
	}
	out.Commitment = v.DCCommitment
	if v.Status != "pending" {
		out.Salt = v.DCSalt
		out.Status = v.Status
	}
	return out
}

func compactPage(p table.EventPage, r roster) EventPage {
	out := EventPage{Cursor: p.Cursor, HasMore: p.HasMore}
	for _, e := range p.Events {
		out.Events = append(out.Events, r.compactEvent(e))
	}
	// A page stays small enough to read in one go: the rest is one call
	// away, from the cursor of the last event returned.
	if len(out.Events) > maxPageEvents {
		out.Events = out.Events[:maxPageEvents]
		out.Cursor, out.HasMore = out.Events[maxPageEvents-1].Seq, true
	}
	return out
}

// maxPageEvents bounds the events of one wait_for_event
// result (about 4 KB of ordinary table talk).
const maxPageEvents = 25

// recentWindow is how many of the newest events get_session_context shows.
const recentWindow = 8

// clip shortens a long text in the recent window of the context; the whole
// text is in wait_for_event.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}

func hpText(hp table.HP) string {
	s := fmt.Sprintf("%d/%d", hp.Current, hp.Max)
	if hp.Temp > 0 {
		s += fmt.Sprintf(" +%d", hp.Temp)
	}
	return s
}

// Fight is a running encounter as an agent reads it: the turn order with
// each combatant's state, built from gameplay's view for the caller (a
// hidden NPC's armor class and hit points are already absent for players).
type Fight struct {
	Name     string    `json:"name"`
	Phase    string    `json:"phase" jsonschema:"initiative, fighting or ended"`
	Round    int       `json:"round,omitempty"`
	Turn     string    `json:"turn,omitempty" jsonschema:"whose turn it is: a combatant id"`
	TurnName string    `json:"turn_name,omitempty"`
	YourTurn bool      `json:"your_turn,omitempty" jsonschema:"in get_session_context: yours to play (the DM plays the NPCs)"`
	Order    []Fighter `json:"order,omitempty" jsonschema:"in turn order once the fight begins"`
}

// Fighter is one combatant of a Fight.
type Fighter struct {
	ID         string   `json:"id" jsonschema:"seat:<seat id> or npc:<n>"`
	Name       string   `json:"name"`
	Init       *int     `json:"init,omitempty" jsonschema:"initiative, once rolled"`
	Status     string   `json:"status" jsonschema:"active, dying, stable or dead"`
	HP         string   `json:"hp,omitempty" jsonschema:"current/max (+temp); absent for a hidden NPC unless you are the DM"`
	AC         *int     `json:"ac,omitempty"`
	Conditions []string `json:"conditions,omitempty" jsonschema:"with the rounds left when timed"`
	Hidden     bool     `json:"hidden,omitempty" jsonschema:"an NPC whose numbers players do not see"`
}

// AttackOutcome is what an attack roll did.
type AttackOutcome struct {
	Hit          bool   `json:"hit"`
	Natural      int    `json:"natural"`
	Total        int    `json:"total"`
	Critical     bool   `json:"critical,omitempty"`
	Damage       *int   `json:"damage,omitempty"`
	TargetStatus string `json:"target_status,omitempty"`
}

// Fought is the result of fight: the event's seq, an attack's outcome and
// the fight after it.
type Fought struct {
	Seq       int64          `json:"seq"`
	Attack    *AttackOutcome `json:"attack,omitempty"`
	Encounter Fight          `json:"encounter"`
}

// compactFight is the agent's form of an encounter view. mine is the
// caller's seat combatant id ("" for none); the DM (dm) plays the NPCs.
func compactFight(v table.EncounterView, mine string, dm bool) Fight {
	out := Fight{Name: v.Name, Phase: v.Phase, Round: v.Round, Turn: v.CurrentID}
	for _, c := range v.Combatants {
		if c.ID == v.CurrentID {
			out.TurnName = c.Name
			out.YourTurn = c.ID == mine || dm && c.SeatID == nil
		}
		out.Order = append(out.Order, compactFighter(c))
	}
	return out
}

// compactFighter is the agent's form of a combatant view.
func compactFighter(c table.CombatantView) Fighter {
	f := Fighter{ID: c.ID, Name: c.Name, Init: c.Initiative, Status: c.Status, AC: c.AC, Hidden: c.Hidden}
	if c.HP != nil {
		f.HP = hpText(table.HP{Current: c.HP.Current, Max: c.HP.Max, Temp: c.HP.Temp})
	}
	for _, cond := range c.Conditions {
		name := cond.Name
		if cond.Rounds > 0 {
			name += fmt.Sprintf(" (%d rounds)", cond.Rounds)
		}
		f.Conditions = append(f.Conditions, name)
	}
	return f
}

// compactEncounterData shortens an encounter event's payload to what
// changed: the whole encounter every event carries is left out (the
// fight as it stands is in get_session_context; only its name and round
// stay), the DM's hidden NPCs read as the fight's combatants do, and dice
// results read as formula, dice and total.
func compactEncounterData(payload map[string]any) {
	if enc, ok := payload["encounter"].(map[string]any); ok {
		payload["name"], payload["round"] = enc["name"], enc["round"]
	}
	delete(payload, "encounter")
	delete(payload, "encounter_id")
	if hidden, ok := payload["hidden"].([]any); ok {
		raw, _ := json.Marshal(hidden)
		var views []table.CombatantView
		if json.Unmarshal(raw, &views) == nil {
			out := make([]any, len(views))
			for i, c := range views {
				out[i] = compactFighter(c)
			}
			payload["hidden"] = out
		}
	}
	var walkRolls func(any) any
	walkRolls = func(x any) any {
		switch m := x.(type) {
		case map[string]any:
			if _, ok := m["normalized"]; ok {
				if groups, ok := m["groups"].([]any); ok {
					return compactDiceMap(m, groups)
				}
			}
			for k, val := range m {
				m[k] = walkRolls(val)
			}
		case []any:
			for i, val := range m {
				m[i] = walkRolls(val)
			}
		}
		return x
	}
	walkRolls(payload)
}

// compactDiceMap is a dice engine result as {formula, dice, total}.
func compactDiceMap(m map[string]any, groups []any) map[string]any {
	out := map[string]any{"formula": m["formula"], "total": m["total"]}
	var faces []any
	for _, g := range groups {
		gm, _ := g.(map[string]any)
		dice, _ := gm["dice"].([]any)
		for _, d := range dice {
			if dm, ok := d.(map[string]any); ok {
				faces = append(faces, dm["value"])
			}
		}
	}
	if len(faces) > 0 {
		out["dice"] = faces
	}
	return out
}

// JournalPage is a page of the campaign journal, or the entry a write
// changed.
type JournalPage struct {
	Entries []JournalEntry `json:"entries"`
	HasMore bool           `json:"has_more,omitempty" jsonschema:"older entries follow: list before the last entry_id"`
	Deleted int64          `json:"deleted,omitempty" jsonschema:"the entry deleted"`
}

// JournalEntry is a journal entry as an agent needs it.
type JournalEntry struct {
	EntryID   int64   `json:"entry_id"`
	Kind      string  `json:"kind"`
	Title     string  `json:"title"`
	Text      string  `json:"text,omitempty"`
	Audience  string  `json:"audience"`
	SeatIDs   []int64 `json:"seat_ids,omitempty"`
	BySeatID  *int64  `json:"by_seat_id,omitempty" jsonschema:"who wrote it"`
	Seq       *int64  `json:"seq,omitempty" jsonschema:"the event it comes from (source_session_id's)"`
	SessionID *int64  `json:"source_session_id,omitempty"`
	Confirmed bool    `json:"confirmed" jsonschema:"false: a player's proposal"`
	CanEdit   bool    `json:"can_edit,omitempty"`
}

// journalPageLimit is how many entries one list call returns: enough for
// a table's cast, small enough for a model's turn.
const journalPageLimit = 20

func journalPage(entries []table.JournalEntryView, more bool) JournalPage {
	out := JournalPage{Entries: make([]JournalEntry, 0, len(entries)), HasMore: more}
	for _, e := range entries {
		out.Entries = append(out.Entries, JournalEntry{EntryID: e.ID, Kind: e.Kind, Title: e.Title, Text: e.Text, Audience: e.Audience, SeatIDs: e.SeatIDs,
			BySeatID: e.AuthorSeatID, Seq: e.SourceSeq, SessionID: e.SourceSessionID, Confirmed: e.Confirmed, CanEdit: e.CanEdit})
	}
	return out
}
