package webui

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"strconv"

	"github.com/gin-gonic/gin"

	"github.com/adventure-table/adventure-table/gameplay/accounts"
	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// maxBodyBytes bounds every JSON body.
const maxBodyBytes = 1 << 20

// DisplayNameInput renames the caller.
type DisplayNameInput struct {
	DisplayName string `json:"display_name" jsonschema:"1 to 80 characters"`
}

// NameInput names a new room, campaign or seat.
type NameInput struct {
	Name string `json:"name" jsonschema:"1 to 80 characters"`
}

// LabelInput labels a new seat.
type LabelInput struct {
	Label string `json:"label" jsonschema:"1 to 80 characters"`
}

// InviteInput carries an invite code.
type InviteInput struct {
	InviteCode string `json:"invite_code"`
}

// AuthorityInput sets a member's room authority.
type AuthorityInput struct {
	Authority string `json:"authority" jsonschema:"dm or member"`
}

// AssignInput names the member who gets the seat.
type AssignInput struct {
	AccessID int64 `json:"access_id"`
}

// SeatCharacterInput chooses the seat's character; null clears it.
type SeatCharacterInput struct {
	CharacterID *int64 `json:"character_id"`
}

// bindJSON decodes the body into v, rejecting unknown fields and trailing
// data with invalid_request.
func bindJSON(c *gin.Context, v any) bool { return bindJSONLimit(c, v, maxBodyBytes) }

// maxScenarioBytes bounds a scenario body: four script slots of up to 1 MiB
// each (real AI Dungeon libraries are 0.3–0.8 MB) plus the rest.
const maxScenarioBytes = 6 << 20

// bindJSONLimit is bindJSON with its own size limit.
func bindJSONLimit(c *gin.Context, v any, limit int64) bool {
	dec := json.NewDecoder(http.MaxBytesReader(c.Writer, c.Request.Body, limit))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil && dec.Decode(&struct{}{}) != io.EOF {
		err = errors.New("trailing data after the JSON body")
	}
	if err != nil {
		respondError(c, apperr.Wrap(err, apperr.InvalidRequest, "The request body is not valid JSON for this route: %v", err))
		return false
	}
	return true
}

// readUpload reads a raw request body, a file gameplay decodes, of at most
// limit bytes; false means the request is answered. An interrupted body is
// invalid_request. A longer body is refused here with the tooLarge code and
// 413; with no code, one byte past limit is kept, so that gameplay's own
// size rule refuses it with its own code (stage images:
// stage_image_too_large, 413).
func readUpload(c *gin.Context, limit int64, tooLarge apperr.Code) ([]byte, bool) {
	data, err := io.ReadAll(io.LimitReader(c.Request.Body, limit+1))
	if err != nil {
		respondError(c, apperr.Wrap(err, apperr.InvalidRequest, "The upload was interrupted."))
		return nil, false
	}
	if int64(len(data)) > limit && tooLarge != "" {
		respondError(c, apperr.Wrap(&http.MaxBytesError{Limit: limit}, tooLarge, "The file is larger than %d bytes.", limit).WithDetail("limit_bytes", limit))
		return nil, false
	}
	return data, true
}

// pathID reads a numeric path parameter; anything else is not_found.
func pathID(c *gin.Context, name string) (int64, bool) {
	id, err := strconv.ParseInt(c.Param(name), 10, 64)
	if err != nil || id <= 0 {
		respondError(c, apperr.E(apperr.NotFound, "The %s does not exist.", name))
		return 0, false
	}
	return id, true
}

// pathIDs reads two numeric path parameters.
func pathIDs(c *gin.Context, first, second string) (int64, int64, bool) {
	a, ok := pathID(c, first)
	if !ok {
		return 0, 0, false
	}
	b, ok := pathID(c, second)
	return a, b, ok
}

// reply writes v with status, or the error.
func reply[T any](c *gin.Context, status int, v T, err error) {
	if err != nil {
		respondError(c, err)
		return
	}
	c.JSON(status, v)
}

// withID adapts a gameplay call that takes only a path id.
func withID[T any](param string, status int, call func(ctx context.Context, caller table.Caller, id int64) (T, error)) gin.HandlerFunc {
	return func(c *gin.Context) {
		id, ok := pathID(c, param)
		if !ok {
			return
		}
		v, err := call(c.Request.Context(), callerOf(c), id)
		reply(c, status, v, err)
	}
}

// withIDAndBody adapts a gameplay call that takes an id and a JSON body.
func withIDAndBody[In, T any](param string, status int, call func(ctx context.Context, caller table.Caller, id int64, in In) (T, error)) gin.HandlerFunc {
	return func(c *gin.Context) {
		id, ok := pathID(c, param)
		if !ok {
			return
		}
		var in In
		if !bindJSON(c, &in) {
			return
		}
		v, err := call(c.Request.Context(), callerOf(c), id, in)
		reply(c, status, v, err)
	}
}

// withBody adapts a gameplay call that takes a JSON body.
func withBody[In, T any](status int, call func(ctx context.Context, caller table.Caller, in In) (T, error)) gin.HandlerFunc {
	return func(c *gin.Context) {
		var in In
		if !bindJSON(c, &in) {
			return
		}
		v, err := call(c.Request.Context(), callerOf(c), in)
		reply(c, status, v, err)
	}
}

// tableRoutes mounts the table ground's routes; each is one gameplay call.
func (s *Server) tableRoutes() {
	t := s.opts.Services.Table
	who := []apperr.Code{apperr.NotFound, apperr.RoomAccessRevoked}
	codes := func(extra ...apperr.Code) []apperr.Code { return append(append([]apperr.Code{}, who...), extra...) }
	room := typeOf[table.RoomView]()
	resume := typeOf[table.SessionResume]()

	s.route(apiRoute{Method: "GET", Path: "/api/me", Tag: "people", Summary: "The caller (a guest is created on the first visit): name, and email once registered", Response: typeOf[accounts.AccountView]()},
		func(c *gin.Context) { c.JSON(http.StatusOK, c.MustGet(userKey)) }, s.identify)
	s.route(apiRoute{Method: "PATCH", Path: "/api/me", Tag: "people", Summary: "Change the caller's display name", Request: typeOf[DisplayNameInput](), Response: typeOf[table.UserView](), Errors: []apperr.Code{apperr.DisplayNameInvalid}},
		withBody(http.StatusOK, func(ctx context.Context, caller table.Caller, in DisplayNameInput) (table.UserView, error) {
			return t.RenameMe(ctx, caller, in.DisplayName)
		}), s.identify)

	s.route(apiRoute{Method: "GET", Path: "/api/rooms", Tag: "rooms", Summary: "The caller's rooms", Response: typeOf[table.RoomList]()},
		func(c *gin.Context) {
			v, err := t.ListRooms(c.Request.Context(), callerOf(c))
			reply(c, http.StatusOK, v, err)
		}, s.identify)
	s.route(apiRoute{Method: "POST", Path: "/api/rooms", Tag: "rooms", Summary: "Create a room owned by the caller", Status: http.StatusCreated, Request: typeOf[NameInput](), Response: room, Errors: []apperr.Code{apperr.RoomNameInvalid}},
		withBody(http.StatusCreated, func(ctx context.Context, caller table.Caller, in NameInput) (table.RoomView, error) {
			return t.CreateRoom(ctx, caller, in.Name)
		}), s.identify)
	s.route(apiRoute{Method: "POST", Path: "/api/rooms/join", Tag: "rooms", Summary: "Join a room with its invite code", Request: typeOf[InviteInput](), Response: room, Errors: []apperr.Code{apperr.InviteCodeInvalid, apperr.RoomAccessRevoked}},
		withBody(http.StatusOK, func(ctx context.Context, caller table.Caller, in InviteInput) (table.RoomView, error) {
			return t.JoinRoom(ctx, caller, in.InviteCode)
		}), s.identify)
	s.route(apiRoute{Method: "POST", Path: "/api/tables", Tag: "rooms", Summary: "Create a table ready to play in one step: a room that lets friends claim seats, its campaign with the caller in the DM seat, free player seats and a lobby; answers the invite code", Status: http.StatusCreated,
		Request: typeOf[table.TableInput](), Response: typeOf[table.TableView](), Errors: []apperr.Code{apperr.RoomNameInvalid, apperr.CampaignNameInvalid, apperr.SeatLabelInvalid, apperr.DisplayNameInvalid}},
		withBody(http.StatusCreated, t.CreateTable), s.identify)
	s.route(apiRoute{Method: "GET", Path: "/api/invites/{code}", Tag: "rooms", Summary: "What an invite link leads to (room, campaign, DM, free seats, open session, the caller's place), without joining", Response: typeOf[table.InvitePreview](), Errors: []apperr.Code{apperr.InviteCodeInvalid}},
		func(c *gin.Context) {
			v, err := t.PreviewInvite(c.Request.Context(), callerOf(c), c.Param("code"))
			reply(c, http.StatusOK, v, err)
		}, s.identify)
	s.route(apiRoute{Method: "POST", Path: "/api/tables/sit", Tag: "rooms", Summary: "Sit down by invite link in one step: join, take a name, a character (yours or a quick template) and a free player seat, and join the running session at once", Request: typeOf[table.JoinInput](), Response: typeOf[table.JoinView](),
		Errors: []apperr.Code{apperr.InvalidRequest, apperr.DisplayNameInvalid, apperr.CharacterInvalid, apperr.InviteCodeInvalid, apperr.RoomAccessRevoked, apperr.SelfClaimDisabled, apperr.TableNotReady, apperr.TableFull, apperr.SeatNotClaimable, apperr.NotFound, apperr.CharacterAlreadyInSession}},
		withBody(http.StatusOK, t.JoinAndSit), s.identify)
	s.route(apiRoute{Method: "GET", Path: "/api/rooms/{id}", Tag: "rooms", Summary: "A room page: members, campaigns, seats", Response: room, Errors: codes()},
		withID("id", http.StatusOK, t.GetRoom), s.identify)
	s.route(apiRoute{Method: "PATCH", Path: "/api/rooms/{id}", Tag: "rooms", Summary: "Rename, allow self-claim, choose the active campaign", Request: typeOf[table.RoomChange](), Response: room,
		Errors: codes(apperr.RoomOwnerRequired, apperr.RoomAuthorityRequired, apperr.RoomNameInvalid)},
		withIDAndBody("id", http.StatusOK, t.UpdateRoom), s.identify)
	s.route(apiRoute{Method: "POST", Path: "/api/rooms/{id}/invite/rotate", Tag: "rooms", Summary: "Replace the invite code (the old one stops working)", Response: typeOf[table.InviteView](), Errors: codes(apperr.RoomOwnerRequired)},
		withID("id", http.StatusOK, t.RotateInvite), s.identify)
	s.route(apiRoute{Method: "POST", Path: "/api/rooms/{id}/members/{access_id}/revoke", Tag: "rooms", Summary: "Revoke a member's access", Response: room, Errors: codes(apperr.RoomOwnerRequired, apperr.OwnerCannotBeRevoked)},
		func(c *gin.Context) {
			roomID, accessID, ok := pathIDs(c, "id", "access_id")
			if !ok {
				return
			}
			v, err := t.RevokeMember(c.Request.Context(), callerOf(c), roomID, accessID)
			reply(c, http.StatusOK, v, err)
		}, s.identify)
	s.route(apiRoute{Method: "PUT", Path: "/api/rooms/{id}/members/{access_id}/authority", Tag: "rooms", Summary: "Grant or remove the DM key", Request: typeOf[AuthorityInput](), Response: room, Errors: codes(apperr.RoomOwnerRequired, apperr.InvalidRequest)},
		func(c *gin.Context) {
			roomID, accessID, ok := pathIDs(c, "id", "access_id")
			if !ok {
				return
			}
			var in AuthorityInput
			if !bindJSON(c, &in) {
				return
			}
			v, err := t.SetMemberAuthority(c.Request.Context(), callerOf(c), roomID, accessID, in.Authority)
			reply(c, http.StatusOK, v, err)
		}, s.identify)

	s.route(apiRoute{Method: "POST", Path: "/api/rooms/{id}/campaigns", Tag: "campaigns", Summary: "Create a campaign with its DM seat", Status: http.StatusCreated, Request: typeOf[NameInput](), Response: room, Errors: codes(apperr.RoomAuthorityRequired, apperr.CampaignNameInvalid)},
		withIDAndBody("id", http.StatusCreated, func(ctx context.Context, caller table.Caller, id int64, in NameInput) (table.RoomView, error) {
			return t.CreateCampaign(ctx, caller, id, in.Name)
		}), s.identify)
	s.route(apiRoute{Method: "PATCH", Path: "/api/campaigns/{id}", Tag: "campaigns", Summary: "Rename a campaign or change its status", Request: typeOf[table.CampaignChange](), Response: room, Errors: codes(apperr.RoomAuthorityRequired, apperr.CampaignNameInvalid, apperr.InvalidRequest)},
		withIDAndBody("id", http.StatusOK, t.UpdateCampaign), s.identify)
	world := typeOf[table.WorldView]()
	s.route(apiRoute{Method: "GET", Path: "/api/campaigns/{id}/world", Tag: "campaigns", Summary: "The campaign's world as the caller may see it (premise for all; plot essentials and NPCs for the DM and room authority)", Response: world, Errors: codes()},
		withID("id", http.StatusOK, t.CampaignWorld), s.identify)
	s.route(apiRoute{Method: "PUT", Path: "/api/campaigns/{id}/world", Tag: "campaigns", Summary: "Replace the campaign's world (room authority)", Request: typeOf[table.World](), Response: world, Errors: codes(apperr.RoomAuthorityRequired, apperr.CampaignWorldInvalid)},
		withIDAndBody("id", http.StatusOK, t.SetCampaignWorld), s.identify)
	s.route(apiRoute{Method: "GET", Path: "/api/campaigns/{id}/memories", Tag: "campaigns", Summary: "What the campaign remembers that the caller may see (the table's memories for all; a whisper's for its parties; the DM's for the DM)", Response: typeOf[table.CampaignMemoryList](), Errors: codes()},
		withID("id", http.StatusOK, t.CampaignMemories), s.identify)
	s.route(apiRoute{Method: "POST", Path: "/api/campaigns/{id}/seats", Tag: "campaigns", Summary: "Add a player seat", Status: http.StatusCreated, Request: typeOf[LabelInput](), Response: room, Errors: codes(apperr.RoomAuthorityRequired, apperr.SeatLabelInvalid)},
		withIDAndBody("id", http.StatusCreated, func(ctx context.Context, caller table.Caller, id int64, in LabelInput) (table.RoomView, error) {
			return t.AddSeat(ctx, caller, id, in.Label)
		}), s.identify)
	s.route(apiRoute{Method: "POST", Path: "/api/seats/{id}/assign", Tag: "campaigns", Summary: "Give a seat to a member (room authority)", Request: typeOf[AssignInput](), Response: room, Errors: codes(apperr.RoomAuthorityRequired)},
		withIDAndBody("id", http.StatusOK, func(ctx context.Context, caller table.Caller, id int64, in AssignInput) (table.RoomView, error) {
			return t.AssignSeat(ctx, caller, id, in.AccessID)
		}), s.identify)
	s.route(apiRoute{Method: "POST", Path: "/api/seats/{id}/unassign", Tag: "campaigns", Summary: "Leave a seat without controller", Response: room, Errors: codes(apperr.RoomAuthorityRequired)},
		withID("id", http.StatusOK, t.UnassignSeat), s.identify)
	s.route(apiRoute{Method: "POST", Path: "/api/seats/{id}/claim", Tag: "campaigns", Summary: "Claim an unassigned player seat", Response: room, Errors: codes(apperr.SelfClaimDisabled, apperr.SeatNotClaimable, apperr.SeatAlreadyControlled)},
		withID("id", http.StatusOK, t.ClaimSeat), s.identify)
	s.route(apiRoute{Method: "PUT", Path: "/api/seats/{id}/character", Tag: "campaigns", Summary: "Choose the character the seat plays", Request: typeOf[SeatCharacterInput](), Response: room, Errors: codes(apperr.SeatControllerRequired)},
		withIDAndBody("id", http.StatusOK, func(ctx context.Context, caller table.Caller, id int64, in SeatCharacterInput) (table.RoomView, error) {
			return t.SetSeatCharacter(ctx, caller, id, in.CharacterID)
		}), s.identify)

	character := typeOf[table.CharacterView]()
	s.route(apiRoute{Method: "GET", Path: "/api/characters", Tag: "characters", Summary: "The caller's characters", Response: typeOf[table.CharacterList]()},
		func(c *gin.Context) {
			v, err := t.ListCharacters(c.Request.Context(), callerOf(c))
			reply(c, http.StatusOK, v, err)
		}, s.identify)
	s.route(apiRoute{Method: "POST", Path: "/api/characters", Tag: "characters", Summary: "Create a character", Status: http.StatusCreated, Request: typeOf[table.CharacterInput](), Response: character, Errors: []apperr.Code{apperr.CharacterInvalid}},
		withBody(http.StatusCreated, t.CreateCharacter), s.identify)
	s.route(apiRoute{Method: "POST", Path: "/api/characters/preview", Tag: "characters", Summary: "What the sheet rules derive from a character being edited (modifiers, saves, skills, AC, attacks), without saving it", Request: typeOf[table.CharacterInput](), Response: typeOf[table.CharacterDerived](), Errors: []apperr.Code{apperr.CharacterInvalid}},
		withBody(http.StatusOK, t.PreviewCharacter), s.identify)
	s.route(apiRoute{Method: "GET", Path: "/api/characters/templates", Tag: "characters", Summary: "The quick characters (level-1 sheets) a friend can sit down with", Response: typeOf[table.QuickTemplates]()},
		func(c *gin.Context) { c.JSON(http.StatusOK, t.ListQuickTemplates(c.Request.Context())) }, s.identify)
	s.route(apiRoute{Method: "GET", Path: "/api/characters/{id}", Tag: "characters", Summary: "One of the caller's characters", Response: character, Errors: []apperr.Code{apperr.NotFound}},
		withID("id", http.StatusOK, t.GetCharacter), s.identify)
	s.route(apiRoute{Method: "GET", Path: "/api/characters/{id}/sheet", Tag: "characters", Summary: "One of the caller's characters to read and roll from: the character and the running table its rolls go to (null when it plays at none from the caller's seat)", Response: typeOf[table.CharacterSheet](), Errors: []apperr.Code{apperr.NotFound}},
		withID("id", http.StatusOK, t.GetCharacterSheet), s.identify)
	s.route(apiRoute{Method: "POST", Path: "/api/characters/{id}/roll", Tag: "characters", Summary: "Roll a check, save or attack of the sheet at the running table the character plays at, as its seat (a quick roll; the modifier comes from the stored sheet)", Status: http.StatusCreated, Request: typeOf[table.SheetRollInput](), Response: typeOf[table.SheetRoll](),
		Errors: []apperr.Code{apperr.NotFound, apperr.CharacterNotAtTable, apperr.InvalidRequest, apperr.SessionNotActive, apperr.NotAParticipant, apperr.RoomAccessRevoked}},
		withIDAndBody("id", http.StatusCreated, t.RollFromSheet), s.identify)
	s.route(apiRoute{Method: "PUT", Path: "/api/characters/{id}", Tag: "characters", Summary: "Replace a character's fields", Request: typeOf[table.CharacterInput](), Response: character, Errors: []apperr.Code{apperr.NotFound, apperr.CharacterInvalid}},
		withIDAndBody("id", http.StatusOK, t.UpdateCharacter), s.identify)
	s.route(apiRoute{Method: "GET", Path: "/api/characters/{id}/export", Tag: "characters", Summary: "One of the caller's characters as a file (adventure-table.character version 1), served as an attachment", Response: typeOf[table.CharacterFile](), Errors: []apperr.Code{apperr.NotFound}},
		func(c *gin.Context) {
			id, ok := pathID(c, "id")
			if !ok {
				return
			}
			v, err := t.ExportCharacter(c.Request.Context(), callerOf(c), id)
			if cd := mime.FormatMediaType("attachment", map[string]string{"filename": table.CharacterFileName(v.Character.Name)}); err == nil && cd != "" {
				c.Header("Content-Disposition", cd)
			}
			reply(c, http.StatusOK, v, err)
		}, s.identify)
	s.route(apiRoute{Method: "POST", Path: "/api/characters/import", Tag: "characters", Summary: "Create a character of the caller from a character file (adventure-table.character version 1); ids in the file are never used", Status: http.StatusCreated, Request: typeOf[table.CharacterFile](), Response: character,
		Errors: []apperr.Code{apperr.InvalidRequest, apperr.ImportFormatUnsupported, apperr.CharacterInvalid}},
		func(c *gin.Context) {
			// The gameplay decoder is the strict one (duplicate keys, unknown
			// fields, format and version); here the body is only bounded.
			data, ok := readUpload(c, table.MaxCharacterFileBytes, apperr.InvalidRequest)
			if !ok {
				return
			}
			v, err := t.ImportCharacter(c.Request.Context(), callerOf(c), data)
			reply(c, http.StatusCreated, v, err)
		}, s.identify)

	s.route(apiRoute{Method: "POST", Path: "/api/campaigns/{id}/sessions", Tag: "sessions", Summary: "Open a session lobby", Status: http.StatusCreated, Response: resume, Errors: codes(apperr.RoomAuthorityRequired, apperr.SessionAlreadyOpen)},
		withID("id", http.StatusCreated, t.OpenSession), s.identify)
	s.route(apiRoute{Method: "GET", Path: "/api/sessions/{id}", Tag: "sessions", Summary: "Resume: session, seats, participants, the caller's role", Response: resume, Errors: codes()},
		withID("id", http.StatusOK, t.Resume), s.identify)
	s.route(apiRoute{Method: "POST", Path: "/api/sessions/{id}/start", Tag: "sessions", Summary: "Start the session (current DM)", Response: resume,
		Errors: codes(apperr.NotCurrentDM, apperr.SessionNotLobby, apperr.CampaignNotActive, apperr.CampaignNotRoomActive, apperr.CharacterAlreadyInSession)},
		withID("id", http.StatusOK, t.StartSession), s.identify)
	s.route(apiRoute{Method: "POST", Path: "/api/sessions/{id}/late-join", Tag: "sessions", Summary: "Add a ready player seat to the active session (current DM)", Request: typeOf[table.LateJoinInput](), Response: resume,
		Errors: codes(apperr.NotCurrentDM, apperr.SessionNotActive, apperr.SeatNotReady, apperr.ParticipantAlreadyJoined, apperr.CharacterAlreadyInSession)},
		withIDAndBody("id", http.StatusOK, func(ctx context.Context, caller table.Caller, id int64, in table.LateJoinInput) (table.SessionResume, error) {
			return t.LateJoin(ctx, caller, id, in.SeatID)
		}), s.identify)
	s.route(apiRoute{Method: "POST", Path: "/api/sessions/{id}/end", Tag: "sessions", Summary: "End the session (current DM)", Response: resume, Errors: codes(apperr.NotCurrentDM, apperr.SessionNotActive)},
		withID("id", http.StatusOK, t.EndSession), s.identify)
	s.route(apiRoute{Method: "PUT", Path: "/api/sessions/{id}/recap", Tag: "sessions", Summary: "Edit the recap draft (current DM)", Request: typeOf[table.RecapInput](), Response: resume,
		Errors: codes(apperr.NotCurrentDM, apperr.RecapNotOpen, apperr.InvalidRequest)},
		withIDAndBody("id", http.StatusOK, func(ctx context.Context, caller table.Caller, id int64, in table.RecapInput) (table.SessionResume, error) {
			return t.EditRecap(ctx, caller, id, in.Text)
		}), s.identify)
	s.route(apiRoute{Method: "POST", Path: "/api/sessions/{id}/recap/post", Tag: "sessions", Summary: "Post the recap to the table (current DM); text, when given, is the DM's last edit", Request: typeOf[table.RecapInput](), Response: resume,
		Errors: codes(apperr.NotCurrentDM, apperr.RecapNotOpen, apperr.SessionNotActive, apperr.InvalidRequest)},
		withIDAndBody("id", http.StatusOK, func(ctx context.Context, caller table.Caller, id int64, in table.RecapInput) (table.SessionResume, error) {
			var text *string
			if in.Text != "" {
				text = &in.Text
			}
			return t.PostRecap(ctx, caller, id, text)
		}), s.identify)
	s.route(apiRoute{Method: "POST", Path: "/api/sessions/{id}/recap/skip", Tag: "sessions", Summary: "Skip the recap (current DM)", Response: resume, Errors: codes(apperr.NotCurrentDM, apperr.RecapNotOpen)},
		withID("id", http.StatusOK, t.SkipRecap), s.identify)
	s.route(apiRoute{Method: "POST", Path: "/api/sessions/{id}/abandon", Tag: "sessions", Summary: "Abandon the session (current DM or room owner)", Response: resume, Errors: codes(apperr.NotCurrentDM, apperr.SessionNotActive)},
		withID("id", http.StatusOK, t.AbandonSession), s.identify)

	s.chatRoutes()
}
