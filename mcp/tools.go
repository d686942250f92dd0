package mcp

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"reflect"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/adventure-table/adventure-table/gameplay/limits"
	"github.com/adventure-table/adventure-table/gameplay/narrative"
	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// tool is one MCP tool: what a model reads about it (its spec: name,
// description, schemas, hints) and the typed gameplay call behind it.
// Registered with the SDK for /mcp, and called directly by the Toolbox for
// the server's own narrator: the same handler either way.
type tool struct {
	name   string
	spec   *mcpsdk.Tool
	handle func(ctx context.Context, d toolDeps, p Principal, args json.RawMessage) *mcpsdk.CallToolResult
}

func (t tool) register(s *mcpsdk.Server, d toolDeps) {
	s.AddTool(t.spec, func(ctx context.Context, req *mcpsdk.CallToolRequest) (*mcpsdk.CallToolResult, error) {
		p, ok := PrincipalFromContext(ctx)
		if !ok {
			return errorResult(d.logger, t.name, apperr.E(apperr.Unauthorized, "A bearer token is required.")), nil
		}
		if token := req.Params.GetProgressToken(); token != nil {
			ctx = withProgress(ctx, req.Session, token)
		}
		return t.handle(ctx, d, p, req.Params.Arguments), nil
	})
}

type toolDeps struct {
	table     *table.Service
	narrative *narrative.Service
	logger    *slog.Logger
	limits    *limits.Limits
}

// hints are a tool's annotations. Every tool acts on this server's table
// only (openWorldHint false).
type hints int

const (
	// write changes the table; repeating it does it again.
	write hints = iota
	// read changes nothing.
	read
	// idempotent changes the table, and repeating it changes nothing more.
	idempotent
	// destructive cannot be undone (ending the session, cancelling a check).
	destructive
)

func (h hints) annotations() *mcpsdk.ToolAnnotations {
	no, yes := false, true
	a := &mcpsdk.ToolAnnotations{OpenWorldHint: &no, DestructiveHint: &no}
	switch h {
	case read:
		a.ReadOnlyHint, a.IdempotentHint, a.DestructiveHint = true, true, nil
	case idempotent:
		a.IdempotentHint = true
	case destructive:
		a.DestructiveHint = &yes
	}
	return a
}

// typed builds a tool from a typed call: the input and output JSON Schemas
// come from the Go types. It is registered as a raw handler (not
// mcpsdk.AddTool) so that a failure can carry the structured error code
// in structuredContent.error; the SDK's typed path would replace it.
func typed[In, Out any](name, title string, h hints, description string, call func(ctx context.Context, d toolDeps, c table.Caller, in In) (Out, error)) tool {
	return newTool(name, title, h, description, func(ctx context.Context, d toolDeps, p Principal, in In) (Out, error) {
		if p.Solo != nil {
			// Never registered for a solo grant; refused should one reach it.
			var zero Out
			return zero, apperr.E(apperr.AITokenInvalid, "This token is for a solo story, not a table.")
		}
		return call(ctx, d, p.caller(), in)
	})
}

// newTool builds a tool from a typed call that takes the principal.
func newTool[In, Out any](name, title string, h hints, description string, call func(ctx context.Context, d toolDeps, p Principal, in In) (Out, error)) tool {
	inSchema, err := inputSchema(reflect.TypeFor[In]())
	if err != nil {
		panic(fmt.Sprintf("tool %s input schema: %v", name, err))
	}
	outSchema, err := outputSchema(reflect.TypeFor[Out]())
	if err != nil {
		panic(fmt.Sprintf("tool %s output schema: %v", name, err))
	}
	// The schemas go to the SDK already encoded: it re-encodes a tool's
	// input schema on every call (to look for parameter headers), and a
	// *jsonschema.Schema costs a reflective encoding each time, about 7% of
	// a wait_for_event wake under load.
	spec := &mcpsdk.Tool{Name: name, Title: title, Description: description, InputSchema: encoded(inSchema), OutputSchema: encoded(outSchema), Annotations: h.annotations()}
	return tool{name: name, spec: spec, handle: func(ctx context.Context, d toolDeps, p Principal, raw json.RawMessage) *mcpsdk.CallToolResult {
		// The grant's call budget: over it, the tool answers rate_limited
		// with details.retry_after_seconds.
		if err := d.limits.Allow(limits.MCP, p.limitKey()); err != nil {
			return errorResult(d.logger, name, err)
		}
		var in In
		args := bytes.TrimSpace(raw)
		if len(args) == 0 || string(args) == "null" {
			args = []byte("{}")
		}
		dec := json.NewDecoder(bytes.NewReader(args))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&in); err != nil {
			return errorResult(d.logger, name, apperr.E(apperr.InvalidRequest, "The arguments do not match the tool's input schema: %v", err))
		}
		out, err := call(ctx, d, p, in)
		if err != nil {
			return errorResult(d.logger, name, err)
		}
		body, err := json.Marshal(out)
		if err != nil {
			return errorResult(d.logger, name, err)
		}
		return &mcpsdk.CallToolResult{StructuredContent: json.RawMessage(body), Content: []mcpsdk.Content{&mcpsdk.TextContent{Text: string(body)}}}
	}}
}

// encoded is a schema as the JSON every client receives.
func encoded(schema *jsonschema.Schema) json.RawMessage {
	b, err := json.Marshal(schema)
	if err != nil {
		panic(fmt.Sprintf("a tool schema does not encode: %v", err))
	}
	return b
}

// Inputs of the tools. Descriptions are written for a model that has never
// seen this game; a seat is always seat_id.
type (
	noInput struct{}

	messageInput struct {
		Kind           string `json:"kind,omitempty" jsonschema:"default say"`
		Text           string `json:"text" jsonschema:"1-4000 chars"`
		Speaker        string `json:"speaker,omitempty" jsonschema:"DM, say: the NPC speaking"`
		Intent         string `json:"intent,omitempty" jsonschema:"action: search to search"`
		SeatID         *int64 `json:"seat_id,omitempty" jsonschema:"DM: the player seat you speak or act for, or whisper to"`
		IdempotencyKey string `json:"idempotency_key,omitempty" jsonschema:"a retry with the same key never posts twice"`
	}
	stageInput struct {
		Text        *string `json:"text,omitempty" jsonschema:"the scene, ≤4000 chars; omit to keep"`
		ImageBase64 string  `json:"image_base64,omitempty" jsonschema:"PNG, JPEG or WebP ≤10 MiB"`
		ClearImage  bool    `json:"clear_image,omitempty"`
	}
	seatInput struct {
		SeatID int64 `json:"seat_id,omitempty" jsonschema:"DM: whose; default yours"`
	}
	sessionInput struct {
		Action string `json:"action"`
		SeatID int64  `json:"seat_id,omitempty" jsonschema:"admit"`
		Text   string `json:"text,omitempty" jsonschema:"post_recap: your edit of the recap (omit to post the draft)"`
	}
	rollCheckInput struct {
		RequestID      int64  `json:"request_id"`
		Faces          []int  `json:"faces,omitempty" jsonschema:"physical dice: the raw d20 faces (dice_needed of them); omit to let the server roll"`
		IdempotencyKey string `json:"idempotency_key,omitempty"`
	}
	quickRollInput struct {
		Formula        string `json:"formula,omitempty" jsonschema:"e.g. 2d6+3, 1d20+5, 4d6dl1, d%"`
		Check          string `json:"check,omitempty" jsonschema:"instead of formula: a skill or ability, rolled 1d20 + the character's modifier"`
		Attack         string `json:"attack,omitempty" jsonschema:"instead of formula: a sheet attack (name or number), 1d20 + its to-hit"`
		Damage         bool   `json:"damage,omitempty" jsonschema:"with attack: its damage"`
		Private        bool   `json:"private,omitempty" jsonschema:"only you and the DM see it"`
		SeatID         *int64 `json:"seat_id,omitempty" jsonschema:"DM: roll for this player seat"`
		IdempotencyKey string `json:"idempotency_key,omitempty"`
	}
	checkInput struct {
		SeatID        *int64 `json:"seat_id,omitempty" jsonschema:"omit to ask everyone playing"`
		Skill         string `json:"skill,omitempty"`
		Ability       string `json:"ability,omitempty" jsonschema:"when no skill"`
		Save          string `json:"save,omitempty" jsonschema:"a saving throw instead of a check: dex_save (or dex save)"`
		DC            *int   `json:"dc,omitempty" jsonschema:"1-40, never shown to players"`
		Mode          string `json:"mode,omitempty"`
		RevealOutcome bool   `json:"reveal_outcome,omitempty" jsonschema:"tell players success or failure"`
		Private       bool   `json:"private,omitempty" jsonschema:"only that player and you see the roll"`
		Label         string `json:"label,omitempty"`
		ActionID      *int64 `json:"action_id,omitempty" jsonschema:"the declared action this check decides"`
	}
	requestInput struct {
		RequestID int64 `json:"request_id"`
	}
	stateInput struct {
		SeatID     int64  `json:"seat_id"`
		Op         string `json:"op"`
		Amount     int    `json:"amount,omitempty" jsonschema:"1-9999, for HP and resources"`
		DamageType string `json:"damage_type,omitempty" jsonschema:"damage: for resistances"`
		Condition  string `json:"condition,omitempty"`
		Resource   string `json:"resource,omitempty" jsonschema:"a resource on the sheet"`
	}
	declareInput struct {
		Text     string `json:"text"`
		Intent   string `json:"intent,omitempty"`
		WindowID *int64 `json:"window_id,omitempty" jsonschema:"the open window this answers"`
		SeatID   *int64 `json:"seat_id,omitempty" jsonschema:"DM: for this player seat"`
	}
	windowInput struct {
		Prompt   string `json:"prompt,omitempty" jsonschema:"open: e.g. What does everyone do?"`
		WindowID *int64 `json:"window_id,omitempty" jsonschema:"close this window"`
	}
	adjudicateInput struct {
		ActionID int64  `json:"action_id"`
		Status   string `json:"status"`
	}
	npcInput struct {
		Name            string `json:"name"`
		AC              int    `json:"ac"`
		HP              int    `json:"hp"`
		InitiativeBonus int    `json:"initiative_bonus,omitempty"`
		KeepsFighting   bool   `json:"keeps_fighting,omitempty" jsonschema:"death saves at 0"`
		Revealed        bool   `json:"revealed,omitempty" jsonschema:"players see AC and HP"`
	}
	fightInput struct {
		Action      string     `json:"action"`
		CombatantID string     `json:"combatant_id,omitempty" jsonschema:"who acts, or whom change changes"`
		TargetID    string     `json:"target_id,omitempty" jsonschema:"attack"`
		Weapon      string     `json:"weapon,omitempty" jsonschema:"attack: a sheet attack, its to-hit and damage"`
		Bonus       int        `json:"bonus,omitempty" jsonschema:"attack: to-hit"`
		Damage      string     `json:"damage,omitempty" jsonschema:"attack: e.g. 1d8+3"`
		DamageType  string     `json:"damage_type,omitempty"`
		Mode        string     `json:"mode,omitempty"`
		Faces       []int      `json:"faces,omitempty" jsonschema:"physical d20 faces"`
		DamageFaces []int      `json:"damage_faces,omitempty"`
		Name        string     `json:"name,omitempty" jsonschema:"start"`
		SeatIDs     []int64    `json:"seat_ids,omitempty" jsonschema:"start; default: all playing"`
		NPCs        []npcInput `json:"npcs,omitempty" jsonschema:"start; add: one"`
		SeatID      *int64     `json:"seat_id,omitempty" jsonschema:"add"`
		Change      string     `json:"change,omitempty"`
		Amount      int        `json:"amount,omitempty" jsonschema:"change"`
		Condition   string     `json:"condition,omitempty" jsonschema:"change"`
		Rounds      int        `json:"rounds,omitempty" jsonschema:"change: how long a condition lasts"`
	}
	journalInput struct {
		Action   string  `json:"action,omitempty" jsonschema:"default list"`
		EntryID  int64   `json:"entry_id,omitempty" jsonschema:"edit, confirm, delete"`
		Kind     string  `json:"kind,omitempty" jsonschema:"list: filter"`
		Title    string  `json:"title,omitempty"`
		Text     string  `json:"text,omitempty"`
		Audience string  `json:"audience,omitempty" jsonschema:"default table"`
		SeatIDs  []int64 `json:"seat_ids,omitempty" jsonschema:"audience seats"`
		Seq      *int64  `json:"seq,omitempty" jsonschema:"add: the event it cites"`
		Query    string  `json:"query,omitempty" jsonschema:"list: words to find"`
		Before   int64   `json:"before,omitempty" jsonschema:"list: older than this entry_id"`
	}
	waitInput struct {
		After          int64 `json:"after" jsonschema:"your cursor"`
		TimeoutSeconds *int  `json:"timeout_seconds,omitempty" jsonschema:"0-60, default 25; 0 answers at once; on timeout: no events, same cursor"`
	}
)

// sessionOf finds the session of the caller's grant.
func sessionOf(ctx context.Context, d toolDeps, c table.Caller) (int64, error) {
	return d.table.GrantSession(ctx, c)
}

// withSession adapts a call that needs the caller's session.
func withSession[In, Out any](call func(ctx context.Context, d toolDeps, c table.Caller, sessionID int64, in In) (Out, error)) func(context.Context, toolDeps, table.Caller, In) (Out, error) {
	return func(ctx context.Context, d toolDeps, c table.Caller, in In) (Out, error) {
		var zero Out
		id, err := sessionOf(ctx, d, c)
		if err != nil {
			return zero, err
		}
		return call(ctx, d, c, id, in)
	}
}

// page names the speakers of a page of events and compacts it.
func page(ctx context.Context, d toolDeps, c table.Caller, id int64, p table.EventPage) (EventPage, error) {
	if len(p.Events) == 0 {
		return EventPage{Cursor: p.Cursor, HasMore: p.HasMore}, nil
	}
	seats, err := d.table.SessionSeats(ctx, c, id)
	if err != nil {
		return EventPage{}, err
	}
	return compactPage(p, newRoster(seats)), nil
}

// tools is the whole tool surface (seed §9.3): high-level table actions,
// each one call of the gameplay function the web app uses. There is
// deliberately no tool for room management or seat control.
var tools = []tool{
	typed("get_session_context", "Session context", read,
		"Start here, and again whenever unsure. Who you are (DM or player, seat, character), the tools you may call now with the ids they need (next), checks waiting, the stage, the seats, recent events and the cursor for wait_for_event.",
		withSession(func(ctx context.Context, d toolDeps, c table.Caller, id int64, _ noInput) (Context, error) {
			return sessionContext(ctx, d, c, id)
		})),
	typed("wait_for_event", "Wait for events", read,
		"Events you may see after your cursor: waits until one happens (or nothing at timeout; timeout_seconds 0 answers at once, e.g. after=0 for older events). Call in a loop with the latest cursor; more at once while has_more. When the session ends you receive session.ended; later calls fail with session_ended.",
		withSession(func(ctx context.Context, d toolDeps, c table.Caller, id int64, in waitInput) (EventPage, error) {
			var p table.EventPage
			var err error
			switch timeout := in.TimeoutSeconds; {
			case timeout == nil:
				p, err = d.table.WaitEvents(ctx, c, id, in.After, table.DefaultWait)
			case *timeout == 0:
				p, err = d.table.ListEvents(ctx, c, id, in.After, maxPageEvents)
			default:
				p, err = d.table.WaitEvents(ctx, c, id, in.After, time.Duration(*timeout)*time.Second)
			}
			if err != nil {
				return EventPage{}, err
			}
			return page(ctx, d, c, id, p)
		})),
	typed("get_character_context", "Character sheet", read,
		"A character sheet: abilities, skills, HP, conditions, resources, attacks, spells, items, notes, biography, roleplay guidance. Yours by default.",
		withSession(func(ctx context.Context, d toolDeps, c table.Caller, id int64, in seatInput) (Sheet, error) {
			v, err := d.table.SeatCharacter(ctx, c, id, in.SeatID)
			if err != nil {
				return Sheet{}, err
			}
			return Sheet{SeatID: in.SeatID, Name: v.Name, Level: v.Level, ProficiencyBonus: v.ProficiencyBonus, Abilities: v.Abilities,
				Skills: v.SkillProficiencies, Expertise: v.SkillExpertise, HP: v.HP, Conditions: v.Conditions, Resources: v.Resources,
				Biography: v.Biography, Guidance: v.RoleplayGuidance, Attacks: v.Derived.Attacks, Spells: v.Spells, Inventory: v.Inventory, Notes: v.Notes}, nil
		})),
	typed("post_message", "Speak or act", write,
		"Post to the table. say: players speak in character; the DM narrates, voices an NPC (speaker) or speaks for a player's character (seat_id). action: what your character does; the DM decides what follows. ooc: out of character. whisper: players to the DM, the DM to one seat (seat_id); only the two see it.",
		withSession(func(ctx context.Context, d toolDeps, c table.Caller, id int64, in messageInput) (Posted, error) {
			msg := table.MessageInput{Text: in.Text, Speaker: in.Speaker, Intent: in.Intent, IdempotencyKey: in.IdempotencyKey}
			switch in.Kind {
			case "", "say":
				msg.Kind, msg.SubjectSeatID = table.KindSay, in.SeatID
			case "action":
				msg.Kind, msg.SubjectSeatID = "action", in.SeatID
			case "ooc":
				msg.Kind, msg.SubjectSeatID = "ooc", in.SeatID
			case "whisper":
				msg.Kind, msg.ToSeatID = "whisper_dm", in.SeatID
			default:
				return Posted{}, apperr.E(apperr.InvalidRequest, "Unknown kind %q.", in.Kind).WithField("kind", "say, action, ooc or whisper")
			}
			p, err := d.table.PostMessage(ctx, c, id, msg)
			if err != nil {
				return Posted{}, err
			}
			return Posted{Seq: p.Event.Seq, MessageID: p.MessageID}, nil
		})),
	typed("declare_action", "Declare an action", write,
		"Declare an action for the DM to adjudicate, e.g. in answer to an open action window (window_id).",
		withSession(func(ctx context.Context, d toolDeps, c table.Caller, id int64, in declareInput) (Declared, error) {
			a, err := d.table.DeclareAction(ctx, c, id, table.ActionInput{Text: in.Text, Intent: in.Intent, SubjectSeatID: in.SeatID, WindowID: in.WindowID})
			if err != nil {
				return Declared{}, err
			}
			return Declared{ActionID: a.ID, Status: a.Status}, nil
		})),
	typed("roll_check", "Roll a check", idempotent,
		"Resolve a check waiting for you (checks in get_session_context): the server rolls, or give faces from physical dice. Your modifier is added for you.",
		func(ctx context.Context, d toolDeps, c table.Caller, in rollCheckInput) (Roll, error) {
			r, err := d.table.ResolveRequest(ctx, c, in.RequestID, table.RollInput{Faces: in.Faces, IdempotencyKey: in.IdempotencyKey})
			if err != nil {
				return Roll{}, err
			}
			return compactRoll(r), nil
		}),
	typed("quick_roll", "Roll dice", write,
		"Roll any dice (or a skill, ability or attack with your modifier) for everyone to see, or privately for you and the DM. Never resolves a check.",
		withSession(func(ctx context.Context, d toolDeps, c table.Caller, id int64, in quickRollInput) (Roll, error) {
			r, err := d.table.QuickRoll(ctx, c, id, table.QuickRollInput{Formula: in.Formula, Check: in.Check, Attack: in.Attack, Damage: in.Damage,
				Private: in.Private, SubjectSeatID: in.SeatID, IdempotencyKey: in.IdempotencyKey})
			if err != nil {
				return Roll{}, err
			}
			return compactRoll(r), nil
		})),
	typed("update_character_state", "Change HP or conditions", write,
		"Change a character's live state. DM: anything, for anyone playing. Players, own character: heal, set_temp_hp, spend_resource, restore_resource.",
		withSession(func(ctx context.Context, d toolDeps, c table.Caller, id int64, in stateInput) (StateChanged, error) {
			v, err := d.table.ChangeCharacterState(ctx, c, id, table.StateChangeInput{SubjectSeatID: in.SeatID, Op: in.Op, Amount: in.Amount, DamageType: in.DamageType, Condition: in.Condition, Resource: in.Resource})
			if err != nil {
				return StateChanged{}, err
			}
			return StateChanged{SeatID: v.SeatID, Character: v.Character, HP: v.After.HP, Conditions: v.After.Conditions, Resources: v.After.Resources}, nil
		})),

	typed("fight", "Fight", destructive,
		"Combat. Everyone, for your combatant (seat:<seat_id>): initiative first; on your turn attack (the target's AC is secret), death_save if dying, end_turn. "+
			"DM, for any combatant: start (seat_ids, npcs: AC and HP secret unless revealed), add a seat or one NPC, change a combatant, end; the first end_turn begins the fight.",
		withSession(func(ctx context.Context, d toolDeps, c table.Caller, id int64, in fightInput) (Fought, error) {
			return fight(ctx, d, c, id, in)
		})),

	// The DM's tools.
	typed("get_pre_session_context", "Before the session", read,
		"DM, before the session starts: your campaign and whether its lobby is ready; then session start.",
		func(ctx context.Context, d toolDeps, c table.Caller, _ noInput) (PreSession, error) {
			p, err := d.table.GetPreSessionContext(ctx, c)
			if err != nil {
				return PreSession{}, err
			}
			out := PreSession{CampaignID: p.CampaignID, Campaign: p.CampaignName, DMSeatID: p.DMSeatID, ReadyToStart: p.ReadyToStart, World: worldOf(p.World)}
			if p.LobbySessionID != nil {
				out.LobbySessionID = *p.LobbySessionID
			}
			if p.ExpiresAt != nil {
				out.ExpiresAt = p.ExpiresAt.UTC().Format(time.RFC3339)
			}
			return out, nil
		}),
	typed("set_stage", "Set the stage", write,
		"DM: change what every player sees: the scene text, an image (base64 content), or clear_image.",
		withSession(func(ctx context.Context, d toolDeps, c table.Caller, id int64, in stageInput) (Stage, error) {
			return setStage(ctx, d, c, id, in)
		})),
	typed("request_check", "Ask for a check", write,
		"DM: ask one player seat, or everyone playing, for a skill or ability check or a saving throw. The DC stays secret (players see a SHA-256 commitment, opened by roll.revealed once all have rolled).",
		withSession(func(ctx context.Context, d toolDeps, c table.Caller, id int64, in checkInput) (Checks, error) {
			req := table.CheckRequestInput{Ability: in.Ability, Skill: in.Skill, Save: in.Save, DC: in.DC, Mode: in.Mode, RevealOutcome: in.RevealOutcome,
				Private: in.Private, Label: in.Label, PendingActionID: in.ActionID}
			if in.SeatID != nil {
				req.SeatIDs = []int64{*in.SeatID}
			}
			v, err := d.table.RequestCheck(ctx, c, id, req)
			if err != nil {
				return Checks{}, err
			}
			out := Checks{GroupID: v.GroupID, Checks: []Check{}}
			for _, r := range v.Requests {
				out.Checks = append(out.Checks, compactCheck(r))
			}
			return out, nil
		})),
	typed("cancel_check", "Cancel a check", destructive,
		"DM: cancel a check nobody has rolled yet.",
		func(ctx context.Context, d toolDeps, c table.Caller, in requestInput) (Check, error) {
			v, err := d.table.CancelRequest(ctx, c, in.RequestID)
			if err != nil {
				return Check{}, err
			}
			return compactCheck(v), nil
		}),
	typed("action_window", "Ask what everyone does", write,
		"DM: open a window with a prompt, in which players declare actions (declare_action; adjudicate each with adjudicate_action), or close one (window_id).",
		withSession(func(ctx context.Context, d toolDeps, c table.Caller, id int64, in windowInput) (Window, error) {
			var w table.ActionWindowView
			var err error
			switch {
			case in.WindowID != nil && in.Prompt != "":
				return Window{}, apperr.E(apperr.InvalidRequest, "Open a window (prompt) or close one (window_id), not both.").WithField("prompt", "not with window_id")
			case in.WindowID != nil:
				w, err = d.table.CloseActionWindow(ctx, c, *in.WindowID)
			default:
				w, err = d.table.OpenActionWindow(ctx, c, id, table.WindowInput{Prompt: in.Prompt})
			}
			return Window{WindowID: w.ID, Prompt: w.Prompt, Status: w.Status}, err
		})),
	typed("adjudicate_action", "Adjudicate an action", write,
		"DM: move a declared action on (processing, waiting_for_roll, resolved, cancelled). A player may cancel their own.",
		func(ctx context.Context, d toolDeps, c table.Caller, in adjudicateInput) (Declared, error) {
			a, err := d.table.TransitionAction(ctx, c, in.ActionID, table.TransitionInput{To: in.Status})
			return Declared{ActionID: a.ID, Status: a.Status}, err
		}),
	typed("journal", "Campaign journal", write,
		"Facts kept across sessions, each for an audience. list: newest first. add: the DM's are confirmed, for anyone; a player's are proposals, for the table or seats incl. theirs. edit, delete: DM any, player their own proposal. confirm: DM.",
		journal),
	typed("session", "Run the session", destructive,
		"DM: start the session waiting in your campaign's lobby (then call get_session_context), admit a player seat late (seat_id; it needs a controller and a character), post the \"Previously on…\" recap (get_session_context's recap; text to post your edit) or skip it, or end the session for everyone: every token of the session then fails with session_ended.",
		runSession),
}

func (messageInput) enums() map[string][]any {
	return map[string][]any{"kind": {"say", "action", "ooc", "whisper"}}
}

func (sessionInput) enums() map[string][]any {
	return map[string][]any{"action": {"start", "admit", "end", "post_recap", "skip_recap"}}
}

func (journalInput) enums() map[string][]any {
	return map[string][]any{"action": {"list", "add", "edit", "confirm", "delete"}, "kind": stringsAsAny(table.JournalKinds), "audience": {"table", "seats", "dm"}}
}

func stringsAsAny(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

// journal is one call on the campaign journal of the caller's session,
// the same gameplay calls the web app's journal routes make.
func journal(ctx context.Context, d toolDeps, c table.Caller, in journalInput) (JournalPage, error) {
	campaignID, err := d.table.GrantCampaign(ctx, c)
	if err != nil {
		return JournalPage{}, err
	}
	var e table.JournalEntryView
	switch in.Action {
	case "", "list":
		v, err := d.table.ListJournal(ctx, c, campaignID, table.JournalFilter{Kind: in.Kind, Query: in.Query, Before: in.Before, Limit: journalPageLimit})
		return journalPage(v.Entries, v.HasMore), err
	case "add":
		add := table.JournalInput{Kind: in.Kind, Title: in.Title, Text: in.Text, Audience: in.Audience, SeatIDs: in.SeatIDs}
		if in.Seq != nil {
			id, err := sessionOf(ctx, d, c)
			if err != nil {
				return JournalPage{}, err
			}
			add.SourceSessionID, add.SourceSeq = &id, in.Seq
		}
		e, err = d.table.AddJournalEntry(ctx, c, campaignID, add)
	case "edit":
		ch := table.JournalChange{SeatIDs: in.SeatIDs}
		for _, f := range []struct {
			v  string
			to **string
		}{{in.Kind, &ch.Kind}, {in.Title, &ch.Title}, {in.Text, &ch.Text}, {in.Audience, &ch.Audience}} {
			if f.v != "" {
				*f.to = &f.v
			}
		}
		e, err = d.table.EditJournalEntry(ctx, c, in.EntryID, ch)
	case "confirm":
		e, err = d.table.ConfirmJournalEntry(ctx, c, in.EntryID)
	case "delete":
		_, err = d.table.DeleteJournalEntry(ctx, c, in.EntryID)
		return JournalPage{Entries: []JournalEntry{}, Deleted: in.EntryID}, err
	default:
		return JournalPage{}, apperr.E(apperr.InvalidRequest, "Unknown action %q.", in.Action).WithField("action", "list, add, edit, confirm or delete")
	}
	if err != nil {
		return JournalPage{}, err
	}
	return journalPage([]table.JournalEntryView{e}, false), nil
}

func (fightInput) enums() map[string][]any {
	return map[string][]any{"action": {"initiative", "attack", "death_save", "end_turn", "start", "add", "change", "end"}}
}

func (n npcInput) table() table.NPCInput {
	return table.NPCInput{Name: n.Name, AC: n.AC, HP: n.HP, InitiativeBonus: n.InitiativeBonus, KeepsFighting: n.KeepsFighting, Revealed: n.Revealed}
}

// runSession is the DM's session lifecycle: start the lobby's session (a
// pre-session grant's one write), admit a seat late, end it.
func runSession(ctx context.Context, d toolDeps, c table.Caller, in sessionInput) (Done, error) {
	switch in.Action {
	case "start":
		pre, err := d.table.GetPreSessionContext(ctx, c)
		if err != nil {
			return Done{}, err
		}
		if pre.LobbySessionID == nil {
			return Done{}, apperr.E(apperr.SessionNotLobby, "There is no lobby to start; the owner must open one.")
		}
		r, err := d.table.StartSession(ctx, c, *pre.LobbySessionID)
		return Done{Status: r.Session.Status, Cursor: r.Cursor}, err
	case "admit", "end", "post_recap", "skip_recap":
	default:
		return Done{}, apperr.E(apperr.InvalidRequest, "Unknown action %q.", in.Action).WithField("action", "start, admit, post_recap, skip_recap or end")
	}
	id, err := sessionOf(ctx, d, c)
	if err != nil {
		return Done{}, err
	}
	var r table.SessionResume
	switch in.Action {
	case "admit":
		r, err := d.table.LateJoin(ctx, c, id, in.SeatID)
		return Done{Status: "playing", Cursor: r.Cursor}, err
	case "post_recap":
		var text *string
		if in.Text != "" {
			text = &in.Text
		}
		r, err = d.table.PostRecap(ctx, c, id, text)
	case "skip_recap":
		r, err = d.table.SkipRecap(ctx, c, id)
	default:
		r, err = d.table.EndSession(ctx, c, id)
	}
	return Done{Status: r.Session.Status, Cursor: r.Cursor}, err
}

// fight is one combat action, one gameplay call each: a combatant's
// (initiative, attack, death_save, end_turn) or the DM's change of the
// fight (start, add, change, end).
func fight(ctx context.Context, d toolDeps, c table.Caller, id int64, in fightInput) (Fought, error) {
	var r table.EncounterResult
	var err error
	switch in.Action {
	case "initiative":
		r, err = d.table.RollEncounterInitiative(ctx, c, id, table.InitiativeInput{CombatantID: in.CombatantID, Faces: in.Faces})
	case "attack":
		r, err = d.table.Attack(ctx, c, id, table.AttackInput{AttackerID: in.CombatantID, TargetID: in.TargetID, Weapon: in.Weapon, Bonus: in.Bonus,
			Damage: in.Damage, DamageType: in.DamageType, Advantage: in.Mode == "advantage", Disadvantage: in.Mode == "disadvantage", Faces: in.Faces, DamageFaces: in.DamageFaces})
	case "death_save":
		r, err = d.table.RollDeathSave(ctx, c, id, table.DeathSaveInput{CombatantID: in.CombatantID, Faces: in.Faces})
	case "end_turn":
		r, err = d.table.AdvanceEncounter(ctx, c, id)
	case "start":
		start := table.StartEncounterInput{Name: in.Name, SeatIDs: in.SeatIDs}
		for _, n := range in.NPCs {
			start.NPCs = append(start.NPCs, n.table())
		}
		r, err = d.table.StartEncounter(ctx, c, id, start)
	case "add":
		add := table.AddCombatantInput{SeatID: in.SeatID}
		if len(in.NPCs) > 1 {
			return Fought{}, apperr.E(apperr.EncounterInvalid, "Add one NPC at a time.").WithField("npcs", "one NPC")
		}
		if len(in.NPCs) == 1 {
			npc := in.NPCs[0].table()
			add.NPC = &npc
		}
		r, err = d.table.AddCombatant(ctx, c, id, add)
	case "change":
		r, err = d.table.ChangeCombatant(ctx, c, id, table.CombatantChangeInput{CombatantID: in.CombatantID, Op: in.Change, Amount: in.Amount,
			DamageType: in.DamageType, Condition: in.Condition, Rounds: in.Rounds})
	case "end":
		r, err = d.table.EndEncounter(ctx, c, id)
	default:
		return Fought{}, apperr.E(apperr.InvalidRequest, "Unknown action %q.", in.Action).WithField("action", "initiative, attack, death_save, end_turn, start, add, change or end")
	}
	if err != nil {
		return Fought{}, err
	}
	out := Fought{Seq: r.Event.Seq, Encounter: compactFight(r.Encounter, "", false)}
	if in.Action == "attack" {
		out.Attack = attackOutcome(r.Event)
	}
	return out, nil
}

// attackOutcome is an attack's outcome, read from the public event that
// recorded it (a hidden target's AC is never in it).
func attackOutcome(e table.EventView) *AttackOutcome {
	var p struct {
		Attack struct {
			AttackOutcome
			Damage *struct {
				Amount int `json:"amount"`
			} `json:"damage"`
		} `json:"attack"`
	}
	_ = json.Unmarshal(e.Payload, &p)
	out := p.Attack.AttackOutcome
	if p.Attack.Damage != nil {
		out.Damage = &p.Attack.Damage.Amount
	}
	return &out
}

// setStage changes the scene: the text (or keeps it), and the image: a new
// one checked and stored by the same upload the web app uses, or none.
func setStage(ctx context.Context, d toolDeps, c table.Caller, id int64, in stageInput) (Stage, error) {
	if in.ImageBase64 != "" && in.ClearImage {
		return Stage{}, apperr.E(apperr.InvalidRequest, "Give an image or clear_image, not both.").WithField("clear_image", "not with image_base64")
	}
	r, err := d.table.Resume(ctx, c, id)
	if err != nil {
		return Stage{}, err
	}
	next := table.StageInput{Text: r.Stage.Text, ImageID: r.Stage.ImageID, Revision: r.Stage.Revision}
	if in.Text != nil {
		next.Text = *in.Text
	}
	if in.ClearImage {
		next.ImageID = nil
	}
	if in.ImageBase64 != "" {
		data, err := base64.StdEncoding.DecodeString(strings.TrimSpace(in.ImageBase64))
		if err != nil {
			return Stage{}, apperr.E(apperr.InvalidRequest, "image_base64 is not base64.").WithField("image_base64", "base64")
		}
		img, err := d.table.UploadStageImage(ctx, c, id, data)
		if err != nil {
			return Stage{}, err
		}
		next.ImageID = &img.ID
	}
	v, err := d.table.SetStage(ctx, c, id, next)
	if err != nil {
		return Stage{}, err
	}
	return Stage{Text: v.Text, Image: v.ImageID != nil, Revision: v.Revision}, nil
}

// sessionContext assembles get_session_context from the resume and the
// roll board, both already projected for the caller.
func sessionContext(ctx context.Context, d toolDeps, c table.Caller, id int64) (Context, error) {
	// A few times the window shown, so that events private to others
	// (whispers, secret rolls) seldom leave it short.
	now, err := d.table.Now(ctx, c, id, 3*recentWindow)
	if err != nil {
		return Context{}, err
	}
	r, board := now.Resume, now.Board
	names := newRoster(r.Seats)
	dm := r.Me.Role == table.RoleDM
	out := Context{Role: r.Me.Role, Cursor: r.Cursor, Instruction: r.Me.TemporaryInstruction,
		Session: SessionRef{ID: r.Session.ID, Status: r.Session.Status, Campaign: r.Campaign.Name, Room: r.Room.Name},
		Stage:   Stage{Text: clip(r.Stage.Text, 600), Image: r.Stage.ImageID != nil, Revision: r.Stage.Revision},
		World:   worldOf(now.World)}
	if st := r.Recap.Status; dm && (st == "drafting" || st == "draft") {
		out.Recap = &Recap{Status: st, Text: clip(r.Recap.Text, 1500)}
	}
	if r.Me.SeatID != nil {
		out.SeatID = *r.Me.SeatID
	}
	playing := map[int64]table.ParticipantView{}
	for _, p := range r.Participants {
		playing[p.SeatID] = p
	}
	var admit []int64
	for _, s := range r.Seats {
		seat := Seat{SeatID: s.ID, Role: s.Role, Name: names.name(s.ID), AI: s.ControllerKind == "ai"}
		if p, ok := playing[s.ID]; ok {
			seat.Playing = true
			if p.Character != nil {
				seat.HP, seat.Conditions = hpText(p.Character.HP), p.Character.Conditions
			}
		} else if s.Role == "player" && s.ControllerKind != "none" && s.Character != nil {
			admit = append(admit, s.ID)
		}
		out.Seats = append(out.Seats, seat)
	}
	for _, req := range board.Requests {
		if req.Status == "pending" && (dm || req.TargetSeatID == out.SeatID) {
			out.Checks = append(out.Checks, compactCheck(req))
		}
	}
	for _, a := range board.PendingActions {
		if a.Status != "resolved" && a.Status != "cancelled" {
			out.Actions = append(out.Actions, Action{ActionID: a.ID, SeatID: a.SubjectSeatID, By: names.name(a.SubjectSeatID), Text: clip(a.Text, 200), Status: a.Status})
		}
	}
	for _, w := range board.Windows {
		if w.Status == "open" {
			out.Window = &Window{WindowID: w.ID, Prompt: w.Prompt}
		}
	}
	recent := r.RecentEvents
	if len(recent) > recentWindow {
		recent = recent[len(recent)-recentWindow:]
	}
	for _, e := range recent {
		ev := names.compactEvent(e)
		ev.Text = clip(ev.Text, 280)
		out.Recent = append(out.Recent, ev)
	}
	for _, m := range now.Memories {
		out.Memories = append(out.Memories, clip(m.Text, 320))
	}
	// The fight, through the same projection as the web app's encounter.
	if fightNow := now.Encounter; fightNow.Encounter != nil {
		mine := ""
		if out.SeatID != 0 && !dm {
			mine = fmt.Sprintf("seat:%d", out.SeatID)
		}
		f := compactFight(*fightNow.Encounter, mine, dm)
		out.Encounter = &f
	}
	me := "you"
	if out.SeatID != 0 {
		me = names.name(out.SeatID)
	}
	if dm {
		out.You = fmt.Sprintf("You are the DM (seat %d) of %q in room %q. The session is %s.", out.SeatID, r.Campaign.Name, r.Room.Name, r.Session.Status)
	} else {
		out.You = fmt.Sprintf("You play %s (seat %d) in %q. The session is %s.", me, out.SeatID, r.Campaign.Name, r.Session.Status)
	}
	out.Next = nextSteps(out, r, admit)
	return out, nil
}

// nextSteps lists the tools that make sense now, with the ids they need,
// decided from the same state the tools will check.
func nextSteps(cx Context, r table.SessionResume, admit []int64) []Step {
	step := func(tool string, args ...any) Step {
		s := Step{Tool: tool}
		for i := 0; i+1 < len(args); i += 2 {
			if s.Args == nil {
				s.Args = map[string]any{}
			}
			s.Args[args[i].(string)] = args[i+1]
		}
		return s
	}
	var out []Step
	if r.Session.Status == "lobby" {
		if r.Can.Start {
			out = append(out, step("session", "action", "start"))
		}
		return out
	}
	if r.Session.Status != "active" {
		return nil
	}
	if cx.Role == table.RoleDM {
		for _, a := range cx.Actions {
			out = append(out, step("adjudicate_action", "action_id", a.ActionID))
		}
		for _, id := range admit {
			out = append(out, step("session", "action", "admit", "seat_id", id))
		}
		out = append(out, fightSteps(cx.Encounter, "", step)...)
		out = append(out, step("post_message"), step("set_stage"), step("request_check"), step("update_character_state"))
		if cx.Window != nil {
			out = append(out, step("action_window", "window_id", cx.Window.WindowID))
		} else {
			out = append(out, step("action_window"))
		}
		if len(cx.Checks) > 0 {
			out = append(out, step("cancel_check"))
		}
		out = append(out, step("session", "action", "end"))
	} else {
		for _, ch := range cx.Checks {
			out = append(out, step("roll_check", "request_id", ch.RequestID))
		}
		if cx.Window != nil {
			out = append(out, step("declare_action", "window_id", cx.Window.WindowID))
		}
		out = append(out, fightSteps(cx.Encounter, fmt.Sprintf("seat:%d", cx.SeatID), step)...)
		out = append(out, step("post_message"), step("quick_roll"))
	}
	return append(out, step("wait_for_event", "after", cx.Cursor))
}

// fightSteps are the combat calls that make sense now: for a player
// (mine is their combatant) rolling initiative, and on their turn an
// attack or a death save and ending the turn; for the DM (mine "")
// starting a fight, or running it and playing the NPCs' turns.
func fightSteps(f *Fight, mine string, step func(string, ...any) Step) []Step {
	if mine == "" {
		switch {
		case f == nil:
			return []Step{step("fight", "action", "start")}
		case f.Phase == table.PhaseFighting && f.YourTurn:
			return []Step{step("fight", "action", "attack", "combatant_id", f.Turn), step("fight", "action", "end_turn"), step("fight", "action", "change"), step("fight", "action", "end")}
		}
		return []Step{step("fight", "action", "end_turn"), step("fight", "action", "change"), step("fight", "action", "end")}
	}
	if f == nil {
		return nil
	}
	for _, c := range f.Order {
		switch {
		case c.ID != mine:
		case f.Phase == table.PhaseInitiative && c.Init == nil:
			return []Step{step("fight", "action", "initiative", "combatant_id", mine)}
		case f.YourTurn && c.Status == "dying":
			return []Step{step("fight", "action", "death_save", "combatant_id", mine)}
		case f.YourTurn:
			return []Step{step("fight", "action", "attack", "combatant_id", mine), step("fight", "action", "end_turn")}
		}
	}
	return nil
}

// prompts brief an agent for its role.
func addPrompts(s *mcpsdk.Server) {
	brief := func(role, text string) {
		s.AddPrompt(&mcpsdk.Prompt{Name: "brief_" + role, Description: "How to play the " + role + " at an Adventure Table"},
			func(ctx context.Context, req *mcpsdk.GetPromptRequest) (*mcpsdk.GetPromptResult, error) {
				return &mcpsdk.GetPromptResult{Description: "Role briefing", Messages: []*mcpsdk.PromptMessage{
					{Role: "user", Content: &mcpsdk.TextContent{Text: text}}}}, nil
			})
	}
	brief("dm", "You are the Dungeon Master at a shared role-playing table with human and AI players. "+
		"Before the session: get_pre_session_context, then session with action start. In play, call get_session_context: its next field lists the tools you may call now with their ids. "+
		"Narrate with post_message (give speaker to voice an NPC, seat_id to speak for a player's character; kind whisper with seat_id whispers one player), "+
		"set the scene with set_stage (text and image). Ask for checks with request_check (the DC stays secret; cancel_check takes one back). "+
		"Ask \"what does everyone do?\" with action_window and settle each declared action with adjudicate_action (request_check with action_id when it needs a roll). "+
		"Apply damage, healing and conditions with update_character_state; let a latecomer in with session admit. "+
		"Run a fight with fight: start it with seats and NPCs whose AC and HP stay secret, add, change a combatant, end it; end_turn begins it and ends each turn; attack with the NPCs. "+
		"Follow the table with wait_for_event from the latest cursor, and finish with session end.")
	brief("player", "You play one character at a shared role-playing table. Call get_session_context to learn who you are (its next field lists what you may do now), "+
		"and get_character_context for your sheet. Speak in character with post_message; its kind action says what you do, ooc talks out of character, "+
		"whisper whispers the DM. When the DM opens an action window, answer with declare_action. When a check waits for you, resolve it with roll_check. "+
		"In a fight (encounter in get_session_context) use fight: initiative, then on your turn attack (or death_save when dying) and end_turn. "+
		"Follow the table with wait_for_event, always from the latest cursor; when you receive session.ended the game is over. "+
		"If get_session_context gives you an instruction, follow it.")
}
