package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// tool is one MCP tool: its name, its description for a model, and the
// typed gameplay call behind it.
type tool struct {
	name, description string
	register          func(s *mcpsdk.Server, deps toolDeps)
}

type toolDeps struct {
	table  *table.Service
	logger *slog.Logger
}

// typed builds a tool from a typed call: the input and output JSON Schemas
// come from the Go types. It is registered as a raw handler (not
// mcpsdk.AddTool) so that a failure can carry the structured error code
// in structuredContent.error; the SDK's typed path would replace it.
func typed[In, Out any](name, description string, call func(ctx context.Context, d toolDeps, c table.Caller, in In) (Out, error)) tool {
	return tool{name: name, description: description, register: func(s *mcpsdk.Server, d toolDeps) {
		inSchema, err := jsonschema.For[In](nil)
		if err != nil {
			panic(fmt.Sprintf("tool %s input schema: %v", name, err))
		}
		outSchema, err := jsonschema.For[Out](nil)
		if err != nil {
			panic(fmt.Sprintf("tool %s output schema: %v", name, err))
		}
		s.AddTool(&mcpsdk.Tool{Name: name, Description: description, InputSchema: inSchema, OutputSchema: outSchema},
			func(ctx context.Context, req *mcpsdk.CallToolRequest) (*mcpsdk.CallToolResult, error) {
				p, ok := PrincipalFromContext(ctx)
				if !ok {
					return errorResult(d.logger, name, apperr.E(apperr.Unauthorized, "A bearer token is required.")), nil
				}
				var in In
				args := []byte(req.Params.Arguments)
				if len(bytes.TrimSpace(args)) == 0 || string(bytes.TrimSpace(args)) == "null" {
					args = []byte("{}")
				}
				dec := json.NewDecoder(bytes.NewReader(args))
				dec.DisallowUnknownFields()
				if err := dec.Decode(&in); err != nil {
					return errorResult(d.logger, name, apperr.E(apperr.InvalidRequest, "The arguments do not match the tool's input schema: %v", err)), nil
				}
				out, err := call(ctx, d, table.AI(p.GrantID), in)
				if err != nil {
					return errorResult(d.logger, name, err), nil
				}
				raw, err := json.Marshal(out)
				if err != nil {
					return nil, err
				}
				return &mcpsdk.CallToolResult{StructuredContent: json.RawMessage(raw), Content: []mcpsdk.Content{&mcpsdk.TextContent{Text: string(raw)}}}, nil
			})
	}}
}

// Inputs of the tools. Descriptions are written for a model that has never
// seen this game.
type (
	noInput struct{}

	sayInput struct {
		Text           string `json:"text" jsonschema:"what the character says, in character, 1 to 4000 characters"`
		AsSeatID       *int64 `json:"as_seat_id,omitempty" jsonschema:"DM only: speak for this player seat (DM proxy)"`
		IdempotencyKey string `json:"idempotency_key,omitempty" jsonschema:"any unique string; retrying with the same key never posts twice"`
	}
	actionInput struct {
		Text           string `json:"text" jsonschema:"what the character does, 1 to 4000 characters"`
		Intent         string `json:"intent,omitempty" jsonschema:"optional: search"`
		AsSeatID       *int64 `json:"as_seat_id,omitempty" jsonschema:"DM only: act for this player seat (DM proxy)"`
		IdempotencyKey string `json:"idempotency_key,omitempty"`
	}
	oocInput struct {
		Text           string `json:"text" jsonschema:"an out-of-character remark to the table"`
		IdempotencyKey string `json:"idempotency_key,omitempty"`
	}
	whisperInput struct {
		Text           string `json:"text" jsonschema:"the private message"`
		ToSeatID       *int64 `json:"to_seat_id,omitempty" jsonschema:"DM only: the player seat to whisper to; players always whisper the DM"`
		IdempotencyKey string `json:"idempotency_key,omitempty"`
	}
	stageInput struct {
		Text string `json:"text" jsonschema:"what the players see on the stage now (the scene), at most 4000 characters"`
	}
	characterInput struct {
		SeatID int64 `json:"seat_id,omitempty" jsonschema:"DM only: whose character; players get their own"`
	}
	rollInput struct {
		RequestID      int64  `json:"request_id" jsonschema:"the pending check request to roll"`
		IdempotencyKey string `json:"idempotency_key,omitempty"`
	}
	physicalInput struct {
		RequestID      int64  `json:"request_id"`
		Faces          []int  `json:"faces" jsonschema:"the raw d20 faces rolled, as many as the request's dice_needed"`
		IdempotencyKey string `json:"idempotency_key,omitempty"`
	}
	eventsInput struct {
		After int64 `json:"after" jsonschema:"the cursor you have: events after this seq are returned"`
		Limit int   `json:"limit,omitempty" jsonschema:"1 to 200, default 100"`
	}
	waitInput struct {
		After          int64 `json:"after" jsonschema:"the cursor you have"`
		TimeoutSeconds int   `json:"timeout_seconds,omitempty" jsonschema:"1 to 60, default 25; on timeout you get no events and the same cursor"`
	}
)

// SessionContext is everything an agent needs to act: who it is, what it
// may do now, what waits for it, and the cursor to wait from.
type SessionContext struct {
	You           string                  `json:"you" jsonschema:"a sentence telling the agent who it is at this table"`
	YouMayNow     []string                `json:"you_may_now" jsonschema:"the tools that make sense for you now"`
	Session       table.SessionResume     `json:"session"`
	PendingChecks []table.RollRequestView `json:"pending_checks" jsonschema:"checks waiting for your roll"`
	Cursor        int64                   `json:"cursor" jsonschema:"pass this as after to wait_for_event"`
}

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

// tools is the whole tool surface (seed §9.3): high-level table actions,
// each one gameplay call. There is deliberately no tool for room
// management, seat control or anything destructive.
var tools = []tool{
	typed("get_pre_session_context", "For an AI DM before its session starts: your campaign, your DM seat, the lobby to start and whether it is ready. The only other thing you can do before the start is start_session.",
		func(ctx context.Context, d toolDeps, c table.Caller, _ noInput) (table.PreSessionContext, error) {
			return d.table.GetPreSessionContext(ctx, c)
		}),
	typed("start_session", "For an AI DM: start the session in the lobby of your campaign. Afterwards call get_session_context.",
		func(ctx context.Context, d toolDeps, c table.Caller, _ noInput) (table.SessionResume, error) {
			pre, err := d.table.GetPreSessionContext(ctx, c)
			if err != nil {
				return table.SessionResume{}, err
			}
			if pre.LobbySessionID == nil {
				return table.SessionResume{}, apperr.E(apperr.SessionNotLobby, "There is no lobby to start; the owner must open one.")
			}
			return d.table.StartSession(ctx, c, *pre.LobbySessionID)
		}),
	typed("get_session_context", "Start here. Tells you who you are at the table (DM or player, which seat and character), what you may do now, the checks waiting for your roll, the stage, the participants and the recent events you may see, and the cursor to pass to wait_for_event.",
		withSession(func(ctx context.Context, d toolDeps, c table.Caller, id int64, _ noInput) (SessionContext, error) {
			return sessionContext(ctx, d, c, id)
		})),
	typed("get_character_context", "Your character's full sheet: abilities, skills, HP, conditions, resources, biography and roleplay guidance. The DM may name a seat_id.",
		withSession(func(ctx context.Context, d toolDeps, c table.Caller, id int64, in characterInput) (table.CharacterView, error) {
			return d.table.SeatCharacter(ctx, c, id, in.SeatID)
		})),
	typed("post_dialogue", "Say something in character (players), or narrate (DM). The DM may speak for a player seat with as_seat_id.",
		withSession(func(ctx context.Context, d toolDeps, c table.Caller, id int64, in sayInput) (table.PostedMessage, error) {
			return d.table.PostMessage(ctx, c, id, table.MessageInput{Kind: table.KindSay, Text: in.Text, SubjectSeatID: in.AsSeatID, IdempotencyKey: in.IdempotencyKey})
		})),
	typed("post_action", "Describe what your character does. Use intent \"search\" to search; the DM decides whether a check is needed.",
		withSession(func(ctx context.Context, d toolDeps, c table.Caller, id int64, in actionInput) (table.PostedMessage, error) {
			return d.table.PostMessage(ctx, c, id, table.MessageInput{Kind: "action", Text: in.Text, Intent: in.Intent, SubjectSeatID: in.AsSeatID, IdempotencyKey: in.IdempotencyKey})
		})),
	typed("post_ooc", "Say something out of character to the table.",
		withSession(func(ctx context.Context, d toolDeps, c table.Caller, id int64, in oocInput) (table.PostedMessage, error) {
			return d.table.PostMessage(ctx, c, id, table.MessageInput{Kind: "ooc", Text: in.Text, IdempotencyKey: in.IdempotencyKey})
		})),
	typed("whisper_dm", "Players: whisper privately to the DM (only you and the DM see it). DM: whisper to one player seat with to_seat_id.",
		withSession(func(ctx context.Context, d toolDeps, c table.Caller, id int64, in whisperInput) (table.PostedMessage, error) {
			return d.table.PostMessage(ctx, c, id, table.MessageInput{Kind: "whisper_dm", Text: in.Text, ToSeatID: in.ToSeatID, IdempotencyKey: in.IdempotencyKey})
		})),
	typed("set_stage_text", "DM only: replace the text on the stage, the scene every player sees.",
		withSession(func(ctx context.Context, d toolDeps, c table.Caller, id int64, in stageInput) (table.StageView, error) {
			r, err := d.table.Resume(ctx, c, id)
			if err != nil {
				return table.StageView{}, err
			}
			return d.table.SetStage(ctx, c, id, table.StageInput{Text: in.Text, ImageID: r.Stage.ImageID, Revision: r.Stage.Revision})
		})),
	typed("request_check", "DM only: ask one or more player seats (none = everyone) for an ability or skill check, with a secret DC players never see, advantage or disadvantage, and whether to reveal success.",
		withSession(func(ctx context.Context, d toolDeps, c table.Caller, id int64, in table.CheckRequestInput) (table.CheckRequests, error) {
			return d.table.RequestCheck(ctx, c, id, in)
		})),
	typed("roll_pending", "Roll a check that is waiting for you (see pending_checks in get_session_context). The server rolls the dice and adds your character's modifier.",
		func(ctx context.Context, d toolDeps, c table.Caller, in rollInput) (table.RollResultView, error) {
			return d.table.ResolveRequest(ctx, c, in.RequestID, table.RollInput{IdempotencyKey: in.IdempotencyKey})
		}),
	typed("submit_physical_roll", "Resolve a pending check with dice rolled outside the server: give only the raw d20 faces; the server adds the modifier.",
		func(ctx context.Context, d toolDeps, c table.Caller, in physicalInput) (table.RollResultView, error) {
			faces := in.Faces
			if faces == nil {
				faces = []int{}
			}
			return d.table.ResolveRequest(ctx, c, in.RequestID, table.RollInput{Faces: faces, IdempotencyKey: in.IdempotencyKey})
		}),
	typed("quick_roll", "Roll any dice expression (e.g. 2d6+3, 4d6dl1, 1d20+5, d%) for everyone to see. It never completes a check.",
		withSession(func(ctx context.Context, d toolDeps, c table.Caller, id int64, in table.QuickRollInput) (table.RollResultView, error) {
			return d.table.QuickRoll(ctx, c, id, in)
		})),
	typed("update_character_state", "Change a character's live state: the DM may damage, heal, grant temporary HP, add or remove conditions and spend or restore resources for any participant; a player may heal, take temporary HP and spend or restore resources of their own character.",
		withSession(func(ctx context.Context, d toolDeps, c table.Caller, id int64, in table.StateChangeInput) (table.CharacterStateView, error) {
			return d.table.ChangeCharacterState(ctx, c, id, in)
		})),
	typed("get_pending_events", "Events after a cursor that you may see, at once. Continue from the returned cursor.",
		withSession(func(ctx context.Context, d toolDeps, c table.Caller, id int64, in eventsInput) (table.EventPage, error) {
			return d.table.ListEvents(ctx, c, id, in.After, in.Limit)
		})),
	typed("wait_for_event", "Wait until something you may see happens after your cursor (or the timeout passes, then no events and the same cursor). Use it in a loop to follow the table.",
		withSession(func(ctx context.Context, d toolDeps, c table.Caller, id int64, in waitInput) (table.EventPage, error) {
			timeout := in.TimeoutSeconds
			if timeout == 0 {
				timeout = int(table.DefaultWait / time.Second)
			}
			return d.table.WaitEvents(ctx, c, id, in.After, time.Duration(timeout)*time.Second)
		})),
}

// sessionContext assembles get_session_context from the resume and the
// roll board, both projected for the caller.
func sessionContext(ctx context.Context, d toolDeps, c table.Caller, id int64) (SessionContext, error) {
	r, err := d.table.Resume(ctx, c, id)
	if err != nil {
		return SessionContext{}, err
	}
	board, err := d.table.Board(ctx, c, id)
	if err != nil {
		return SessionContext{}, err
	}
	out := SessionContext{Session: r, Cursor: r.Cursor, PendingChecks: []table.RollRequestView{}}
	for _, req := range board.Requests {
		if req.Status == "pending" && r.Me.SeatID != nil && req.TargetSeatID == *r.Me.SeatID {
			out.PendingChecks = append(out.PendingChecks, req)
		}
	}
	if r.Me.Role == table.RoleDM {
		out.You = fmt.Sprintf("You are the DM of %q in room %q. The session is %s.", r.Campaign.Name, r.Room.Name, r.Session.Status)
		out.YouMayNow = []string{"post_dialogue (narration)", "whisper_dm (to_seat_id)", "set_stage_text", "request_check", "update_character_state", "quick_roll", "wait_for_event"}
	} else {
		name := "your character"
		for _, p := range r.Participants {
			if r.Me.SeatID != nil && p.SeatID == *r.Me.SeatID && p.Character != nil {
				name = p.Character.Name
			}
		}
		out.You = fmt.Sprintf("You play %s in %q. The session is %s.", name, r.Campaign.Name, r.Session.Status)
		out.YouMayNow = []string{"post_dialogue", "post_action", "post_ooc", "whisper_dm", "quick_roll", "wait_for_event"}
		if len(out.PendingChecks) > 0 {
			out.YouMayNow = append([]string{"roll_pending", "submit_physical_roll"}, out.YouMayNow...)
		}
	}
	return out, nil
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
		"Call get_session_context first (before the session starts, get_pre_session_context and then start_session). "+
		"Narrate with post_dialogue, set the scene with set_stage_text, ask for checks with request_check (the DC stays secret), "+
		"apply damage and conditions with update_character_state, and follow the table with wait_for_event from the cursor you were given.")
	brief("player", "You play one character at a shared role-playing table. Call get_session_context to learn who you are, "+
		"then get_character_context for your sheet. Speak in character with post_dialogue, act with post_action, talk out of character with post_ooc, "+
		"whisper the DM with whisper_dm. When a check waits for you, roll it with roll_pending. Follow the table with wait_for_event, always from the latest cursor. "+
		"If get_session_context gives you a temporary instruction, follow it.")
}
