package webui_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/gameplay/table/tabletest"
	"github.com/adventure-table/adventure-table/models/modelstest"
)

// TestEveryRouteDuringOutage takes the database away for real (on
// PostgreSQL the connections are cut and new ones refused; on SQLite the
// store is closed) and calls every documented route as a signed-in
// member: none answers 500; every 5xx is 503 database_unavailable with
// Retry-After. On PostgreSQL the database then comes back and the same
// server answers again without a restart.
func TestEveryRouteDuringOutage(t *testing.T) {
	store, outage := modelstest.MustOpenCuttable(t)
	f := newFixtureOn(t, store, withSecret)
	tf := tabletest.New(t, f.services.Table)
	_, err := f.services.Table.StartSession(ctx, tf.Owner, tf.LobbyID)
	tabletest.Must(t, err)
	var doc struct {
		Paths map[string]map[string]any `json:"paths"`
	}
	rec := call(t, f.handler, tf.Owner, "GET", "/api/openapi.json", "")
	if err := json.Unmarshal(rec.Body.Bytes(), &doc); err != nil {
		t.Fatalf("openapi: %v", err)
	}
	roomPath := fmt.Sprintf("/api/rooms/%d", tf.RoomID)

	if rec := call(t, f.handler, tf.Owner, "GET", roomPath, ""); rec.Code != http.StatusOK {
		t.Fatalf("before the outage: %d %s", rec.Code, rec.Body)
	}
	outage.Cut()
	param := regexp.MustCompile(`\{\w+\}`)
	unavailable := 0
	for path, ops := range doc.Paths {
		for method := range ops {
			url := param.ReplaceAllString(path, "1")
			body := ""
			if method != "get" && method != "delete" {
				body = "{}"
			}
			rec := call(t, f.handler, tf.Owner, strings.ToUpper(method), url, body)
			switch {
			case rec.Code == http.StatusServiceUnavailable:
				if !strings.Contains(rec.Body.String(), `"database_unavailable"`) || rec.Header().Get("Retry-After") == "" {
					t.Errorf("%s %s: 503 without database_unavailable and Retry-After: %s %v", method, path, rec.Body, rec.Header())
				}
				unavailable++
			case rec.Code >= 500:
				t.Errorf("%s %s during the outage: %d %s", method, path, rec.Code, rec.Body)
			}
		}
	}
	if unavailable < len(doc.Paths)/2 {
		t.Fatalf("only %d routes said the database is unavailable", unavailable)
	}
	if !outage.CanRestore() {
		return
	}
	outage.Restore()
	if rec := call(t, f.handler, tf.Owner, "GET", roomPath, ""); rec.Code != http.StatusOK {
		t.Fatalf("after the database came back: %d %s", rec.Code, rec.Body)
	}
	if _, err := f.services.Table.PostMessage(ctx, tf.Owner, tf.LobbyID, table.MessageInput{Kind: "say", Text: "Back again."}); err != nil {
		t.Fatalf("writing after the database came back: %v", err)
	}
}
