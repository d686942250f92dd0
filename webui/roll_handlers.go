package webui

import (
	"context"
	"net/http"

	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// rollRoutes mounts checks, rolls, pending actions and character state.
func (s *Server) rollRoutes() {
	t := s.opts.Services.Table
	who := []apperr.Code{apperr.NotFound, apperr.RoomAccessRevoked}
	codes := func(extra ...apperr.Code) []apperr.Code { return append(append([]apperr.Code{}, who...), extra...) }
	result := typeOf[table.RollResultView]()
	action := typeOf[table.PendingActionView]()
	window := typeOf[table.ActionWindowView]()
	diceCodes := []apperr.Code{apperr.DiceInvalidExpression, apperr.DiceExpressionTooLong, apperr.DiceTooManyDiceInTerm,
		apperr.DiceTooManyDice, apperr.DiceTooManySides, apperr.DiceExplosionTooDeep, apperr.DiceDivisionByZero}
	resolveCodes := codes(apperr.NotRollTarget, apperr.RollRequestAlreadyResolved, apperr.RollRequestNotPending, apperr.SessionNotActive,
		apperr.RollFacesMismatch, apperr.DiceFaceInvalid, apperr.DiceFacesMissing)

	s.route(apiRoute{Method: "GET", Path: "/api/sessions/{id}/rolls", Tag: "rolls", Summary: "Checks, results, pending actions and open action windows the caller may see (no DC unless DM)", Response: typeOf[table.RollBoard](), Errors: codes()},
		withID("id", http.StatusOK, t.Board), s.identify)
	s.route(apiRoute{Method: "POST", Path: "/api/sessions/{id}/checks", Tag: "rolls", Summary: "Ask one or more seats for a check with a secret DC (current DM)", Status: http.StatusCreated, Request: typeOf[table.CheckRequestInput](), Response: typeOf[table.CheckRequests](),
		Errors: codes(apperr.NotCurrentDM, apperr.SessionNotActive, apperr.CheckInvalid, apperr.PendingActionInvalidTransition)},
		withIDAndBody("id", http.StatusCreated, t.RequestCheck), s.identify)
	s.route(apiRoute{Method: "POST", Path: "/api/roll-requests/{id}/roll", Tag: "rolls", Summary: "Resolve a check with a server roll", Request: typeOf[table.RollInput](), Response: result, Errors: resolveCodes},
		withIDAndBody("id", http.StatusOK, func(ctx context.Context, c table.Caller, id int64, in table.RollInput) (table.RollResultView, error) {
			in.Faces = nil // a server roll: the server's dice, whatever the body says
			return t.ResolveRequest(ctx, c, id, in)
		}), s.identify)
	s.route(apiRoute{Method: "POST", Path: "/api/roll-requests/{id}/physical", Tag: "rolls", Summary: "Resolve a check with physical dice: the raw faces only", Request: typeOf[table.RollInput](), Response: result, Errors: resolveCodes},
		withIDAndBody("id", http.StatusOK, func(ctx context.Context, c table.Caller, id int64, in table.RollInput) (table.RollResultView, error) {
			if in.Faces == nil {
				in.Faces = []int{}
			}
			return t.ResolveRequest(ctx, c, id, in)
		}), s.identify)
	s.route(apiRoute{Method: "POST", Path: "/api/roll-requests/{id}/cancel", Tag: "rolls", Summary: "Cancel a pending check (current DM)", Response: typeOf[table.RollRequestView](), Errors: codes(apperr.NotCurrentDM, apperr.RollRequestNotPending)},
		withID("id", http.StatusOK, t.CancelRequest), s.identify)
	s.route(apiRoute{Method: "POST", Path: "/api/sessions/{id}/quick-roll", Tag: "rolls", Summary: "Roll any dice expression; recorded, never completes a check", Status: http.StatusCreated, Request: typeOf[table.QuickRollInput](), Response: result,
		Errors: append(codes(apperr.SessionNotActive, apperr.MessageKindNotAllowed, apperr.NotAParticipant, apperr.ProxyTargetInvalid), diceCodes...)},
		withIDAndBody("id", http.StatusCreated, t.QuickRoll), s.identify)
	s.route(apiRoute{Method: "POST", Path: "/api/sessions/{id}/pending-actions", Tag: "rolls", Summary: "Declare an action for the DM to adjudicate", Status: http.StatusCreated, Request: typeOf[table.ActionInput](), Response: action,
		Errors: codes(apperr.SessionNotActive, apperr.MessageTextInvalid, apperr.MessageKindNotAllowed, apperr.NotAParticipant, apperr.ProxyTargetInvalid, apperr.ActionWindowClosed)},
		withIDAndBody("id", http.StatusCreated, t.DeclareAction), s.identify)
	s.route(apiRoute{Method: "POST", Path: "/api/pending-actions/{id}/transition", Tag: "rolls", Summary: "Move a pending action (DM; a player may cancel their own)", Request: typeOf[table.TransitionInput](), Response: action,
		Errors: codes(apperr.NotCurrentDM, apperr.PendingActionInvalidTransition)},
		withIDAndBody("id", http.StatusOK, t.TransitionAction), s.identify)
	s.route(apiRoute{Method: "POST", Path: "/api/sessions/{id}/action-windows", Tag: "rolls", Summary: "Open a \"what does everyone do?\" window (current DM)", Status: http.StatusCreated, Request: typeOf[table.WindowInput](), Response: window,
		Errors: codes(apperr.NotCurrentDM, apperr.SessionNotActive, apperr.MessageTextInvalid)},
		withIDAndBody("id", http.StatusCreated, t.OpenActionWindow), s.identify)
	s.route(apiRoute{Method: "POST", Path: "/api/action-windows/{id}/close", Tag: "rolls", Summary: "Close an action window (current DM)", Response: window, Errors: codes(apperr.NotCurrentDM, apperr.ActionWindowClosed)},
		withID("id", http.StatusOK, t.CloseActionWindow), s.identify)
	s.route(apiRoute{Method: "POST", Path: "/api/sessions/{id}/character-state", Tag: "rolls", Summary: "Damage, heal, temp HP, conditions, resources of a participant's character", Request: typeOf[table.StateChangeInput](), Response: typeOf[table.CharacterStateView](),
		Errors: codes(apperr.CharacterStateInvalid, apperr.CharacterStateForbidden, apperr.ProxyTargetInvalid, apperr.SessionNotActive)},
		withIDAndBody("id", http.StatusOK, t.ChangeCharacterState), s.identify)
}
