package webui

import (
	"mime"
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// journalRoutes mounts a campaign's timeline and its journal's routes: the facts the table
// keeps (NPCs, places, items, quests, clues), each read by its audience.
// Each is one gameplay call, the same ones MCP's journal tool makes.
func (s *Server) journalRoutes() {
	t := s.opts.Services.Table
	who := []apperr.Code{apperr.NotFound, apperr.RoomAccessRevoked}
	codes := func(extra ...apperr.Code) []apperr.Code { return append(append([]apperr.Code{}, who...), extra...) }
	entry := typeOf[table.JournalEntryView]()
	writes := []apperr.Code{apperr.JournalEntryInvalid, apperr.JournalAudienceNotAllowed, apperr.JournalWiderThanSource}

	s.route(apiRoute{Method: "GET", Path: "/api/campaigns/{id}/timeline", Tag: "campaigns", Summary: "The campaign's story so far: its sessions with their posted recap, fights, deaths and the journal entries each added that the caller may read",
		Response: typeOf[table.CampaignTimeline](), Errors: codes()},
		withID("id", http.StatusOK, t.CampaignTimeline), s.identify)
	s.route(apiRoute{Method: "GET", Path: "/api/campaigns/{id}/export", Tag: "campaigns", Summary: "The campaign as one file (adventure-table.campaign version 1, with a Markdown rendering of the story so far), served as an attachment: everything for the DM, what the caller may read for anyone else",
		Response: typeOf[table.CampaignFile](), Errors: codes()},
		func(c *gin.Context) {
			id, ok := pathID(c, "id")
			if !ok {
				return
			}
			v, err := t.ExportCampaign(c.Request.Context(), callerOf(c), id)
			if cd := mime.FormatMediaType("attachment", map[string]string{"filename": table.CampaignFileName(v.Campaign.Name)}); err == nil && cd != "" {
				c.Header("Content-Disposition", cd)
			}
			reply(c, http.StatusOK, v, err)
		}, s.identify)
	s.route(apiRoute{Method: "POST", Path: "/api/rooms/{id}/campaigns/import", Tag: "campaigns", Summary: "Create a campaign of the room from a campaign file (adventure-table.campaign version 1): its world, recap style, ended sessions with their recaps, journal and memories, in one transaction (room authority)",
		Status: http.StatusCreated, Request: typeOf[table.CampaignFile](), Response: typeOf[table.RoomView](),
		Errors: codes(apperr.RoomAuthorityRequired, apperr.InvalidRequest, apperr.ImportFormatUnsupported, apperr.CampaignNameInvalid, apperr.CampaignWorldInvalid, apperr.JournalEntryInvalid)},
		func(c *gin.Context) {
			id, ok := pathID(c, "id")
			if !ok {
				return
			}
			// The gameplay decoder is the strict one (duplicate keys, unknown
			// fields, format, version, row caps); here the body is only bounded.
			data, ok := readUpload(c, table.MaxCampaignFileBytes, apperr.InvalidRequest)
			if !ok {
				return
			}
			v, err := t.ImportCampaign(c.Request.Context(), callerOf(c), id, data)
			reply(c, http.StatusCreated, v, err)
		}, s.identify)
	s.route(apiRoute{Method: "GET", Path: "/api/campaigns/{id}/journal", Tag: "campaigns", Summary: "The campaign's journal entries the caller may read, newest first (?kind=&q=&before=<id>&limit=1-100)",
		Query: []string{"before", "limit"}, TextQuery: []string{"kind", "q"}, Response: typeOf[table.JournalView](), Errors: codes(apperr.InvalidRequest)},
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
			v, err := t.ListJournal(c.Request.Context(), callerOf(c), id, table.JournalFilter{Kind: c.Query("kind"), Query: c.Query("q"), Before: before, Limit: int(limit)})
			reply(c, http.StatusOK, v, err)
		}, s.identify)
	s.route(apiRoute{Method: "POST", Path: "/api/campaigns/{id}/journal", Tag: "campaigns", Summary: "Write a journal entry: the DM's is confirmed, a player's is a proposal for the table or for some players including themselves",
		Status: http.StatusCreated, Request: typeOf[table.JournalInput](), Response: entry, Errors: codes(append(writes, apperr.SeatControllerRequired, apperr.JournalFull)...)},
		withIDAndBody("id", http.StatusCreated, t.AddJournalEntry), s.identify)
	s.route(apiRoute{Method: "PATCH", Path: "/api/journal/{id}", Tag: "campaigns", Summary: "Change a journal entry: the DM any, a player their own unconfirmed proposal",
		Request: typeOf[table.JournalChange](), Response: entry, Errors: codes(append(writes, apperr.JournalEntryNotEditable)...)},
		withIDAndBody("id", http.StatusOK, t.EditJournalEntry), s.identify)
	s.route(apiRoute{Method: "POST", Path: "/api/journal/{id}/confirm", Tag: "campaigns", Summary: "Confirm a player's proposal (the DM)",
		Response: entry, Errors: codes(apperr.JournalDMRequired)},
		withID("id", http.StatusOK, t.ConfirmJournalEntry), s.identify)
	s.route(apiRoute{Method: "DELETE", Path: "/api/journal/{id}", Tag: "campaigns", Summary: "Delete a journal entry: the DM any, a player their own unconfirmed proposal",
		Response: typeOf[table.JournalDeleted](), Errors: codes(apperr.JournalEntryNotEditable)},
		withID("id", http.StatusOK, t.DeleteJournalEntry), s.identify)
}
