package webui_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/gameplay/table/tabletest"
)

// TestFirstRunRoutes: a table in one request, its invite previewed, a
// friend seated with a quick character in one request, and the refusals'
// codes over HTTP.
func TestFirstRunRoutes(t *testing.T) {
	f := newFixture(t, withSecret)
	svc := f.services.Table
	owner := tabletest.NewUser(t, svc, "Alice")
	friend := tabletest.NewUser(t, svc, "Guest")

	rec := call(t, f.handler, owner, "POST", "/api/tables", `{"name":"Friday","seat_labels":["One"]}`)
	if rec.Code != 201 {
		t.Fatalf("create table: %d %s", rec.Code, rec.Body)
	}
	var tv table.TableView
	tabletest.Must(t, json.Unmarshal(rec.Body.Bytes(), &tv))
	if tv.InviteCode == "" || tv.Session.Status != "lobby" || !tv.Room.AllowSelfClaim {
		t.Fatalf("table %+v", tv)
	}

	rec = call(t, f.handler, friend, "GET", "/api/characters/templates", "")
	if rec.Code != 200 || !strings.Contains(rec.Body.String(), `"key":"cleric"`) {
		t.Fatalf("templates: %d %s", rec.Code, rec.Body)
	}
	rec = call(t, f.handler, friend, "GET", "/api/invites/"+tv.InviteCode, "")
	if rec.Code != 200 || !strings.Contains(rec.Body.String(), `"room_name":"Friday"`) || !strings.Contains(rec.Body.String(), `"free_seats":1`) {
		t.Fatalf("preview: %d %s", rec.Code, rec.Body)
	}
	if rec = call(t, f.handler, friend, "GET", "/api/invites/nope", ""); rec.Code != 404 || !strings.Contains(rec.Body.String(), `"invite_code_invalid"`) {
		t.Fatalf("bad invite preview: %d %s", rec.Code, rec.Body)
	}

	sit := func(c table.Caller, body string) (int, string) {
		rec := call(t, f.handler, c, "POST", "/api/tables/sit", body)
		return rec.Code, rec.Body.String()
	}
	if code, body := sit(friend, fmt.Sprintf(`{"invite_code":%q,"display_name":"","template":"fighter"}`, tv.InviteCode)); code != 400 || !strings.Contains(body, `"display_name_invalid"`) {
		t.Fatalf("bad name: %d %s", code, body)
	}
	code, body := sit(friend, fmt.Sprintf(`{"invite_code":%q,"display_name":"Bob","template":"fighter"}`, tv.InviteCode))
	if code != 200 {
		t.Fatalf("sit: %d %s", code, body)
	}
	var j table.JoinView
	tabletest.Must(t, json.Unmarshal([]byte(body), &j))
	if j.SeatID == 0 || j.Session == nil || j.Session.ID != tv.Session.ID {
		t.Fatalf("joined %+v", j)
	}
	late := tabletest.NewUser(t, svc, "Late")
	if code, body := sit(late, fmt.Sprintf(`{"invite_code":%q,"display_name":"Carl","template":"rogue"}`, tv.InviteCode)); code != 409 || !strings.Contains(body, `"table_full"`) {
		t.Fatalf("full table: %d %s", code, body)
	}
}
