package webui

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/adventure-table/adventure-table/gameplay"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// apiRoutes mounts the JSON API; each route also describes itself for the
// OpenAPI document, so the document cannot drift from the router.
func (s *Server) apiRoutes() {
	s.route(apiRoute{
		Method: http.MethodGet, Path: "/api/health", Tag: "meta",
		Summary:  "Server health: database reachable, schema version, mode",
		Response: typeOf[gameplay.Health](),
		Errors:   []apperr.Code{apperr.DatabaseUnavailable},
	}, s.health)
	s.route(apiRoute{
		Method: http.MethodGet, Path: "/api/meta/capabilities", Tag: "meta",
		Summary:  "Features this build offers",
		Response: typeOf[gameplay.Capabilities](),
	}, s.capabilities)
}

func (s *Server) health(c *gin.Context) {
	h, err := s.opts.Services.Health(c.Request.Context(), s.opts.Version)
	if err != nil {
		respondError(c, err)
		return
	}
	c.JSON(http.StatusOK, h)
}

func (s *Server) capabilities(c *gin.Context) {
	caps := s.opts.Services.Capabilities(s.opts.MCP != nil, s.opts.APIDocs)
	caps.Accounts = s.opts.Accounts
	c.JSON(http.StatusOK, caps)
}
