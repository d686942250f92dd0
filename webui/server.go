// Package webui is the browser edge: the Gin router, JSON handlers, the
// OpenAPI document and the embedded single-page app. Handlers parse input,
// call one gameplay function and map the result; no rule lives here.
//
// Handlers pass c.Request.Context() to gameplay, never the *gin.Context:
// Gin recycles its contexts after the response, while database/sql may
// still watch the context it was given (a data race the race detector finds).
package webui

import (
	"io/fs"
	"log/slog"
	"net/http"
	"regexp"
	"strings"
	"sync"

	"github.com/gin-gonic/gin"

	"github.com/adventure-table/adventure-table/gameplay"
	"github.com/adventure-table/adventure-table/gameplay/limits"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// Options configures the router.
type Options struct {
	Services *gameplay.Services
	// Version is the build version reported by /api/health.
	Version string
	// APIDocs serves /api/docs (local mode only).
	APIDocs bool
	// TrustedProxies lists the proxy addresses or CIDRs whose
	// X-Forwarded-For is believed. Empty trusts none: Gin trusts every proxy
	// by default, which lets any client choose its own address.
	TrustedProxies []string
	// MCP is mounted at /mcp when not nil.
	MCP    http.Handler
	Logger *slog.Logger
	// App is the built web app; nil uses the embedded build.
	App fs.FS
	// Secret signs the browser cookie. PreviousSecret, the secret before a
	// rotation, still verifies the cookies it signed; each is signed again
	// with Secret on the browser's next request, so a rotation logs nobody
	// out (a guest's cookie is all they have).
	Secret         []byte
	PreviousSecret []byte
	// SecureCookies marks cookies Secure even on plain HTTP, for a server
	// behind a TLS-terminating proxy.
	SecureCookies bool
	// HSTS sends Strict-Transport-Security on answers over TLS (or behind
	// the proxy of SecureCookies). Hosted mode only.
	HSTS bool
	// LoopbackHostOnly refuses (403 origin_forbidden) a request whose Host
	// is not localhost or a loopback address: local mode's guard against
	// DNS rebinding. Off behind a TLS proxy, which forwards its own name.
	LoopbackHostOnly bool
	// Accounts offers registration and login in the web app (hosted mode;
	// reported by /api/meta/capabilities). The routes answer in any mode.
	Accounts bool
	// Limits are the hosted server's rate limits (webui/limits.go says
	// which applies where); nil, as in local mode, limits nothing.
	Limits *limits.Limits
}

// Server is the HTTP handler of the whole site.
type Server struct {
	handler http.Handler
	engine  *gin.Engine
	opts    Options
	routes  []apiRoute
	app     fs.FS
	logger  *slog.Logger
	openapi []byte
	caps    gameplay.Capabilities
	// etags holds the ETag of each of the app's files once computed.
	etags sync.Map
	// streams matches the paths of the event-stream routes, which are
	// never compressed (compressAPI would hold the stream's first bytes).
	streams *regexp.Regexp
}

func init() { gin.SetMode(gin.ReleaseMode) }

// New builds the router. It fails only on an invalid trusted proxy entry.
func New(opts Options) (*Server, error) {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	s := &Server{opts: opts, logger: opts.Logger, app: opts.App}
	if s.app == nil {
		s.app = embeddedApp()
	}
	e := gin.New()
	e.HandleMethodNotAllowed = true
	if err := e.SetTrustedProxies(opts.TrustedProxies); err != nil {
		return nil, err
	}
	// Only X-Forwarded-For, which the trusted proxies append to, names the
	// client; an X-Real-IP the client sent itself is ignored.
	e.RemoteIPHeaders = []string{"X-Forwarded-For"}
	e.Use(s.requestID, s.accessLog, gin.CustomRecoveryWithWriter(nil, s.recovered), s.limitRequests)
	s.engine = e

	s.apiRoutes()
	s.tableRoutes()
	s.journalRoutes()
	s.liveRoutes()
	s.rollRoutes()
	s.encounterRoutes()
	s.grantRoutes()
	s.narratorRoutes()
	s.soloRoutes()
	s.bundleRoutes()
	s.loreRoutes()
	s.importRoutes()
	s.providerProbeRoutes()
	s.accountRoutes()
	s.operatorRoutes()
	if opts.MCP != nil {
		e.Any("/mcp", gin.WrapH(opts.MCP))
	}
	s.caps = s.computeCapabilities()
	doc, err := s.openAPIDoc()
	if err != nil {
		return nil, err
	}
	s.openapi = doc
	e.GET("/api/openapi.json", func(c *gin.Context) { c.Data(http.StatusOK, "application/json", s.openapi) })
	if opts.APIDocs {
		// The docs page is a route of the web app (Swagger UI, bundled).
		e.GET("/api/docs", s.serveIndex)
	}
	e.NoMethod(func(c *gin.Context) {
		respondError(c, apperr.E(apperr.MethodNotAllowed, "Method %s is not allowed here.", c.Request.Method))
	})
	e.NoRoute(s.noRoute)
	// A browser on another site must not write with this site's cookie:
	// cross-origin requests with unsafe methods get 403.
	origin := http.NewCrossOriginProtection()
	origin.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeJSONError(w, apperr.E(apperr.OriginForbidden, "Requests from another origin are not allowed."))
	}))
	guarded := origin.Handler(e)
	s.streams = streamPaths(s.routes)
	// JSON answers are compressed; the app's files come compressed from
	// the build (serveFile), /mcp streams its own way, and event streams
	// must reach the client as they are written.
	compressed := compressAPI(guarded)
	s.handler = s.secure(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// /mcp carries bearer tokens, not cookies, and applies its own
		// origin policy (local origins allowed, as the MCP spec expects).
		if opts.MCP != nil && r.URL.Path == "/mcp" {
			e.ServeHTTP(w, r)
			return
		}
		if strings.HasPrefix(r.URL.Path, "/api/") && !s.streams.MatchString(r.URL.Path) {
			compressed.ServeHTTP(w, r)
			return
		}
		guarded.ServeHTTP(w, r)
	}))
	return s, nil
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

// streamPaths matches the path of every route that answers an event
// stream; with none, it matches nothing.
func streamPaths(routes []apiRoute) *regexp.Regexp {
	alts := []string{`$^`} // matches no path: each starts with "/"
	for _, r := range routes {
		if !r.Stream {
			continue
		}
		segs := strings.Split(r.Path, "/")
		for i, seg := range segs {
			if pathParam.MatchString(seg) {
				segs[i] = `[^/]+`
			} else {
				segs[i] = regexp.QuoteMeta(seg)
			}
		}
		alts = append(alts, strings.Join(segs, "/"))
	}
	return regexp.MustCompile("^(?:" + strings.Join(alts, "|") + ")$")
}

// noRoute answers JSON for API paths and the web app for everything else.
func (s *Server) noRoute(c *gin.Context) {
	p := c.Request.URL.Path
	if p == "/api" || strings.HasPrefix(p, "/api/") || p == "/mcp" || strings.HasPrefix(p, "/mcp/") {
		respondError(c, apperr.E(apperr.RouteNotFound, "There is no API route %s %s.", c.Request.Method, p))
		return
	}
	s.serveApp(c)
}
