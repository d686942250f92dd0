package webui_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/adventure-table/adventure-table/auth"
	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/gameplay/table/tabletest"
	"github.com/adventure-table/adventure-table/webui"
)

var testSecret = []byte("test-secret-test-secret-test-secret!")

func withSecret(o *webui.Options) { o.Secret = testSecret }

// cookieFor is the browser cookie of a caller.
func cookieFor(c table.Caller) *http.Cookie {
	return &http.Cookie{Name: auth.BrowserCookieName, Value: auth.SignUserID(testSecret, c.UserID)}
}

// call sends a request as caller (by its signed cookie).
func call(t *testing.T, h http.Handler, c table.Caller, method, path, body string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.UserID != 0 {
		req.AddCookie(cookieFor(c))
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

type matrixCase struct {
	route   string
	prepare func(t *testing.T, f tabletest.Fixture)
	request func(f tabletest.Fixture) (method, path, body string)
	allow   []string          // personas that succeed
	deny    string            // code for the other room members
	special map[string]string // persona -> code, overriding the defaults
}

// TestAuthorizationMatrix runs every table route as every kind of person:
// owner, DM-key holder, member with a seat, member without, revoked member
// and a stranger from another room. Each cell is a fresh fixture.
// authorizationCases are the table routes and who may call each, for the
// authorization matrices.
func authorizationCases(svc *table.Service) []matrixCase {
	p := func(format string, a ...any) string { return fmt.Sprintf(format, a...) }
	startLobby := func(t *testing.T, f tabletest.Fixture) {
		_, err := svc.StartSession(ctx, f.Owner, f.LobbyID)
		tabletest.Must(t, err)
	}
	everyone := []string{"owner", "dm_key", "seated", "unseated"}
	return []matrixCase{
		{route: "GET /api/rooms/{id}", allow: everyone,
			request: func(f tabletest.Fixture) (string, string, string) { return "GET", p("/api/rooms/%d", f.RoomID), "" }},
		{route: "PATCH /api/rooms/{id} name", allow: []string{"owner"}, deny: "room_owner_required",
			request: func(f tabletest.Fixture) (string, string, string) {
				return "PATCH", p("/api/rooms/%d", f.RoomID), `{"name":"Renamed"}`
			}},
		{route: "PATCH /api/rooms/{id} active campaign", allow: []string{"owner", "dm_key"}, deny: "room_authority_required",
			request: func(f tabletest.Fixture) (string, string, string) {
				return "PATCH", p("/api/rooms/%d", f.RoomID), p(`{"active_campaign_id":%d}`, f.SpareCampaignID)
			}},
		{route: "POST /api/rooms/{id}/invite/rotate", allow: []string{"owner"}, deny: "room_owner_required",
			request: func(f tabletest.Fixture) (string, string, string) {
				return "POST", p("/api/rooms/%d/invite/rotate", f.RoomID), ""
			}},
		{route: "POST /api/rooms/{id}/members/{access_id}/revoke", allow: []string{"owner"}, deny: "room_owner_required",
			request: func(f tabletest.Fixture) (string, string, string) {
				return "POST", p("/api/rooms/%d/members/%d/revoke", f.RoomID, f.UnseatedAccess), ""
			}},
		{route: "PUT /api/rooms/{id}/members/{access_id}/authority", allow: []string{"owner"}, deny: "room_owner_required",
			request: func(f tabletest.Fixture) (string, string, string) {
				return "PUT", p("/api/rooms/%d/members/%d/authority", f.RoomID, f.UnseatedAccess), `{"authority":"dm"}`
			}},
		{route: "POST /api/rooms/join", allow: []string{"owner", "dm_key", "seated", "unseated", "stranger"},
			request: func(f tabletest.Fixture) (string, string, string) {
				return "POST", "/api/rooms/join", p(`{"invite_code":%q}`, f.InviteCode)
			}},
		{route: "POST /api/rooms/{id}/campaigns", allow: []string{"owner", "dm_key"}, deny: "room_authority_required",
			request: func(f tabletest.Fixture) (string, string, string) {
				return "POST", p("/api/rooms/%d/campaigns", f.RoomID), `{"name":"Another"}`
			}},
		{route: "PATCH /api/campaigns/{id}", allow: []string{"owner", "dm_key"}, deny: "room_authority_required",
			request: func(f tabletest.Fixture) (string, string, string) {
				return "PATCH", p("/api/campaigns/%d", f.CampaignID), `{"name":"Renamed"}`
			}},
		{route: "GET /api/campaigns/{id}/world", allow: everyone,
			request: func(f tabletest.Fixture) (string, string, string) {
				return "GET", p("/api/campaigns/%d/world", f.CampaignID), ""
			}},
		{route: "PUT /api/campaigns/{id}/world", allow: []string{"owner", "dm_key"}, deny: "room_authority_required",
			request: func(f tabletest.Fixture) (string, string, string) {
				return "PUT", p("/api/campaigns/%d/world", f.CampaignID), `{"premise":"A drowned city.","npcs":[{"name":"Vell","stat_block":"AC 15"}]}`
			}},
		{route: "POST /api/campaigns/{id}/seats", allow: []string{"owner", "dm_key"}, deny: "room_authority_required",
			request: func(f tabletest.Fixture) (string, string, string) {
				return "POST", p("/api/campaigns/%d/seats", f.CampaignID), `{"label":"Player 3"}`
			}},
		{route: "POST /api/seats/{id}/assign", allow: []string{"owner", "dm_key"}, deny: "room_authority_required",
			request: func(f tabletest.Fixture) (string, string, string) {
				return "POST", p("/api/seats/%d/assign", f.FreeSeatID), p(`{"access_id":%d}`, f.UnseatedAccess)
			}},
		{route: "POST /api/seats/{id}/unassign", allow: []string{"owner", "dm_key", "seated"}, deny: "room_authority_required",
			request: func(f tabletest.Fixture) (string, string, string) {
				return "POST", p("/api/seats/%d/unassign", f.PlayerSeatID), ""
			}},
		{route: "POST /api/seats/{id}/claim", allow: everyone,
			request: func(f tabletest.Fixture) (string, string, string) {
				return "POST", p("/api/seats/%d/claim", f.FreeSeatID), ""
			}},
		{route: "PUT /api/seats/{id}/character", allow: []string{"seated"}, deny: "seat_controller_required",
			request: func(f tabletest.Fixture) (string, string, string) {
				return "PUT", p("/api/seats/%d/character", f.PlayerSeatID), p(`{"character_id":%d}`, f.CharacterID)
			}},
		{route: "GET /api/characters/{id}", allow: []string{"seated"}, deny: "not_found",
			special: map[string]string{"revoked": "not_found"},
			request: func(f tabletest.Fixture) (string, string, string) {
				return "GET", p("/api/characters/%d", f.CharacterID), ""
			}},
		{route: "PUT /api/characters/{id}", allow: []string{"seated"}, deny: "not_found",
			special: map[string]string{"revoked": "not_found"},
			request: func(f tabletest.Fixture) (string, string, string) {
				return "PUT", p("/api/characters/%d", f.CharacterID), characterJSON("Mira II")
			}},
		{route: "GET /api/characters/{id}/export", allow: []string{"seated"}, deny: "not_found",
			special: map[string]string{"revoked": "not_found"},
			request: func(f tabletest.Fixture) (string, string, string) {
				return "GET", p("/api/characters/%d/export", f.CharacterID), ""
			}},
		{route: "POST /api/campaigns/{id}/sessions", allow: []string{"owner", "dm_key"}, deny: "room_authority_required",
			request: func(f tabletest.Fixture) (string, string, string) {
				return "POST", p("/api/campaigns/%d/sessions", f.SpareCampaignID), ""
			}},
		{route: "GET /api/sessions/{id}", allow: everyone,
			request: func(f tabletest.Fixture) (string, string, string) { return "GET", p("/api/sessions/%d", f.LobbyID), "" }},
		{route: "POST /api/sessions/{id}/start", allow: []string{"owner"}, deny: "not_current_dm",
			request: func(f tabletest.Fixture) (string, string, string) {
				return "POST", p("/api/sessions/%d/start", f.LobbyID), ""
			}},
		{route: "POST /api/sessions/{id}/start (DM-key holder is DM)", allow: []string{"dm_key"}, deny: "not_current_dm",
			prepare: func(t *testing.T, f tabletest.Fixture) {
				_, err := svc.AssignSeat(ctx, f.Owner, f.DMSeatID, f.DMKeyAccess)
				tabletest.Must(t, err)
			},
			request: func(f tabletest.Fixture) (string, string, string) {
				return "POST", p("/api/sessions/%d/start", f.LobbyID), ""
			}},
		{route: "POST /api/sessions/{id}/late-join", allow: []string{"owner"}, deny: "not_current_dm",
			prepare: func(t *testing.T, f tabletest.Fixture) {
				startLobby(t, f)
				_, err := svc.AssignSeat(ctx, f.Owner, f.FreeSeatID, f.UnseatedAccess)
				tabletest.Must(t, err)
				_, err = svc.SetSeatCharacter(ctx, f.Unseated, f.FreeSeatID, &f.UnseatedCharacterID)
				tabletest.Must(t, err)
			},
			request: func(f tabletest.Fixture) (string, string, string) {
				return "POST", p("/api/sessions/%d/late-join", f.LobbyID), p(`{"seat_id":%d}`, f.FreeSeatID)
			}},
		{route: "POST /api/sessions/{id}/end", allow: []string{"owner"}, deny: "not_current_dm", prepare: startLobby,
			request: func(f tabletest.Fixture) (string, string, string) {
				return "POST", p("/api/sessions/%d/end", f.LobbyID), ""
			}},
		{route: "POST /api/sessions/{id}/abandon", allow: []string{"owner"}, deny: "not_current_dm", prepare: startLobby,
			request: func(f tabletest.Fixture) (string, string, string) {
				return "POST", p("/api/sessions/%d/abandon", f.LobbyID), ""
			}},
		{route: "POST /api/sessions/{id}/abandon (owner escape hatch, DM-key holder is DM)", allow: []string{"owner", "dm_key"}, deny: "not_current_dm",
			prepare: func(t *testing.T, f tabletest.Fixture) {
				_, err := svc.AssignSeat(ctx, f.Owner, f.DMSeatID, f.DMKeyAccess)
				tabletest.Must(t, err)
				_, err = svc.StartSession(ctx, f.DMKey, f.LobbyID)
				tabletest.Must(t, err)
			},
			request: func(f tabletest.Fixture) (string, string, string) {
				return "POST", p("/api/sessions/%d/abandon", f.LobbyID), ""
			}},
	}
}

func TestAuthorizationMatrix(t *testing.T) {
	f0 := newFixture(t, withSecret)
	svc := f0.services.Table
	cases := authorizationCases(svc)
	for _, mc := range cases {
		t.Run(mc.route, func(t *testing.T) {
			// Each route's personas get fixtures of their own on the shared
			// service, so routes run side by side.
			t.Parallel()
			for _, persona := range []string{"owner", "dm_key", "seated", "unseated", "revoked", "stranger"} {
				t.Run(persona, func(t *testing.T) {
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
					method, path, body := mc.request(f)
					rec := call(t, f0.handler, caller, method, path, body)
					want := expectedCode(mc, persona)
					if want == "" {
						if rec.Code >= 300 {
							t.Fatalf("%s as %s: got %d %s, want success", mc.route, persona, rec.Code, rec.Body)
						}
						return
					}
					if rec.Code < 400 || !strings.Contains(rec.Body.String(), `"code":"`+want+`"`) {
						t.Fatalf("%s as %s: got %d %s, want %s", mc.route, persona, rec.Code, rec.Body, want)
					}
				})
			}
		})
	}
}

func expectedCode(mc matrixCase, persona string) string {
	for _, a := range mc.allow {
		if a == persona {
			return ""
		}
	}
	if code, ok := mc.special[persona]; ok {
		return code
	}
	switch persona {
	case "revoked":
		return "room_access_revoked"
	case "stranger":
		return "not_found"
	}
	return mc.deny
}

func characterJSON(name string) string {
	return fmt.Sprintf(`{"name":%q,"level":2,"abilities":{"str":10,"dex":12,"con":14,"int":8,"wis":10,"cha":16},
		"skill_proficiencies":["persuasion"],"skill_expertise":[],"hp":{"max":15,"current":15,"temp":0},
		"conditions":[],"resources":[],"biography":"","roleplay_guidance":""}`, name)
}

// characterWith is characterJSON(name) with more members (fields: JSON
// object members, no braces).
func characterWith(name, fields string) string {
	return strings.TrimSuffix(strings.TrimSpace(characterJSON(name)), "}") + "," + fields + "}"
}

// createCharacter posts body as owner's new character and decodes the answer.
func createCharacter(t *testing.T, f fixture, owner table.Caller, body string) table.CharacterView {
	t.Helper()
	rec := call(t, f.handler, owner, "POST", "/api/characters", body)
	if rec.Code != 201 {
		t.Fatalf("create: got %d %s", rec.Code, rec.Body)
	}
	var v table.CharacterView
	tabletest.Must(t, json.Unmarshal(rec.Body.Bytes(), &v))
	return v
}

// refusedNaming: the answer is character_invalid naming field.
func refusedNaming(rec *httptest.ResponseRecorder, field string) bool {
	return rec.Code == 400 && strings.Contains(rec.Body.String(), `"code":"character_invalid"`) && strings.Contains(rec.Body.String(), `"`+field+`"`)
}

// TestGuestCookie: the first visit creates a guest and a signed, HttpOnly,
// SameSite=Lax cookie; the cookie brings the same user back; a forged one
// gets a new guest.
func TestGuestCookie(t *testing.T) {
	f := newFixture(t, withSecret)
	rec := call(t, f.handler, table.Caller{}, "GET", "/api/me", "")
	if rec.Code != 200 {
		t.Fatalf("got %d %s", rec.Code, rec.Body)
	}
	cookies := rec.Result().Cookies()
	if len(cookies) != 1 || cookies[0].Name != auth.BrowserCookieName || !cookies[0].HttpOnly || cookies[0].SameSite != http.SameSiteLaxMode {
		t.Fatalf("got cookies %+v, want one HttpOnly SameSite=Lax session cookie", cookies)
	}
	var me struct{ ID int64 }
	mustJSON(t, rec, &me)
	if sess, ok := auth.VerifySession(testSecret, cookies[0].Value); !ok || sess.Format != 3 || me.ID == 0 {
		t.Fatalf("cookie %q is not a signed session token (%s)", cookies[0].Value, rec.Body)
	}
	id := me.ID
	req := httptest.NewRequest("PATCH", "/api/me", strings.NewReader(`{"display_name":"Ann"}`))
	req.Header.Set("Content-Type", "application/json")
	req.AddCookie(cookies[0])
	again := httptest.NewRecorder()
	f.handler.ServeHTTP(again, req)
	if again.Code != 200 || len(again.Result().Cookies()) != 0 || !strings.Contains(again.Body.String(), fmt.Sprintf(`{"id":%d,"display_name":"Ann"}`, id)) {
		t.Fatalf("returning visit: %d %s cookies %v", again.Code, again.Body, again.Result().Cookies())
	}
	req = httptest.NewRequest("GET", "/api/me", nil)
	req.AddCookie(&http.Cookie{Name: auth.BrowserCookieName, Value: fmt.Sprintf("v1.%d.forged", id)})
	forged := httptest.NewRecorder()
	f.handler.ServeHTTP(forged, req)
	if strings.Contains(forged.Body.String(), `"display_name":"Ann"`) || len(forged.Result().Cookies()) != 1 {
		t.Fatalf("a forged cookie reached Ann's account: %s", forged.Body)
	}
}

func TestBadBodies(t *testing.T) {
	f := newFixture(t, withSecret)
	u := tabletest.NewUser(t, f.services.Table, "Ann")
	for _, body := range []string{`{`, `{"name":"x","extra":1}`, `{"name":"x"} {"name":"y"}`, `[]`} {
		rec := call(t, f.handler, u, "POST", "/api/rooms", body)
		if rec.Code != 400 || !strings.Contains(rec.Body.String(), `"code":"invalid_request"`) {
			t.Fatalf("body %q: got %d %s, want 400 invalid_request", body, rec.Code, rec.Body)
		}
	}
	rec := call(t, f.handler, u, "GET", "/api/rooms", "")
	if !strings.Contains(rec.Body.String(), `"rooms":[]`) {
		t.Fatalf("bad bodies created rooms: %s", rec.Body)
	}
	rec = call(t, f.handler, u, "GET", "/api/rooms/abc", "")
	if rec.Code != 404 {
		t.Fatalf("non-numeric id: got %d", rec.Code)
	}
}

// TestCrossOriginWriteRefused: a browser on another site cannot post with
// the user's cookie.
func TestCrossOriginWriteRefused(t *testing.T) {
	f := newFixture(t, withSecret)
	u := tabletest.NewUser(t, f.services.Table, "Ann")
	req := httptest.NewRequest("POST", "/api/rooms", strings.NewReader(`{"name":"Evil"}`))
	req.Header.Set("Origin", "https://evil.example")
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	req.AddCookie(&http.Cookie{Name: auth.BrowserCookieName, Value: auth.SignUserID(testSecret, u.UserID)})
	rec := httptest.NewRecorder()
	f.handler.ServeHTTP(rec, req)
	if rec.Code != 403 || !strings.Contains(rec.Body.String(), "origin_forbidden") {
		t.Fatalf("got %d %s, want 403 origin_forbidden", rec.Code, rec.Body)
	}
}
