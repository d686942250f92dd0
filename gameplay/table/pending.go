package table

import (
	"context"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/adventure-table/adventure-table/models"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// Pending action and window event kinds.
const (
	EventActionDeclared = "action.declared"
	EventActionUpdated  = "action.updated"
	EventWindowOpened   = "window.opened"
	EventWindowClosed   = "window.closed"
)

// transitions are the legal moves of a pending action (seed §7.5); the
// service enforces them, whatever a client offers.
var transitions = map[string][]string{
	models.PendingPending:        {models.PendingProcessing, models.PendingWaitingForRoll, models.PendingCancelled},
	models.PendingProcessing:     {models.PendingWaitingForRoll, models.PendingResolved, models.PendingCancelled},
	models.PendingWaitingForRoll: {models.PendingProcessing, models.PendingResolved, models.PendingCancelled},
}

func canTransition(from, to string) bool {
	for _, t := range transitions[from] {
		if t == to {
			return true
		}
	}
	return false
}

func invalidTransition(from, to string) error {
	return apperr.E(apperr.PendingActionInvalidTransition, "A pending action cannot go from %s to %s.", from, to).
		WithDetail("from", from).WithDetail("to", to)
}

// PendingActionView is a pending action.
type PendingActionView struct {
	ID                 int64     `json:"id"`
	ActingSeatID       int64     `json:"acting_seat_id"`
	SubjectSeatID      int64     `json:"subject_seat_id"`
	SubjectCharacterID *int64    `json:"subject_character_id"`
	ExecutionMode      string    `json:"execution_mode"`
	Text               string    `json:"text"`
	Intent             string    `json:"intent"`
	Status             string    `json:"status" jsonschema:"pending, processing, waiting_for_roll, resolved or cancelled"`
	RollRequestID      *int64    `json:"roll_request_id"`
	WindowID           *int64    `json:"window_id"`
	CreatedAt          time.Time `json:"created_at"`
	UpdatedAt          time.Time `json:"updated_at"`
}

// ActionWindowView is a "what does everyone do?" window.
type ActionWindowView struct {
	ID        int64     `json:"id"`
	Prompt    string    `json:"prompt"`
	Status    string    `json:"status" jsonschema:"open or closed"`
	CreatedAt time.Time `json:"created_at"`
}

// ActionInput declares an action.
type ActionInput struct {
	Text          string `json:"text"`
	Intent        string `json:"intent,omitempty" jsonschema:"empty, search or check"`
	SubjectSeatID *int64 `json:"subject_seat_id,omitempty" jsonschema:"DM only: declare for this player seat"`
	WindowID      *int64 `json:"window_id,omitempty" jsonschema:"the open action window this answers"`
}

// TransitionInput moves a pending action.
type TransitionInput struct {
	To string `json:"to" jsonschema:"processing, waiting_for_roll, resolved or cancelled"`
}

// WindowInput opens an action window.
type WindowInput struct {
	Prompt string `json:"prompt"`
}

func actionView(p models.PendingAction) PendingActionView {
	return PendingActionView{ID: p.ID, ActingSeatID: p.ActingSeatID, SubjectSeatID: p.SubjectSeatID, SubjectCharacterID: p.SubjectCharacterID,
		ExecutionMode: p.ExecutionMode, Text: p.Text, Intent: p.Intent, Status: p.Status, RollRequestID: p.RollRequestID, WindowID: p.WindowID,
		CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt}
}

func windowView(w models.ActionWindow) ActionWindowView {
	return ActionWindowView{ID: w.ID, Prompt: w.Prompt, Status: w.Status, CreatedAt: w.CreatedAt}
}

// moveAction applies a legal transition inside the caller's transaction and
// announces it.
func (s *Service) moveAction(ctx context.Context, tx *models.Store, p *models.PendingAction, to string, rollRequestID *int64) error {
	if !canTransition(p.Status, to) {
		return invalidTransition(p.Status, to)
	}
	ok, err := tx.UpdatePendingAction(ctx, p.ID, p.Version, to, rollRequestID, s.now())
	if err != nil {
		return err
	}
	if !ok {
		return apperr.E(apperr.Conflict, "The pending action changed meanwhile; reload it.")
	}
	moved, err := tx.FindPendingAction(ctx, p.ID, false)
	if err != nil {
		return err
	}
	*p = *moved
	_, err = s.appendNext(ctx, tx, p.SessionID, eventDraft{kind: EventActionUpdated, acting: &p.ActingSeatID, subject: &p.SubjectSeatID,
		character: p.SubjectCharacterID, mode: p.ExecutionMode, payload: map[string]any{"action": actionView(*p)}})
	return err
}

// DeclareAction records what a player (or the DM for a player seat) wants
// to do, for the DM to adjudicate. Returns message_text_invalid,
// message_kind_not_allowed, not_a_participant, proxy_target_invalid,
// action_window_closed, session_not_active.
func (s *Service) DeclareAction(ctx context.Context, c Caller, sessionID int64, in ActionInput) (PendingActionView, error) {
	msg := MessageInput{Kind: models.MessageAction, Text: in.Text, Intent: in.Intent, SubjectSeatID: in.SubjectSeatID}
	if in.Intent == IntentCheck {
		msg.Intent = "" // a declared check names no skill yet; the DM picks it
	}
	if err := validateMessage(&msg); err != nil {
		return PendingActionView{}, err
	}
	var out PendingActionView
	err := s.store.Tx(ctx, func(tx *models.Store) error {
		sc, participants, err := loadLive(ctx, tx, c, sessionID)
		if err != nil {
			return err
		}
		p, err := decidePosting(sc, participants, msg)
		if err != nil {
			return err
		}
		if in.WindowID != nil {
			w, err := tx.FindActionWindow(ctx, *in.WindowID, false)
			if err != nil || w.SessionID != sessionID {
				return notFound("action window")
			}
			if w.Status != "open" {
				return apperr.E(apperr.ActionWindowClosed, "That action window is closed.")
			}
		}
		a := &models.PendingAction{SessionID: sessionID, ActingSeatID: *p.acting, SubjectSeatID: *p.subject, SubjectCharacterID: p.character,
			ExecutionMode: p.mode, Text: msg.Text, Intent: in.Intent, Status: models.PendingPending, WindowID: in.WindowID,
			CreatedAt: s.now(), UpdatedAt: s.now()}
		if err := tx.CreatePendingAction(ctx, a); err != nil {
			return err
		}
		out = actionView(*a)
		_, err = s.appendNext(ctx, tx, sessionID, eventDraft{kind: EventActionDeclared, acting: p.acting, subject: p.subject,
			character: p.character, mode: p.mode, payload: map[string]any{"action": out}})
		return err
	})
	if err != nil {
		return PendingActionView{}, err
	}
	s.notifier.Notify(sessionID)
	return out, nil
}

// TransitionAction moves a pending action. The current DM adjudicates; a
// player may only cancel their own. Returns pending_action_invalid_transition,
// not_current_dm, not_found.
func (s *Service) TransitionAction(ctx context.Context, c Caller, actionID int64, in TransitionInput) (PendingActionView, error) {
	var out PendingActionView
	var sessionID int64
	err := s.store.Tx(ctx, func(tx *models.Store) error {
		a, err := tx.FindPendingAction(ctx, actionID, true)
		if err != nil {
			return notFound("pending action")
		}
		sessionID = a.SessionID
		sc, err := loadSession(ctx, tx, c, a.SessionID, false)
		if err != nil {
			return err
		}
		own := false
		for _, seat := range sc.seats {
			if seat.ID == a.SubjectSeatID && controls(sc.actor, seat) {
				own = true
			}
		}
		if !sc.isCurrentDM() && !(own && in.To == models.PendingCancelled) {
			return apperr.E(apperr.NotCurrentDM, "Only the DM adjudicates actions; a player may cancel their own.")
		}
		if err := s.moveAction(ctx, tx, a, in.To, nil); err != nil {
			return err
		}
		out = actionView(*a)
		return nil
	})
	if err != nil {
		return PendingActionView{}, err
	}
	s.notifier.Notify(sessionID)
	return out, nil
}

// OpenActionWindow opens a "what does everyone do?" window (current DM).
// Returns not_current_dm, session_not_active, message_text_invalid.
func (s *Service) OpenActionWindow(ctx context.Context, c Caller, sessionID int64, in WindowInput) (ActionWindowView, error) {
	prompt := strings.TrimSpace(in.Prompt)
	if !models.StorableText(prompt) {
		return ActionWindowView{}, models.UnstorableText(apperr.MessageTextInvalid, "prompt")
	}
	if n := utf8.RuneCountInString(prompt); n < 1 || n > MaxMessageLength {
		return ActionWindowView{}, apperr.E(apperr.MessageTextInvalid, "The prompt must be 1 to %d characters.", MaxMessageLength).WithField("prompt", "1 to 4000 characters")
	}
	var out ActionWindowView
	err := s.store.Tx(ctx, func(tx *models.Store) error {
		sc, err := loadSession(ctx, tx, c, sessionID, true)
		if err != nil {
			return err
		}
		if err := requireLiveDM(sc); err != nil {
			return err
		}
		w := &models.ActionWindow{SessionID: sessionID, Prompt: prompt, Status: "open", OpenedBySeatID: sc.session.DMSeatID, CreatedAt: s.now()}
		if err := tx.CreateActionWindow(ctx, w); err != nil {
			return err
		}
		out = windowView(*w)
		dm := sc.session.DMSeatID
		_, err = s.appendNext(ctx, tx, sessionID, eventDraft{kind: EventWindowOpened, acting: &dm, payload: map[string]any{"window": out}})
		return err
	})
	if err != nil {
		return ActionWindowView{}, err
	}
	s.notifier.Notify(sessionID)
	return out, nil
}

// CloseActionWindow closes a window (current DM). Returns not_current_dm,
// action_window_closed, not_found.
func (s *Service) CloseActionWindow(ctx context.Context, c Caller, windowID int64) (ActionWindowView, error) {
	var out ActionWindowView
	var sessionID int64
	err := s.store.Tx(ctx, func(tx *models.Store) error {
		w, err := tx.FindActionWindow(ctx, windowID, true)
		if err != nil {
			return notFound("action window")
		}
		sessionID = w.SessionID
		sc, err := loadSession(ctx, tx, c, w.SessionID, false)
		if err != nil {
			return err
		}
		if err := requireCurrentDM(sc); err != nil {
			return err
		}
		if w.Status != "open" {
			return apperr.E(apperr.ActionWindowClosed, "That action window is already closed.")
		}
		if err := tx.CloseActionWindow(ctx, w.ID, s.now()); err != nil {
			return err
		}
		w.Status = "closed"
		out = windowView(*w)
		dm := sc.session.DMSeatID
		_, err = s.appendNext(ctx, tx, w.SessionID, eventDraft{kind: EventWindowClosed, acting: &dm, payload: map[string]any{"window": out}})
		return err
	})
	if err != nil {
		return ActionWindowView{}, err
	}
	s.notifier.Notify(sessionID)
	return out, nil
}

// RollBoard is the dice and adjudication state a caller may see.
type RollBoard struct {
	Requests       []RollRequestView   `json:"requests"`
	Results        []RollResultView    `json:"results"`
	PendingActions []PendingActionView `json:"pending_actions"`
	Windows        []ActionWindowView  `json:"windows"`
}

// boardWindow bounds each list of the board.
const boardWindow = 100

// Board returns the session's recent requests, results, pending actions and
// open windows as the caller may see them: no DC for anyone but the DM.
// Returns not_found, room_access_revoked.
func (s *Service) Board(ctx context.Context, c Caller, sessionID int64) (RollBoard, error) {
	sc, err := loadAudience(ctx, s.store, c, sessionID, false)
	if err != nil {
		return RollBoard{}, err
	}
	return s.board(ctx, sc, true)
}

// board is the board as the scope's actor may see it; without results it
// holds the requests (a pending one has no result yet), pending actions
// and open windows, and costs one query less.
func (s *Service) board(ctx context.Context, sc sessionScope, withResults bool) (RollBoard, error) {
	rows, err := readBoardRows(ctx, s.store, sc.session.ID, withResults)
	if err != nil {
		return RollBoard{}, err
	}
	return boardFrom(sc, rows), nil
}

// boardRows are the rows a board is built from.
type boardRows struct {
	requests []models.RollRequest
	results  []models.RollResult
	actions  []models.PendingAction
	windows  []models.ActionWindow
}

func readBoardRows(ctx context.Context, store *models.Store, sessionID int64, withResults bool) (boardRows, error) {
	var r boardRows
	var err error
	if r.requests, err = store.FindRollRequests(ctx, sessionID, boardWindow); err != nil {
		return boardRows{}, err
	}
	if withResults {
		if r.results, err = store.FindRollResults(ctx, sessionID, boardWindow); err != nil {
			return boardRows{}, err
		}
	}
	if r.actions, err = store.FindPendingActions(ctx, sessionID, boardWindow); err != nil {
		return boardRows{}, err
	}
	if r.windows, err = store.FindOpenActionWindows(ctx, sessionID); err != nil {
		return boardRows{}, err
	}
	return r, nil
}

// boardFrom is the board as the scope's actor may see it.
func boardFrom(sc sessionScope, rows boardRows) RollBoard {
	rv := rollViewer{sc.viewer()}
	reqs, results, actions, windows := rows.requests, rows.results, rows.actions, rows.windows
	byRequest := map[int64]models.RollResult{}
	reveal := map[int64]bool{}
	for _, r := range reqs {
		reveal[r.ID] = r.RevealOutcome
	}
	out := RollBoard{Requests: []RollRequestView{}, Results: []RollResultView{}, PendingActions: []PendingActionView{}, Windows: []ActionWindowView{}}
	for _, r := range results {
		if r.RollRequestID != nil {
			byRequest[*r.RollRequestID] = r
		}
		if rv.seesResult(r) {
			out.Results = append(out.Results, rv.result(r, r.RollRequestID != nil && reveal[*r.RollRequestID]))
		}
	}
	for _, r := range reqs {
		if !rv.seesRequest(r) {
			continue
		}
		var res *models.RollResult
		if found, ok := byRequest[r.ID]; ok {
			res = &found
		}
		out.Requests = append(out.Requests, rv.request(r, requestLabel(r), res))
	}
	for _, a := range actions {
		out.PendingActions = append(out.PendingActions, actionView(a))
	}
	for _, w := range windows {
		out.Windows = append(out.Windows, windowView(w))
	}
	return out
}
