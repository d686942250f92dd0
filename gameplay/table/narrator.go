package table

import (
	"context"
	"encoding/json"
	"time"

	"github.com/adventure-table/adventure-table/gameplay/analytics"
	"github.com/adventure-table/adventure-table/models"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// The server's own narrator at a seat.
//
// It is an AI controller like an outside agent: a grant minted the same
// way (same epoch, take-back, revoke, presence and audit), whose token is
// never shown, because the narrator calls the MCP tools in this process
// with the grant as its caller. What this file adds is only the narrator's
// row: whose model it spends, when it acts, its claim on the seat's step.

// Narrator defaults and bounds.
const (
	DefaultNarratorDebounce = 4 * time.Second
	DefaultNarratorToolCall = 8
	// DefaultNarratorWindow is how long a "What do you do?" window the
	// narrator opens waits for every player to declare.
	DefaultNarratorWindow = 2 * time.Minute
	maxNarratorDebounce   = 60 * time.Second
)

// NarratorInput configures a narrator when it takes a seat.
type NarratorInput struct {
	// DebounceMS is how long the table stays quiet after a player's message
	// before the narrator answers; 0 means the default (4000).
	DebounceMS int `json:"debounce_ms,omitempty" jsonschema:"0-60000; 0 means 4000"`
	// TemporaryInstruction guides a companion in a player's own seat.
	TemporaryInstruction string `json:"temporary_instruction,omitempty"`
	// CharacterID, for a free seat, is one of the caller's characters the
	// companion plays there.
	CharacterID *int64 `json:"character_id,omitempty" jsonschema:"free seat: one of your characters for the companion to play"`
}

// NarratorControl is a human's instruction to a narrator.
type NarratorControl struct {
	Action     string `json:"action" jsonschema:"pause, resume or act_now"`
	DebounceMS *int   `json:"debounce_ms,omitempty"`
}

// NarratorView is a narrator as the table sees it. The costs are the
// owner's and the person who chose it; others get zeros.
type NarratorView struct {
	SeatID  int64  `json:"seat_id"`
	GrantID int64  `json:"grant_id"`
	Role    string `json:"role" jsonschema:"dm or player"`
	// Origin says how it came to the seat: the DM seat, a player's own seat
	// handed over, or a companion the owner seated.
	Origin string `json:"origin" jsonschema:"dm, handoff or companion"`
	// MayDirect and MayTakeBack say what the caller may do with it.
	MayDirect   bool   `json:"may_direct"`
	MayTakeBack bool   `json:"may_take_back"`
	State       string `json:"state" jsonschema:"idle, thinking, writing, paused or stuck"`
	// Draft is the narration it is writing (state writing), streamed into
	// the feed until it is posted; what every member of the table may read.
	Draft        string `json:"draft,omitempty"`
	Paused       bool   `json:"paused"`
	LastError    string `json:"last_error" jsonschema:"the stable code of the last failed step, or empty"`
	DebounceMS   int    `json:"debounce_ms"`
	MaxToolCalls int    `json:"max_tool_calls"`
	Steps        int64  `json:"steps"`
	// The session's tokens (a narrator's grant lasts one session) and the
	// last step's.
	PromptTokens     int64 `json:"prompt_tokens"`
	CompletionTokens int64 `json:"completion_tokens"`
	LastStepTokens   int64 `json:"last_step_tokens"`
	// While the "What do you do?" window it opened is open: when it runs
	// out and the seats whose players have not declared yet.
	WindowDeadline *time.Time `json:"window_deadline,omitempty"`
	WaitingFor     []int64    `json:"waiting_for,omitempty" jsonschema:"seat ids"`
	UpdatedAt      time.Time  `json:"updated_at"`
}

// narratorView is the narrator as caller a sees it: what it may do with
// it, and its costs only for those who direct it.
func narratorView(n *models.Narrator, g *models.AIControllerGrant, a Actor) NarratorView {
	v := NarratorView{SeatID: g.SeatID, GrantID: g.ID, Role: g.Role, Origin: narratorOrigin(g), State: n.State, Paused: n.Paused, LastError: n.LastError,
		DebounceMS: n.DebounceMS, MaxToolCalls: n.MaxToolCalls, Steps: n.Steps, UpdatedAt: n.UpdatedAt,
		MayDirect: mayControlNarrator(a, g), MayTakeBack: mayTakeBackNarrator(a, g)}
	if n.Paused && n.State != models.NarratorThinking && n.State != models.NarratorWriting {
		v.State = models.NarratorPaused
	}
	if n.State == models.NarratorWriting {
		v.Draft = n.Draft
	}
	if v.MayDirect {
		v.PromptTokens, v.CompletionTokens, v.LastStepTokens = n.PromptTokens, n.CompletionTokens, n.LastStepTokens
	}
	return v
}

func narratorOrigin(g *models.AIControllerGrant) string {
	switch {
	case g.Role == models.SeatDM:
		return "dm"
	case g.HandoffReturnAccessSessionID != nil:
		return "handoff"
	}
	return "companion"
}

// mayTakeBackNarrator: the player who handed their seat over takes it
// back; the owner takes back the DM seat and a companion's.
func mayTakeBackNarrator(a Actor, g *models.AIControllerGrant) bool {
	if a.Kind != ActorHuman {
		return false
	}
	if g.HandoffReturnAccessSessionID != nil {
		return *g.HandoffReturnAccessSessionID == a.AccessSessionID
	}
	return a.isOwner()
}

// takeBackRefusal says why a may not take the seat back
// (mayTakeBackNarrator said no).
func takeBackRefusal(a Actor, g *models.AIControllerGrant) error {
	switch {
	case a.Kind != ActorHuman:
		return apperr.E(apperr.TakeBackOriginRequired, "Only a person can take a seat back from the narrator.")
	case g.HandoffReturnAccessSessionID != nil:
		return apperr.E(apperr.TakeBackOriginRequired, "Only the player who handed this seat to the narrator can take it back.")
	}
	return requireOwner(a)
}

func narratorDebounce(ms int) (int, error) {
	switch {
	case ms == 0:
		return int(DefaultNarratorDebounce / time.Millisecond), nil
	case ms < 0 || ms > int(maxNarratorDebounce/time.Millisecond):
		return 0, apperr.E(apperr.InvalidRequest, "The quiet time is 0 to 60 seconds.").WithField("debounce_ms", "0 to 60000")
	}
	return ms, nil
}

// SeatNarrator gives a seat to the server's narrator:
//   - the campaign's DM seat, by the room owner, while no session is in
//     play (as SetDMSeatAI: a pre-session grant the narrator uses to start
//     the session);
//   - the caller's own player seat during an active session (as
//     LetAIControl: only they take it back);
//   - a vacant player seat, by the room owner, during an active session,
//     with its character or one of the owner's (CharacterID): an AI
//     companion, seated in the running game at once.
//
// The narrator spends the caller's model settings. Returns
// room_owner_required, seat_controller_required, session_not_active,
// ai_grant_already_bound, seat_not_ready.
func (s *Service) SeatNarrator(ctx context.Context, c Caller, seatID int64, in NarratorInput) (NarratorView, error) {
	debounce, err := narratorDebounce(in.DebounceMS)
	if err != nil {
		return NarratorView{}, err
	}
	var out NarratorView
	var notify int64
	var role string
	err = s.store.Tx(ctx, func(tx *models.Store) error {
		seat, camp, a, err := seatActor(ctx, tx, c, seatID)
		if err != nil {
			return err
		}
		open, err := tx.FindOpenSessions(ctx, []int64{camp.ID})
		if err != nil {
			return err
		}
		var active *models.Session
		if len(open) > 0 && open[0].Status == models.SessionActive {
			active = &open[0]
		}
		var g *models.AIControllerGrant
		switch {
		case seat.Role == models.SeatDM:
			if err := requireOwner(a); err != nil {
				return err
			}
			if active != nil {
				return apperr.E(apperr.AIGrantAlreadyBound, "The DM seat's controller cannot change while a session is in play.")
			}
			if err := s.revokeSeatGrant(ctx, tx, seat, RevokedRotated); err != nil {
				return err
			}
			expires := s.now().Add(PreSessionGrantTTL)
			if _, g, err = s.mintGrant(ctx, tx, seat, camp, models.AIControllerGrant{PreSessionExpiresAt: &expires}); err != nil {
				return err
			}
		case a.Kind == ActorHuman && controls(a, *seat):
			if active == nil {
				return apperr.E(apperr.SessionNotActive, "A seat is handed to the narrator during an active session.")
			}
			if _, g, err = s.mintGrant(ctx, tx, seat, camp, models.AIControllerGrant{SessionID: &active.ID,
				HandoffReturnAccessSessionID: &a.AccessSessionID, TemporaryInstruction: in.TemporaryInstruction}); err != nil {
				return err
			}
		case seat.ControllerKind == models.ControllerNone:
			if err := requireOwner(a); err != nil {
				return apperr.E(apperr.SeatControllerRequired, "Only the room owner can seat the narrator in a free seat.")
			}
			if active == nil {
				return apperr.E(apperr.SessionNotActive, "A companion joins during an active session.")
			}
			if in.CharacterID != nil {
				ch, err := ownCharacter(ctx, tx, c, *in.CharacterID)
				if err != nil {
					return err
				}
				if err := tx.SetSeatCharacter(ctx, seat.ID, &ch.ID); err != nil {
					return err
				}
				seat.CharacterID = &ch.ID
			}
			if seat.CharacterID == nil {
				return apperr.E(apperr.SeatNotReady, "Give the seat a character before the narrator plays it.")
			}
			if _, g, err = s.mintGrant(ctx, tx, seat, camp, models.AIControllerGrant{SessionID: &active.ID,
				TemporaryInstruction: in.TemporaryInstruction}); err != nil {
				return err
			}
		default:
			return apperr.E(apperr.SeatControllerRequired, "Only the player in this seat, or the room owner for a free seat, can hand it to the narrator.")
		}
		n := &models.Narrator{GrantID: g.ID, ModelUserID: &c.UserID, DebounceMS: debounce, MaxToolCalls: DefaultNarratorToolCall,
			State: models.NarratorIdle, UpdatedAt: s.now()}
		if active != nil {
			// It answers what happens from now on, not the session's past.
			if n.HandledSeq, err = tx.LastEventSeq(ctx, active.ID); err != nil {
				return err
			}
		}
		if err := tx.CreateNarrator(ctx, n); err != nil {
			return err
		}
		if active != nil {
			notify = active.ID
			if err := s.announceController(ctx, tx, camp.ID, seat.ID, models.ControllerAI); err != nil {
				return err
			}
			if seat.Role == models.SeatPlayer && seat.ControllerKind == models.ControllerNone {
				if _, err := s.lateJoinUnlessSeated(ctx, tx, active, seat.ID); err != nil {
					return err
				}
			}
		}
		out = narratorView(n, g, a)
		role = seat.Role
		return nil
	})
	if err != nil {
		return NarratorView{}, err
	}
	s.countAISeat("narrator", role)
	if notify != 0 {
		s.notifier.Notify(notify)
	}
	return out, nil
}

// lateJoinUnlessSeated adds a ready seat to the running session unless it
// already takes part, acting as itself (a friend sitting down by invite, a
// companion the owner seats), and says whether it joined. It locks the
// session first (its runtime row allocates the event's seq) and re-reads
// the seat as it now is.
func (s *Service) lateJoinUnlessSeated(ctx context.Context, tx *models.Store, se *models.Session, seatID int64) (bool, error) {
	if _, err := tx.FindSessionByID(ctx, se.ID, true); err != nil {
		return false, err
	}
	parts, err := tx.FindParticipants(ctx, se.ID)
	if err != nil {
		return false, err
	}
	for _, p := range parts {
		if p.SeatID == seatID {
			return false, nil
		}
	}
	seat, err := tx.FindSeatByID(ctx, seatID, true)
	if err != nil {
		return false, err
	}
	return true, s.lateJoin(ctx, tx, se, seat, seat.ID)
}

// narratorAt reads, locked, the seat's narrator: the seat must be held by
// a grant that has a narrator row. Returns not_found otherwise.
func narratorAt(ctx context.Context, tx *models.Store, seat *models.CampaignSeat) (*models.Narrator, *models.AIControllerGrant, error) {
	if seat.ControllerKind != models.ControllerAI || seat.AIControllerGrantID == nil {
		return nil, nil, apperr.E(apperr.NotFound, "No narrator holds this seat.")
	}
	n, err := tx.FindNarrator(ctx, *seat.AIControllerGrantID)
	if err != nil {
		return nil, nil, apperr.E(apperr.NotFound, "No narrator holds this seat.")
	}
	g, err := tx.FindGrantByID(ctx, n.GrantID, true)
	if err != nil {
		return nil, nil, err
	}
	return n, g, nil
}

// mayControlNarrator: the room owner (or a DM-key holder), or the player
// whose own seat it holds.
func mayControlNarrator(a Actor, g *models.AIControllerGrant) bool {
	if a.Kind != ActorHuman {
		return false
	}
	return a.hasRoomAuthority() || (g.HandoffReturnAccessSessionID != nil && *g.HandoffReturnAccessSessionID == a.AccessSessionID)
}

// ControlNarrator pauses, resumes or wakes the seat's narrator ("Act now",
// which is also the retry after a failed step), or changes its quiet time.
// Returns not_found, room_authority_required, invalid_request.
func (s *Service) ControlNarrator(ctx context.Context, c Caller, seatID int64, in NarratorControl) (NarratorView, error) {
	var u models.NarratorUpdate
	yes, no := true, false
	switch in.Action {
	case "pause":
		u.Paused = &yes
	case "resume":
		u.Paused = &no
	case "act_now":
		u.Paused, u.ActNow = &no, &yes
	case "":
	default:
		return NarratorView{}, apperr.E(apperr.InvalidRequest, "The action is pause, resume or act_now.").WithField("action", "pause, resume or act_now")
	}
	if in.DebounceMS != nil {
		ms, err := narratorDebounce(*in.DebounceMS)
		if err != nil {
			return NarratorView{}, err
		}
		u.DebounceMS = &ms
	}
	var out NarratorView
	var notify int64
	err := s.store.Tx(ctx, func(tx *models.Store) error {
		seat, _, a, err := seatActor(ctx, tx, c, seatID)
		if err != nil {
			return err
		}
		n, g, err := narratorAt(ctx, tx, seat)
		if err != nil {
			return err
		}
		if !mayControlNarrator(a, g) {
			return apperr.E(apperr.RoomAuthorityRequired, "Only the room owner, or the player whose seat it plays, can direct the narrator.")
		}
		if in.Action == "act_now" && n.State == models.NarratorStuck {
			idle := models.NarratorIdle
			u.State = &idle
		}
		if err := tx.UpdateNarrator(ctx, n.GrantID, u, s.now()); err != nil {
			return err
		}
		if n, err = tx.FindNarrator(ctx, n.GrantID); err != nil {
			return err
		}
		if g.SessionID != nil {
			notify = *g.SessionID
		}
		out = narratorView(n, g, a)
		return nil
	})
	if err != nil {
		return NarratorView{}, err
	}
	if notify != 0 {
		s.notifier.Notify(notify)
	}
	return out, nil
}

// TakeBackNarrator returns a seat from the narrator to a human at any
// moment, in one transaction: its grant is revoked (taken_back; a step in
// flight finds every later tool call refused), the epoch moves, and
//   - a player's own seat goes back to the player who handed it over;
//   - a companion's seat goes vacant (room owner);
//   - the DM seat goes to the room owner, who becomes the session's DM.
//
// Returns not_found, take_back_origin_required, room_owner_required.
func (s *Service) TakeBackNarrator(ctx context.Context, c Caller, seatID int64) (RoomView, error) {
	var sessionID int64
	v, err := s.mutateRoom(ctx, func(tx *models.Store) (Actor, error) {
		seat, camp, a, err := seatActor(ctx, tx, c, seatID)
		if err != nil {
			return Actor{}, err
		}
		_, g, err := narratorAt(ctx, tx, seat)
		if err != nil {
			return Actor{}, err
		}
		if !mayTakeBackNarrator(a, g) {
			return Actor{}, takeBackRefusal(a, g)
		}
		// The DM seat goes to the owner taking it back, a handed-over seat
		// to its player; a companion's seat is left free.
		to := models.SeatController{Kind: models.ControllerNone, KeepCharacter: true}
		if g.HandoffReturnAccessSessionID != nil || seat.Role == models.SeatDM {
			to = models.SeatController{Kind: models.ControllerHuman, AccessSessionID: &a.AccessSessionID, KeepCharacter: true}
		}
		if err := tx.RevokeGrant(ctx, g.ID, RevokedTakenBack, s.now()); err != nil {
			return Actor{}, err
		}
		if _, err := tx.SetSeatController(ctx, seat.ID, to); err != nil {
			return Actor{}, err
		}
		open, err := tx.FindOpenSessions(ctx, []int64{camp.ID})
		if err != nil {
			return Actor{}, err
		}
		if len(open) > 0 {
			sessionID = open[0].ID
			if seat.Role == models.SeatDM && open[0].Status == models.SessionActive {
				// The owner is now the session's DM controller.
				human := models.ControllerHuman
				if err := tx.UpdateSession(ctx, sessionID, models.SessionUpdate{DMControllerKind: &human, DMControllerAccessSessionID: &a.AccessSessionID}); err != nil {
					return Actor{}, err
				}
			}
		}
		return a, s.announceController(ctx, tx, camp.ID, seat.ID, to.Kind)
	})
	if err == nil && sessionID != 0 {
		s.notifier.Notify(sessionID)
	}
	return v, err
}

// ListNarrators returns the narrators holding seats of the room's
// campaigns, for a member of the room. Costs only for those who may
// direct the narrator.
func (s *Service) ListNarrators(ctx context.Context, c Caller, roomID int64) ([]NarratorView, error) {
	out := []NarratorView{}
	err := s.store.Tx(ctx, func(tx *models.Store) error {
		a, err := roomActor(ctx, tx, c, roomID, "room")
		if err != nil {
			return err
		}
		grants, err := tx.ActiveGrantsOfRoom(ctx, roomID)
		if err != nil {
			return err
		}
		ids := make([]int64, 0, len(grants))
		byID := map[int64]*models.AIControllerGrant{}
		for i := range grants {
			ids = append(ids, grants[i].ID)
			byID[grants[i].ID] = &grants[i]
		}
		rows, err := tx.NarratorsOfGrants(ctx, ids)
		if err != nil {
			return err
		}
		for i := range rows {
			g := byID[rows[i].GrantID]
			v := narratorView(&rows[i], g, a)
			if rows[i].WindowDeadline != nil && g.SessionID != nil {
				v.WindowDeadline = rows[i].WindowDeadline
				if v.WaitingFor, _, err = windowWaiting(ctx, tx, *g.SessionID); err != nil {
					return err
				}
			}
			out = append(out, v)
		}
		return nil
	})
	return out, err
}

// The narrator runner's side: no caller, the process itself.

// RunnableNarrators lists the narrators with an active grant.
func (s *Service) RunnableNarrators(ctx context.Context) ([]NarratorSeat, error) {
	return s.store.RunnableNarrators(ctx)
}

// ClaimNarratorStep takes the seat's step for token unless another live
// process holds it or a step finished since the scan that read seenSteps
// (that step answered what this one would); a step is the narrator's
// presence at the table, as a call is an outside agent's.
func (s *Service) ClaimNarratorStep(ctx context.Context, grantID int64, token string, seenSteps int64, stale time.Duration) (bool, error) {
	now := s.now().UTC()
	won, err := s.store.ClaimNarratorStep(ctx, grantID, token, seenSteps, now, now.Add(-stale))
	if err != nil || !won {
		return won, err
	}
	return true, s.store.TouchGrant(ctx, grantID, now)
}

// HeartbeatNarratorStep renews a held step claim; false when it was lost.
func (s *Service) HeartbeatNarratorStep(ctx context.Context, grantID int64, token string) (bool, error) {
	return s.store.HeartbeatNarratorStep(ctx, grantID, token, s.now().UTC())
}

// SetNarratorDraft records the narration token's step is writing; false
// when the claim is no longer token's.
func (s *Service) SetNarratorDraft(ctx context.Context, grantID int64, token, draft string) (bool, error) {
	return s.store.SetNarratorDraft(ctx, grantID, token, draft, s.now().UTC())
}

// FinishNarratorStep records a step and releases its claim.
func (s *Service) FinishNarratorStep(ctx context.Context, grantID int64, token string, end NarratorStepEnd) error {
	me := models.NarratorStepEnd{HandledSeq: end.HandledSeq, State: end.State, LastError: end.LastError,
		PromptTokens: end.PromptTokens, CompletionTokens: end.CompletionTokens}
	if end.Record != nil {
		raw, err := json.Marshal(end.Record)
		if err != nil {
			return err
		}
		me.Record = &models.NarratorStep{PromptTokens: end.PromptTokens, CompletionTokens: end.CompletionTokens,
			ToolCalls: end.ToolCalls, Outcome: end.LastError, Record: string(raw)}
	}
	if err := s.store.FinishNarratorStep(ctx, grantID, token, me, s.now().UTC()); err != nil {
		return err
	}
	if end.State == NarratorStuck {
		s.analytics.Failed(analytics.NarratorStep, end.LastError)
	}
	return nil
}

// NarratorStepEnd is what a finished step records: where it got to, how
// it ended, its tokens, and (for Insights) the model's tool calls and the
// step's record.
type NarratorStepEnd struct {
	HandledSeq       int64
	State            string
	LastError        string
	PromptTokens     int64
	CompletionTokens int64
	ToolCalls        int
	Record           *NarratorStepRecord
}

// SkipNarratorEvents marks events up to seq as seen without a step.
func (s *Service) SkipNarratorEvents(ctx context.Context, grantID, seq int64) error {
	return s.store.SetNarratorHandled(ctx, grantID, seq)
}

// windowWaiting returns the session's players who have not declared in its
// newest open "What do you do?" window, and whether one is open.
func windowWaiting(ctx context.Context, tx *models.Store, sessionID int64) ([]int64, bool, error) {
	windows, err := tx.FindOpenActionWindows(ctx, sessionID)
	if err != nil || len(windows) == 0 {
		return nil, false, err
	}
	open := windows[len(windows)-1].ID
	actions, err := tx.FindPendingActions(ctx, sessionID, boardWindow)
	if err != nil {
		return nil, true, err
	}
	declared := map[int64]bool{}
	for _, a := range actions {
		if a.WindowID != nil && *a.WindowID == open {
			declared[a.SubjectSeatID] = true
		}
	}
	parts, err := tx.FindParticipants(ctx, sessionID)
	if err != nil {
		return nil, true, err
	}
	waiting := []int64{}
	for _, p := range parts {
		if !declared[p.SeatID] {
			waiting = append(waiting, p.SeatID)
		}
	}
	return waiting, true, nil
}

// EveryoneDeclared reports whether the session has an open window in
// which every player has declared (the narrator then adjudicates at once).
func (s *Service) EveryoneDeclared(ctx context.Context, sessionID int64) (bool, error) {
	waiting, open, err := windowWaiting(ctx, s.store, sessionID)
	return open && len(waiting) == 0, err
}

// SetNarratorWindow records (nil: clears) the deadline of the window the
// narrator has open.
func (s *Service) SetNarratorWindow(ctx context.Context, grantID int64, deadline *time.Time) error {
	return s.store.SetNarratorWindow(ctx, grantID, deadline)
}

// ReleaseNarratorClaims frees, at start-up, the step claims this process's
// previous run left (they carry its id).
func (s *Service) ReleaseNarratorClaims(ctx context.Context, processPrefix string) error {
	return s.store.ReleaseNarratorClaims(ctx, processPrefix)
}

// The runner's view of the narrator rows (the edges do not import models).
type (
	// NarratorSeat is a narrator with an active grant, where it plays and
	// how far its session has gone.
	NarratorSeat = models.RunnableNarrator
)

// Narrator states.
const (
	NarratorIdle     = models.NarratorIdle
	NarratorThinking = models.NarratorThinking
	NarratorWriting  = models.NarratorWriting
	NarratorPaused   = models.NarratorPaused
	NarratorStuck    = models.NarratorStuck
)
