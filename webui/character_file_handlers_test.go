package webui_test

import (
	"encoding/json"
	"fmt"
	"mime"
	"strings"
	"testing"

	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/gameplay/table/tabletest"
)

// TestCharacterFileRoutes: the owner downloads a character as a file that
// another user imports as a new character of their own; refused files
// change nothing.
func TestCharacterFileRoutes(t *testing.T) {
	f := newFixture(t, withSecret)
	owner := tabletest.NewUser(t, f.services.Table, "Owner")
	importer := tabletest.NewUser(t, f.services.Table, "Importer")
	in := tabletest.Character("Mira 米拉")
	in.Biography = "Born under a red moon."
	orig, err := f.services.Table.CreateCharacter(ctx, owner, in)
	tabletest.Must(t, err)

	rec := call(t, f.handler, owner, "GET", fmt.Sprintf("/api/characters/%d/export", orig.ID), "")
	if rec.Code != 200 {
		t.Fatalf("export: got %d %s", rec.Code, rec.Body)
	}
	disp, params, err := mime.ParseMediaType(rec.Header().Get("Content-Disposition"))
	if err != nil || disp != "attachment" || params["filename"] != "Mira 米拉.character.json" {
		t.Errorf("Content-Disposition %q: %s %v %v", rec.Header().Get("Content-Disposition"), disp, params, err)
	}
	file := rec.Body.String()
	if !strings.HasPrefix(file, `{"format":"adventure-table.character","version":1,"character":{`) || strings.Contains(file, `"id"`) {
		t.Errorf("export body %s", file)
	}
	rec = call(t, f.handler, importer, "GET", fmt.Sprintf("/api/characters/%d/export", orig.ID), "")
	if rec.Code != 404 || !strings.Contains(rec.Body.String(), `"code":"not_found"`) {
		t.Errorf("another user's export: got %d %s, want 404 not_found", rec.Code, rec.Body)
	}

	bad := []struct {
		name, body, code string
		status           int
	}{
		{"ErrUnknownField", strings.Replace(file, `"level":`, `"speed":30,"level":`, 1), "invalid_request", 400},
		{"ErrDuplicateKey", strings.Replace(file, `"level":3`, `"level":3,"level":3`, 1), "invalid_request", 400},
		{"ErrWrongVersion", strings.Replace(file, `"version":1`, `"version":2`, 1), "import_format_unsupported", 400},
		{"ErrTooBig", strings.Replace(file, `"biography":"`, `"biography":"`+strings.Repeat("a", table.MaxCharacterFileBytes), 1), "invalid_request", 413},
		{"ErrRules", strings.Replace(file, `"level":3`, `"level":0`, 1), "character_invalid", 400},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			rec := call(t, f.handler, importer, "POST", "/api/characters/import", tt.body)
			if rec.Code != tt.status || !strings.Contains(rec.Body.String(), `"code":"`+tt.code+`"`) {
				t.Fatalf("got %d %s, want %d %s", rec.Code, rec.Body, tt.status, tt.code)
			}
		})
	}
	if rec := call(t, f.handler, importer, "GET", "/api/characters", ""); !strings.Contains(rec.Body.String(), `"characters":[]`) {
		t.Fatalf("refused files created characters: %s", rec.Body)
	}

	rec = call(t, f.handler, importer, "POST", "/api/characters/import", file)
	if rec.Code != 201 {
		t.Fatalf("import: got %d %s", rec.Code, rec.Body)
	}
	var got table.CharacterView
	tabletest.Must(t, json.Unmarshal(rec.Body.Bytes(), &got))
	if got.ID == orig.ID || got.Name != orig.Name || got.Biography != orig.Biography || got.HP != orig.HP {
		t.Errorf("imported %+v from %+v", got, orig)
	}
	if _, err := f.services.Table.GetCharacter(ctx, importer, got.ID); err != nil {
		t.Errorf("the importer does not own the import: %v", err)
	}
}
