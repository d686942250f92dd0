package webui_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/adventure-table/adventure-table/auth"
	"github.com/adventure-table/adventure-table/gameplay/accounts"
	"github.com/adventure-table/adventure-table/webui"
)

// accountsClient is the browser of the sessions tests start in the
// service itself.
var accountsClient = accounts.Client{UserAgent: "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"}

// expiresCookie reports whether res expires the cookie called name.
func expiresCookie(res *http.Response, name string) bool {
	for _, c := range res.Cookies() {
		if c.Name == name && c.MaxAge < 0 {
			return true
		}
	}
	return false
}

// Cookie tossing (issue 28): over TLS, a cookie under the plain name that
// a sibling subdomain or a plain-HTTP page planted is never read, and the
// answer expires it. Otherwise the victim would play as the attacker's
// guest, and the narrator key they save would be the attacker's to spend.
func TestPlantedPlainCookieIgnoredOverTLS(t *testing.T) {
	t.Run("TLS", func(t *testing.T) {
		_, srv := penServer(t, true)
		attacker := newBrowser(t, srv, nil)
		attackerGuest := attacker.me()
		victim := newBrowser(t, srv, nil)
		u, _ := url.Parse(srv.URL)
		victim.jar.SetCookies(u, []*http.Cookie{{Name: auth.BrowserCookieName, Value: attacker.cookies()[0].Value, Path: "/"}})
		res, _ := victim.do("GET", "/api/me", "")
		if me := victim.me(); me.ID == attackerGuest.ID {
			t.Fatalf("the planted cookie made the victim the attacker's guest %d", attackerGuest.ID)
		}
		if !expiresCookie(res, auth.BrowserCookieName) {
			t.Fatalf("the answer did not expire the planted %s cookie: %q", auth.BrowserCookieName, res.Header.Values("Set-Cookie"))
		}
	})
	t.Run("SecureCookies", func(t *testing.T) {
		// Behind a TLS proxy (plain HTTP to this server) the same.
		f := newFixture(t, func(o *webui.Options) { withSecret(o); o.SecureCookies = true })
		first := httptest.NewRecorder()
		f.handler.ServeHTTP(first, httptest.NewRequest("GET", "/api/me", nil))
		attackerGuest := first.Result().Cookies()[0].Value
		req := httptest.NewRequest("GET", "/api/me", nil)
		req.AddCookie(&http.Cookie{Name: auth.BrowserCookieName, Value: attackerGuest})
		rec := httptest.NewRecorder()
		f.handler.ServeHTTP(rec, req)
		if rec.Code != 200 || strings.Contains(rec.Body.String(), first.Body.String()) {
			t.Fatalf("the planted cookie named the attacker's guest: %d %s", rec.Code, rec.Body)
		}
		if !expiresCookie(rec.Result(), auth.BrowserCookieName) {
			t.Fatalf("the answer did not expire the planted cookie: %q", rec.Header().Values("Set-Cookie"))
		}
	})
	t.Run("PlainHTTPKeepsPlainName", func(t *testing.T) {
		// A laptop in local mode (plain HTTP) still uses at_session.
		_, srv := penServer(t, false)
		b := newBrowser(t, srv, nil)
		first := b.me()
		if c := b.cookies(); len(c) != 1 || c[0].Name != auth.BrowserCookieName {
			t.Fatalf("plain HTTP cookies %v", c)
		}
		if again := b.me(); again.ID != first.ID {
			t.Fatalf("plain HTTP: user %d then %d", first.ID, again.ID)
		}
	})
}

// A copied cookie is one browser's session: after that browser logs out
// (only this browser), the copy names nobody (issue 28).
func TestCopiedCookieDeadAfterOneBrowserLogout(t *testing.T) {
	for _, tls := range []bool{false, true} {
		_, srv := penServer(t, tls)
		laptop, phone := signedInTwice(t, srv)
		account := laptop.me()
		copied := laptop.cookies()
		laptop.call(200, "POST", "/api/account/logout", `{"everywhere":false}`)
		if got := replay(t, srv, copied); got.ID == account.ID || got.Registered {
			t.Fatalf("tls=%v: the copied cookie still names the account after its browser logged out: %+v", tls, got)
		}
		if me := phone.me(); me.ID != account.ID {
			t.Fatalf("tls=%v: logging out the laptop ended the phone's session", tls)
		}
	}
}

// sessionList is GET /api/account/sessions in b.
func (b *browser) sessions() []accounts.BrowserSessionView {
	b.t.Helper()
	var v struct{ Sessions []accounts.BrowserSessionView }
	if err := json.Unmarshal([]byte(b.call(200, "GET", "/api/account/sessions", "")), &v); err != nil {
		b.t.Fatal(err)
	}
	return v.Sessions
}

// The account API lists one's sessions (browser family, current marked)
// and ends another by id: that browser is a new guest. Someone else's
// id is not_found; the current one is ended by logging out.
func TestSessionListAndEnd(t *testing.T) {
	_, srv := penServer(t, true)
	laptop, phone := newBrowser(t, srv, nil), newBrowser(t, srv, nil)
	laptop.register()
	const android = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36"
	if res, body := phone.do("POST", "/api/account/login", credentials(penEmail, penPassword), "User-Agent", android); res.StatusCode != 200 {
		t.Fatalf("phone login: %d %s", res.StatusCode, body)
	}
	account := laptop.me()
	list := laptop.sessions()
	if len(list) != 2 {
		t.Fatalf("sessions %+v, want the laptop's and the phone's", list)
	}
	var phoneID, laptopID int64
	for _, s := range list {
		if s.Current {
			laptopID = s.ID
		} else if s.Browser == "Chrome" && s.OS == "Android" {
			phoneID = s.ID
		}
	}
	if laptopID == 0 || phoneID == 0 {
		t.Fatalf("sessions %+v, want the laptop's (current) and Chrome on Android", list)
	}
	raw := laptop.call(200, "GET", "/api/account/sessions", "")
	for _, c := range append(laptop.cookies(), phone.cookies()...) {
		if tok, _ := auth.VerifySession(testSecret, c.Value); strings.Contains(raw, tok.Token) {
			t.Fatalf("the list shows a session token: %s", raw)
		}
	}

	// Another account cannot end (or learn of) Ann's sessions.
	bob := newBrowser(t, srv, nil)
	bob.call(200, "POST", "/api/account/register", credentials("bob@example.com", penPassword))
	if res, body := bob.do("DELETE", fmt.Sprintf("/api/account/sessions/%d", phoneID), ""); res.StatusCode != 404 || errorOf(t, body).Code != "not_found" {
		t.Fatalf("Bob ending Ann's session: %d %s", res.StatusCode, body)
	}
	if me := phone.me(); me.ID != account.ID {
		t.Fatal("Bob ended Ann's phone session")
	}
	if res, body := laptop.do("DELETE", fmt.Sprintf("/api/account/sessions/%d", laptopID), ""); res.StatusCode != 400 || errorOf(t, body).Code != "invalid_request" {
		t.Fatalf("ending the current session by id: %d %s", res.StatusCode, body)
	}
	if body := laptop.call(200, "DELETE", fmt.Sprintf("/api/account/sessions/%d", phoneID), ""); body != `{"ended":true}` {
		t.Fatalf("end: %s", body)
	}
	if me := phone.me(); me.ID == account.ID || me.Registered {
		t.Fatalf("the ended phone is still %+v", me)
	}
	if me := laptop.me(); me.ID != account.ID {
		t.Fatal("ending the phone ended the laptop")
	}
	if list := laptop.sessions(); len(list) != 1 || !list[0].Current {
		t.Fatalf("after ending the phone: %+v", list)
	}
}

// A cookie from before session rows (v2, every browser of the account
// held the same) keeps working once it still stands: its next request
// upgrades it to a session of its own and replaces the cookie. A stale
// one (an older session version) gets nothing.
func TestLegacyCookieUpgradedInPlace(t *testing.T) {
	f, srv := penServer(t, false)
	b := newBrowser(t, srv, nil)
	b.register()
	account := b.me()
	u, err := f.store.FindUserByID(ctx, account.ID)
	if err != nil {
		t.Fatal(err)
	}
	legacy := []*http.Cookie{{Name: auth.BrowserCookieName, Value: auth.SignSession(testSecret, account.ID, u.SessionVersion)}}
	req, _ := http.NewRequest("GET", srv.URL+"/api/me", nil)
	req.AddCookie(legacy[0])
	res, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	set := res.Cookies()
	if len(set) != 1 || !strings.HasPrefix(set[0].Value, "v3.") {
		t.Fatalf("the legacy cookie was not replaced: %v", set)
	}
	if got := replay(t, srv, set); got.ID != account.ID {
		t.Fatalf("the upgraded cookie names %+v", got)
	}
	if list := b.sessions(); len(list) != 2 {
		t.Fatalf("sessions after the upgrade: %+v, want the registering one and the upgraded one", list)
	}
	stale := []*http.Cookie{{Name: auth.BrowserCookieName, Value: auth.SignSession(testSecret, account.ID, u.SessionVersion-1)}}
	if got := replay(t, srv, stale); got.ID == account.ID {
		t.Fatal("a stale v2 cookie was upgraded")
	}
}
