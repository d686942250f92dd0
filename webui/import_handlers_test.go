package webui_test

import (
	"archive/zip"
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/adventure-table/adventure-table/gameplay/narrative/imports"
	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/gameplay/table/tabletest"
)

// A Character Card V2 written for this test (research §1).
const importCardV2 = `{"spec":"chara_card_v2","spec_version":"2.0","data":{"name":"Captain Vell","description":"{{char}} commands the Kestrel.",
 "personality":"","scenario":"","first_mes":"Vell looks up.","mes_example":"","creator_notes":"","system_prompt":"Be Vell.",
 "post_history_instructions":"","alternate_greetings":["Hello."],"tags":[],"creator":"","character_version":"","extensions":{},
 "character_book":{"entries":[{"keys":["Kestrel"],"content":"An airship.","enabled":true,"insertion_order":1,"extensions":{},"comment":"The Kestrel"}]}}}`

// pngCard is a minimal PNG (signature, IHDR, the tEXt chunk, IEND): the
// importer reads chunk headers only.
func pngCard(keyword, text string) []byte {
	chunk := func(typ string, body []byte) []byte {
		out := binary.BigEndian.AppendUint32(nil, uint32(len(body)))
		out = append(append(out, typ...), body...)
		return binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(append([]byte(typ), body...)))
	}
	out := []byte("\x89PNG\r\n\x1a\n")
	out = append(out, chunk("IHDR", []byte{0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0})...)
	if keyword != "" {
		out = append(out, chunk("tEXt", []byte(keyword+"\x00"+text))...)
	}
	return append(out, chunk("IEND", nil)...)
}

func postImport(t *testing.T, f fixture, c table.Caller, path, contentType string, body []byte) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest("POST", path, bytes.NewReader(body))
	req.Header.Set("Content-Type", contentType)
	req.AddCookie(cookieFor(c))
	rec := httptest.NewRecorder()
	f.handler.ServeHTTP(rec, req)
	return rec
}

// TestImportRoutes: the preview says what a file would become and stores
// nothing; the import creates the scenario; refused files change nothing.
func TestImportRoutes(t *testing.T) {
	f := newFixture(t, withSecret)
	u := tabletest.NewUser(t, f.services.Table, "Importer")
	card := pngCard("chara", base64.StdEncoding.EncodeToString([]byte(importCardV2)))

	rec := postImport(t, f, u, "/api/imports/preview", "image/png", card)
	if rec.Code != 200 {
		t.Fatalf("preview: %d %s", rec.Code, rec.Body)
	}
	var p imports.Preview
	tabletest.Must(t, json.Unmarshal(rec.Body.Bytes(), &p))
	if p.Format != "character_card_v2" || p.Title != "Captain Vell" || p.Scenario.Opening != "Vell looks up." || len(p.Scenario.Cards) != 1 {
		t.Errorf("preview %+v", p)
	}
	// The same card as a CHARX file (a zip holding card.json), as a
	// browser sends it.
	var zipped bytes.Buffer
	zw := zip.NewWriter(&zipped)
	w, err := zw.Create("card.json")
	tabletest.Must(t, err)
	_, err = w.Write([]byte(importCardV2))
	tabletest.Must(t, err)
	tabletest.Must(t, zw.Close())
	if rec := postImport(t, f, u, "/api/imports/preview", "application/zip", zipped.Bytes()); rec.Code != 200 ||
		!strings.Contains(rec.Body.String(), `"format":"character_card_v2"`) || !strings.Contains(rec.Body.String(), `"title":"Captain Vell"`) {
		t.Errorf("CHARX preview: %d %s", rec.Code, rec.Body)
	}
	if !strings.Contains(rec.Body.String(), `{"code":"field_not_mapped","params":{"field":"system_prompt","reason":"narrator_instructions"}}`) ||
		!strings.Contains(rec.Body.String(), `{"code":"field_not_mapped","params":{"count":"1","field":"alternate_greetings","reason":"no_equivalent"}}`) {
		t.Errorf("preview does not report what does not map: %s", rec.Body)
	}
	if rec := call(t, f.handler, u, "GET", "/api/scenarios", ""); !strings.Contains(rec.Body.String(), `"scenarios":[]`) {
		t.Fatalf("the preview stored something: %s", rec.Body)
	}

	bad := []struct {
		name, contentType string
		body              []byte
		status            int
		code              string
	}{
		{"ErrUnknownFormat", "application/json", []byte(`{"hello":"world"}`), 400, "import_format_unsupported"},
		{"ErrNotJSON", "application/octet-stream", []byte("plain words"), 400, "import_format_unsupported"},
		{"ErrBrokenJSON", "application/json", []byte(`{"entries":{"0":`), 400, "invalid_request"},
		{"ErrPNGWithoutCard", "image/png", pngCard("", ""), 400, "import_png_without_card"},
		{"ErrTooLarge", "application/json", append([]byte(`{"entries":{}}`), bytes.Repeat([]byte(" "), imports.MaxFileBytes)...), 413, "invalid_request"},
	}
	for _, tt := range bad {
		for _, path := range []string{"/api/imports/preview", "/api/imports"} {
			t.Run(tt.name+path, func(t *testing.T) {
				rec := postImport(t, f, u, path, tt.contentType, tt.body)
				if rec.Code != tt.status || !strings.Contains(rec.Body.String(), `"code":"`+tt.code+`"`) {
					t.Fatalf("got %d %s, want %d %s", rec.Code, rec.Body, tt.status, tt.code)
				}
			})
		}
	}
	if rec := call(t, f.handler, u, "GET", "/api/scenarios", ""); !strings.Contains(rec.Body.String(), `"scenarios":[]`) {
		t.Fatalf("refused files stored something: %s", rec.Body)
	}

	rec = postImport(t, f, u, "/api/imports", "image/png", card)
	if rec.Code != 201 {
		t.Fatalf("import: %d %s", rec.Code, rec.Body)
	}
	var got imports.Imported
	tabletest.Must(t, json.Unmarshal(rec.Body.Bytes(), &got))
	rec = call(t, f.handler, u, "GET", fmt.Sprintf("/api/scenarios/%d", got.Scenario.ID), "")
	if rec.Code != 200 || !strings.Contains(rec.Body.String(), `"opening":"Vell looks up."`) ||
		!strings.Contains(rec.Body.String(), `"title":"The Kestrel","keys":["Kestrel"],"entry":"An airship."`) {
		t.Errorf("the imported scenario: %d %s", rec.Code, rec.Body)
	}
	other := tabletest.NewUser(t, f.services.Table, "Other")
	if rec := call(t, f.handler, other, "GET", fmt.Sprintf("/api/scenarios/%d", got.Scenario.ID), ""); rec.Code != 404 {
		t.Errorf("another user sees the import: %d", rec.Code)
	}
}
