package webui_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/adventure-table/adventure-table/auth"
	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/gameplay/table/tabletest"
)

// startedTable builds the fixture room and starts its session.
func startedTable(t *testing.T, f fixture) tabletest.Fixture {
	t.Helper()
	tf := tabletest.New(t, f.services.Table)
	_, err := f.services.Table.StartSession(ctx, tf.Owner, tf.LobbyID)
	tabletest.Must(t, err)
	return tf
}

func TestLiveRoutes(t *testing.T) {
	f := newFixture(t, withSecret)
	tf := startedTable(t, f)
	h := f.handler
	p := fmt.Sprintf

	rec := call(t, h, tf.Seated, "POST", p("/api/sessions/%d/input", tf.LobbyID), `{"text":"/whisper I keep the ring","idempotency_key":"abc"}`)
	if rec.Code != 201 || !strings.Contains(rec.Body.String(), `"visibility":"actor_and_dm"`) {
		t.Fatalf("whisper: %d %s", rec.Code, rec.Body)
	}
	rec = call(t, h, tf.Seated, "POST", p("/api/sessions/%d/input", tf.LobbyID), `{"text":"/dance"}`)
	if rec.Code != 400 || !strings.Contains(rec.Body.String(), `"code":"unknown_command"`) || !strings.Contains(rec.Body.String(), `"/whisper"`) {
		t.Fatalf("unknown command: %d %s", rec.Code, rec.Body)
	}
	// The whisper reaches the DM, not a spectator, on the list route...
	for _, tt := range []struct {
		who  table.Caller
		sees bool
	}{{tf.Owner, true}, {tf.Seated, true}, {tf.DMKey, false}} {
		rec = call(t, h, tt.who, "GET", p("/api/sessions/%d/events?after=0", tf.LobbyID), "")
		if rec.Code != 200 || strings.Contains(rec.Body.String(), "keep the ring") != tt.sees {
			t.Fatalf("events as %d: %d, sees=%v, want %v: %s", tt.who.UserID, rec.Code, !tt.sees, tt.sees, rec.Body)
		}
	}
	// ...and on the wait route; a timeout answers 200 with no events.
	rec = call(t, h, tf.DMKey, "GET", p("/api/sessions/%d/events/wait?after=0&timeout=1", tf.LobbyID), "")
	var page table.EventPage
	json.Unmarshal(rec.Body.Bytes(), &page)
	if rec.Code != 200 || strings.Contains(rec.Body.String(), "keep the ring") || page.Cursor == 0 {
		t.Fatalf("wait as spectator: %d %s", rec.Code, rec.Body)
	}
	rec = call(t, h, tf.DMKey, "GET", p("/api/sessions/%d/events/wait?after=%d&timeout=1", tf.LobbyID, page.Cursor), "")
	if rec.Code != 200 || !strings.Contains(rec.Body.String(), `"events":[]`) {
		t.Fatalf("timeout: %d %s", rec.Code, rec.Body)
	}
	for _, bad := range []string{"timeout=0", "timeout=61", "after=x", "limit=500"} {
		path := p("/api/sessions/%d/events/wait?%s", tf.LobbyID, bad)
		if strings.HasPrefix(bad, "limit") {
			path = p("/api/sessions/%d/events?%s", tf.LobbyID, bad)
		}
		if rec = call(t, h, tf.Owner, "GET", path, ""); rec.Code != 400 {
			t.Fatalf("%s: got %d, want 400", bad, rec.Code)
		}
	}
	rec = call(t, h, tf.Stranger, "GET", p("/api/sessions/%d/events?after=0", tf.LobbyID), "")
	if rec.Code != 404 {
		t.Fatalf("stranger reads events: %d", rec.Code)
	}
}

func TestStageImageRoutes(t *testing.T) {
	f := newFixture(t, withSecret)
	tf := startedTable(t, f)
	h := f.handler
	var b bytes.Buffer
	png.Encode(&b, image.NewGray(image.Rect(0, 0, 8, 8)))
	req := httptest.NewRequest("POST", fmt.Sprintf("/api/sessions/%d/stage/images", tf.LobbyID), bytes.NewReader(b.Bytes()))
	req.Header.Set("Content-Type", "image/jpeg") // the client's claim is ignored
	rec := httptest.NewRecorder()
	addCookie(req, tf.Owner)
	h.ServeHTTP(rec, req)
	var img table.StageImageView
	json.Unmarshal(rec.Body.Bytes(), &img)
	if rec.Code != 201 || img.MimeType != "image/png" {
		t.Fatalf("upload: %d %s", rec.Code, rec.Body)
	}
	rec = call(t, h, tf.Owner, "PUT", fmt.Sprintf("/api/sessions/%d/stage", tf.LobbyID), fmt.Sprintf(`{"text":"Gate","image_id":%d,"revision":0}`, img.ID))
	if rec.Code != 200 || !strings.Contains(rec.Body.String(), img.URL) {
		t.Fatalf("set stage: %d %s", rec.Code, rec.Body)
	}
	rec = call(t, h, tf.Owner, "PUT", fmt.Sprintf("/api/sessions/%d/stage", tf.LobbyID), `{"text":"Old tab","image_id":null,"revision":0}`)
	if rec.Code != 409 || !strings.Contains(rec.Body.String(), "stage_revision_conflict") {
		t.Fatalf("stale stage: %d %s", rec.Code, rec.Body)
	}
	rec = call(t, h, tf.Seated, "GET", img.URL, "")
	if rec.Code != 200 || rec.Header().Get("Content-Type") != "image/png" || rec.Header().Get("X-Content-Type-Options") != "nosniff" || !bytes.Equal(rec.Body.Bytes(), b.Bytes()) {
		t.Fatalf("member reads image: %d %v", rec.Code, rec.Header())
	}
	if rec = call(t, h, tf.Stranger, "GET", img.URL, ""); rec.Code != 404 {
		t.Fatalf("stranger reads image: %d", rec.Code)
	}
	if rec = call(t, h, table.Caller{}, "GET", img.URL, ""); rec.Code != 404 {
		t.Fatalf("anonymous reads image: %d", rec.Code)
	}
	big := make([]byte, table.MaxStageImageBytes+1)
	copy(big, b.Bytes())
	req = httptest.NewRequest("POST", fmt.Sprintf("/api/sessions/%d/stage/images", tf.LobbyID), bytes.NewReader(big))
	addCookie(req, tf.Owner)
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusRequestEntityTooLarge || !strings.Contains(rec.Body.String(), "stage_image_too_large") {
		t.Fatalf("10 MiB + 1: %d %s", rec.Code, rec.Body)
	}
}

// addCookie adds the session cookie of c under the name the request's
// transport reads (__Host-at_session over TLS).
func addCookie(req *http.Request, c table.Caller) {
	cookie := cookieFor(c)
	if req.URL.Scheme == "https" {
		cookie.Name = auth.SecureBrowserCookieName
	}
	req.AddCookie(cookie)
}

// TestLongPollsLoggedQuietly: a long poll that answered normally is not an
// INFO line (thousands a second on a busy server); one that failed is.
func TestLongPollsLoggedQuietly(t *testing.T) {
	f := newFixture(t, withSecret)
	tf := startedTable(t, f)
	path := fmt.Sprintf("/api/sessions/%d/events/wait", tf.LobbyID)
	if rec := call(t, f.handler, tf.Owner, "GET", path+"?after=0&timeout=1", ""); rec.Code != 200 {
		t.Fatalf("wait: %d %s", rec.Code, rec.Body)
	}
	if logs := f.logs.String(); strings.Contains(logs, `"path":"`+path+`"`) {
		t.Fatalf("a normal long poll was logged at INFO:\n%s", logs)
	}
	if rec := call(t, f.handler, tf.Owner, "GET", path+"?after=0&timeout=0", ""); rec.Code != 400 {
		t.Fatalf("bad wait: %d", rec.Code)
	}
	if logs := f.logs.String(); !strings.Contains(logs, `"path":"`+path+`","status":400`) {
		t.Fatalf("a failed long poll was not logged:\n%s", logs)
	}
}
