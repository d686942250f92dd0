package webui

import (
	"net/http"
	"path"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/adventure-table/adventure-table/gameplay/analytics"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// notBuiltPage is served instead of the app when the binary was built
// without the web app (go build without make build). It says so plainly.
const notBuiltPage = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Adventure Table</title></head>
<body><h1>The web app is not built into this binary</h1>
<p>Build it with <code>make build</code> (or start with <code>make run</code>). The API at <code>/api/health</code> works without it.</p></body></html>`

// serveApp serves a file of the built app, or index.html for app routes
// (history-API fallback), precompressed when the browser accepts it
// (serveFile). Hashed assets are cached forever; everything else must be
// revalidated so a new build is picked up at once.
func (s *Server) serveApp(c *gin.Context) {
	if c.Request.Method != http.MethodGet && c.Request.Method != http.MethodHead {
		respondError(c, apperr.E(apperr.RouteNotFound, "There is no route %s %s.", c.Request.Method, c.Request.URL.Path))
		return
	}
	name := strings.TrimPrefix(path.Clean("/"+c.Request.URL.Path), "/")
	if name != "" && name != "index.html" {
		cache := "no-cache"
		if strings.HasPrefix(name, "assets/") {
			cache = "public, max-age=31536000, immutable"
		}
		if s.serveFile(c, name, cache) {
			return
		}
		// A missing file with an extension (a stale asset link) is a 404,
		// not the app: a script tag must not receive HTML.
		if path.Ext(name) != "" || !acceptsHTML(c.Request) {
			c.Header("Cache-Control", "no-cache")
			c.String(http.StatusNotFound, "404 page not found")
			return
		}
	}
	s.serveIndex(c)
}

// serveIndex serves the app's index.html, revalidated on every use: a page
// of the app loaded, counted by its kind (no read, no user).
func (s *Server) serveIndex(c *gin.Context) {
	if c.Request.Method == http.MethodGet {
		s.opts.Services.Analytics.Count(analytics.MetricVisit, analytics.PageKind(c.Request.URL.Path), 1)
	}
	if !s.serveFile(c, "index.html", "no-cache") {
		c.Header("Cache-Control", "no-cache")
		c.Data(http.StatusServiceUnavailable, "text/html; charset=utf-8", []byte(notBuiltPage))
	}
}

func acceptsHTML(r *http.Request) bool {
	a := r.Header.Get("Accept")
	return a == "" || strings.Contains(a, "text/html") || strings.Contains(a, "*/*")
}
