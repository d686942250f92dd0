package accounts_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/adventure-table/adventure-table/auth"
	"github.com/adventure-table/adventure-table/gameplay/accounts"
	"github.com/adventure-table/adventure-table/gameplay/table/tabletest"
	"github.com/adventure-table/adventure-table/models/apperr"
)

var phoneClient = accounts.Client{UserAgent: "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36"}

// One's sessions are listed (browser family, times, the current one
// marked) and each other one can be ended; someone else's id is
// not_found and ends nothing.
func TestListAndEndSessions(t *testing.T) {
	f := newFixture(t)
	ann, reg := f.registered(t, "Ann", email)
	f.clock.Add(time.Minute)
	phone, err := f.acc.Login(ctx, email, password, "", phoneClient)
	must(t, err)
	bob, bobs := f.registered(t, "Bob", "bob@example.com")

	list, err := f.acc.ListSessions(ctx, ann.UserID, reg.ID)
	must(t, err)
	if len(list) != 2 || list[0].ID != phone.ID || list[1].ID != reg.ID ||
		list[0].Browser != "Chrome" || list[0].OS != "Android" || list[1].Browser != "Firefox" || list[1].OS != "Linux" ||
		list[0].Current || !list[1].Current || !list[0].CreatedAt.After(list[1].CreatedAt) || list[0].LastSeenAt.IsZero() {
		t.Fatalf("Ann's sessions %+v, want the phone (Chrome on Android) then this laptop (Firefox on Linux, current)", list)
	}

	wantCode(t, f.acc.EndSession(ctx, ann.UserID, reg.ID, bobs.ID), apperr.NotFound)
	if !f.stands(t, bob.UserID, cookieOf(bobs)) {
		t.Fatal("Ann ended Bob's session")
	}
	wantCode(t, f.acc.EndSession(ctx, ann.UserID, reg.ID, reg.ID), apperr.InvalidRequest)
	wantCode(t, f.acc.EndSession(ctx, ann.UserID, reg.ID, 999_999), apperr.NotFound)
	must(t, f.acc.EndSession(ctx, ann.UserID, reg.ID, phone.ID))
	if f.stands(t, ann.UserID, cookieOf(phone)) || !f.stands(t, ann.UserID, cookieOf(reg)) {
		t.Fatal("ending the phone's session did not end it, or ended this one")
	}
	wantCode(t, f.acc.EndSession(ctx, ann.UserID, reg.ID, phone.ID), apperr.NotFound)
	if list, _ := f.acc.ListSessions(ctx, ann.UserID, reg.ID); len(list) != 1 {
		t.Fatalf("after ending the phone: %+v", list)
	}
	// A guest's visit is a session too (400 days, like the cookie).
	g, err := f.acc.StartGuest(ctx, phoneClient)
	must(t, err)
	if list, _ := f.acc.ListSessions(ctx, g.Account.ID, g.ID); len(list) != 1 || !list[0].Current || list[0].Browser != "Chrome" {
		t.Fatalf("a new guest's sessions: %+v", list)
	}
}

// The token is kept only as its SHA-256: no column of the row holds it.
func TestSessionTokenHashedAtRest(t *testing.T) {
	f := newFixture(t)
	ann, reg := f.registered(t, "Ann", email)
	rows, err := f.store.ListBrowserSessions(ctx, ann.UserID)
	must(t, err)
	if len(rows) != 1 || rows[0].TokenHash != auth.SessionTokenHash(reg.Token) {
		t.Fatalf("rows %+v", rows)
	}
	if dump := fmt.Sprintf("%+v", rows[0]); strings.Contains(dump, reg.Token) {
		t.Fatalf("the raw token is in the row: %s", dump)
	}
	// Nor does any User-Agent text beyond its family.
	if rows[0].Browser != "Firefox" || rows[0].OS != "Linux" {
		t.Fatalf("family %q on %q", rows[0].Browser, rows[0].OS)
	}
}

// last_seen_at moves at most every few minutes, never per request, and a
// session unused for its lifetime is over.
func TestSessionLastSeenAndLifetime(t *testing.T) {
	f := newFixture(t)
	ann, reg := f.registered(t, "Ann", email)
	lastSeen := func() time.Time {
		rows, err := f.store.ListBrowserSessions(ctx, ann.UserID)
		must(t, err)
		return rows[0].LastSeenAt
	}
	first := lastSeen()
	f.clock.Add(time.Minute)
	f.stands(t, ann.UserID, cookieOf(reg))
	if !lastSeen().Equal(first) {
		t.Fatal("a request a minute later wrote last_seen_at")
	}
	f.clock.Add(5 * time.Minute)
	f.stands(t, ann.UserID, cookieOf(reg))
	if got := lastSeen(); !got.After(first) {
		t.Fatalf("last_seen_at %v after 6 minutes, want later than %v", got, first)
	}
	f.clock.Add(accounts.SessionLifetime)
	if f.stands(t, ann.UserID, cookieOf(reg)) {
		t.Fatal("a session unused for 400 days still stands")
	}
}

// A legacy cookie (v2 at the user's version, v1 of a guest) upgrades once
// to a session row: the browser's requests that carry it at once all get
// that one session; a stale one (older version) gets none; and once that
// session is ended, the legacy value is dead too.
func TestLegacyCookieUpgradesOnce(t *testing.T) {
	f := newFixture(t)
	ann, _ := f.registered(t, "Ann", email)
	version := f.user(t, ann.UserID).SessionVersion
	if f.stands(t, ann.UserID, legacyCookie(ann.UserID, version-1, false)) {
		t.Fatal("a stale v2 cookie upgraded")
	}
	legacy := legacyCookie(ann.UserID, version, false)
	var wg sync.WaitGroup
	ids := make([]int64, 8)
	for i := range ids {
		wg.Go(func() {
			s, ok, err := f.acc.Resume(context.Background(), legacy, laptop)
			if err != nil || !ok || s.Token != legacy.Token {
				t.Errorf("upgrade %d: %+v %v %v", i, s, ok, err)
			}
			ids[i] = s.ID
		})
	}
	wg.Wait()
	for _, id := range ids {
		if id != ids[0] {
			t.Fatalf("one browser's concurrent requests upgraded to several sessions: %v", ids)
		}
	}
	rows, err := f.store.ListBrowserSessions(ctx, ann.UserID)
	must(t, err)
	if len(rows) != 2 {
		t.Fatalf("%d sessions, want the registering one and the upgraded one", len(rows))
	}
	must(t, f.acc.Logout(ctx, ann.UserID, ids[0], false))
	if f.stands(t, ann.UserID, legacy) {
		t.Fatal("the legacy cookie works again after its session was logged out")
	}

	// A guest's v1 cookie upgrades the same way.
	g := tabletest.NewUser(t, f.svc.Table, "Guest")
	if s, ok := f.resumes(t, g.UserID, legacyCookie(g.UserID, 0, true)); !ok || s.ID == 0 {
		t.Fatal("a guest's v1 cookie did not upgrade")
	}
}
