package webui

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/adventure-table/adventure-table/gameplay/narrative/imports"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// importTypes are the bodies the import routes take: the file's bytes as
// sent (a JSON export, a PNG character card or a CHARX zip).
var importTypes = []string{"application/json", "image/png", "application/zip", "application/octet-stream"}

// importRoutes mounts the imports of files from other tools (SillyTavern,
// character cards, AI Dungeon, NovelAI). The body is the file itself; the
// format is told from its content.
func (s *Server) importRoutes() {
	n := s.opts.Services.Narrative
	errs := []apperr.Code{apperr.ImportFormatUnsupported, apperr.ImportPNGWithoutCard, apperr.InvalidRequest}
	s.route(apiRoute{Method: "POST", Path: "/api/imports/preview", Tag: "solo", Summary: "What importing a file would create (nothing is stored): SillyTavern World Info, Character Card V1/V2/V3 (JSON, PNG or CHARX), AI Dungeon scenario or story cards, NovelAI lorebook; the raw file as the body, at most 8 MiB",
		RawRequest: importTypes, Response: typeOf[imports.Preview](), Errors: errs},
		func(c *gin.Context) {
			data, ok := readUpload(c, imports.MaxFileBytes, apperr.InvalidRequest)
			if !ok {
				return
			}
			p, err := imports.Parse(data)
			reply(c, http.StatusOK, p, err)
		}, s.identify)
	s.route(apiRoute{Method: "POST", Path: "/api/imports", Tag: "solo", Summary: "Import a file as a new scenario of the caller (a lorebook becomes a scenario holding its cards); the raw file as the body, at most 8 MiB",
		Status: http.StatusCreated, RawRequest: importTypes, Response: typeOf[imports.Imported](), Errors: append(errs, apperr.ScenarioInvalid)},
		func(c *gin.Context) {
			data, ok := readUpload(c, imports.MaxFileBytes, apperr.InvalidRequest)
			if !ok {
				return
			}
			v, err := imports.Import(c.Request.Context(), n, userOf(c), data)
			reply(c, http.StatusCreated, v, err)
		}, s.identify)
}
