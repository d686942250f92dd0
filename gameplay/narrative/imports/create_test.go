package imports_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/adventure-table/adventure-table/gameplay/llm"
	"github.com/adventure-table/adventure-table/gameplay/narrative"
	"github.com/adventure-table/adventure-table/gameplay/narrative/imports"
	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/models/apperr"
	"github.com/adventure-table/adventure-table/models/modelstest"
)

// newService is the solo service on a real database (SQLite, or PostgreSQL
// with AT_TEST_POSTGRES_DSN) and a guest user.
func newService(t testing.TB) (*narrative.Service, int64) {
	t.Helper()
	store := modelstest.MustOpen(t)
	u, _, err := table.New(store, time.Now).EnsureGuest(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	return narrative.New(store, narrative.Options{Provider: llm.NewOpenAI(nil), Secret: []byte(strings.Repeat("k", 40))}), u.ID
}

// Every foreign format goes through the one creation path and reads back
// as a scenario equal to its preview.
func TestImportCreatesScenario(t *testing.T) {
	svc, user := newService(t)
	ctx := context.Background()
	for _, tt := range []struct {
		name  string
		data  []byte
		cards int
	}{
		{"SillyTavern", []byte(stWorldInfo), 5},
		{"CardV2PNG", pngWithText(t, [2]string{"chara", b64(cardV2)}), 2},
		{"CardV3", []byte(cardV3), 1},
		{"AIDungeon", []byte(aidScenario), 2},
		{"AIDungeonCards", []byte(aidStoryCards), 2},
		{"NovelAI", []byte(novelAI), 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := imports.Import(ctx, svc, user, tt.data)
			if err != nil {
				t.Fatal(err)
			}
			stored, err := svc.GetScenario(ctx, user, got.Scenario.ID)
			if err != nil {
				t.Fatal(err)
			}
			want := got.Preview.Scenario
			if stored.Title != want.Title || stored.Opening != want.Opening || stored.Premise != want.Premise ||
				stored.PlotEssentials != want.PlotEssentials || stored.AuthorsNote != want.AuthorsNote || stored.Scripts != want.Scripts {
				t.Errorf("stored %+v\nwant %+v", stored, want)
			}
			if len(stored.Cards) != tt.cards {
				t.Fatalf("%d cards stored, want %d", len(stored.Cards), tt.cards)
			}
			for i, c := range stored.Cards {
				if c.CardInput.Title != want.Cards[i].Title || c.Entry != want.Cards[i].Entry || strings.Join(c.Keys, ",") != strings.Join(want.Cards[i].Keys, ",") {
					t.Errorf("card %d: %+v, want %+v", i, c.CardInput, want.Cards[i])
				}
			}
		})
	}
	// The AI Dungeon scenario keeps its scripts.
	list, err := svc.ListScenarios(ctx, user)
	if err != nil || len(list.Scenarios) != 6 {
		t.Fatalf("%d scenarios, %v", len(list.Scenarios), err)
	}
}

// A file that cannot be read, or a scenario that fails validation, stores
// nothing.
func TestImportRefusalStoresNothing(t *testing.T) {
	svc, user := newService(t)
	ctx := context.Background()
	for _, tt := range []struct {
		data []byte
		code apperr.Code
	}{
		{[]byte(`{"nope":1}`), apperr.ImportFormatUnsupported},
		{pngWithText(t), apperr.ImportPNGWithoutCard},
		{[]byte(`{"entries":{"0":1}}`), apperr.InvalidRequest},
	} {
		if _, err := imports.Import(ctx, svc, user, tt.data); apperr.CodeOf(err) != tt.code {
			t.Errorf("code %q, want %q", apperr.CodeOf(err), tt.code)
		}
	}
	list, err := svc.ListScenarios(ctx, user)
	if err != nil || len(list.Scenarios) != 0 {
		t.Fatalf("%d scenarios stored after refusals, %v", len(list.Scenarios), err)
	}
}
