package webui_test

import (
	"context"
	"encoding/json"
	"fmt"
	"mime"
	"strings"
	"testing"

	"github.com/adventure-table/adventure-table/gameplay/llm/llmtest"
	"github.com/adventure-table/adventure-table/gameplay/narrative"
	"github.com/adventure-table/adventure-table/gameplay/table/tabletest"
)

// TestBundleRoutes: the owner downloads an adventure (with a retried turn)
// and its scenario as bundles that another user imports as new rows of
// their own; the import exports to the same file; refused files change
// nothing. Every answer is checked against the OpenAPI document.
func TestBundleRoutes(t *testing.T) {
	f := newFixture(t, withSecret)
	n := f.services.Narrative
	owner := tabletest.NewUser(t, f.services.Table, "Owner")
	importer := tabletest.NewUser(t, f.services.Table, "Importer")
	fake := llmtest.New(t)
	_, err := n.PutSettings(ctx, owner.UserID, narrative.ProviderSettingsInput{BaseURL: fake.URL(), Model: "fake", ContextBudget: 4000, MaxOutputTokens: 300, Temperature: 0.8, TopP: 0.9})
	tabletest.Must(t, err)
	sc, err := n.CreateScenario(ctx, owner.UserID, narrative.ScenarioInput{Title: "Keep 城堡", Opening: "The gate is shut.",
		StatSchema: narrative.Schema{"player.hp": {Min: 0, Max: 100, Initial: 100}},
		Cards:      []narrative.CardInput{{Title: "Gate", Keys: []string{"gate"}, Entry: "Iron."}}, Scripts: narrative.Scripts{Output: "text"}})
	tabletest.Must(t, err)
	page, err := n.Play(ctx, owner.UserID, sc.ID, narrative.Persona{PersonaName: "Ash"})
	tabletest.Must(t, err)
	adv := page.Adventure.ID
	for _, start := range []func() (*narrative.Turn, error){
		func() (*narrative.Turn, error) {
			return n.StartTurn(ctx, owner.UserID, adv, narrative.TurnInput{Mode: "do", Text: "push the gate"})
		},
		func() (*narrative.Turn, error) { return n.StartRetry(ctx, owner.UserID, adv) },
	} {
		fake.Push(llmtest.Reply{Chunks: []string{"It creaks.\n```state\n{\"player.hp\": -5}\n```"}, FinishReason: "stop"})
		turn, err := start()
		tabletest.Must(t, err)
		turn.Run(context.Background(), func(narrative.Event) {})
	}

	rec := call(t, f.handler, owner, "GET", fmt.Sprintf("/api/adventures/%d/bundle", adv), "")
	if rec.Code != 200 {
		t.Fatalf("export: got %d %s", rec.Code, rec.Body)
	}
	disp, params, err := mime.ParseMediaType(rec.Header().Get("Content-Disposition"))
	if err != nil || disp != "attachment" || params["filename"] != "Keep 城堡.adventure.json" {
		t.Errorf("Content-Disposition %q", rec.Header().Get("Content-Disposition"))
	}
	file := rec.Body.String()
	if !strings.HasPrefix(file, `{"format":"adventure-table.adventure","version":1,"adventure":{`) || strings.Contains(file, `"id"`) ||
		!strings.Contains(file, `"text":"It creaks.","world_state":{"_meta.last_changed.player.hp":2,"player.hp":95}`) {
		t.Errorf("export body %s", file)
	}
	for _, path := range []string{fmt.Sprintf("/api/adventures/%d/bundle", adv), fmt.Sprintf("/api/scenarios/%d/bundle", sc.ID)} {
		if rec := call(t, f.handler, importer, "GET", path, ""); rec.Code != 404 || !strings.Contains(rec.Body.String(), `"code":"not_found"`) {
			t.Errorf("another user's %s: got %d %s, want 404 not_found", path, rec.Code, rec.Body)
		}
	}

	bad := []struct {
		name, path, body, code string
		status                 int
	}{
		{"ErrUnknownField", "/api/adventures/import", strings.Replace(file, `"title":`, `"owner":1,"title":`, 1), "invalid_request", 400},
		{"ErrDuplicateKey", "/api/adventures/import", strings.Replace(file, `"title":"Keep 城堡"`, `"title":"Keep 城堡","title":"Other"`, 1), "invalid_request", 400},
		{"ErrWrongVersion", "/api/adventures/import", strings.Replace(file, `"version":1`, `"version":2`, 1), "import_format_unsupported", 400},
		{"ErrTooBig", "/api/adventures/import", strings.Replace(file, `"premise":"`, `"premise":"`+strings.Repeat("a", narrative.MaxBundleBytes), 1), "invalid_request", 413},
		{"ErrTree", "/api/adventures/import", strings.Replace(file, `"head_branch":1`, `"head_branch":7`, 1), "bundle_invalid", 400},
		{"ErrRules", "/api/adventures/import", strings.Replace(file, `"title":"Keep 城堡"`, `"title":""`, 1), "scenario_invalid", 400},
		{"ErrScenarioVersion", "/api/scenarios/import", `{"format":"adventure-table.scenario","version":3,"scenario":{}}`, "import_format_unsupported", 400},
		{"ErrScenarioUnknownField", "/api/scenarios/import", `{"format":"adventure-table.scenario","version":1,"scenario":{"id":4}}`, "invalid_request", 400},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			rec := call(t, f.handler, importer, "POST", tt.path, tt.body)
			if rec.Code != tt.status || !strings.Contains(rec.Body.String(), `"code":"`+tt.code+`"`) {
				t.Fatalf("got %d %s, want %d %s", rec.Code, rec.Body, tt.status, tt.code)
			}
		})
	}
	if rec := call(t, f.handler, importer, "GET", "/api/adventures", ""); !strings.Contains(rec.Body.String(), `"adventures":[]`) {
		t.Fatalf("refused files created adventures: %s", rec.Body)
	}
	if rec := call(t, f.handler, importer, "GET", "/api/scenarios", ""); !strings.Contains(rec.Body.String(), `"scenarios":[]`) {
		t.Fatalf("refused files created scenarios: %s", rec.Body)
	}

	rec = call(t, f.handler, importer, "POST", "/api/adventures/import", file)
	if rec.Code != 201 {
		t.Fatalf("import: got %d %s", rec.Code, rec.Body)
	}
	var got narrative.AdventurePage
	tabletest.Must(t, json.Unmarshal(rec.Body.Bytes(), &got))
	if got.Adventure.ID == adv || len(got.Story) != 3 || got.Story[2].Takes.Count != 2 || got.Adventure.WorldState["player.hp"] != float64(95) {
		t.Errorf("imported page %+v", got)
	}
	if again := call(t, f.handler, importer, "GET", fmt.Sprintf("/api/adventures/%d/bundle", got.Adventure.ID), ""); again.Body.String() != file {
		t.Errorf("the import exports as\n%s\nnot\n%s", again.Body, file)
	}

	rec = call(t, f.handler, owner, "GET", fmt.Sprintf("/api/scenarios/%d/bundle", sc.ID), "")
	if rec.Code != 200 || rec.Header().Get("Content-Disposition") == "" {
		t.Fatalf("scenario export: got %d %s", rec.Code, rec.Body)
	}
	scFile := rec.Body.String()
	rec = call(t, f.handler, importer, "POST", "/api/scenarios/import", scFile)
	var gotSc narrative.ScenarioView
	if rec.Code != 201 || json.Unmarshal(rec.Body.Bytes(), &gotSc) != nil || gotSc.ID == sc.ID || gotSc.Title != "Keep 城堡" || len(gotSc.Cards) != 1 {
		t.Fatalf("scenario import: got %d %s", rec.Code, rec.Body)
	}
	if again := call(t, f.handler, importer, "GET", fmt.Sprintf("/api/scenarios/%d/bundle", gotSc.ID), ""); again.Body.String() != scFile {
		t.Errorf("the scenario import exports as\n%s\nnot\n%s", again.Body, scFile)
	}
}
