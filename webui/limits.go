package webui

import (
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/adventure-table/adventure-table/gameplay/limits"
)

// Which limit applies where (the rules themselves live in gameplay/limits).
//
//   - ip: every /api and /mcp request, per client IP (limitRequests).
//   - join, login: the routes of ipClassByPath, per client IP, before the
//     route runs (and before any guest is made for the request).
//   - guest: identify, when a request without a valid cookie is about to
//     get a new guest user, per client IP (allowNewGuest).
//   - create, upload, turn: the routes of userClassByRoute, per user, right
//     after identify (route).
//   - mcp: per grant, inside the mcp package.
var (
	ipClassByPath = map[string]limits.Class{
		"POST /api/rooms/join":       limits.Join,
		"POST /api/tables/sit":       limits.Join, // joins as /api/rooms/join does
		"POST /api/account/login":    limits.Login,
		"POST /api/account/register": limits.Login,
	}
	userClassByRoute = map[string]limits.Class{
		"POST /api/rooms":                      limits.Create,
		"POST /api/tables":                     limits.Create, // a room, its campaign, seats and a lobby
		"POST /api/solo/starters/{slug}/play":  limits.Create, // a scenario and its adventure
		"POST /api/rooms/{id}/campaigns":       limits.Create,
		"POST /api/characters":                 limits.Create,
		"POST /api/characters/import":          limits.Create,
		"POST /api/scenarios":                  limits.Create,
		"POST /api/scenarios/{id}/play":        limits.Create,
		"POST /api/scenarios/import":           limits.Create,
		"POST /api/adventures/import":          limits.Create,
		"POST /api/imports":                    limits.Create,
		"POST /api/sessions/{id}/stage/images": limits.Upload,
		"POST /api/adventures/{id}/turns":      limits.Turn,
		"POST /api/adventures/{id}/retry":      limits.Turn,
		// The narrator settings' probes call the model endpoint too.
		"POST /api/solo/settings/models": limits.Turn,
		"POST /api/solo/settings/test":   limits.Turn,
		// A script test run takes the sandbox as a turn's hooks do.
		"POST /api/scripts/test": limits.Turn,
	}
)

// limitRequests charges every /api and /mcp request to its client IP's ip
// budget, and the per-IP routes to theirs. Without Options.Limits (local
// mode) it does nothing.
func (s *Server) limitRequests(c *gin.Context) {
	if s.opts.Limits == nil {
		return
	}
	p := c.Request.URL.Path
	if p != "/api" && !strings.HasPrefix(p, "/api/") && p != "/mcp" {
		return
	}
	ip := clientKey(c)
	if err := s.opts.Limits.Allow(limits.IP, ip); err != nil {
		respondError(c, err)
		return
	}
	class, ok := ipClassByPath[c.Request.Method+" "+p]
	if !ok && c.Request.Method == http.MethodGet && strings.HasPrefix(p, "/api/invites/") {
		// An invite's preview answers whether a code is right: it is a
		// guess at a code as much as a join is.
		class, ok = limits.Join, true
	}
	if ok {
		if err := s.opts.Limits.Allow(class, ip); err != nil {
			respondError(c, err)
		}
	}
}

// allowNewGuest charges a guest about to be created to its client IP;
// false means the request was answered 429.
func (s *Server) allowNewGuest(c *gin.Context) bool {
	if err := s.opts.Limits.Allow(limits.Guest, clientKey(c)); err != nil {
		respondError(c, err)
		return false
	}
	return true
}

// userLimit is the middleware that charges route r to the caller's budget
// of its class, or nil when r has none. It runs after identify; a route
// without a user is charged to the client IP.
func (s *Server) userLimit(r apiRoute) []gin.HandlerFunc {
	class, ok := userClassByRoute[r.Method+" "+r.Path]
	if !ok || s.opts.Limits == nil {
		return nil
	}
	return []gin.HandlerFunc{func(c *gin.Context) {
		key := clientKey(c)
		if id := callerOf(c).UserID; id != 0 {
			key = limits.UserKey(id)
		}
		if err := s.opts.Limits.Allow(class, key); err != nil {
			respondError(c, err)
		}
	}}
}

// clientKey is the bucket key of the client: gin's ClientIP, which (with
// SetTrustedProxies and RemoteIPHeaders limited to X-Forwarded-For in New)
// is the right-most X-Forwarded-For address that a trusted proxy did not
// add, or the peer's address when no trusted proxy sent the request; an
// IPv6 client by its /64.
func clientKey(c *gin.Context) string { return limits.IPKey(c.ClientIP()) }
