package gameplay_test

import (
	"context"
	"testing"

	"github.com/adventure-table/adventure-table/gameplay"
	"github.com/adventure-table/adventure-table/models"
	"github.com/adventure-table/adventure-table/models/apperr"
	"github.com/adventure-table/adventure-table/models/modelstest"
)

func TestHealthReportsSchemaVersion(t *testing.T) {
	s := modelstest.MustOpen(t)
	svc := gameplay.New(s, gameplay.Options{Mode: "hosted"})
	h, err := svc.Health(context.Background(), "v1.2.3")
	if err != nil {
		t.Fatal(err)
	}
	if h.Status != "ok" || h.SchemaVersion != models.LatestVersion() || h.Mode != "hosted" || h.Version != "v1.2.3" ||
		h.Database.Dialect != string(modelstest.Dialect()) || !h.Database.Reachable {
		t.Fatalf("got %+v", h)
	}
}

func TestHealthUnmigratedDatabase(t *testing.T) {
	s := modelstest.MustOpenEmpty(t)
	_, err := gameplay.New(s, gameplay.Options{}).Health(context.Background(), "dev")
	if got := apperr.CodeOf(err); got != apperr.DatabaseUnavailable {
		t.Fatalf("got %q (%v), want database_unavailable", got, err)
	}
}

func TestHealthClosedDatabase(t *testing.T) {
	s := modelstest.MustOpen(t)
	s.Close()
	_, err := gameplay.New(s, gameplay.Options{}).Health(context.Background(), "dev")
	if got := apperr.CodeOf(err); got != apperr.DatabaseUnavailable {
		t.Fatalf("got %q (%v), want database_unavailable", got, err)
	}
}
