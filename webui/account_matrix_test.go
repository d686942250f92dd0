package webui_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/adventure-table/adventure-table/auth"
	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/gameplay/table/tabletest"
)

// TestAuthorizationMatrixAccountStates runs every table route of the
// authorization matrix as the person it allows, in each account state:
// registered (the same person, now an account, with its fresh cookie: the
// same answer), logged out everywhere and deleted (the old cookie: never
// that person again — the request comes from a brand-new guest, who gets
// what a stranger gets).
func TestAuthorizationMatrixAccountStates(t *testing.T) {
	f0 := newFixture(t, withSecret)
	svc, accounts := f0.services.Table, f0.services.Accounts
	const password = "correct horse battery"
	for _, mc := range authorizationCases(svc) {
		persona := mc.allow[0]
		for _, state := range []string{"registered", "logged_out", "deleted"} {
			t.Run(mc.route+"/"+persona+"/"+state, func(t *testing.T) {
				// Its own fixture and account on the shared service: the
				// cases run side by side.
				t.Parallel()
				f := tabletest.New(t, svc)
				if mc.prepare != nil {
					mc.prepare(t, f)
				}
				var caller table.Caller
				for _, ps := range f.Personas() {
					if ps.Name == persona {
						caller = ps.Caller
					}
				}
				email := fmt.Sprintf("u%d@example.com", caller.UserID)
				session, err := accounts.Register(ctx, caller.UserID, email, password, accountsClient)
				tabletest.Must(t, err)
				cookie := auth.SignToken(testSecret, session.Token)
				switch state {
				case "logged_out":
					tabletest.Must(t, accounts.Logout(ctx, caller.UserID, session.ID, true))
				case "deleted":
					tabletest.Must(t, accounts.DeleteAccount(ctx, caller.UserID, password))
				}
				method, path, body := mc.request(f)
				req := httptest.NewRequest(method, path, strings.NewReader(body))
				if body != "" {
					req.Header.Set("Content-Type", "application/json")
				}
				req.AddCookie(&http.Cookie{Name: auth.BrowserCookieName, Value: cookie})
				rec := httptest.NewRecorder()
				f0.handler.ServeHTTP(rec, req)
				strangerMayCall := slices.Contains(mc.allow, "stranger")
				switch {
				case state == "registered":
					if rec.Code >= 300 {
						t.Fatalf("as the registered %s: %d %s, want success", persona, rec.Code, rec.Body)
					}
				case strangerMayCall:
					// Anyone may call it; it must not have been the old user.
					if me := newGuestOf(t, f0.handler, rec); me == caller.UserID {
						t.Fatalf("the %s cookie still acts as user %d", state, caller.UserID)
					}
				case rec.Code < 400:
					t.Fatalf("the %s cookie of %s succeeded: %d %s", state, persona, rec.Code, rec.Body)
				case state == "logged_out" && !strings.Contains(rec.Body.String(), `"code":"`+expectedCode(mc, "stranger")+`"`):
					t.Fatalf("the logged-out %s got %d %s, want a stranger's %s", persona, rec.Code, rec.Body, expectedCode(mc, "stranger"))
				}
			})
		}
	}
}

// newGuestOf is the user a response's fresh cookie names (0 when none).
func newGuestOf(t *testing.T, handler http.Handler, rec *httptest.ResponseRecorder) int64 {
	t.Helper()
	if len(rec.Result().Cookies()) == 0 {
		return 0
	}
	var me struct{ ID int64 }
	req := httptest.NewRequest("GET", "/api/me", nil)
	for _, c := range rec.Result().Cookies() {
		req.AddCookie(c)
	}
	again := httptest.NewRecorder()
	handler.ServeHTTP(again, req)
	_ = json.Unmarshal(again.Body.Bytes(), &me)
	return me.ID
}
