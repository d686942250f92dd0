package webui

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/adventure-table/adventure-table/gameplay/narrative"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// maxCardBytes bounds the body of one story card written in play (its
// entry is at most 4000 characters).
const maxCardBytes = 64 << 10

// maxCountBytes bounds a text sent to be counted (16000 characters, which
// JSON may escape to six bytes each).
const maxCountBytes = 128 << 10

// loreRoutes mounts the play screen's lore: the adventure's story cards
// during play and the token count of the input box.
func (s *Server) loreRoutes() {
	n := s.opts.Services.Narrative
	s.route(apiRoute{Method: "GET", Path: "/api/adventures/{id}/cards", Tag: "solo", Summary: "The story cards of the line being read (set-aside ones too), what the newest prompt did with each, and how full that prompt was", Response: typeOf[narrative.PlayCards](), Errors: []apperr.Code{apperr.NotFound}},
		soloID("id", http.StatusOK, n.ListCards), s.identify)
	s.route(apiRoute{Method: "POST", Path: "/api/adventures/{id}/cards", Tag: "solo", Summary: "Write a story card in play (the player's: on every line, never changed by update from scenario)", Status: http.StatusCreated, Request: typeOf[narrative.CardInput](), Response: typeOf[narrative.PlayCard](),
		Errors: []apperr.Code{apperr.NotFound, apperr.CardInvalid, apperr.CardLogicInvalid, apperr.CardKeyInvalid, apperr.CardLimitReached, apperr.TurnInProgress}},
		func(c *gin.Context) {
			id, ok := pathID(c, "id")
			if !ok {
				return
			}
			var in narrative.CardInput
			if !bindJSONLimit(c, &in, maxCardBytes) {
				return
			}
			v, err := n.AddCard(c.Request.Context(), userOf(c), id, in)
			reply(c, http.StatusCreated, v, err)
		}, s.identify)
	s.route(apiRoute{Method: "PATCH", Path: "/api/adventures/{id}/cards/{card_id}", Tag: "solo", Summary: "Edit, set aside or bring back a story card of the line being read; an edit makes it the player's", Request: typeOf[narrative.CardEdit](), Response: typeOf[narrative.PlayCard](),
		Errors: []apperr.Code{apperr.NotFound, apperr.CardInvalid, apperr.CardLogicInvalid, apperr.CardKeyInvalid, apperr.TurnInProgress}},
		func(c *gin.Context) {
			id, cardID, ok := pathIDs(c, "id", "card_id")
			if !ok {
				return
			}
			var in narrative.CardEdit
			if !bindJSONLimit(c, &in, maxCardBytes) {
				return
			}
			v, err := n.ChangeCard(c.Request.Context(), userOf(c), id, cardID, in)
			reply(c, http.StatusOK, v, err)
		}, s.identify)
	s.route(apiRoute{Method: "POST", Path: "/api/solo/tokens", Tag: "solo", Summary: "Estimate the tokens of a text as the caller's model endpoint will count them (the server's tokenizer times the learnt ratio)", Request: typeOf[narrative.TokenCountInput](), Response: typeOf[narrative.TokenCount](),
		Errors: []apperr.Code{apperr.TurnTextInvalid}},
		func(c *gin.Context) {
			var in narrative.TokenCountInput
			if !bindJSONLimit(c, &in, maxCountBytes) {
				return
			}
			v, err := n.CountTokens(c.Request.Context(), userOf(c), in)
			reply(c, http.StatusOK, v, err)
		}, s.identify)
}
