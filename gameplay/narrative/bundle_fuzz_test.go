package narrative_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/adventure-table/adventure-table/gameplay/narrative"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// FuzzImportAdventureBundle: any bytes are refused with one of the import's
// codes or imported, never a panic or another error; whatever the checks
// accept is written without a database error, and its export imports again
// to the same export (the references renumbered once, then stable).
func FuzzImportAdventureBundle(f *testing.F) {
	for _, seed := range []string{
		string(encode(f, minimalBundle())),
		`{"format":"adventure-table.adventure","version":1,"adventure":{"title":"T","branches":[{"ref":1,"parent":0,"fork_depth":0,"name":"Main"},{"ref":2,"parent":1,"fork_depth":1,"name":"B"}],"head_branch":2,` +
			`"turns":[{"parent":0,"takes":[{"ref":1,"branch":1,"depth":0,"live":true,"kind":"opening","text":"Once."}]},{"parent":1,"takes":[{"ref":2,"branch":1,"depth":1,"live":true,"kind":"player","mode":"do","text":"go"},{"ref":3,"branch":1,"depth":1,"live":false,"kind":"player","mode":"say","text":"hi"}]},` +
			`{"parent":2,"takes":[{"ref":4,"branch":2,"depth":2,"live":true,"kind":"narration","text":"Then.","world_state":{"hp":3},"script_state":{"n":[1,{"a":null}]},"outcomes":[{"path":"hp","status":"applied","from":1,"to":3}]}]}],` +
			`"cards":[{"title":"C","keys":["c"],"entry":"e","type":"","description":"","player_authored":true,"origin":4}],"memories":[{"branch":2,"depth":2,"from_depth":1,"kind":"block","text":"m","pinned":true}]}}`,
		`{"format":"adventure-table.adventure","version":1,"adventure":{"title":"T","title":"U"}}`,
		`{"format":"adventure-table.adventure","version":2,"adventure":{}}`,
		`{"format":"adventure-table.adventure","version":1,"adventure":{"turns":[{"parent":7,"takes":[]}]}}`,
		`{"format":"adventure-table.adventure","version":1,"adventure":{"branches":[{"ref":1,"parent":1}],"head_branch":1}}`,
		`{"format":"adventure-table.adventure","version":1,"adventure":{}} {}`, `{`, `null`, ``,
	} {
		f.Add([]byte(seed))
	}
	s := newSolo(f)
	ctx := context.Background()
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := narrative.CheckAdventureBundle(data)
		if err != nil {
			switch apperr.CodeOf(err) {
			case apperr.InvalidRequest, apperr.ImportFormatUnsupported, apperr.ScenarioInvalid, apperr.BundleInvalid:
				return
			}
			t.Fatalf("%q: unexpected error %v", data, err)
		}
		page, err := s.svc.ImportAdventure(ctx, s.user, data)
		if err != nil {
			t.Fatalf("%q: checked but not imported: %v", data, err)
		}
		first, err := s.svc.ExportAdventure(ctx, s.user, page.Adventure.ID)
		if err != nil {
			t.Fatal(err)
		}
		again, err := s.svc.ImportAdventure(ctx, s.user, encode(t, first))
		if err != nil {
			t.Fatalf("%q: its export %s is refused: %v", data, encode(t, first), err)
		}
		second, err := s.svc.ExportAdventure(ctx, s.user, again.Adventure.ID)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(first, second); diff != "" {
			t.Fatalf("%q: export → import → export changed (-first +second):\n%s", data, diff)
		}
	})
}
