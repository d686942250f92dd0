package webui

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// grantRoutes mounts handing seats to AI agents and taking them back.
func (s *Server) grantRoutes() {
	t := s.opts.Services.Table
	who := []apperr.Code{apperr.NotFound, apperr.RoomAccessRevoked}
	codes := func(extra ...apperr.Code) []apperr.Code { return append(append([]apperr.Code{}, who...), extra...) }
	minted := typeOf[table.MintedGrant]()

	s.route(apiRoute{Method: "POST", Path: "/api/seats/{id}/handoff", Tag: "ai", Summary: "Let an AI control my player seat during the active session; the token is shown once", Status: http.StatusCreated,
		Request: typeOf[table.HandoffInput](), Response: minted, Errors: codes(apperr.SeatControllerRequired, apperr.SessionNotActive, apperr.MessageTextInvalid)},
		withIDAndBody("id", http.StatusCreated, t.LetAIControl), s.identify)
	s.route(apiRoute{Method: "POST", Path: "/api/seats/{id}/take-back", Tag: "ai", Summary: "Take back control of a seat I handed to an AI (only the access session that handed it)", Response: typeOf[table.RoomView](),
		Errors: codes(apperr.TakeBackOriginRequired, apperr.SeatNotAIControlled)},
		withID("id", http.StatusOK, t.TakeBackControl), s.identify)
	s.route(apiRoute{Method: "POST", Path: "/api/campaigns/{id}/dm-ai", Tag: "ai", Summary: "Owner: give the DM seat to an AI before the session starts (again = rotate); the token is shown once", Status: http.StatusCreated,
		Response: minted, Errors: codes(apperr.RoomOwnerRequired, apperr.AIGrantAlreadyBound)},
		withID("id", http.StatusCreated, t.SetDMSeatAI), s.identify)
}

// narratorRoutes mount the server's own narrator at a seat: choosing it,
// directing it (pause, resume, act now), taking the seat back, and its
// state for the table.
func (s *Server) narratorRoutes() {
	t := s.opts.Services.Table
	who := []apperr.Code{apperr.NotFound, apperr.RoomAccessRevoked}
	codes := func(extra ...apperr.Code) []apperr.Code { return append(append([]apperr.Code{}, who...), extra...) }
	view := typeOf[table.NarratorView]()

	s.route(apiRoute{Method: "POST", Path: "/api/seats/{id}/narrator", Tag: "ai", Summary: "Give a seat to Adventure Table's narrator: the DM seat (owner, before the session), my own player seat, or a free seat with a character (owner, an AI companion). It spends the caller's model settings", Status: http.StatusCreated,
		Request: typeOf[table.NarratorInput](), Response: view,
		Errors: codes(apperr.RoomOwnerRequired, apperr.SeatControllerRequired, apperr.SessionNotActive, apperr.AIGrantAlreadyBound, apperr.SeatNotReady, apperr.InvalidRequest)},
		withIDAndBody("id", http.StatusCreated, t.SeatNarrator), s.identify)
	s.route(apiRoute{Method: "POST", Path: "/api/seats/{id}/narrator/control", Tag: "ai", Summary: "Pause, resume or wake (act now, also the retry after a failure) the narrator at a seat, or change its quiet time",
		Request: typeOf[table.NarratorControl](), Response: view, Errors: codes(apperr.RoomAuthorityRequired, apperr.InvalidRequest)},
		withIDAndBody("id", http.StatusOK, t.ControlNarrator), s.identify)
	s.route(apiRoute{Method: "POST", Path: "/api/seats/{id}/narrator/take-back", Tag: "ai", Summary: "Take a seat back from the narrator at any moment: a player's own seat returns to them, a companion's goes free, the DM seat goes to the owner",
		Response: typeOf[table.RoomView](), Errors: codes(apperr.TakeBackOriginRequired, apperr.RoomOwnerRequired)},
		withID("id", http.StatusOK, t.TakeBackNarrator), s.identify)
	s.route(apiRoute{Method: "GET", Path: "/api/rooms/{id}/narrators", Tag: "ai", Summary: "The narrators at the room's seats and what they are doing (costs for those who direct them)",
		Response: typeOf[[]table.NarratorView]()},
		withID("id", http.StatusOK, t.ListNarrators), s.identify)
	s.route(apiRoute{Method: "GET", Path: "/api/seats/{id}/narrator/steps", Tag: "ai", Summary: "The narrator's recent steps at a seat (Insights), newest first: tokens, tool calls, outcome. For those who direct it",
		Response: typeOf[[]table.NarratorStepSummary](), Errors: codes(apperr.RoomAuthorityRequired)},
		withID("id", http.StatusOK, t.NarratorSteps), s.identify)
	s.route(apiRoute{Method: "GET", Path: "/api/seats/{id}/narrator/steps/{step_id}", Tag: "ai", Summary: "One step of the narrator at a seat: its prompt's sections with their tokens, the exact messages and the tool calls. For those who direct it",
		Response: typeOf[table.NarratorStepView](), Errors: codes(apperr.RoomAuthorityRequired)},
		func(c *gin.Context) {
			seatID, stepID, ok := pathIDs(c, "id", "step_id")
			if !ok {
				return
			}
			v, err := t.NarratorStep(c.Request.Context(), callerOf(c), seatID, stepID)
			reply(c, http.StatusOK, v, err)
		}, s.identify)
}
