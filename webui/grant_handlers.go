package webui

import (
	"net/http"

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
