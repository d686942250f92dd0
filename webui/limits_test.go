package webui_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/adventure-table/adventure-table/gameplay/limits"
	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/webui"
)

// hour is a rule of n requests an hour, all of them at once: small budgets
// that no test outlives, so nothing depends on timing.
func hour(n int) limits.Rule { return limits.Rule{Events: n, Window: time.Hour, Burst: n} }

// withLimits configures the server's limits (and, optionally, its proxies).
func withLimits(cfg limits.Config, proxies ...string) func(*webui.Options) {
	return func(o *webui.Options) {
		withSecret(o)
		o.Limits = limits.New(cfg)
		o.TrustedProxies = proxies
	}
}

// from is a request as it reaches the server: from the peer address, with
// the X-Forwarded-For lines and headers given.
type from struct {
	peer    string
	xff     []string
	headers map[string]string
	cookies []*http.Cookie
}

func (f fixture) send(t *testing.T, src from, method, path, body string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if src.peer != "" {
		req.RemoteAddr = src.peer
	}
	for _, v := range src.xff {
		req.Header.Add("X-Forwarded-For", v)
	}
	for k, v := range src.headers {
		req.Header.Set(k, v)
	}
	for _, c := range src.cookies {
		req.AddCookie(c)
	}
	rec := httptest.NewRecorder()
	f.handler.ServeHTTP(rec, req)
	return rec
}

// limited checks a 429 rate_limited answer: the Retry-After header is the
// body's details.retry_after_seconds, a whole number of seconds ≥ 1.
func limited(t *testing.T, rec *httptest.ResponseRecorder) bool {
	t.Helper()
	if rec.Code != http.StatusTooManyRequests {
		return false
	}
	var body webui.ErrorBody
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil || body.Error.Code != "rate_limited" {
		t.Fatalf("429 with body %s", rec.Body)
	}
	after, err := strconv.Atoi(rec.Header().Get("Retry-After"))
	if err != nil || after < 1 || float64(after) != body.Error.Details["retry_after_seconds"] {
		t.Fatalf("Retry-After %q with details %v", rec.Header().Get("Retry-After"), body.Error.Details)
	}
	return true
}

// newGuest is a browser's first visit: the cookies that make it a user.
func (f fixture) newGuest(t *testing.T, src from) []*http.Cookie {
	t.Helper()
	rec := f.send(t, src, "GET", "/api/me", "")
	if rec.Code != http.StatusOK || len(rec.Result().Cookies()) == 0 {
		t.Fatalf("first visit: %d %s", rec.Code, rec.Body)
	}
	return rec.Result().Cookies()
}

// TestForwardedForRotationSharesOneBucket is the pen-test finding as a
// test: behind a trusted proxy, a client that writes a fresh left-most
// X-Forwarded-For on every request (or a fresh X-Real-IP) gets no fresh
// bucket. The key is the right-most address the trusted proxies did not
// add, whatever comes before it.
func TestForwardedForRotationSharesOneBucket(t *testing.T) {
	f := newFixture(t, withLimits(limits.Config{limits.IP: hour(3)}, "10.0.0.0/8"))
	proxy := "10.0.0.5:41000"
	health := func(src from) *httptest.ResponseRecorder { return f.send(t, src, "GET", "/api/health", "") }
	for i := range 20 {
		rec := health(from{peer: proxy, xff: []string{fmt.Sprintf("198.51.100.%d, 203.0.113.7", i)}})
		if i < 3 && rec.Code != http.StatusOK {
			t.Fatalf("request %d within the budget: %d %s", i+1, rec.Code, rec.Body)
		}
		if i >= 3 && !limited(t, rec) {
			t.Fatalf("request %d with a rotated spoofed hop got %d, want 429", i+1, rec.Code)
		}
	}
	for name, src := range map[string]from{
		"SpoofedSecondLine":   {peer: proxy, xff: []string{"192.0.2.99", "203.0.113.7"}},
		"UnparsableLeftHop":   {peer: proxy, xff: []string{"unknown, 203.0.113.7"}},
		"LeftHopWithPort":     {peer: proxy, xff: []string{"192.0.2.99:443, 203.0.113.7"}},
		"TwoTrustedHops":      {peer: proxy, xff: []string{"192.0.2.98, 203.0.113.7, 10.0.0.9"}},
		"SpoofedRealIP":       {peer: proxy, xff: []string{"203.0.113.7"}, headers: map[string]string{"X-Real-IP": "192.0.2.97"}},
		"SpoofedClientHeader": {peer: proxy, xff: []string{"203.0.113.7"}, headers: map[string]string{"X-Client-IP": "192.0.2.96", "Forwarded": "for=192.0.2.95"}},
	} {
		if rec := health(src); !limited(t, rec) {
			t.Errorf("%s: got %d, want the spent bucket's 429", name, rec.Code)
		}
	}
	// Another client behind the same proxy has a bucket of its own.
	if rec := health(from{peer: proxy, xff: []string{"198.51.100.1, 203.0.113.8"}}); rec.Code != http.StatusOK {
		t.Fatalf("another client: %d %s", rec.Code, rec.Body)
	}

	// X-Real-IP never names a client: rotating it while the proxy's
	// X-Forwarded-For says 203.0.113.9 spends 203.0.113.9's bucket; and
	// where X-Forwarded-For is absent or unusable (gin's default then
	// believes X-Real-IP), the request is the proxy's own.
	for name, src := range map[string]func(i int) from{
		"WithForwardedFor": func(i int) from {
			return from{peer: proxy, xff: []string{"203.0.113.9"}, headers: map[string]string{"X-Real-IP": fmt.Sprintf("192.0.2.%d", i)}}
		},
		"WithoutForwardedFor": func(i int) from {
			return from{peer: "10.0.0.6:41000", headers: map[string]string{"X-Real-IP": fmt.Sprintf("192.0.2.%d", i)}}
		},
		"UnusableForwardedFor": func(i int) from {
			return from{peer: "10.0.0.7:41000", xff: []string{"203.0.113.10:5000"}, headers: map[string]string{"X-Real-IP": fmt.Sprintf("192.0.2.%d", i)}}
		},
	} {
		for i := range 6 {
			rec := health(src(i))
			if (i < 3) != (rec.Code == http.StatusOK) || i >= 3 && !limited(t, rec) {
				t.Fatalf("X-Real-IP rotation %s, request %d: %d", name, i+1, rec.Code)
			}
		}
	}

	// IPv6 clients are keyed by /64: another address in the same /64 is
	// the same subscriber; the next /64 is someone else.
	for i := range 3 {
		if rec := health(from{peer: proxy, xff: []string{fmt.Sprintf("2001:db8:1:2::%x", i+1)}}); rec.Code != http.StatusOK {
			t.Fatalf("IPv6 request %d: %d", i+1, rec.Code)
		}
	}
	if rec := health(from{peer: proxy, xff: []string{"2001:db8:1:2:ffff:ffff:ffff:ffff"}}); !limited(t, rec) {
		t.Fatalf("another address of the same /64: %d, want 429", rec.Code)
	}
	if rec := health(from{peer: proxy, xff: []string{"2001:db8:1:3::1"}}); rec.Code != http.StatusOK {
		t.Fatalf("the next /64: %d", rec.Code)
	}

	// A peer that is no trusted proxy is its own key, whatever it claims.
	for i := range 5 {
		rec := health(from{peer: "192.0.2.50:5000", xff: []string{fmt.Sprintf("198.51.100.%d", i)}, headers: map[string]string{"X-Real-IP": fmt.Sprintf("198.51.101.%d", i)}})
		if (i < 3) != (rec.Code == http.StatusOK) {
			t.Fatalf("untrusted peer, request %d: %d", i+1, rec.Code)
		}
	}
	if !strings.Contains(f.logs.String(), `"client_ip":"203.0.113.7"`) {
		t.Fatal("the access log does not name the client the limit keyed on")
	}
}

// TestNoTrustedProxyKeysByPeer: with no trusted proxy, X-Forwarded-For is
// ignored and each peer address has its own bucket; the ip class covers
// /mcp too, and never the web app's pages.
func TestNoTrustedProxyKeysByPeer(t *testing.T) {
	f := newFixture(t, withLimits(limits.Config{limits.IP: hour(2)}))
	a, b := "192.0.2.10:1000", "192.0.2.11:1000"
	for i := range 4 {
		rec := f.send(t, from{peer: a, xff: []string{fmt.Sprintf("198.51.100.%d", i)}}, "GET", "/api/health", "")
		if (i < 2) != (rec.Code == http.StatusOK) || i >= 2 && !limited(t, rec) {
			t.Fatalf("request %d: %d", i+1, rec.Code)
		}
	}
	if rec := f.send(t, from{peer: a}, "POST", "/mcp", "{}"); !limited(t, rec) {
		t.Fatalf("/mcp past the ip budget: %d %s", rec.Code, rec.Body)
	}
	if rec := f.send(t, from{peer: a, headers: map[string]string{"Accept": "text/html"}}, "GET", "/", ""); rec.Code != http.StatusOK {
		t.Fatalf("the app's page: %d", rec.Code)
	}
	if rec := f.send(t, from{peer: b}, "GET", "/api/health", ""); rec.Code != http.StatusOK {
		t.Fatalf("another peer: %d", rec.Code)
	}
}

// TestWrongInviteCodesAreLimited: the finding was 300 wrong invite codes
// answered in 0.3 s. Now one IP gets the join budget of answers, then 429
// with Retry-After — the right code included — and joins nothing.
func TestWrongInviteCodesAreLimited(t *testing.T) {
	f := newFixture(t, withLimits(limits.Config{limits.Join: hour(5)}))
	owner := f.newGuest(t, from{peer: "192.0.2.1:1000"})
	var room table.RoomView
	rec := f.send(t, from{peer: "192.0.2.1:1000", cookies: owner}, "POST", "/api/rooms", `{"name":"Harbor"}`)
	if rec.Code != http.StatusCreated || json.Unmarshal(rec.Body.Bytes(), &room) != nil || room.InviteCode == "" {
		t.Fatalf("create room: %d %s", rec.Code, rec.Body)
	}
	attacker := from{peer: "203.0.113.66:2000"}
	attacker.cookies = f.newGuest(t, attacker)
	refused := 0
	for i := range 300 {
		rec := f.send(t, attacker, "POST", "/api/rooms/join", fmt.Sprintf(`{"invite_code":"guess-%04d"}`, i))
		switch {
		case i < 5 && (rec.Code != http.StatusNotFound || !strings.Contains(rec.Body.String(), "invite_code_invalid")):
			t.Fatalf("guess %d within the budget: %d %s", i+1, rec.Code, rec.Body)
		case i >= 5 && !limited(t, rec):
			t.Fatalf("guess %d past the budget: %d %s", i+1, rec.Code, rec.Body)
		case i >= 5:
			refused++
		}
	}
	if rec := f.send(t, attacker, "POST", "/api/rooms/join", fmt.Sprintf(`{"invite_code":%q}`, room.InviteCode)); !limited(t, rec) {
		t.Fatalf("the right code past the budget: %d %s", rec.Code, rec.Body)
	}
	// The first-run doors guess codes too: the invite's preview and sitting down.
	if rec := f.send(t, attacker, "GET", "/api/invites/"+room.InviteCode, ""); !limited(t, rec) {
		t.Fatalf("an invite preview past the budget: %d %s", rec.Code, rec.Body)
	}
	if rec := f.send(t, attacker, "POST", "/api/tables/sit", fmt.Sprintf(`{"invite_code":%q}`, room.InviteCode)); !limited(t, rec) {
		t.Fatalf("sitting down past the budget: %d %s", rec.Code, rec.Body)
	}
	rec = f.send(t, attacker, "GET", "/api/rooms", "")
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `"rooms":[]`) {
		t.Fatalf("the attacker's rooms: %d %s", rec.Code, rec.Body)
	}
	t.Logf("300 wrong invite codes: 5 answered invite_code_invalid, %d refused 429", refused)
	// Another IP still joins with the code.
	friend := from{peer: "198.51.100.5:3000"}
	friend.cookies = f.newGuest(t, friend)
	if rec := f.send(t, friend, "POST", "/api/rooms/join", fmt.Sprintf(`{"invite_code":%q}`, room.InviteCode)); rec.Code != http.StatusOK {
		t.Fatalf("a friend joining from elsewhere: %d %s", rec.Code, rec.Body)
	}
}

// TestGuestCreationIsLimited: the finding was 300 cookie-less requests
// making 301 guest users. Now they make the guest budget of users, then
// 429; a browser that has its cookie is not affected.
func TestGuestCreationIsLimited(t *testing.T) {
	f := newFixture(t, withLimits(limits.Config{limits.Guest: hour(5)}))
	before, err := f.store.CountUsers(ctx)
	if err != nil {
		t.Fatal(err)
	}
	src := from{peer: "203.0.113.20:4000"}
	var first []*http.Cookie
	for i := range 300 {
		rec := f.send(t, src, "GET", "/api/me", "")
		switch {
		case i < 5 && rec.Code != http.StatusOK:
			t.Fatalf("visit %d within the budget: %d %s", i+1, rec.Code, rec.Body)
		case i >= 5 && !limited(t, rec):
			t.Fatalf("visit %d past the budget: %d %s", i+1, rec.Code, rec.Body)
		case i >= 5 && len(rec.Result().Cookies()) != 0:
			t.Fatalf("a refused visit got a cookie: %v", rec.Result().Cookies())
		}
		if i == 0 {
			first = rec.Result().Cookies()
		}
	}
	after, err := f.store.CountUsers(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if after-before != 5 {
		t.Fatalf("300 cookie-less requests made %d users, want the budget of 5", after-before)
	}
	if rec := f.send(t, from{peer: src.peer, cookies: first}, "GET", "/api/me", ""); rec.Code != http.StatusOK {
		t.Fatalf("a returning guest from the same IP: %d %s", rec.Code, rec.Body)
	}
	if rec := f.send(t, from{peer: "198.51.100.20:4000"}, "GET", "/api/me", ""); rec.Code != http.StatusOK {
		t.Fatalf("a first visit from another IP: %d", rec.Code)
	}
}

// TestPerUserClasses: creation, stage uploads and solo turns are charged to
// the user (a second user is not affected); login and register to the IP,
// before any handler runs.
func TestPerUserClasses(t *testing.T) {
	f := newFixture(t, withLimits(limits.Config{limits.Create: hour(2), limits.Upload: hour(1), limits.Turn: hour(1), limits.Login: hour(2)}))
	ann := from{peer: "192.0.2.30:1000"}
	ann.cookies = f.newGuest(t, ann)
	bob := from{peer: ann.peer} // same IP, another user
	bob.cookies = f.newGuest(t, bob)
	for i, req := range []struct{ path, body string }{
		{"/api/rooms", `{"name":"One"}`},
		{"/api/characters", characterJSON("Mira")},
	} {
		if rec := f.send(t, ann, "POST", req.path, req.body); rec.Code != http.StatusCreated {
			t.Fatalf("creation %d: %d %s", i+1, rec.Code, rec.Body)
		}
	}
	if rec := f.send(t, ann, "POST", "/api/scenarios", `{}`); !limited(t, rec) {
		t.Fatalf("a third creation (a scenario): %d %s", rec.Code, rec.Body)
	}
	if rec := f.send(t, ann, "POST", "/api/characters/import", `{}`); !limited(t, rec) {
		t.Fatalf("a character import past the creation budget: %d %s", rec.Code, rec.Body)
	}
	for _, path := range []string{"/api/adventures/import", "/api/scenarios/import"} {
		if rec := f.send(t, ann, "POST", path, `{}`); !limited(t, rec) {
			t.Fatalf("a bundle import (%s) past the creation budget: %d %s", path, rec.Code, rec.Body)
		}
	}
	if rec := f.send(t, ann, "POST", "/api/imports", `{"entries":{}}`); !limited(t, rec) {
		t.Fatalf("a scenario import past the creation budget: %d %s", rec.Code, rec.Body)
	}
	// The one-screen table and a starter story create as the long ways do.
	for _, path := range []string{"/api/tables", "/api/solo/starters/clockwork-bazaar/play"} {
		if rec := f.send(t, ann, "POST", path, `{"name":"Quick"}`); !limited(t, rec) {
			t.Fatalf("%s past the creation budget: %d %s", path, rec.Code, rec.Body)
		}
	}
	if rec := f.send(t, ann, "POST", "/api/imports/preview", `{"entries":{}}`); rec.Code != http.StatusOK {
		t.Fatalf("a preview creates nothing and is not charged as creation: %d %s", rec.Code, rec.Body)
	}
	if rec := f.send(t, bob, "POST", "/api/rooms", `{"name":"Bob's"}`); rec.Code != http.StatusCreated {
		t.Fatalf("another user's creation: %d %s", rec.Code, rec.Body)
	}
	// The limit is checked before the handler: the first attempt reaches
	// it (no such session or adventure), the second does not.
	for _, path := range []string{"/api/sessions/999999/stage/images", "/api/adventures/999999/turns", "/api/adventures/999999/retry"} {
		body := ""
		if !strings.Contains(path, "images") {
			body = `{}`
		}
		rec := f.send(t, ann, "POST", path, body)
		if strings.HasSuffix(path, "retry") {
			// turns and retry share the turn budget.
			if !limited(t, rec) {
				t.Fatalf("%s after a turn: %d %s", path, rec.Code, rec.Body)
			}
			continue
		}
		if rec.Code == http.StatusTooManyRequests {
			t.Fatalf("%s first attempt: 429", path)
		}
		if rec := f.send(t, ann, "POST", path, body); !limited(t, rec) {
			t.Fatalf("%s second attempt: %d %s", path, rec.Code, rec.Body)
		}
	}
	// A script test run is charged to the turn budget too (ann's is spent;
	// bob's is his own).
	if rec := f.send(t, ann, "POST", "/api/scripts/test", `{"scripts":{"library":"","input":"","context":"","output":""}}`); !limited(t, rec) {
		t.Fatalf("a script test past the turn budget: %d %s", rec.Code, rec.Body)
	}
	if rec := f.send(t, bob, "POST", "/api/scripts/test", `{"scripts":{"library":"","input":"","context":"","output":""}}`); rec.Code != http.StatusOK {
		t.Fatalf("another user's script test: %d %s", rec.Code, rec.Body)
	}
	for i, path := range []string{"/api/account/login", "/api/account/register", "/api/account/login"} {
		rec := f.send(t, from{peer: "192.0.2.31:1000"}, "POST", path, `{}`)
		if (i < 2) == (rec.Code == http.StatusTooManyRequests) {
			t.Fatalf("%s attempt %d: %d %s", path, i+1, rec.Code, rec.Body)
		}
	}
}

// TestLocalModeNeverLimits: without Options.Limits (local mode) nothing
// is ever refused 429: not many first visits, not many wrong invite codes,
// not many requests from one address.
func TestLocalModeNeverLimits(t *testing.T) {
	f := newFixture(t, withSecret)
	src := from{peer: "127.0.0.1:5000"}
	src.cookies = f.newGuest(t, src)
	for i := range 300 {
		for _, rec := range []*httptest.ResponseRecorder{
			f.send(t, from{peer: src.peer}, "GET", "/api/me", ""),
			f.send(t, src, "POST", "/api/rooms/join", fmt.Sprintf(`{"invite_code":"guess-%d"}`, i)),
			f.send(t, from{peer: src.peer, xff: []string{fmt.Sprintf("198.51.100.%d", i%250)}}, "GET", "/api/health", ""),
		} {
			if rec.Code == http.StatusTooManyRequests {
				t.Fatalf("local mode answered 429 at round %d: %s", i+1, rec.Body)
			}
		}
	}
}
