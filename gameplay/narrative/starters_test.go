package narrative_test

import (
	"context"
	"strings"
	"testing"

	"github.com/adventure-table/adventure-table/gameplay/narrative"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// Every shipped starter loads through the scenario importer, starts an
// adventure of the caller's own (a scenario copy they can edit and the
// adventure's opening) and plays a turn with the model.
func TestStartersPlayATurn(t *testing.T) {
	f := newSolo(t)
	ctx := context.Background()
	list, err := f.svc.Starters(ctx)
	must(t, err)
	if len(list.Starters) < 3 {
		t.Fatalf("%d starters, want at least three", len(list.Starters))
	}
	scripted := 0
	for _, st := range list.Starters {
		t.Run(st.Slug, func(t *testing.T) {
			if st.Title == "" || st.Premise == "" || st.Cards == 0 {
				t.Fatalf("starter %+v lacks a title, premise or cards", st)
			}
			page, err := f.svc.StartStarter(ctx, f.user, st.Slug, narrative.Persona{})
			must(t, err)
			if page.Adventure.Title != st.Title || page.Adventure.ScenarioID == nil || len(page.Story) != 1 || page.Story[0].Kind != "opening" || page.Story[0].Text == "" {
				t.Fatalf("started %+v with story %+v, want the starter's opening", page.Adventure, page.Story)
			}
			sc, err := f.svc.GetScenario(ctx, f.user, *page.Adventure.ScenarioID)
			must(t, err)
			if sc.Title != st.Title || len(sc.Cards) != st.Cards {
				t.Fatalf("the scenario copy %q has %d cards, want %q with %d", sc.Title, len(sc.Cards), st.Title, st.Cards)
			}
			done := f.play(page.Adventure.ID, "look around", "The night listens.", "")
			if done.Action == nil || done.Action.Text != "The night listens." {
				t.Fatalf("turn ended with %+v", done)
			}
			if got := texts(f.page(page.Adventure.ID)); len(got) != 3 || got[1] != "look around" {
				t.Fatalf("story after the turn: %q", got)
			}
			if !st.HasScripts {
				return
			}
			scripted++
			// The scripts ran in the sandbox: the input script moved the
			// clock on, the context script told the model the hour, and
			// the output script rang it for the player.
			if p := f.lastPrompt(); !strings.Contains(p, "hour 2 of 12") {
				t.Fatalf("the context script's clock line did not reach the model:\n%s", p)
			}
			if len(done.Notices) != 1 || !strings.Contains(done.Notices[0].Text, "hour 2 of 12") {
				t.Fatalf("notices %+v, want the output script's chime", done.Notices)
			}
			for _, e := range f.console(page.Adventure.ID) {
				if e.Level == "error" {
					t.Fatalf("a starter script failed: %+v", e)
				}
			}
		})
	}
	if scripted == 0 {
		t.Fatal("no starter runs scripts")
	}
}

// A starter that is not shipped is not_found and writes nothing; the slug
// never reaches the file system as a path.
func TestStartUnknownStarter(t *testing.T) {
	f := newSolo(t)
	ctx := context.Background()
	for _, slug := range []string{"nope", "../starters/frost-road", "frost-road.scenario.json", ""} {
		_, err := f.svc.StartStarter(ctx, f.user, slug, narrative.Persona{})
		if apperr.CodeOf(err) != apperr.NotFound {
			t.Fatalf("slug %q: %v, want not_found", slug, err)
		}
	}
	list, err := f.svc.ListScenarios(ctx, f.user)
	must(t, err)
	if len(list.Scenarios) != 0 {
		t.Fatalf("a refused start left scenarios %+v", list.Scenarios)
	}
}

// A starter whose adventure cannot be made (a protagonist too long) leaves
// no scenario behind: the import and the start are one transaction.
func TestStarterStartIsAtomic(t *testing.T) {
	f := newSolo(t)
	ctx := context.Background()
	_, err := f.svc.StartStarter(ctx, f.user, narrative.StarterSlugs()[0], narrative.Persona{PersonaName: strings.Repeat("x", 500)})
	if apperr.CodeOf(err) != apperr.ScenarioInvalid {
		t.Fatalf("%v, want scenario_invalid", err)
	}
	list, err := f.svc.ListScenarios(ctx, f.user)
	must(t, err)
	if len(list.Scenarios) != 0 {
		t.Fatalf("a failed start left scenarios %+v", list.Scenarios)
	}
}
