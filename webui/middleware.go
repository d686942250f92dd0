package webui

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/adventure-table/adventure-table/models/apperr"
)

const requestIDKey = "request_id"

// requestID gives every request an ID, echoed in X-Request-ID and logs.
func (s *Server) requestID(c *gin.Context) {
	var b [8]byte
	rand.Read(b[:])
	id := hex.EncodeToString(b[:])
	c.Set(requestIDKey, id)
	c.Header("X-Request-ID", id)
	c.Next()
}

func loggerOf(c *gin.Context) *slog.Logger {
	l := slog.Default()
	if s, ok := c.Get("logger"); ok {
		l = s.(*slog.Logger)
	}
	return l.With(slog.String(requestIDKey, c.GetString(requestIDKey)))
}

// longPollRoute is the long poll's route as gin names it.
const longPollRoute = "/api/sessions/:id/events/wait"

// accessLog logs one line per request. It logs the path without the query
// string and no header at all: bearer tokens and cookies never reach logs.
// A long poll that answered normally is logged at DEBUG: every open table
// ends one per wake and per 25 s per browser, thousands of lines a second
// on a busy server that say nothing an operator needs.
func (s *Server) accessLog(c *gin.Context) {
	c.Set("logger", s.logger)
	start := time.Now()
	c.Next()
	level := slog.LevelInfo
	if c.FullPath() == longPollRoute && c.Writer.Status() < http.StatusBadRequest {
		level = slog.LevelDebug
	}
	s.logger.Log(c.Request.Context(), level, "http request",
		slog.String(requestIDKey, c.GetString(requestIDKey)),
		slog.String("method", c.Request.Method),
		slog.String("path", c.Request.URL.Path),
		slog.Int("status", c.Writer.Status()),
		slog.Int64("duration_ms", time.Since(start).Milliseconds()),
		slog.String("client_ip", c.ClientIP()),
	)
}

// recovered turns a panic into an internal error response.
func (s *Server) recovered(c *gin.Context, v any) {
	respondError(c, apperr.Wrap(fmt.Errorf("panic: %v", v), apperr.Internal, "Internal error."))
}

// contentSecurityPolicy allows only this origin's own files: the built app
// loads its scripts and styles by URL (no inline script, no eval), Vite
// inlines small assets as data: URIs, and stage images may be shown from
// blob: URLs. Swagger UI at /api/docs is a chunk of the same app. No site
// may frame a page (clickjacking).
const contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; " +
	"font-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// secure wraps the whole site. Every answer (page, asset, API, error)
// carries the security headers; HSTS only over TLS, directly or behind the
// declared TLS proxy, and only when Options.HSTS says so (hosted mode: on a
// laptop it would pin localhost, every port of it, to HTTPS for a year).
// In local mode (Options.LoopbackHostOnly) a request whose Host does not
// name this machine is refused before any route runs: a page on another
// site whose name was rebound to 127.0.0.1 (DNS rebinding) is not this
// site, and local mode has no login. /mcp applies the same rule itself
// (go-sdk's localhost protection).
func (s *Server) secure(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		// Invite links carry their code in the path: no referrer leaves a page.
		h.Set("Referrer-Policy", "no-referrer")
		if s.opts.HSTS && (r.TLS != nil || s.opts.SecureCookies) {
			h.Set("Strict-Transport-Security", "max-age=31536000")
		}
		if s.opts.LoopbackHostOnly && r.URL.Path != "/mcp" && !localHost(r) {
			writeJSONError(w, apperr.E(apperr.OriginForbidden, "This server answers only to localhost, 127.0.0.1 or [::1] (local mode); open it by one of those names."))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// localHost reports whether the request's Host names this machine:
// localhost or a loopback address, with any port. A server in local mode
// that listens beyond loopback (AT_ADDR=0.0.0.0:…) is reached from the LAN
// by its address, so there, on a non-loopback connection, any IP literal
// is accepted too: only a DNS name can be rebound.
func localHost(r *http.Request) bool {
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return false
	}
	if ip.IsLoopback() {
		return true
	}
	local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok {
		return false
	}
	la, err := netip.ParseAddrPort(local.String())
	return err == nil && !la.Addr().IsLoopback()
}
