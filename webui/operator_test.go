package webui_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/adventure-table/adventure-table/auth"
	"github.com/adventure-table/adventure-table/gameplay"
	"github.com/adventure-table/adventure-table/gameplay/accounts"
	"github.com/adventure-table/adventure-table/gameplay/analytics"
	"github.com/adventure-table/adventure-table/gameplay/table/tabletest"
	"github.com/adventure-table/adventure-table/models/modelstest"
	"github.com/adventure-table/adventure-table/webui"
)

// TestOperatorDashboardLocal: in local mode the dashboard is the person's
// at this machine (a loopback address), not a friend's on the network.
func TestOperatorDashboardLocal(t *testing.T) {
	f := newFixture(t, withSecret)
	me := tabletest.NewUser(t, f.services.Table, "Host")
	f.services.Analytics.Count(analytics.MetricVisit, "home", 3)
	if err := f.services.Analytics.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	get := func(path, from string) *httptest.ResponseRecorder {
		req := httptest.NewRequest("GET", path, nil)
		req.RemoteAddr = from
		req.AddCookie(cookieFor(me))
		rec := httptest.NewRecorder()
		f.handler.ServeHTTP(rec, req)
		return rec
	}
	rec := get("/api/operator/stats?days=7", "127.0.0.1:50000")
	var rep analytics.Report
	if rec.Code != 200 || json.Unmarshal(rec.Body.Bytes(), &rep) != nil || len(rep.Days) != 7 || rep.Days[6].Visits != 3 {
		t.Fatalf("from this machine: %d %s", rec.Code, rec.Body)
	}
	rec = get("/api/operator/stats.csv?days=2", "[::1]:50000")
	if rec.Code != 200 || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/csv") ||
		!strings.Contains(rec.Header().Get("Content-Disposition"), "attachment") || strings.Count(rec.Body.String(), "\n") != 3 {
		t.Fatalf("CSV: %d %v %q", rec.Code, rec.Header(), rec.Body)
	}
	if rec = get("/api/operator/stats", "192.168.1.20:50000"); rec.Code != 403 || !strings.Contains(rec.Body.String(), `"operator_required"`) {
		t.Fatalf("a friend on the network: %d %s", rec.Code, rec.Body)
	}
	if rec = get("/api/operator/stats?days=400", "127.0.0.1:50000"); rec.Code != 400 || !strings.Contains(rec.Body.String(), `"invalid_request"`) {
		t.Fatalf("400 days: %d %s", rec.Code, rec.Body)
	}
}

// TestOperatorDashboardHosted: hosted, only the accounts named in
// AT_ADMIN_EMAILS read it (from the account's row, whatever the address);
// another account and a guest get 403 operator_required.
func TestOperatorDashboardHosted(t *testing.T) {
	store := modelstest.MustOpen(t)
	services := gameplay.New(store, gameplay.Options{Mode: "hosted", AdminEmails: []string{" Ops@Example.com "}})
	srv, err := webui.New(webui.Options{Services: services, Version: "test", Secret: testSecret, App: testApp, Accounts: true})
	if err != nil {
		t.Fatal(err)
	}
	h := checkContract(t, srv)
	// account is the cookie of a browser session of a new guest, registered
	// with email unless it is empty.
	account := func(email string) *http.Cookie {
		sess, err := services.Accounts.StartGuest(ctx, accounts.Client{})
		if err != nil {
			t.Fatal(err)
		}
		if email != "" {
			if sess, err = services.Accounts.Register(ctx, sess.Account.ID, email, "correct horse battery", accounts.Client{}); err != nil {
				t.Fatal(err)
			}
		}
		return &http.Cookie{Name: auth.BrowserCookieName, Value: auth.SignToken(testSecret, sess.Token)}
	}
	for _, tc := range []struct {
		who    string
		cookie *http.Cookie
		status int
	}{{"the operator", account("ops@example.com"), 200}, {"another account", account("player@example.com"), 403}, {"a guest", account(""), 403}} {
		req := httptest.NewRequest("GET", "/api/operator/stats", nil)
		req.RemoteAddr = "127.0.0.1:50000" // this machine counts for nothing when hosted
		req.AddCookie(tc.cookie)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != tc.status {
			t.Errorf("%s: %d %s, want %d", tc.who, rec.Code, rec.Body, tc.status)
		}
		if tc.status == 403 && !strings.Contains(rec.Body.String(), `"operator_required"`) {
			t.Errorf("%s: %s", tc.who, rec.Body)
		}
	}
}
