package accounts_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/adventure-table/adventure-table/auth"
	"github.com/adventure-table/adventure-table/gameplay"
	"github.com/adventure-table/adventure-table/gameplay/accounts"
	"github.com/adventure-table/adventure-table/gameplay/clocktest"
	"github.com/adventure-table/adventure-table/gameplay/narrative"
	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/gameplay/table/tabletest"
	"github.com/adventure-table/adventure-table/models"
	"github.com/adventure-table/adventure-table/models/apperr"
	"github.com/adventure-table/adventure-table/models/modelstest"
)

var ctx = context.Background()

const (
	email    = "ann@example.com"
	password = "a long enough password"
)

type fixture struct {
	store *models.Store
	svc   *gameplay.Services
	acc   *accounts.Service
	clock *clocktest.Clock
}

func newFixture(t *testing.T) fixture {
	t.Helper()
	store := modelstest.MustOpen(t)
	c := clocktest.At(time.Now())
	svc := gameplay.New(store, gameplay.Options{Now: c.Now, Secret: []byte(strings.Repeat("k", 40))})
	return fixture{store: store, svc: svc, acc: svc.Accounts, clock: c}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// wantCode fails unless err carries code.
func wantCode(t *testing.T, err error, code apperr.Code) *apperr.Error {
	t.Helper()
	if apperr.CodeOf(err) != code {
		t.Fatalf("got %v, want %s", err, code)
	}
	e, _ := apperr.As(err)
	return e
}

// laptop is the browser the tests' sessions start in.
var laptop = accounts.Client{UserAgent: "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"}

// registered makes a guest and registers it.
func (f fixture) registered(t *testing.T, name, email string) (table.Caller, accounts.Session) {
	t.Helper()
	c := tabletest.NewUser(t, f.svc.Table, name)
	s, err := f.acc.Register(ctx, c.UserID, email, password, laptop)
	must(t, err)
	return c, s
}

func (f fixture) user(t *testing.T, id int64) *models.User {
	t.Helper()
	u, err := f.store.FindUserByID(ctx, id)
	must(t, err)
	return u
}

// cookieSecret stands for the server secret legacy cookies were signed
// with (the edge derives their upgrade token with it).
var cookieSecret = []byte(strings.Repeat("c", 32))

// cookieOf is the verified cookie of a session the service started.
func cookieOf(s accounts.Session) auth.BrowserSession {
	return auth.BrowserSession{Token: s.Token, Format: 3}
}

// legacyCookie is a verified legacy cookie naming id at version (v1 when
// v1, at version 0).
func legacyCookie(id int64, version int, v1 bool) auth.BrowserSession {
	c := auth.BrowserSession{Token: auth.LegacyToken(cookieSecret, id, version), Format: 2, UserID: id, Version: version}
	if v1 {
		c.Format = 1
	}
	return c
}

// resumes reports whether cookie still names the session's user id, and
// the session it resumed.
func (f fixture) resumes(t *testing.T, id int64, cookie auth.BrowserSession) (accounts.Session, bool) {
	t.Helper()
	s, ok, err := f.acc.Resume(ctx, cookie, laptop)
	must(t, err)
	if ok && s.Account.ID != id {
		t.Fatalf("resumed %d as %d", id, s.Account.ID)
	}
	return s, ok
}

// stands reports whether cookie still names id.
func (f fixture) stands(t *testing.T, id int64, cookie auth.BrowserSession) bool {
	t.Helper()
	_, ok := f.resumes(t, id, cookie)
	return ok
}

// A guest who registers keeps their id and so their room, character and
// solo adventure; the guest's sessions end, so the guest cookie (also a
// legacy one) stops working and the new one works.
func TestRegisterUpgradesTheGuestInPlace(t *testing.T) {
	f := newFixture(t)
	guest := tabletest.NewUser(t, f.svc.Table, "Ann")
	room, err := f.svc.Table.CreateRoom(ctx, guest, "Ann's table")
	must(t, err)
	char, err := f.svc.Table.CreateCharacter(ctx, guest, tabletest.Character("Mira"))
	must(t, err)
	sc, err := f.svc.Narrative.CreateScenario(ctx, guest.UserID, narrative.ScenarioInput{Title: "Cave", Premise: "A cave.", Opening: "Dark."})
	must(t, err)
	adv, err := f.svc.Narrative.Play(ctx, guest.UserID, sc.ID, narrative.Persona{PersonaName: "Ash"})
	must(t, err)
	if !f.stands(t, guest.UserID, legacyCookie(guest.UserID, 0, false)) || !f.stands(t, guest.UserID, legacyCookie(guest.UserID, 0, true)) {
		t.Fatal("a guest's cookie (v2 at version 0, or v1) does not resume")
	}
	guestSession, err := f.acc.StartGuest(ctx, laptop)
	must(t, err)

	s, err := f.acc.Register(ctx, guest.UserID, "  Ann@Example.COM ", password, laptop)
	must(t, err)
	if s.Account.ID != guest.UserID || !s.Account.Registered || s.Account.Email == nil || *s.Account.Email != email ||
		s.Account.DisplayName != "Ann" || s.Token == "" {
		t.Fatalf("registered %+v (email %v), want user %d, ann@example.com, a session", s, s.Account.Email, guest.UserID)
	}
	if !f.stands(t, guestSession.Account.ID, cookieOf(guestSession)) {
		t.Fatal("registering one guest ended another guest's session")
	}
	u := f.user(t, guest.UserID)
	if u.PasswordHash == "" || strings.Contains(u.PasswordHash, password) || u.RegisteredAt == nil {
		t.Fatalf("stored %+v", u)
	}
	rooms, err := f.svc.Table.ListRooms(ctx, guest)
	must(t, err)
	if len(rooms.Rooms) != 1 || rooms.Rooms[0].ID != room.ID {
		t.Fatalf("rooms after registering: %+v", rooms)
	}
	if _, err := f.svc.Table.GetCharacter(ctx, guest, char.ID); err != nil {
		t.Fatalf("character after registering: %v", err)
	}
	advs, err := f.svc.Narrative.ListAdventures(ctx, guest.UserID)
	must(t, err)
	if len(advs.Adventures) != 1 || advs.Adventures[0].ID != adv.Adventure.ID {
		t.Fatalf("adventures after registering: %+v", advs)
	}
	// Session fixation: the cookie from before registering is dead.
	if f.stands(t, guest.UserID, legacyCookie(guest.UserID, 0, false)) || f.stands(t, guest.UserID, legacyCookie(guest.UserID, 0, true)) {
		t.Fatal("a cookie issued before registering still works")
	}
	if !f.stands(t, guest.UserID, cookieOf(s)) {
		t.Fatal("the fresh cookie does not work")
	}
	// A v1 cookie never names an account, whatever its version.
	if f.stands(t, guest.UserID, legacyCookie(guest.UserID, f.user(t, guest.UserID).SessionVersion, true)) {
		t.Fatal("a v1 cookie resumed an account")
	}

	_, err = f.acc.Register(ctx, guest.UserID, "other@example.com", password, laptop)
	if e := wantCode(t, err, apperr.Conflict); !strings.Contains(e.Message, "already") {
		t.Fatalf("registering twice: %q", e.Message)
	}
}

// Refused registrations change nothing and hash nothing.
func TestRegisterRefusals(t *testing.T) {
	f := newFixture(t)
	f.registered(t, "Ann", email)
	guest := tabletest.NewUser(t, f.svc.Table, "Bob")
	cases := []struct {
		name, email, password string
		code                  apperr.Code
		fields                []string
	}{
		{"EmptyBoth", "", "", apperr.AccountInvalid, []string{"email", "password"}},
		{"NoAt", "bob.example.com", password, apperr.AccountInvalid, []string{"email"}},
		{"DisplayName", "Bob <bob@example.com>", password, apperr.AccountInvalid, []string{"email"}},
		{"InnerSpace", "bob smith@example.com", password, apperr.AccountInvalid, []string{"email"}},
		{"TooLong", strings.Repeat("b", 250) + "@example.com", password, apperr.AccountInvalid, []string{"email"}},
		{"ShortPassword", "bob@example.com", "123456789", apperr.AccountInvalid, []string{"password"}},
		{"SpacesPassword", "bob@example.com", strings.Repeat(" ", 12), apperr.AccountInvalid, []string{"password"}},
		{"LongPassword", "bob@example.com", strings.Repeat("x", 257), apperr.AccountInvalid, []string{"password"}},
		{"Taken", email, password, apperr.EmailTaken, []string{"email"}},
		{"TakenOtherCase", " ANN@example.com", password, apperr.EmailTaken, []string{"email"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			runs := auth.KDFRuns()
			_, err := f.acc.Register(ctx, guest.UserID, tc.email, tc.password, laptop)
			e := wantCode(t, err, tc.code)
			if len(e.Fields) != len(tc.fields) {
				t.Fatalf("fields %v, want %v", e.Fields, tc.fields)
			}
			for _, field := range tc.fields {
				if e.Fields[field] == "" {
					t.Fatalf("fields %v, want %v", e.Fields, tc.fields)
				}
			}
			if strings.Contains(e.Error(), password) {
				t.Fatalf("the error holds the password: %v", e)
			}
			if auth.KDFRuns() != runs {
				t.Fatal("a refused registration hashed the password")
			}
			u := f.user(t, guest.UserID)
			if u.Email != nil || u.PasswordHash != "" || u.SessionVersion != 0 || u.RegisteredAt != nil {
				t.Fatalf("a refused registration changed the guest: %+v", u)
			}
		})
	}
}

func TestLoginLogout(t *testing.T) {
	f := newFixture(t)
	ann, reg := f.registered(t, "Ann", email)
	guest := tabletest.NewUser(t, f.svc.Table, "Guest")

	s, err := f.acc.Login(ctx, " ANN@example.com", password, "192.0.2.1", laptop)
	must(t, err)
	if s.Account.ID != ann.UserID || s.Token == "" || s.Token == reg.Token || s.ID == reg.ID || !s.Account.Registered {
		t.Fatalf("login %+v, want a new session of Ann's", s)
	}
	var messages []string
	for _, try := range [][2]string{{email, "a wrong password!"}, {"nobody@example.com", password}, {"", ""}} {
		runs := auth.KDFRuns()
		_, err := f.acc.Login(ctx, try[0], try[1], "192.0.2.1", laptop)
		messages = append(messages, wantCode(t, err, apperr.LoginFailed).Message)
		if auth.KDFRuns()-runs != 1 {
			t.Fatalf("login %q cost %d KDF runs, want 1 (an unknown email pays the dummy verify)", try[0], auth.KDFRuns()-runs)
		}
	}
	if messages[0] != messages[1] || messages[1] != messages[2] {
		t.Fatalf("failures are told apart: %q", messages)
	}
	// A guest has no email to log in with, even by its display name.
	_, err = f.acc.Login(ctx, "Guest", password, "", laptop)
	wantCode(t, err, apperr.LoginFailed)

	// Logging out this browser ends its session (a copy of its cookie
	// included) and leaves the others logged in.
	must(t, f.acc.Logout(ctx, ann.UserID, s.ID, false))
	if f.stands(t, ann.UserID, cookieOf(s)) {
		t.Fatal("the logged-out browser's session still stands")
	}
	if !f.stands(t, ann.UserID, cookieOf(reg)) {
		t.Fatal("logout of one browser ended the others")
	}
	// Logging out everywhere ends every session, and the legacy cookies
	// not yet upgraded.
	s2, err := f.acc.Login(ctx, email, password, "", laptop)
	must(t, err)
	version := f.user(t, ann.UserID).SessionVersion
	must(t, f.acc.Logout(ctx, ann.UserID, s2.ID, true))
	for name, c := range map[string]auth.BrowserSession{"registering": cookieOf(reg), "second login": cookieOf(s2), "legacy": legacyCookie(ann.UserID, version, false)} {
		if f.stands(t, ann.UserID, c) {
			t.Fatalf("logout everywhere left the %s session alive", name)
		}
	}
	if rows, err := f.store.ListBrowserSessions(ctx, ann.UserID); err != nil || len(rows) != 0 {
		t.Fatalf("sessions left after logout everywhere: %+v %v", rows, err)
	}
	s3, err := f.acc.Login(ctx, email, password, "", laptop)
	must(t, err)
	if !f.stands(t, ann.UserID, cookieOf(s3)) {
		t.Fatalf("login after logout everywhere: %+v", s3)
	}

	// A guest has nothing to log out of, no password to change, no
	// account to delete.
	wantCode(t, f.acc.Logout(ctx, guest.UserID, 0, true), apperr.AccountRequired)
	_, err = f.acc.ChangePassword(ctx, guest.UserID, password, "another long password", laptop)
	wantCode(t, err, apperr.AccountRequired)
	wantCode(t, f.acc.DeleteAccount(ctx, guest.UserID, password), apperr.AccountRequired)
	if u := f.user(t, guest.UserID); u.SessionVersion != 0 {
		t.Fatalf("a guest's session version moved: %+v", u)
	}
}

// After 8 failures in 15 minutes the 9th attempt is refused before any
// hashing (even with the right password), from a restarted service too;
// once the window has passed, logins work again and success clears the
// count.
func TestLoginThrottle(t *testing.T) {
	f := newFixture(t)
	f.registered(t, "Ann", email)
	for i := range accounts.MaxFailures {
		_, err := f.acc.Login(ctx, email, "a wrong password!", "198.51.100.7", laptop)
		wantCode(t, err, apperr.LoginFailed)
		f.clock.Add(time.Second)
		_ = i
	}
	// A restarted server (a new service on the same database) refuses too.
	restarted := accounts.New(f.store, accounts.Options{Now: f.clock.Now})
	for _, svc := range []*accounts.Service{f.acc, restarted} {
		for _, pw := range []string{"a wrong password!", password} {
			runs := auth.KDFRuns()
			_, err := svc.Login(ctx, "Ann@Example.com", pw, "198.51.100.7", laptop)
			e := wantCode(t, err, apperr.RateLimited)
			wait, _ := e.Details["retry_after_seconds"].(int)
			if want := int(accounts.FailureWindow/time.Second) - accounts.MaxFailures; wait != want {
				t.Fatalf("retry_after_seconds %v, want %d (the window's end)", e.Details["retry_after_seconds"], want)
			}
			if auth.KDFRuns() != runs {
				t.Fatal("a throttled login ran the KDF")
			}
		}
	}
	// The server's own refusals are counted (class login): the two of f.acc;
	// the restarted service was given no counter.
	must(t, f.svc.Analytics.Flush(ctx))
	hits, err := f.store.AnalyticsHitsSince(ctx, "2000-01-01")
	must(t, err)
	if len(hits) != 1 || hits[0].Metric != "rate_limited" || hits[0].Label != "login" || hits[0].Hits != 2 {
		t.Fatalf("counted %+v, want 2 login refusals", hits)
	}
	// Another account is not throttled by Ann's failures.
	f.registered(t, "Bob", "bob@example.com")
	_, err = f.acc.Login(ctx, "bob@example.com", password, "198.51.100.7", laptop)
	must(t, err)

	f.clock.Add(accounts.FailureWindow)
	_, err = f.acc.Login(ctx, email, password, "", laptop)
	must(t, err)
	n, err := f.store.LoginFailures(ctx, "acct:"+email, f.clock.Now().Add(-time.Hour))
	must(t, err)
	if n != 0 {
		t.Fatalf("%d failures left after a successful login", n)
	}
}

func TestChangePassword(t *testing.T) {
	f := newFixture(t)
	ann, reg := f.registered(t, "Ann", email)
	const newPassword = "a brand new password"

	runs := auth.KDFRuns()
	_, err := f.acc.ChangePassword(ctx, ann.UserID, password, "short", laptop)
	if e := wantCode(t, err, apperr.AccountInvalid); e.Fields["new_password"] == "" || auth.KDFRuns() != runs {
		t.Fatalf("weak new password: %+v, %d KDF runs", e, auth.KDFRuns()-runs)
	}
	_, err = f.acc.ChangePassword(ctx, ann.UserID, "not the password", newPassword, laptop)
	if e := wantCode(t, err, apperr.AccountInvalid); e.Fields["current_password"] == "" {
		t.Fatalf("wrong current password: %+v", e)
	}
	// The wrong current password counted against the account's throttle.
	n, err := f.store.LoginFailures(ctx, "acct:"+email, f.clock.Now().Add(-time.Hour))
	must(t, err)
	if n != 1 {
		t.Fatalf("failures %d, want 1", n)
	}
	phone, err := f.acc.Login(ctx, email, password, "", laptop)
	must(t, err)
	if !f.stands(t, ann.UserID, cookieOf(reg)) {
		t.Fatal("a refused change ended the sessions")
	}

	// The browser that changes it stays logged in, with a fresh session;
	// every other session ends (the phone's, and this browser's old
	// token, should someone hold a copy).
	s, err := f.acc.ChangePassword(ctx, ann.UserID, password, newPassword, laptop)
	must(t, err)
	if s.Account.ID != ann.UserID || s.Token == "" || s.Token == reg.Token {
		t.Fatalf("changed: %+v", s)
	}
	if f.stands(t, ann.UserID, cookieOf(phone)) || f.stands(t, ann.UserID, cookieOf(reg)) || !f.stands(t, ann.UserID, cookieOf(s)) {
		t.Fatal("the password change did not end the other sessions, or ended this one")
	}
	_, err = f.acc.Login(ctx, email, password, "", laptop)
	wantCode(t, err, apperr.LoginFailed)
	_, err = f.acc.Login(ctx, email, newPassword, "", laptop)
	must(t, err)

	// The throttle guards the current-password check too.
	for range accounts.MaxFailures {
		_, err := f.acc.ChangePassword(ctx, ann.UserID, "not the password", "yet another password", laptop)
		wantCode(t, err, apperr.AccountInvalid)
	}
	runs = auth.KDFRuns()
	_, err = f.acc.ChangePassword(ctx, ann.UserID, newPassword, "yet another password", laptop)
	wantCode(t, err, apperr.RateLimited)
	if auth.KDFRuns() != runs {
		t.Fatal("a throttled password change ran the KDF")
	}
}

// Deleting an account that owns only solo data (scenarios, an adventure,
// narrator settings) removes the user and all of it.
func TestDeleteAccountWithSoloData(t *testing.T) {
	f := newFixture(t)
	ann, reg := f.registered(t, "Ann", email)
	other, _ := f.registered(t, "Bob", "bob@example.com")
	for _, uid := range []int64{ann.UserID, other.UserID} {
		_, err := f.svc.Narrative.PutSettings(ctx, uid, narrative.ProviderSettingsInput{BaseURL: "http://127.0.0.1:11434/v1", Model: "m",
			ContextBudget: 4000, MaxOutputTokens: 400, Temperature: 0.8, TopP: 0.95})
		must(t, err)
		sc, err := f.svc.Narrative.CreateScenario(ctx, uid, narrative.ScenarioInput{Title: "Cave", Premise: "A cave.", Opening: "Dark."})
		must(t, err)
		adv, err := f.svc.Narrative.Play(ctx, uid, sc.ID, narrative.Persona{PersonaName: "Ash"})
		must(t, err)
		_, err = f.svc.Narrative.AddMemory(ctx, uid, adv.Adventure.ID, narrative.MemoryInput{Text: "Ash fears the dark."})
		must(t, err)
	}
	before, err := f.store.TableCounts(ctx)
	must(t, err)

	wantCode(t, f.acc.DeleteAccount(ctx, ann.UserID, "not the password"), apperr.AccountInvalid)
	if _, err := f.store.FindUserByID(ctx, ann.UserID); err != nil {
		t.Fatalf("a wrong password deleted the account: %v", err)
	}
	must(t, f.acc.DeleteAccount(ctx, ann.UserID, password))

	if _, err := f.store.FindUserByID(ctx, ann.UserID); apperr.CodeOf(err) != apperr.NotFound {
		t.Fatalf("the user is still there: %v", err)
	}
	after, err := f.store.TableCounts(ctx)
	must(t, err)
	for _, tbl := range []string{"users", "provider_settings", "scenarios", "adventures", "memories", "browser_sessions"} {
		if after[tbl] != before[tbl]/2 || before[tbl] == 0 {
			t.Errorf("%s: %d rows before, %d after; want half (Bob's) left", tbl, before[tbl], after[tbl])
		}
	}
	if f.stands(t, ann.UserID, cookieOf(reg)) {
		t.Fatal("a deleted account's cookie still resumes")
	}
	_, err = f.acc.Login(ctx, email, password, "", laptop)
	wantCode(t, err, apperr.LoginFailed)
	// The email is free again.
	f.registered(t, "New Ann", email)
}

// Deleting the owner of a room: with the table's foreign keys cascading
// (migration v10) the room goes with the account; on a schema where they
// still refuse, the answer is a clear conflict and nothing is deleted.
// The test checks whichever holds.
func TestDeleteAccountThatOwnsARoom(t *testing.T) {
	f := newFixture(t)
	tf := tabletest.New(t, f.svc.Table)
	_, err := f.acc.Register(ctx, tf.Owner.UserID, email, password, laptop)
	must(t, err)

	err = f.acc.DeleteAccount(ctx, tf.Owner.UserID, password)
	_, findErr := f.store.FindUserByID(ctx, tf.Owner.UserID)
	_, roomErr := f.svc.Table.GetRoom(ctx, tf.Seated, tf.RoomID)
	switch {
	case err == nil:
		if apperr.CodeOf(findErr) != apperr.NotFound || apperr.CodeOf(roomErr) != apperr.NotFound {
			t.Fatalf("deleted, but the user (%v) or the room (%v) is still there", findErr, roomErr)
		}
		// Other people's things stay: the seated player's character.
		if _, err := f.svc.Table.GetCharacter(ctx, tf.Seated, tf.CharacterID); err != nil {
			t.Fatalf("a member's character went with the owner's room: %v", err)
		}
	default:
		if e := wantCode(t, err, apperr.Conflict); !strings.Contains(e.Message, "rooms") {
			t.Fatalf("conflict message %q does not say what blocks the delete", e.Message)
		}
		if findErr != nil || roomErr != nil {
			t.Fatalf("refused, but the user (%v) or the room (%v) is gone", findErr, roomErr)
		}
	}
}

// The caller's account carries the guest name's code while the name is
// the server's (so the web app writes it in the reader's language), and
// none once the person chose one.
func TestAccountGuestNameCode(t *testing.T) {
	f := newFixture(t)
	gs, err := f.acc.StartGuest(ctx, laptop)
	must(t, err)
	g := gs.Account
	s, ok, err := f.acc.Resume(ctx, cookieOf(gs), laptop)
	must(t, err)
	number := strings.TrimPrefix(g.DisplayName, "Guest ")
	if !ok || s.Account.NameCode != "user.guest" || s.Account.NameParams["number"] != number || len(s.Account.NameParams) != 1 {
		t.Fatalf("guest account %+v (ok %v), want user.guest number %s", s.Account, ok, number)
	}
	_, err = f.svc.Table.RenameMe(ctx, table.Human(g.ID), "Ann")
	must(t, err)
	s, _, err = f.acc.Resume(ctx, cookieOf(gs), laptop)
	must(t, err)
	if s.Account.NameCode != "" || s.Account.NameParams != nil {
		t.Fatalf("renamed account %+v, want no name code", s.Account)
	}
}

// TestResumeReadsOncePerBrowser: the requests and streams of one browser
// that miss its cached session together (a wake of a table with many open
// streams, after the cache's trust ran out) share one read of the session
// and its user. A cookie whose session ended is still refused.
func TestResumeReadsOncePerBrowser(t *testing.T) {
	f := newFixture(t)
	c, sess := f.registered(t, "Ann", email)
	tabletest.NewUser(t, f.svc.Table, "Newcomer") // an authority change: the cache is stale

	const calls = 50
	var refused atomic.Int64
	reads, statements := tabletest.Herd(f.acc.SetFailpoint, "resume.read", calls, func(qctx context.Context, i int) {
		s, ok, err := f.acc.Resume(qctx, cookieOf(sess), laptop)
		if err != nil {
			t.Error(err)
		}
		switch {
		case !ok:
			refused.Add(1)
		case s.Account.ID != c.UserID:
			t.Errorf("resumed %d as %d", c.UserID, s.Account.ID)
		}
	})
	if reads != 1 || statements > 2 || refused.Load() != 0 {
		t.Fatalf("%d resumes of one browser: %d reads, %d statements, %d refused; want one read (the session, its user) and no write", calls, reads, statements, refused.Load())
	}
	must(t, f.acc.Logout(ctx, c.UserID, sess.ID, false))
	if f.stands(t, c.UserID, cookieOf(sess)) {
		t.Fatal("the cached session outlived its logout")
	}
}
