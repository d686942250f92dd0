package webui_test

import (
	"bytes"
	"flag"
	"os"
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
		t.Fatalf("webui/%s is not the document the routes generate: run make api-types", openAPIFile)
	}
}
