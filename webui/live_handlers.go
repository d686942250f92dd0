package webui

import (
	"net/http"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// queryInt reads an optional integer query parameter; a malformed one is
// invalid_request.
func queryInt(c *gin.Context, name string) (int64, bool) {
	raw := c.Query(name)
	if raw == "" {
		return 0, true
	}
	v, err := strconv.ParseInt(raw, 10, 64)
	if err != nil {
		respondError(c, apperr.E(apperr.InvalidRequest, "Query parameter %s must be an integer.", name).WithField(name, "an integer"))
		return 0, false
	}
	return v, true
}

// imageTypes are the media types of stage images.
var imageTypes = []string{"image/png", "image/jpeg", "image/webp"}

// liveRoutes mounts the live table: events, long-poll, messages, stage.
func (s *Server) liveRoutes() {
	t := s.opts.Services.Table
	who := []apperr.Code{apperr.NotFound, apperr.RoomAccessRevoked}
	codes := func(extra ...apperr.Code) []apperr.Code { return append(append([]apperr.Code{}, who...), extra...) }
	page := typeOf[table.EventPage]()
	posted := typeOf[table.PostedMessage]()
	postCodes := codes(apperr.SessionNotActive, apperr.MessageTextInvalid, apperr.MessageKindNotAllowed, apperr.NotAParticipant,
		apperr.WhisperTargetRequired, apperr.ProxyTargetInvalid, apperr.InvalidRequest)

	s.route(apiRoute{Method: "GET", Path: "/api/sessions/{id}/events", Tag: "live", Summary: "Events after a cursor that the caller may see (?after=&limit=)", Query: []string{"after", "limit"}, Response: page, Errors: codes(apperr.InvalidRequest)},
		func(c *gin.Context) {
			id, ok := pathID(c, "id")
			if !ok {
				return
			}
			after, ok := queryInt(c, "after")
			if !ok {
				return
			}
			limit, ok := queryInt(c, "limit")
			if !ok {
				return
			}
			v, err := t.ListEvents(c.Request.Context(), callerOf(c), id, after, int(limit))
			reply(c, http.StatusOK, v, err)
		}, s.identify)
	s.route(apiRoute{Method: "GET", Path: "/api/sessions/{id}/events/wait", Tag: "live", Summary: "Long-poll for events after a cursor (?after=&timeout= seconds, 1-60); a timeout answers no events and the cursor", Query: []string{"after", "timeout"}, Response: page, Errors: codes(apperr.InvalidRequest)},
		func(c *gin.Context) {
			id, ok := pathID(c, "id")
			if !ok {
				return
			}
			after, ok := queryInt(c, "after")
			if !ok {
				return
			}
			timeout := int64(table.DefaultWait / time.Second)
			if c.Query("timeout") != "" {
				if timeout, ok = queryInt(c, "timeout"); !ok {
					return
				}
			}
			// The request's context ends when the client goes away, which
			// frees the waiter at once.
			v, err := t.WaitEvents(c.Request.Context(), callerOf(c), id, after, time.Duration(timeout)*time.Second)
			if err != nil {
				respondError(c, err)
				return
			}
			// The page of a wake is encoded once for every poll it answers.
			b, err := v.JSON()
			if err != nil {
				respondError(c, err)
				return
			}
			c.Data(http.StatusOK, "application/json; charset=utf-8", b)
		}, s.identify)
	s.route(apiRoute{Method: "GET", Path: "/api/sessions/{id}/events/stream", Tag: "live", Summary: "The live feed as Server-Sent Events (?after= or Last-Event-ID): each message is an event page whose id is the cursor; a comment every 25 s when idle; a refusal after the stream opened is one \"refused\" event with the error body", Query: []string{"after"}, Stream: true, Response: page, Errors: codes(apperr.InvalidRequest)},
		s.streamEvents, s.identify)
	diceCodes := []apperr.Code{apperr.DiceInvalidExpression, apperr.DiceExpressionTooLong, apperr.DiceTooManyDiceInTerm,
		apperr.DiceTooManyDice, apperr.DiceTooManySides, apperr.DiceExplosionTooDeep, apperr.DiceDivisionByZero}
	s.route(apiRoute{Method: "POST", Path: "/api/sessions/{id}/messages", Tag: "live", Summary: "Post a chat line (dialogue, narration, action, ooc, whisper; DM proxy with subject_seat_id); [[dice]] rolls inline", Status: http.StatusCreated, Request: typeOf[table.MessageInput](), Response: posted, Errors: append(append([]apperr.Code{}, postCodes...), diceCodes...)},
		withIDAndBody("id", http.StatusCreated, t.PostMessage), s.identify)
	s.route(apiRoute{Method: "POST", Path: "/api/sessions/{id}/input", Tag: "live", Summary: "Post a typed line; slash commands /action /search /whisper /ooc /check, /npc Name: text (the DM voices an NPC), and rolls /r /roll /gmroll (dice notation, a skill or ability, or attack / damage and a sheet attack); [[dice]] rolls inline", Status: http.StatusCreated, Request: typeOf[table.InputLine](), Response: posted,
		Errors: append(append(postCodes, apperr.UnknownCommand, apperr.Conflict, apperr.NotCurrentDM, apperr.CheckInvalid), diceCodes...)},
		withIDAndBody("id", http.StatusCreated, t.PostInput), s.identify)
	s.route(apiRoute{Method: "PUT", Path: "/api/sessions/{id}/stage", Tag: "live", Summary: "Replace the stage text and image (current DM; names the revision read)", Request: typeOf[table.StageInput](), Response: typeOf[table.StageView](),
		Errors: codes(apperr.NotCurrentDM, apperr.SessionNotActive, apperr.StageRevisionConflict, apperr.InvalidRequest)},
		withIDAndBody("id", http.StatusOK, t.SetStage), s.identify)
	s.route(apiRoute{Method: "POST", Path: "/api/sessions/{id}/stage/images", Tag: "live", Summary: "Upload a stage image: the raw PNG, JPEG or WebP bytes as the body, at most 10 MiB", Status: http.StatusCreated, RawRequest: imageTypes, Response: typeOf[table.StageImageView](),
		Errors: codes(apperr.NotCurrentDM, apperr.SessionNotActive, apperr.StageImageInvalid, apperr.StageImageTooLarge)},
		func(c *gin.Context) {
			id, ok := pathID(c, "id")
			if !ok {
				return
			}
			data, ok := readUpload(c, table.MaxStageImageBytes, "")
			if !ok {
				return
			}
			v, err := t.UploadStageImage(c.Request.Context(), callerOf(c), id, data)
			reply(c, http.StatusCreated, v, err)
		}, s.identify)
	s.route(apiRoute{Method: "GET", Path: "/api/stage-images/{id}", Tag: "live", Summary: "A stage image (room members only)", RawResponse: imageTypes, Errors: codes()},
		func(c *gin.Context) {
			id, ok := pathID(c, "id")
			if !ok {
				return
			}
			img, err := t.GetStageImage(c.Request.Context(), callerOf(c), id)
			if err != nil {
				respondError(c, err)
				return
			}
			// Never let a browser sniff the bytes into something else.
			c.Header("X-Content-Type-Options", "nosniff")
			c.Header("Content-Security-Policy", "default-src 'none'")
			c.Header("Cache-Control", "private, max-age=31536000, immutable")
			c.Header("ETag", `"`+img.SHA256+`"`)
			c.Data(http.StatusOK, img.MimeType, img.Content)
		}, s.identify)
}
