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
	c.JSON(http.StatusOK, s.caps)
}

// capabilityTags names, for each capability flag (its JSON name), the route
// families (OpenAPI tags) that carry it: the flag is true only when every
// one of them has routes mounted. A flag with no families (combat,
// timeline) is not built and stays false. coreTags are the families every
// build has (health, the caller's identity), which no flag switches.
// TestCapabilityFlagsMatchRoutes keeps this map, the router and the OpenAPI
// document in step: each true flag has its routes, each family its flag.
var capabilityTags = map[string][]string{
	"table":     {"rooms", "campaigns", "characters", "sessions", "live", "rolls"},
	"ai_actor":  {"ai"},
	"solo":      {"solo"},
	"scripting": {"solo", "scripting"},
	"combat":    {"combat"},
	"timeline":  nil,
	"mcp":       nil, // /mcp is not part of the JSON API: Options.MCP
	"api_docs":  nil, // /api/docs is a page of the web app: Options.APIDocs
	"accounts":  {"account"},
}

var coreTags = map[string]bool{"meta": true, "people": true}

// computeCapabilities reports what this router actually mounted.
func (s *Server) computeCapabilities() gameplay.Capabilities {
	mounted := map[string]bool{}
	for _, r := range s.routes {
		mounted[r.Tag] = true
	}
	has := func(flag string) bool {
		tags := capabilityTags[flag]
		if len(tags) == 0 {
			return false
		}
		for _, t := range tags {
			if !mounted[t] {
				return false
			}
		}
		return true
	}
	return gameplay.Capabilities{
		Table:     has("table"),
		AIActor:   has("ai_actor") && s.opts.MCP != nil, // agents reach their seat only through /mcp
		Solo:      has("solo") && s.opts.Services.Narrative != nil,
		Scripting: has("scripting") && s.opts.Services.Narrative != nil,
		Combat:    has("combat"),
		Timeline:  has("timeline"),
		MCP:       s.opts.MCP != nil,
		APIDocs:   s.opts.APIDocs,
		// The account routes answer in every mode; the web app offers
		// registration and login only where the server says so (hosted).
		Accounts: has("accounts") && s.opts.Accounts,
	}
}
