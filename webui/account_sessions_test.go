package webui_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/adventure-table/adventure-table/auth"
	"github.com/adventure-table/adventure-table/webui"
)

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
