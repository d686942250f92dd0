package webui_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/adventure-table/adventure-table/auth"
	"github.com/adventure-table/adventure-table/gameplay/table/tabletest"
	"github.com/adventure-table/adventure-table/webui"
)

// Rotating the server secret logs nobody out: a cookie signed with the
// previous secret still names its user, and the answer re-signs it with
// the current one. Without the previous secret it is a stranger's cookie.
func TestSecretRotationKeepsSessions(t *testing.T) {
	newSecret := []byte("the-new-secret-the-new-secret-the-new-secret")
	rotated := newFixture(t, func(o *webui.Options) { o.Secret, o.PreviousSecret = newSecret, testSecret })
	ann := tabletest.NewUser(t, rotated.services.Table, "Ann")
	me := func(h http.Handler, cookie string) (int64, []*http.Cookie) {
		req := httptest.NewRequest("GET", "/api/me", nil)
		req.AddCookie(&http.Cookie{Name: auth.BrowserCookieName, Value: cookie})
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		var v struct{ ID int64 }
		_ = json.Unmarshal(rec.Body.Bytes(), &v)
		return v.ID, rec.Result().Cookies()
	}
	id, cookies := me(rotated.handler, auth.SignSession(testSecret, ann.UserID, 0))
	if id != ann.UserID || len(cookies) != 1 {
		t.Fatalf("old cookie: user %d (want %d), cookies %v", id, ann.UserID, cookies)
	}
	if _, ok := auth.VerifySession(newSecret, cookies[0].Value); !ok {
		t.Fatalf("the re-signed cookie %q is not the current secret's", cookies[0].Value)
	}
	current := cookies[0].Value
	if id, cookies := me(rotated.handler, current); id != ann.UserID || len(cookies) != 0 {
		t.Fatalf("re-signed cookie: user %d, cookies %v", id, cookies)
	}
	// A session cookie (v3) signed with the previous secret is signed again
	// too, and names the same session.
	token, _ := auth.VerifySession(newSecret, current)
	id, cookies = me(rotated.handler, auth.SignToken(testSecret, token.Token))
	if again, ok := auth.VerifySession(newSecret, cookies[0].Value); id != ann.UserID || len(cookies) != 1 || !ok || again.Token != token.Token {
		t.Fatalf("a v3 cookie of the previous secret: user %d, cookies %v", id, cookies)
	}
	dropped := newFixtureOn(t, rotated.store, func(o *webui.Options) { o.Secret = newSecret })
	if id, _ := me(dropped.handler, auth.SignSession(testSecret, ann.UserID, 0)); id == ann.UserID {
		t.Fatal("a cookie of an unknown secret was believed")
	}
}
