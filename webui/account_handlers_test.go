package webui_test

import (
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/webui"
)

// The account routes' exact JSON, as the web app reads it (the fixture
// also checks every answer against the OpenAPI document).
func TestAccountRoutes(t *testing.T) {
	f := newFixture(t, withSecret)
	srv := httptest.NewServer(f.handler)
	defer srv.Close()
	b := newBrowser(t, srv, nil)
	guest := b.me()
	// The server-made guest name travels with its code (the web app writes
	// it in the reader's language) until the person chooses a name.
	guestName := fmt.Sprintf(`"display_name":%q,"name_code":"user.guest","name_params":{"number":%q}`, guest.DisplayName, strings.TrimPrefix(guest.DisplayName, "Guest "))
	if got := b.call(200, "GET", "/api/me", ""); got != fmt.Sprintf(`{"id":%d,%s,"email":null,"registered":false}`, guest.ID, guestName) {
		t.Fatalf("guest /api/me: %s", got)
	}
	// A guest has no session to end, password to change or account to delete.
	for _, r := range [][3]string{
		{"POST", "/api/account/logout", `{"everywhere":false}`},
		{"PUT", "/api/account/password", `{"current_password":"x","new_password":"a long new password"}`},
		{"DELETE", "/api/account", `{"password":"x"}`},
	} {
		res, body := b.do(r[0], r[1], r[2])
		if res.StatusCode != 403 || errorOf(t, body).Code != "account_required" {
			t.Fatalf("%s %s as a guest: %d %s", r[0], r[1], res.StatusCode, body)
		}
	}
	res, body := b.do("POST", "/api/account/register", credentials("nope", "short"))
	if e := errorOf(t, body); res.StatusCode != 400 || e.Code != "account_invalid" || e.Fields["email"] == "" || e.Fields["password"] == "" {
		t.Fatalf("invalid registration: %d %s", res.StatusCode, body)
	}

	want := fmt.Sprintf(`{"id":%d,%s,"email":"ann@example.com","registered":true}`, guest.ID, guestName)
	if got := b.call(200, "POST", "/api/account/register", credentials(" Ann@Example.com", penPassword)); got != want {
		t.Fatalf("register: %s, want %s", got, want)
	}
	if got := b.call(200, "GET", "/api/me", ""); got != want {
		t.Fatalf("/api/me after registering: %s", got)
	}
	// PATCH /api/me still renames, and answers the user view.
	if got := b.call(200, "PATCH", "/api/me", `{"display_name":"Ann"}`); got != fmt.Sprintf(`{"id":%d,"display_name":"Ann"}`, guest.ID) {
		t.Fatalf("rename: %s", got)
	}
	want = strings.Replace(want, guestName, `"display_name":"Ann"`, 1)
	res, body = b.do("POST", "/api/account/register", credentials("other@example.com", penPassword))
	if res.StatusCode != 409 || errorOf(t, body).Code != "conflict" {
		t.Fatalf("registering twice: %d %s", res.StatusCode, body)
	}
	res, body = newBrowser(t, srv, nil).do("POST", "/api/account/register", credentials("ANN@example.com", penPassword))
	if e := errorOf(t, body); res.StatusCode != 409 || e.Code != "email_taken" || e.Fields["email"] == "" {
		t.Fatalf("taken email: %d %s", res.StatusCode, body)
	}

	other := newBrowser(t, srv, nil)
	res, body = other.do("POST", "/api/account/login", credentials(penEmail, "a wrong password"))
	if res.StatusCode != 401 || errorOf(t, body).Code != "login_failed" || len(res.Header.Values("Set-Cookie")) != 0 {
		t.Fatalf("wrong password: %d %s %q", res.StatusCode, body, res.Header.Values("Set-Cookie"))
	}
	if got := other.call(200, "POST", "/api/account/login", credentials(penEmail, penPassword)); got != want {
		t.Fatalf("login: %s, want %s", got, want)
	}
	res, body = other.do("PUT", "/api/account/password", `{"current_password":"wrong","new_password":"a long new password"}`)
	if e := errorOf(t, body); res.StatusCode != 400 || e.Code != "account_invalid" || e.Fields["current_password"] == "" {
		t.Fatalf("wrong current password: %d %s", res.StatusCode, body)
	}
	if got := other.call(200, "PUT", "/api/account/password", fmt.Sprintf(`{"current_password":%q,"new_password":"a long new password"}`, penPassword)); got != want {
		t.Fatalf("password change: %s", got)
	}
	if got := other.call(200, "POST", "/api/account/logout", `{"everywhere":true}`); got != `{"logged_out":true}` {
		t.Fatalf("logout: %s", got)
	}
	other.call(200, "POST", "/api/account/login", credentials(penEmail, "a long new password"))
	if got := other.call(200, "DELETE", "/api/account", `{"password":"a long new password"}`); got != `{"deleted":true}` {
		t.Fatalf("delete: %s", got)
	}
	if me := other.me(); me.ID == guest.ID || me.Registered {
		t.Fatalf("after deleting: %+v", me)
	}
}

// Capabilities say accounts are offered only when the server is told to
// (hosted mode); the routes answer either way.
func TestCapabilitiesAccounts(t *testing.T) {
	for _, on := range []bool{false, true} {
		f := newFixture(t, func(o *webui.Options) { withSecret(o); o.Accounts = on })
		rec := call(t, f.handler, table.Caller{}, "GET", "/api/meta/capabilities", "")
		if !strings.Contains(rec.Body.String(), fmt.Sprintf(`"accounts":%v`, on)) {
			t.Fatalf("Accounts=%v: %s", on, rec.Body)
		}
	}
}
