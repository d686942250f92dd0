package webui

import (
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/adventure-table/adventure-table/auth"
	"github.com/adventure-table/adventure-table/gameplay/accounts"
	"github.com/adventure-table/adventure-table/gameplay/table"
)

const (
	callerKey = "caller"
	userKey   = "user"
)

// cookieMaxAge keeps a browser's session for 400 days (the browser
// maximum), guests included. That is deliberate (engine room §1.4): a guest
// has no password to come back with, so the cookie is the only key to
// their rooms, characters and adventures, and a short-lived one would throw
// their play away. Such a session is as strong as the device that holds
// it; a guest who wants a session they can end registers (in place, keeping
// everything), and an account's sessions end on logout, logout everywhere
// and a password change (the session version in the cookie).
const cookieMaxAge = 400 * 24 * 60 * 60

// secureCookies reports whether this request's cookie must be the
// __Host- one: over TLS, or behind the TLS proxy of SecureCookies.
func (s *Server) secureCookies(r *http.Request) bool { return s.opts.SecureCookies || r.TLS != nil }

// readSession returns the verified session cookie of r, trying the name
// this transport issues first and the other next (a browser that moved
// between HTTP and HTTPS, or one from before the __Host- name). A cookie
// signed with the secret before a rotation (Options.PreviousSecret) still
// counts; resign says to give the browser one signed with the current.
func (s *Server) readSession(r *http.Request) (sess auth.BrowserSession, resign bool) {
	names := []string{auth.BrowserCookieName, auth.SecureBrowserCookieName}
	if s.secureCookies(r) {
		names[0], names[1] = names[1], names[0]
	}
	secrets := [][]byte{s.opts.Secret}
	if len(s.opts.PreviousSecret) > 0 {
		secrets = append(secrets, s.opts.PreviousSecret)
	}
	for i, secret := range secrets {
		for _, name := range names {
			if c, err := r.Cookie(name); err == nil {
				if sess, ok := auth.VerifySession(secret, c.Value); ok {
					return sess, i > 0
				}
			}
		}
	}
	return auth.BrowserSession{}, false
}

// setSession gives the browser a fresh cookie for userID at
// sessionVersion: __Host-at_session (Secure, Path=/, no Domain) over TLS,
// at_session on plain HTTP; HttpOnly (scripts cannot read it) and
// SameSite=Lax (other sites cannot post with it) either way. A cookie of
// the other name the browser still sends is removed.
func (s *Server) setSession(c *gin.Context, userID int64, sessionVersion int) {
	secure := s.secureCookies(c.Request)
	name, other := auth.BrowserCookieName, auth.SecureBrowserCookieName
	if secure {
		name, other = other, name
	}
	// identify may have just given this browser a guest cookie in the same
	// answer (a first visit that registers): only the last one counts.
	h := c.Writer.Header()
	kept := h.Values("Set-Cookie")[:0:0]
	for _, v := range h.Values("Set-Cookie") {
		if !strings.HasPrefix(v, name+"=") {
			kept = append(kept, v)
		}
	}
	h["Set-Cookie"] = kept
	http.SetCookie(c.Writer, &http.Cookie{
		Name: name, Value: auth.SignSession(s.opts.Secret, userID, sessionVersion), Path: "/",
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

// identify gives every browser a user: the one its signed cookie names
// while that session stands, or else a new guest. A cookie whose session
// version is not the user's any more (logged out everywhere, password
// changed) or whose user was deleted makes the browser a NEW guest, never
// the old account.
func (s *Server) identify(c *gin.Context) {
	ctx := c.Request.Context()
	cookie, resign := s.readSession(c.Request)
	sess, ok, err := s.opts.Services.Accounts.Resume(ctx, cookie)
	if err != nil {
		respondError(c, err)
		return
	}
	if ok && resign {
		s.setSession(c, sess.Account.ID, sess.Version)
	}
	if !ok {
		if !s.allowNewGuest(c) { // the guest limit (webui/limits.go)
			return
		}
		g, _, err := s.opts.Services.Table.EnsureGuest(ctx, 0)
		if err != nil {
			respondError(c, err)
			return
		}
		sess = accounts.Session{Account: accounts.AccountView{ID: g.ID, DisplayName: g.DisplayName, NameCode: g.NameCode, NameParams: g.NameParams}}
		s.setSession(c, g.ID, sess.Version)
	}
	c.Set(callerKey, table.Human(sess.Account.ID))
	c.Set(userKey, sess.Account)
	c.Next()
}

func callerOf(c *gin.Context) table.Caller {
	v, _ := c.Get(callerKey)
	caller, _ := v.(table.Caller)
	return caller
}
