// Package accounts turns guests into accounts and back into browsers:
// register (in place), login, logout (this browser or all), password
// change, account deletion, and each browser's session. A browser session
// is a row (models.BrowserSession) named by the random token in the
// browser's signed cookie (see auth.SignToken); this package owns the rules
// about those rows, the edge only signs and sets the cookie.
package accounts

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/mail"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/adventure-table/adventure-table/auth"
	"github.com/adventure-table/adventure-table/gameplay/analytics"
	"github.com/adventure-table/adventure-table/gameplay/oneread"
	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/models"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// The per-account login throttle: after MaxFailures failed attempts within
// FailureWindow the next attempt is refused before any password hashing.
// The count lives in the database (login_failures), so it holds across
// restarts and across server processes sharing one PostgreSQL.
const (
	MaxFailures   = 8
	FailureWindow = 15 * time.Minute
)

// maxEmailChars is the longest address SMTP allows (RFC 5321 path limit).
const maxEmailChars = 254

// AccountView is the caller as the API shows them: the fields of a user
// (table.UserView) plus whether they have an account, and its email.
type AccountView struct {
	ID          int64  `json:"id"`
	DisplayName string `json:"display_name" jsonschema:"the stored name; English for a name the server gave (see name_code)"`
	// NameCode is set while the person keeps the name the server gave a
	// guest, so the web app writes it in the reader's language.
	NameCode   string            `json:"name_code,omitempty" jsonschema:"user.guest (params.number) while display_name is the server-made guest name; absent once renamed"`
	NameParams map[string]string `json:"name_params,omitempty" jsonschema:"the parameters of name_code: number, the guest's four digits"`
	Email      *string           `json:"email" jsonschema:"the account's email (lower-cased); null for a guest"`
	Registered bool              `json:"registered" jsonschema:"true once the guest registered an email and password"`
}

// Session is an account view with the browser session it came through:
// its row's ID (BrowserSessionView.ID) and its Token, which the edge signs into
// the cookie and never shows otherwise.
type Session struct {
	Account AccountView
	ID      int64
	Token   string
}

// BrowserSessionView is one of the caller's browser sessions as the account API
// lists them.
type BrowserSessionView struct {
	ID         int64     `json:"id"`
	Browser    string    `json:"browser" jsonschema:"the browser the session began in (Chrome, Firefox, Safari, Edge, …); empty when unknown"`
	OS         string    `json:"os" jsonschema:"its operating system (Android, iOS, Windows, macOS, Linux, …); empty when unknown"`
	CreatedAt  time.Time `json:"created_at"`
	LastSeenAt time.Time `json:"last_seen_at" jsonschema:"when the session was last used, to within a few minutes"`
	Current    bool      `json:"current" jsonschema:"true for the session of the browser asking"`
}

// SessionLifetime is how long a browser session lasts unused: the cookie's
// 400 days (the browsers' maximum), guests included. That is deliberate
// (engine room §1.4): a guest has no password to come back with, so the
// cookie is the only key to their rooms, characters and adventures.
const SessionLifetime = 400 * 24 * time.Hour

// touchEvery is how stale a session's last_seen_at may get before a
// request writes it again: never a write per request.
const touchEvery = 5 * time.Minute

// Options configures New.
type Options struct {
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// Logger receives failed and throttled logins (never a password or an
	// email); slog.Default when nil.
	Logger *slog.Logger
	// Table holds the one deletion rule (table.Service.DeleteUser); one on
	// the same store is made when nil.
	Table *table.Service
	// Analytics counts the login throttle's refusals (class "login"); nil
	// counts none.
	Analytics *analytics.Counter
	// AdminEmails are the accounts that operate a hosted server (they see
	// its dashboard), as NormalizeEmail keeps them.
	AdminEmails []string
}

// Service holds the account rules.
type Service struct {
	store  *models.Store
	now    func() time.Time
	logger *slog.Logger
	table  *table.Service
	// analytics counts the login throttle's refusals.
	analytics *analytics.Counter
	// admins are the operators' emails, normalised.
	admins []string
	// resumed caches Resume's answers (see resumeCache).
	resumed resumeCache
	// resuming shares one read of a user among the Resumes that miss it
	// together.
	resuming oneread.Group
	// fail injects failures in tests (nil in production).
	fail func(point string) error
}

func (s *Service) failpoint(point string) error {
	if s.fail == nil {
		return nil
	}
	return s.fail(point)
}

// resumeTTL bounds how long a resumed browser session is trusted without
// reading its row again. Within this process any change to sessions or
// users (a logout, a session ended, registering, deleting, renaming) is
// seen at once through models' AuthorityGeneration; the TTL is for changes
// another server process made.
const resumeTTL = 10 * time.Second

// resumeCache remembers, per session token hash, the session Resume found:
// every request of a browser resumes its cookie, and a long-polling table
// would otherwise read the session once per poll.
type resumeCache struct {
	mu sync.Mutex
	m  map[string]resumed
}

type resumed struct {
	session    Session
	generation int64
	at         time.Time
}

func (c *resumeCache) get(tokenHash string, generation int64, now time.Time) (Session, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	r, ok := c.m[tokenHash]
	if !ok || r.generation != generation || now.Before(r.at) || now.Sub(r.at) >= resumeTTL {
		return Session{}, false
	}
	return r.session, true
}

func (c *resumeCache) put(tokenHash string, r resumed) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) > 100_000 {
		c.m = map[string]resumed{} // bounded: forgetting costs one read
	}
	c.m[tokenHash] = r
}

// New returns the service on an open, migrated store.
func New(store *models.Store, opts Options) *Service {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Table == nil {
		opts.Table = table.New(store, opts.Now)
	}
	admins := make([]string, 0, len(opts.AdminEmails))
	for _, e := range opts.AdminEmails {
		if e = NormalizeEmail(e); e != "" {
			admins = append(admins, e)
		}
	}
	return &Service{store: store, now: opts.Now, logger: opts.Logger, table: opts.Table, analytics: opts.Analytics, admins: admins}
}

// IsAdmin says whether userID is an account named in AdminEmails, from
// the account's row (never from what a request says of itself): a guest,
// or an account whose email is not on the list, is not.
func (s *Service) IsAdmin(ctx context.Context, userID int64) (bool, error) {
	if len(s.admins) == 0 {
		return false, nil
	}
	u, err := s.store.FindUserByID(ctx, userID)
	if err != nil {
		return false, err
	}
	return u.Email != nil && slices.Contains(s.admins, NormalizeEmail(*u.Email)), nil
}

func accountOf(u *models.User) AccountView {
	v := AccountView{ID: u.ID, DisplayName: u.DisplayName, Email: u.Email, Registered: u.Email != nil}
	if n, ok := models.GuestNumber(u.DisplayName); ok {
		// The same code as table.UserView's (gameplay/table/views.go).
		v.NameCode, v.NameParams = "user.guest", map[string]string{"number": n}
	}
	return v
}

// newSessionRow is a new browser session's row for client at now, and
// the token its cookie carries.
func newSessionRow(token string, client Client, now time.Time) *models.BrowserSession {
	browser, os := UserAgentFamily(client.UserAgent)
	return &models.BrowserSession{TokenHash: auth.SessionTokenHash(token), Browser: browser, OS: os, CreatedAt: now, LastSeenAt: now}
}

// startSession inserts a new browser session of u (in tx) and returns it
// with its token, for the edge to set as the cookie.
func (s *Service) startSession(ctx context.Context, tx *models.Store, u *models.User, client Client) (Session, error) {
	token := auth.NewSessionToken()
	row := newSessionRow(token, client, s.now().UTC())
	row.UserID = u.ID
	if err := tx.CreateBrowserSession(ctx, row); err != nil {
		return Session{}, err
	}
	return Session{Account: accountOf(u), ID: row.ID, Token: token}, nil
}

// StartGuest makes a new guest and its browser session, in one
// transaction: a browser without a standing session gets one.
func (s *Service) StartGuest(ctx context.Context, client Client) (Session, error) {
	var sess Session
	err := s.store.Tx(ctx, func(tx *models.Store) error {
		u := models.NewGuest(s.now())
		if err := tx.CreateUser(ctx, u); err != nil {
			return err
		}
		var err error
		sess, err = s.startSession(ctx, tx, u, client)
		return err
	})
	return sess, err
}

// Resume returns the user a verified browser cookie names, if its session
// still stands: its row exists (not ended by a logout, not deleted with
// its user) and was used within SessionLifetime. A legacy cookie (v1, v2)
// with no row yet upgrades to one once, if it still stands by the old rule
// (its session version is the user's; a v1 cookie names a guest): the edge
// then sets the cookie of the returned Token. ok is false otherwise, and
// the edge makes the browser a new guest: never the old account. It
// records the visit in the row every few minutes, and in the user hourly
// for the retention sweep of idle guests.
func (s *Service) Resume(ctx context.Context, cookie auth.BrowserSession, client Client) (Session, bool, error) {
	if cookie.Token == "" {
		return Session{}, false, nil
	}
	hash := auth.SessionTokenHash(cookie.Token)
	generation, now := s.store.AuthorityGeneration(), s.now()
	if sess, ok := s.resumed.get(hash, generation, now); ok {
		return sess, true, nil
	}
	// The requests and streams of one browser miss together (the answer's
	// trust ends for all of them at once, and one wake of a table answers
	// all its streams): one reads the session and the others share it.
	key := fmt.Sprintf("%s/%d", hash, generation)
	sess, err := oneread.Do(&s.resuming, ctx, key, func(rctx context.Context) (Session, error) {
		if err := s.failpoint("resume.read"); err != nil {
			return Session{}, err
		}
		row, err := s.store.FindBrowserSession(rctx, hash)
		if apperr.CodeOf(err) == apperr.NotFound && cookie.Legacy() {
			row, err = s.upgrade(rctx, cookie, hash, client, now)
		}
		if err != nil {
			return Session{}, err
		}
		if now.Sub(row.LastSeenAt) >= SessionLifetime || (cookie.Legacy() && row.UserID != cookie.UserID) {
			return Session{}, apperr.E(apperr.NotFound, "The session ended.")
		}
		u, err := s.store.FindUserByID(rctx, row.UserID)
		if err != nil {
			return Session{}, err
		}
		if now.Sub(row.LastSeenAt) >= touchEvery {
			if err := s.store.TouchBrowserSession(rctx, row.ID, now.UTC()); err != nil {
				return Session{}, err
			}
		}
		if u.LastSeenAt == nil || now.Sub(*u.LastSeenAt) >= time.Hour {
			if err := s.store.UpdateUser(rctx, u.ID, nil, &now); err != nil {
				return Session{}, err
			}
		}
		sess := Session{Account: accountOf(u), ID: row.ID, Token: cookie.Token}
		s.resumed.put(hash, resumed{session: sess, generation: generation, at: now})
		return sess, nil
	})
	if apperr.CodeOf(err) == apperr.NotFound {
		return Session{}, false, nil
	}
	if err != nil {
		return Session{}, false, err
	}
	return sess, true, nil
}

// upgrade gives a legacy cookie its session row (see Resume). When another
// request of the same browser upgraded it first, its row is the one.
// Returns not_found when the cookie no longer stands.
func (s *Service) upgrade(ctx context.Context, cookie auth.BrowserSession, hash string, client Client, now time.Time) (*models.BrowserSession, error) {
	row := newSessionRow(cookie.Token, client, now.UTC())
	ok, err := s.store.UpgradeLegacySession(ctx, cookie.UserID, cookie.Version, cookie.Format == 1, row)
	if err != nil || ok {
		return row, err
	}
	return s.store.FindBrowserSession(ctx, hash)
}

// Register makes the caller's guest row an account in place: same user id,
// so every room, character and adventure made as a guest stays theirs. It
// ends the guest's browser sessions, so a cookie copied before registering
// no longer works (session fixation), and starts a new one in client, whose
// token the edge sets as the cookie. Returns
// account_invalid (per-field problems) before any hashing, email_taken,
// and conflict when the caller is an account already.
func (s *Service) Register(ctx context.Context, userID int64, email, password string, client Client) (Session, error) {
	u, err := s.store.FindUserByID(ctx, userID)
	if err != nil {
		return Session{}, err
	}
	if u.Email != nil {
		return Session{}, apperr.E(apperr.Conflict, "You are already signed in to an account; log out to register another.")
	}
	email = NormalizeEmail(email)
	invalid := apperr.E(apperr.AccountInvalid, "Check the email and the password.")
	if p := emailProblem(email); p != "" {
		invalid.WithField("email", p)
	}
	if p := auth.PasswordProblem(password); p != "" {
		invalid.WithField("password", p)
	}
	if invalid.Fields != nil {
		return Session{}, invalid
	}
	if _, err := s.store.FindUserByEmail(ctx, email); err == nil {
		return Session{}, emailTaken()
	} else if apperr.CodeOf(err) != apperr.NotFound {
		return Session{}, err
	}
	hash, err := auth.HashPassword(ctx, password)
	if err != nil {
		return Session{}, err
	}
	var sess Session
	err = s.store.Tx(ctx, func(tx *models.Store) error {
		u, err := tx.RegisterUser(ctx, userID, email, hash, s.now())
		if err != nil {
			return err
		}
		sess, err = s.startSession(ctx, tx, u, client)
		return err
	})
	return sess, err
}

func emailTaken() error {
	return apperr.E(apperr.EmailTaken, "An account with this email already exists.").WithField("email", "already registered")
}

// Login checks an email and password and starts a new browser session of
// the account in client, whose token the edge sets as the cookie (never
// the session the browser had). clientKey names the client (its address) in the log of failed
// logins. Every failure is one generic login_failed, and an unknown email
// costs one full password verify like a wrong password does, so neither
// the answer nor its timing tells which emails have accounts. After
// MaxFailures failures within FailureWindow the account's next attempts
// are refused with rate_limited (details.retry_after_seconds) before any
// hashing, whether the password is right or not.
func (s *Service) Login(ctx context.Context, email, password, clientKey string, client Client) (Session, error) {
	email = NormalizeEmail(email)
	key := throttleKey(email)
	if err := s.checkThrottle(ctx, key, clientKey); err != nil {
		return Session{}, err
	}
	u, err := s.store.FindUserByEmail(ctx, email)
	if err != nil && apperr.CodeOf(err) != apperr.NotFound {
		return Session{}, err
	}
	if u == nil || u.PasswordHash == "" {
		if err := auth.VerifyDummy(ctx, password); err != nil {
			return Session{}, err
		}
		return Session{}, s.failed(ctx, key, clientKey, 0, loginFailed())
	}
	ok, err := s.verify(ctx, u, password)
	if err != nil {
		return Session{}, err
	}
	if !ok {
		return Session{}, s.failed(ctx, key, clientKey, u.ID, loginFailed())
	}
	if err := s.store.ClearLoginFailures(ctx, key); err != nil {
		return Session{}, err
	}
	if auth.NeedsRehash(u.PasswordHash) {
		// Parameters were raised since this hash was made: store one at
		// today's cost, now that the password is at hand.
		if hash, err := auth.HashPassword(ctx, password); err == nil {
			if nu, err := s.store.SetPasswordHash(ctx, u.ID, hash, false); err == nil {
				u = nu
			}
		}
	}
	return s.startSession(ctx, s.store, u, client)
}

func loginFailed() error {
	return apperr.E(apperr.LoginFailed, "The email or the password is not right.")
}

// Logout ends the caller's browser session sessionID on the server (a
// copy of its cookie stops working too; the edge clears the cookie), or
// with everywhere every browser session of the account. A guest has
// nothing to log back into: account_required.
func (s *Service) Logout(ctx context.Context, userID, sessionID int64, everywhere bool) error {
	if _, err := s.account(ctx, userID); err != nil {
		return err
	}
	if everywhere {
		return s.store.EndBrowserSessions(ctx, userID)
	}
	err := s.store.DeleteBrowserSession(ctx, userID, sessionID)
	if apperr.CodeOf(err) == apperr.NotFound {
		return nil // ended meanwhile: this browser is logged out all the same
	}
	return err
}

// ListSessions returns the caller's browser sessions, the most recently
// used first, marking currentID (the asking browser's) as current.
func (s *Service) ListSessions(ctx context.Context, userID, currentID int64) ([]BrowserSessionView, error) {
	rows, err := s.store.ListBrowserSessions(ctx, userID)
	if err != nil {
		return nil, err
	}
	out := make([]BrowserSessionView, 0, len(rows))
	for _, r := range rows {
		out = append(out, BrowserSessionView{ID: r.ID, Browser: r.Browser, OS: r.OS, CreatedAt: r.CreatedAt.UTC(), LastSeenAt: r.LastSeenAt.UTC(), Current: r.ID == currentID})
	}
	return out, nil
}

// EndSession ends another of the caller's browser sessions: that browser
// (or whoever holds a copy of its cookie) is a new guest on its next
// request. Returns not_found when the caller has no session id (someone
// else's included), invalid_request for the asking browser's own (logout
// ends that).
func (s *Service) EndSession(ctx context.Context, userID, currentID, id int64) error {
	if id == currentID {
		return apperr.E(apperr.InvalidRequest, "This is the session you are using; log out to end it.").WithField("id", "the current session")
	}
	return s.store.DeleteBrowserSession(ctx, userID, id)
}

// ChangePassword replaces the caller's password after checking the
// current one, and ends every browser session of the account but keeps
// this browser logged in with a new one in client (a fresh token: a stolen
// copy of its old cookie dies too), whose token the edge sets. A wrong current
// password counts as a failed login for the account's throttle and is
// account_invalid on current_password; a new password that breaks the
// rules is account_invalid on new_password, before any hashing.
func (s *Service) ChangePassword(ctx context.Context, userID int64, current, newPassword string, client Client) (Session, error) {
	u, err := s.account(ctx, userID)
	if err != nil {
		return Session{}, err
	}
	if p := auth.PasswordProblem(newPassword); p != "" {
		return Session{}, apperr.E(apperr.AccountInvalid, "The new password is not acceptable.").WithField("new_password", p)
	}
	if err := s.reauthenticate(ctx, u, current, "current_password"); err != nil {
		return Session{}, err
	}
	hash, err := auth.HashPassword(ctx, newPassword)
	if err != nil {
		return Session{}, err
	}
	var sess Session
	err = s.store.Tx(ctx, func(tx *models.Store) error {
		u, err := tx.SetPasswordHash(ctx, userID, hash, true)
		if err != nil {
			return err
		}
		sess, err = s.startSession(ctx, tx, u, client)
		return err
	})
	return sess, err
}

// DeleteAccount deletes the caller's account after checking its password,
// through the one deletion rule (table.Service.DeleteUser): what the user owns
// goes, what they held in other people's rooms is released.
// A wrong password counts as a failed login and is account_invalid on
// password; conflict when the database still refuses (see
// models.Store.DeleteUser).
func (s *Service) DeleteAccount(ctx context.Context, userID int64, password string) error {
	u, err := s.account(ctx, userID)
	if err != nil {
		return err
	}
	if err := s.reauthenticate(ctx, u, password, "password"); err != nil {
		return err
	}
	if _, err := s.table.DeleteUser(ctx, userID, nil); err != nil {
		return err
	}
	s.logger.Info("account deleted", slog.Int64("user_id", userID))
	return nil
}

// account returns the caller's row, or account_required for a guest.
func (s *Service) account(ctx context.Context, userID int64) (*models.User, error) {
	u, err := s.store.FindUserByID(ctx, userID)
	if err != nil {
		return nil, err
	}
	if u.Email == nil {
		return nil, apperr.E(apperr.AccountRequired, "You are playing as a guest; register first.")
	}
	return u, nil
}

// reauthenticate checks a signed-in account's password under the same
// throttle as Login.
func (s *Service) reauthenticate(ctx context.Context, u *models.User, password, field string) error {
	key := throttleKey(*u.Email)
	if err := s.checkThrottle(ctx, key, ""); err != nil {
		return err
	}
	ok, err := s.verify(ctx, u, password)
	if err != nil {
		return err
	}
	if !ok {
		return s.failed(ctx, key, "", u.ID, apperr.E(apperr.AccountInvalid, "The password is not right.").WithField(field, "not your current password"))
	}
	return s.store.ClearLoginFailures(ctx, key)
}

// verify checks password against u's stored hash. A hash this build cannot
// read fails the check (and is logged): the account cannot log in until
// its password is reset, rather than the request failing.
func (s *Service) verify(ctx context.Context, u *models.User, password string) (bool, error) {
	ok, err := auth.VerifyPassword(ctx, u.PasswordHash, password)
	if errors.Is(err, auth.ErrMalformedHash) {
		s.logger.Error("stored password hash is unreadable", slog.Int64("user_id", u.ID))
		return false, nil
	}
	return ok, err
}

// checkThrottle refuses with rate_limited when key has MaxFailures
// failures in the current window. It reads one row and hashes nothing.
func (s *Service) checkThrottle(ctx context.Context, key, clientKey string) error {
	now := s.now().UTC()
	w, err := s.store.LoginFailureWindow(ctx, key, now.Add(-FailureWindow))
	if err != nil {
		return err
	}
	if w.Failures < MaxFailures {
		return nil
	}
	wait := int(math.Ceil(w.WindowStart.Add(FailureWindow).Sub(now).Seconds()))
	if wait < 1 {
		wait = 1
	}
	s.logger.Warn("login refused: too many failures", slog.String("client", clientKey), slog.Int("failures", w.Failures))
	s.analytics.Count(analytics.MetricRateLimited, "login", 1)
	return apperr.E(apperr.RateLimited, "Too many failed logins for this account; try again in %d minutes.", (wait+59)/60).
		WithDetail("retry_after_seconds", wait)
}

// failed counts a failure against key and returns answer.
func (s *Service) failed(ctx context.Context, key, clientKey string, userID int64, answer error) error {
	now := s.now().UTC()
	n, err := s.store.RecordLoginFailure(ctx, key, now, now.Add(-FailureWindow))
	if err != nil {
		return err
	}
	attrs := []any{slog.Int("failures", n)}
	if clientKey != "" {
		attrs = append(attrs, slog.String("client", clientKey))
	}
	if userID != 0 {
		attrs = append(attrs, slog.Int64("user_id", userID))
	}
	s.logger.Info("login failed", attrs...)
	return answer
}

// NormalizeEmail is how an email is stored and compared: trimmed and
// lower-cased.
func NormalizeEmail(raw string) string { return strings.ToLower(strings.TrimSpace(raw)) }

// emailProblem says why a normalised email cannot be an account's, or "".
func emailProblem(email string) string {
	if email == "" {
		return "Required."
	}
	if len(email) > maxEmailChars || !models.StorableText(email) {
		return "At most 254 characters."
	}
	addr, err := mail.ParseAddress(email)
	if err != nil || addr.Name != "" || addr.Address != email || strings.IndexFunc(email, unicode.IsSpace) >= 0 {
		return "Not an email address."
	}
	return ""
}

// throttleKey is the login_failures key of an account's email. An address
// too long for the key column (which nobody can have registered) is
// hashed, so garbage still counts against one key.
func throttleKey(email string) string {
	const prefix = "acct:"
	if len(prefix)+len(email) <= 200 {
		return prefix + email
	}
	sum := sha256.Sum256([]byte(email))
	return prefix + "sha256:" + hex.EncodeToString(sum[:])
}
