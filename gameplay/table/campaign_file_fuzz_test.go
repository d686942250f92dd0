package table_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// FuzzDecodeCampaignFile: any bytes decode to a campaign file within the
// row caps or to invalid_request / import_format_unsupported, never a
// panic; whatever is accepted re-encodes to a file that decodes the same.
func FuzzDecodeCampaignFile(f *testing.F) {
	for _, seed := range []string{
		`{"format":"adventure-table.campaign","version":1,"exported_at":"2026-12-04T10:00:00Z","exported_as":"dm","campaign":{"name":"Lantern","recap_style":"brief","world":{"premise":"A city."}},"sessions":[{"number":1,"status":"ended","recap":"Last time.","lines":["The DM: hello."]}],"journal":[{"kind":"npc","title":"Bertha","audience":"table","confirmed":true}],"memories":[{"session":1,"audience":"table","text":"Bertha keeps the inn."}],"markdown":"# Lantern"}`,
		`{"format":"adventure-table.campaign","version":1,"campaign":{"name":"x","name":"y"}}`,
		`{"format":"adventure-table.campaign","version":2}`,
		`{"format":"adventure-table.adventure","version":1}`,
		`{"format":"adventure-table.campaign","version":1,"sessions":[{"lines":[1]}]}`,
		`{"format":"adventure-table.campaign","version":1,"extra":true}`,
		`{"format":"adventure-table.campaign","version":1} {}`,
		`[]`, `{`, ``, `null`, `"x"`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := table.DecodeCampaignFile(data)
		if err != nil {
			switch apperr.CodeOf(err) {
			case apperr.InvalidRequest, apperr.ImportFormatUnsupported:
				return
			}
			t.Fatalf("%q: unexpected error %v", data, err)
		}
		if len(file.Sessions) > table.CampaignFileSessionsMax || len(file.Memories) > table.CampaignFileMemoriesMax {
			t.Fatalf("%q: accepted past the row caps", data)
		}
		again, err := json.Marshal(file)
		if err != nil {
			t.Fatal(err)
		}
		back, err := table.DecodeCampaignFile(again)
		if err != nil {
			t.Fatalf("%q: re-encoded %s is refused: %v", data, again, err)
		}
		if a, b := mustJSON(t, file), mustJSON(t, back); !bytes.Equal(a, b) {
			t.Fatalf("%q: round trip changed %s to %s", data, a, b)
		}
	})
}
