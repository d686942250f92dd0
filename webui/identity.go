package webui

import (
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/adventure-table/adventure-table/auth"
	"github.com/adventure-table/adventure-table/gameplay/accounts"
	"github.com/adventure-table/adventure-table/gameplay/analytics"
	"github.com/adventure-table/adventure-table/gameplay/table"
)

const (
	callerKey  = "caller"
	userKey    = "user"
	sessionKey = "browser_session"
)

// cookieMaxAge keeps a browser's session cookie as long as its session
// lasts unused (accounts.SessionLifetime, 400 days: the browser maximum),
// guests included; see there why. Each session is its own row on the
// server, which logout, ending it from the account page, logout everywhere
// and a password change end.
var cookieMaxAge = int(accounts.SessionLifetime.Seconds())

// secureCookies reports whether this request's cookie must be the
// __Host- one: over TLS, or behind the TLS proxy of SecureCookies.
func (s *Server) secureCookies(r *http.Request) bool { return s.opts.SecureCookies || r.TLS != nil }

// sessionCookieName is the one name this request's session cookie may
// have. Over TLS it is only the __Host- one: a plain at_session cookie
// there can have been planted by a sibling subdomain or a plain-HTTP page
// (cookie tossing), and reading it would make the victim the planter's
// user. Plain HTTP (a laptop in local mode) uses at_session.
func (s *Server) sessionCookieName(r *http.Request) string {
	if s.secureCookies(r) {
		return auth.SecureBrowserCookieName
	}
	return auth.BrowserCookieName
}

// readSession returns the verified session cookie of r, under the one name
// its transport allows (sessionCookieName). A cookie signed with the secret
// before a rotation (Options.PreviousSecret) still counts; resign says to
// give the browser one signed with the current.
func (s *Server) readSession(r *http.Request) (sess auth.BrowserSession, resign bool) {
	c, err := r.Cookie(s.sessionCookieName(r))
	if err != nil {
		return auth.BrowserSession{}, false
	}
	secrets := [][]byte{s.opts.Secret}
	if len(s.opts.PreviousSecret) > 0 {
		secrets = append(secrets, s.opts.PreviousSecret)
	}
	for i, secret := range secrets {
		if sess, ok := auth.VerifySession(secret, c.Value); ok {
			return sess, i > 0
		}
	}
	return auth.BrowserSession{}, false
}

// setSession gives the browser the cookie of a browser session's token:
// __Host-at_session (Secure, Path=/, no Domain) over TLS,
// at_session on plain HTTP; HttpOnly (scripts cannot read it) and
// SameSite=Lax (other sites cannot post with it) either way. A cookie of
// the other name the browser still sends is removed.
func (s *Server) setSession(c *gin.Context, token string) {
	secure := s.secureCookies(c.Request)
	name, other := auth.BrowserCookieName, auth.SecureBrowserCookieName
	if secure {
		name, other = other, name
	}
	// identify may have just given this browser a guest cookie, or expired
	// a planted one, in the same answer (a first visit that registers):
	// only the last word on each name counts.
	h := c.Writer.Header()
	kept := h.Values("Set-Cookie")[:0:0]
	for _, v := range h.Values("Set-Cookie") {
		if !strings.HasPrefix(v, name+"=") && !strings.HasPrefix(v, other+"=") {
			kept = append(kept, v)
		}
	}
	h["Set-Cookie"] = kept
	http.SetCookie(c.Writer, &http.Cookie{
		Name: name, Value: auth.SignToken(s.opts.Secret, token), Path: "/",
		MaxAge: cookieMaxAge, HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: secure,
	})
	if _, err := c.Request.Cookie(other); err == nil {
		expireCookie(c, other, secure || other == auth.SecureBrowserCookieName)
	}
}

// clearSession removes every session cookie the browser sent; its next
// request makes it a new guest.
func (s *Server) clearSession(c *gin.Context) {
	secure := s.secureCookies(c.Request)
	for _, name := range []string{auth.SecureBrowserCookieName, auth.BrowserCookieName} {
		if _, err := c.Request.Cookie(name); err == nil {
			expireCookie(c, name, secure || name == auth.SecureBrowserCookieName)
		}
	}
}

func expireCookie(c *gin.Context, name string, secure bool) {
	http.SetCookie(c.Writer, &http.Cookie{Name: name, Value: "", Path: "/", MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: secure})
}

// identify gives every browser a user: the one its signed cookie's session
// names while that session stands, or else a new guest with a new session.
// A cookie whose session ended (logged out, ended from another browser,
// logged out everywhere, password changed) or whose user was deleted makes
// the browser a NEW guest, never the old account. A legacy cookie that
// still stands is upgraded to a session of its own and replaced.
func (s *Server) identify(c *gin.Context) {
	ctx := c.Request.Context()
	if s.secureCookies(c.Request) {
		// A plain-name cookie over TLS is never read (sessionCookieName);
		// expire it so it cannot lie in wait.
		if _, err := c.Request.Cookie(auth.BrowserCookieName); err == nil {
			expireCookie(c, auth.BrowserCookieName, true)
		}
	}
	cookie, resign := s.readSession(c.Request)
	client := clientOf(c)
	sess, ok, err := s.opts.Services.Accounts.Resume(ctx, cookie, client)
	if err != nil {
		respondError(c, err)
		return
	}
	if ok && (resign || cookie.Legacy()) {
		s.setSession(c, sess.Token)
	}
	if !ok {
		if !s.allowNewGuest(c) { // the guest limit (webui/limits.go)
			return
		}
		if sess, err = s.opts.Services.Accounts.StartGuest(ctx, client); err != nil {
			respondError(c, err)
			return
		}
		s.setSession(c, sess.Token)
	}
	c.Set(callerKey, table.Human(sess.Account.ID))
	c.Set(userKey, sess.Account)
	c.Set(sessionKey, sess.ID)
	// the funnel's first step, from the identity just resumed: no read
	s.opts.Services.Analytics.Reach(sess.Account.ID, analytics.Came)
	c.Next()
}

// clientOf is what the account rules may know of the browser: its
// User-Agent, of which they keep only the family.
func clientOf(c *gin.Context) accounts.Client {
	return accounts.Client{UserAgent: c.GetHeader("User-Agent")}
}

// sessionOf is the browser session identify resumed or started.
func sessionOf(c *gin.Context) int64 {
	v, _ := c.Get(sessionKey)
	id, _ := v.(int64)
	return id
}

func callerOf(c *gin.Context) table.Caller {
	v, _ := c.Get(callerKey)
	caller, _ := v.(table.Caller)
	return caller
}
