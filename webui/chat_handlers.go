package webui

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// chatRoutes mounts the chat's own routes: editing and deleting a message,
// the roll history and presence. Each is one gameplay call.
func (s *Server) chatRoutes() {
	t := s.opts.Services.Table
	who := []apperr.Code{apperr.NotFound, apperr.RoomAccessRevoked}
	codes := func(extra ...apperr.Code) []apperr.Code { return append(append([]apperr.Code{}, who...), extra...) }
	message := typeOf[table.MessageView]()

	s.route(apiRoute{Method: "PATCH", Path: "/api/messages/{id}", Tag: "live", Summary: "Edit a message's text: the author within 10 minutes, the current DM any time; inline rolls are not rolled again",
		Request: typeOf[table.MessageEdit](), Response: message, Errors: codes(apperr.MessageNotEditable, apperr.MessageTextInvalid, apperr.SessionNotActive, apperr.InvalidRequest)},
		withIDAndBody("id", http.StatusOK, t.EditMessage), s.identify)
	s.route(apiRoute{Method: "DELETE", Path: "/api/messages/{id}", Tag: "live", Summary: "Delete a message (its text is gone; a tombstone stays): the author within 10 minutes, the current DM any time",
		Response: message, Errors: codes(apperr.MessageNotEditable, apperr.SessionNotActive)},
		withID("id", http.StatusOK, t.DeleteMessage), s.identify)
	s.route(apiRoute{Method: "GET", Path: "/api/sessions/{id}/roll-results", Tag: "rolls", Summary: "Roll history the caller may see, newest first (?before=<id>&limit=1-200, default 50)",
		Query: []string{"before", "limit"}, Response: typeOf[table.RollHistory](), Errors: codes(apperr.InvalidRequest)},
		func(c *gin.Context) {
			id, ok := pathID(c, "id")
			if !ok {
				return
			}
			before, ok := queryInt(c, "before")
			if !ok {
				return
			}
			limit, ok := queryInt(c, "limit")
			if !ok {
				return
			}
			v, err := t.RollHistory(c.Request.Context(), callerOf(c), id, before, int(limit))
			reply(c, http.StatusOK, v, err)
		}, s.identify)
	s.route(apiRoute{Method: "GET", Path: "/api/sessions/{id}/presence", Tag: "live", Summary: "Who is online in the session: humans from their long poll, AI seats from their calls",
		Response: typeOf[table.Presence](), Errors: codes()},
		withID("id", http.StatusOK, t.SessionPresence), s.identify)
}
