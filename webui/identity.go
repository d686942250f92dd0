package webui

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/adventure-table/adventure-table/auth"
	"github.com/adventure-table/adventure-table/gameplay/table"
)

const (
	callerKey = "caller"
	userKey   = "user"
)

// cookieMaxAge keeps a guest's identity for 400 days (the browser maximum).
const cookieMaxAge = 400 * 24 * 60 * 60

// identify gives every browser a user: the one its signed cookie names, or a
// new guest on its first visit. The cookie is HttpOnly (scripts cannot read
// it) and SameSite=Lax (other sites cannot post with it).
func (s *Server) identify(c *gin.Context) {
	var userID int64
	if v, err := c.Cookie(auth.BrowserCookieName); err == nil {
		userID, _ = auth.VerifyUserID(s.opts.Secret, v)
	}
	if userID == 0 && !s.allowNewGuest(c) { // the guest limit (webui/limits.go)
		return
	}
	u, created, err := s.opts.Services.Table.EnsureGuest(c.Request.Context(), userID)
	if err != nil {
		respondError(c, err)
		return
	}
	if created || u.ID != userID {
		http.SetCookie(c.Writer, &http.Cookie{
			Name: auth.BrowserCookieName, Value: auth.SignUserID(s.opts.Secret, u.ID), Path: "/",
			MaxAge: cookieMaxAge, HttpOnly: true, SameSite: http.SameSiteLaxMode,
			Secure: s.opts.SecureCookies || c.Request.TLS != nil,
		})
	}
	c.Set(callerKey, table.Human(u.ID))
	c.Set(userKey, u)
	c.Next()
}

func callerOf(c *gin.Context) table.Caller {
	v, _ := c.Get(callerKey)
	caller, _ := v.(table.Caller)
	return caller
}
