package webui

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/adventure-table/adventure-table/gameplay/accounts"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// CredentialsInput registers or logs in.
type CredentialsInput struct {
	Email    string `json:"email" jsonschema:"an email address; stored trimmed and lower-cased"`
	Password string `json:"password" jsonschema:"10 to 256 characters, not only spaces (rules apply when registering)"`
}

// LogoutInput says which sessions end.
type LogoutInput struct {
	Everywhere bool `json:"everywhere" jsonschema:"true ends every browser's session of this account, not only this one"`
}

// PasswordChangeInput replaces the caller's password.
type PasswordChangeInput struct {
	CurrentPassword string `json:"current_password"`
	NewPassword     string `json:"new_password" jsonschema:"10 to 256 characters, not only spaces"`
}

// PasswordInput confirms a destructive action with the password.
type PasswordInput struct {
	Password string `json:"password"`
}

// LoggedOut answers a logout.
type LoggedOut struct {
	LoggedOut bool `json:"logged_out" jsonschema:"always true; the browser is a new guest on its next request"`
}

// BrowserSessionList answers GET /api/account/sessions.
type BrowserSessionList struct {
	Sessions []accounts.BrowserSessionView `json:"sessions" jsonschema:"the caller's browser sessions, the most recently used first"`
}

// BrowserSessionEnded answers ending one session.
type BrowserSessionEnded struct {
	Ended bool `json:"ended" jsonschema:"always true; that browser is a new guest on its next request"`
}

// AccountDeleted answers an account deletion.
type AccountDeleted struct {
	Deleted bool `json:"deleted" jsonschema:"always true; the account and everything it owned are gone"`
}

// accountRoutes mounts registration, login, logout, password change,
// account deletion and the list of one's browser sessions. Each answer
// that starts a session sets a fresh cookie (a new session, never the one
// the browser had: session fixation); the bodies never carry a password,
// its hash or a session token.
func (s *Server) accountRoutes() {
	a := s.opts.Services.Accounts
	view := typeOf[accounts.AccountView]()

	s.route(apiRoute{Method: "POST", Path: "/api/account/register", Tag: "account", Summary: "Turn the caller's guest into an account in place (everything made as a guest stays); sets a fresh session cookie",
		Request: typeOf[CredentialsInput](), Response: view, Errors: []apperr.Code{apperr.AccountInvalid, apperr.EmailTaken, apperr.Conflict}},
		func(c *gin.Context) {
			var in CredentialsInput
			if !bindJSON(c, &in) {
				return
			}
			sess, err := a.Register(c.Request.Context(), callerOf(c).UserID, in.Email, in.Password, clientOf(c))
			s.startSession(c, sess, err)
		}, s.identify)
	s.route(apiRoute{Method: "POST", Path: "/api/account/login", Tag: "account", Summary: "Log in with email and password; sets a new session cookie (the guest this browser had stays as it was). 8 failures in 15 minutes refuse the account's next attempts (429)",
		Request: typeOf[CredentialsInput](), Response: view, Errors: []apperr.Code{apperr.LoginFailed}},
		func(c *gin.Context) {
			var in CredentialsInput
			if !bindJSON(c, &in) {
				return
			}
			sess, err := a.Login(c.Request.Context(), in.Email, in.Password, c.ClientIP(), clientOf(c))
			s.startSession(c, sess, err)
		})
	s.route(apiRoute{Method: "POST", Path: "/api/account/logout", Tag: "account", Summary: "Log out this browser (its session ends on the server; clears the cookie), or every browser of the account with everywhere",
		Request: typeOf[LogoutInput](), Response: typeOf[LoggedOut](), Errors: []apperr.Code{apperr.AccountRequired}},
		func(c *gin.Context) {
			var in LogoutInput
			if !bindJSON(c, &in) {
				return
			}
			if err := a.Logout(c.Request.Context(), callerOf(c).UserID, sessionOf(c), in.Everywhere); err != nil {
				respondError(c, err)
				return
			}
			s.clearSession(c)
			c.JSON(http.StatusOK, LoggedOut{LoggedOut: true})
		}, s.identify)
	s.route(apiRoute{Method: "PUT", Path: "/api/account/password", Tag: "account", Summary: "Change the password; every other browser is logged out and this one gets a fresh session",
		Request: typeOf[PasswordChangeInput](), Response: view, Errors: []apperr.Code{apperr.AccountRequired, apperr.AccountInvalid}},
		func(c *gin.Context) {
			var in PasswordChangeInput
			if !bindJSON(c, &in) {
				return
			}
			sess, err := a.ChangePassword(c.Request.Context(), callerOf(c).UserID, in.CurrentPassword, in.NewPassword, clientOf(c))
			s.startSession(c, sess, err)
		}, s.identify)
	s.route(apiRoute{Method: "DELETE", Path: "/api/account", Tag: "account", Summary: "Delete the account and everything it owns (confirmed with the password); clears the cookie",
		Request: typeOf[PasswordInput](), Response: typeOf[AccountDeleted](), Errors: []apperr.Code{apperr.AccountRequired, apperr.AccountInvalid, apperr.Conflict}},
		func(c *gin.Context) {
			var in PasswordInput
			if !bindJSON(c, &in) {
				return
			}
			if err := a.DeleteAccount(c.Request.Context(), callerOf(c).UserID, in.Password); err != nil {
				respondError(c, err)
				return
			}
			s.clearSession(c)
			c.JSON(http.StatusOK, AccountDeleted{Deleted: true})
		}, s.identify)
	s.route(apiRoute{Method: "GET", Path: "/api/account/sessions", Tag: "account", Summary: "The caller's browser sessions (browser and system, created, last used; current marks this browser's); never their tokens",
		Response: typeOf[BrowserSessionList]()},
		func(c *gin.Context) {
			list, err := a.ListSessions(c.Request.Context(), callerOf(c).UserID, sessionOf(c))
			reply(c, http.StatusOK, BrowserSessionList{Sessions: list}, err)
		}, s.identify)
	s.route(apiRoute{Method: "DELETE", Path: "/api/account/sessions/{id}", Tag: "account", Summary: "End another of the caller's browser sessions: that browser (and any copy of its cookie) is a new guest on its next request. Logout ends this browser's",
		Response: typeOf[BrowserSessionEnded](), Errors: []apperr.Code{apperr.NotFound, apperr.InvalidRequest}},
		func(c *gin.Context) {
			id, ok := pathID(c, "id")
			if !ok {
				return
			}
			err := a.EndSession(c.Request.Context(), callerOf(c).UserID, sessionOf(c), id)
			reply(c, http.StatusOK, BrowserSessionEnded{Ended: true}, err)
		}, s.identify)
}

// startSession answers a call that (re)starts the browser's session: the
// cookie of its new session, and the account.
func (s *Server) startSession(c *gin.Context, sess accounts.Session, err error) {
	if err != nil {
		respondError(c, err)
		return
	}
	s.setSession(c, sess.Token)
	c.JSON(http.StatusOK, sess.Account)
}
