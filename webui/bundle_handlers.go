package webui

import (
	"context"
	"mime"
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/adventure-table/adventure-table/gameplay/narrative"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// bundleRoutes mounts the export and import of adventure and scenario
// bundles (Engine Room §3.3).
func (s *Server) bundleRoutes() {
	n := s.opts.Services.Narrative
	s.route(apiRoute{Method: "GET", Path: "/api/adventures/{id}/bundle", Tag: "solo", Summary: "One of the caller's adventures as a bundle (adventure-table.adventure version 1: every branch, every take, cards, scripts, stats, persona, memories), served as an attachment", Response: typeOf[narrative.AdventureBundle](), Errors: []apperr.Code{apperr.NotFound}},
		download(n.ExportAdventure, func(b narrative.AdventureBundle) string { return narrative.BundleFileName(b.Adventure.Title, b.Format) }), s.identify)
	s.route(apiRoute{Method: "GET", Path: "/api/scenarios/{id}/bundle", Tag: "solo", Summary: "One of the caller's scenarios as a bundle (adventure-table.scenario version 1), served as an attachment", Response: typeOf[narrative.ScenarioBundle](), Errors: []apperr.Code{apperr.NotFound}},
		download(n.ExportScenario, func(b narrative.ScenarioBundle) string { return narrative.BundleFileName(b.Scenario.Title, b.Format) }), s.identify)
	s.route(apiRoute{Method: "POST", Path: "/api/adventures/import", Tag: "solo", Summary: "Create an adventure of the caller from an adventure bundle (adventure-table.adventure version 1); references in the file are only links inside it, every row is new", Status: http.StatusCreated, Request: typeOf[narrative.AdventureBundle](), Response: typeOf[narrative.AdventurePage](),
		Errors: []apperr.Code{apperr.InvalidRequest, apperr.ImportFormatUnsupported, apperr.ScenarioInvalid, apperr.CardLogicInvalid, apperr.CardKeyInvalid, apperr.BundleInvalid}},
		upload(narrative.MaxBundleBytes, n.ImportAdventure), s.identify)
	s.route(apiRoute{Method: "POST", Path: "/api/scenarios/import", Tag: "solo", Summary: "Create a scenario of the caller from a scenario bundle (adventure-table.scenario version 1)", Status: http.StatusCreated, Request: typeOf[narrative.ScenarioBundle](), Response: typeOf[narrative.ScenarioView](),
		Errors: []apperr.Code{apperr.InvalidRequest, apperr.ImportFormatUnsupported, apperr.ScenarioInvalid, apperr.CardLogicInvalid, apperr.CardKeyInvalid}},
		upload(narrative.MaxScenarioBundleBytes, n.ImportScenario), s.identify)
}

// download answers an export as a file to save: the JSON body with a
// Content-Disposition naming it.
func download[T any](export func(ctx context.Context, userID, id int64) (T, error), name func(T) string) gin.HandlerFunc {
	return func(c *gin.Context) {
		id, ok := pathID(c, "id")
		if !ok {
			return
		}
		v, err := export(c.Request.Context(), userOf(c), id)
		if cd := mime.FormatMediaType("attachment", map[string]string{"filename": name(v)}); err == nil && cd != "" {
			c.Header("Content-Disposition", cd)
		}
		reply(c, http.StatusOK, v, err)
	}
}

// upload hands an import the body as bytes, bounded: the gameplay decoder
// is the strict one (duplicate keys, unknown fields, format and version).
func upload[T any](limit int64, create func(ctx context.Context, userID int64, data []byte) (T, error)) gin.HandlerFunc {
	return func(c *gin.Context) {
		data, ok := readUpload(c, limit, apperr.InvalidRequest)
		if !ok {
			return
		}
		v, err := create(c.Request.Context(), userOf(c), data)
		reply(c, http.StatusCreated, v, err)
	}
}
