package webui_test

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite "+openAPIFile)

// openAPIFile is the committed OpenAPI document the web app's API types are
// generated from (npm run gen:api).
const openAPIFile = "app/src/api/openapi.json"

// TestOpenAPIFileIsCurrent fails when the committed document differs from
// the one the routes generate; -update rewrites it.
func TestOpenAPIFileIsCurrent(t *testing.T) {
	doc, err := buildDocument()
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile(openAPIFile, doc, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	committed, err := os.ReadFile(openAPIFile)
	if err != nil || !bytes.Equal(committed, doc) {
		t.Fatalf("webui/%s is not the document the routes generate: run make api-types\n%s", openAPIFile, firstDifference(committed, doc))
	}
}

// firstDifference shows where two documents part: the first line that
// differs, with its number.
func firstDifference(want, got []byte) string {
	w, g := strings.Split(string(want), "\n"), strings.Split(string(got), "\n")
	for i := range min(len(w), len(g)) {
		if w[i] != g[i] {
			return fmt.Sprintf("line %d:\n  file:      %s\n  generated: %s", i+1, w[i], g[i])
		}
	}
	return fmt.Sprintf("the file has %d lines, the generated document %d", len(w), len(g))
}
