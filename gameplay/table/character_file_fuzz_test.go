package table_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// FuzzDecodeCharacterFile: any bytes decode to a character or to
// invalid_request / import_format_unsupported, never a panic; whatever is
// accepted re-encodes to a file that decodes to the same character.
func FuzzDecodeCharacterFile(f *testing.F) {
	for _, seed := range []string{
		`{"format":"adventure-table.character","version":1,"character":{"name":"Mira","level":3,"abilities":{"str":10,"dex":14,"con":12,"int":10,"wis":13,"cha":8},"skill_proficiencies":["stealth"],"skill_expertise":["stealth"],"hp":{"max":20,"current":20,"temp":0},"conditions":[],"resources":[{"name":"Ki","current":3,"max":3}],"biography":"","roleplay_guidance":""}}`,
		`{"format":"adventure-table.character","version":1,"character":{"name":"Brakka","level":5,"class":"Fighter","save_proficiencies":["str","con"],"armor":{"body":"chain_mail","shield":true,"unarmored":"","bonus":1},"speed":30,"hit_die":10}}`,
		`{"format":"adventure-table.character","version":1,"character":{"name":"a","name":"b"}}`,
		`{"format":"adventure-table.character","version":2,"character":{}}`,
		`{"format":"adventure-table.character","version":1,"character":{"speed":30}}`,
		`{"format":"adventure-table.character","version":1,"character":{}} []`,
		`{"version":1,"format":"adventure-table.character","format":"x"}`,
		`[{"a":[{"a":1,"b":{"a":2}}]}]`, `{`, `}`, `"x"`, ``, `null`, `{"a":1}{"a":1}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		in, err := table.DecodeCharacterFile(data)
		if err != nil {
			switch apperr.CodeOf(err) {
			case apperr.InvalidRequest, apperr.ImportFormatUnsupported:
				return
			}
			t.Fatalf("%q: unexpected error %v", data, err)
		}
		if !json.Valid(data) {
			t.Fatalf("%q: accepted invalid JSON", data)
		}
		again, err := json.Marshal(table.CharacterFile{Format: table.CharacterFormat, Version: table.CharacterFormatVersion, Character: in})
		if err != nil {
			t.Fatal(err)
		}
		back, err := table.DecodeCharacterFile(again)
		if err != nil {
			t.Fatalf("%q: re-encoded %s is refused: %v", data, again, err)
		}
		if a, b := mustJSON(t, in), mustJSON(t, back); !bytes.Equal(a, b) {
			t.Fatalf("%q: round trip changed %s to %s", data, a, b)
		}
	})
}
