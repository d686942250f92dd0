package narrative_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/adventure-table/adventure-table/gameplay/narrative"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// bundleScripts keep a count in the scripts' state and add a card on the
// first turn (a card that belongs to the line of that turn).
var bundleScripts = narrative.Scripts{Library: "// shared\n", Input: `const modifier = (text) => {
  state.turns = (state.turns || 0) + 1
  if (state.turns === 1) addStoryCard('obelisk', 'A black obelisk hums.', 'location')
  return { text }
}
modifier(text)`}

// richAdventure plays an adventure with every part a bundle carries: two
// takes of one turn, a fork with turns of its own, stats that changed, the
// scripts' state and a card a script added, a pinned and a forgotten
// memory, an edited author's note and persona.
func richAdventure(t *testing.T, f *solo) int64 {
	t.Helper()
	ctx := context.Background()
	adv := f.adventureWith(bundleScripts).Adventure.ID
	f.play(adv, "open the door", "It creaks open.", `{"player.hp": -10}`)
	f.play(adv, "light the lantern", "Light floods the hall.", `{"player.gold": 5}`)
	f.retry(adv, "The lantern sputters, then holds.", `{"player.hp": -5}`)
	page := f.page(adv)
	// Fork at the first narration and play on the new branch.
	_, err := f.svc.Fork(ctx, f.user, adv, page.Story[2].ID)
	must(t, err)
	f.play(adv, "turn back", "You retreat up the stairs.", `{"player.hp": 5}`)
	_, err = f.svc.AddMemory(ctx, f.user, adv, narrative.MemoryInput{Text: "Gwen owes Ash a favour.", Pinned: true})
	must(t, err)
	other, err := f.svc.AddMemory(ctx, f.user, adv, narrative.MemoryInput{Text: "The stairs are slick."})
	must(t, err)
	forgotten := true
	_, err = f.svc.ChangeMemory(ctx, f.user, adv, other.ID, narrative.MemoryChange{Forgotten: &forgotten})
	must(t, err)
	_, err = f.svc.AddCard(ctx, f.user, adv, narrative.CardInput{Title: "Ash's map", Keys: []string{"map"}, Entry: "A map of the crypt."})
	must(t, err)
	cards, err := f.svc.ListCards(ctx, f.user, adv)
	must(t, err)
	off := false
	for _, c := range cards.Cards {
		if c.Title == "Lantern" {
			_, err = f.svc.ChangeCard(ctx, f.user, adv, c.ID, narrative.CardEdit{Enabled: &off})
			must(t, err)
		}
	}
	authors, name := "Tone: dread.", "Ash the Bold"
	_, err = f.svc.UpdateAdventure(ctx, f.user, adv, narrative.AdventureChange{AuthorsNote: &authors, PersonaName: &name})
	must(t, err)
	return adv
}

func export(t *testing.T, f *solo, user, adv int64) narrative.AdventureBundle {
	t.Helper()
	b, err := f.svc.ExportAdventure(context.Background(), user, adv)
	must(t, err)
	return b
}

func encode(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	must(t, err)
	return b
}

// TestAdventureBundleRoundTrip: export → import (by another user) → export
// gives the same bundle: tree, every take, which take is live, branches,
// cards, scripts, stats, the scripts' state, persona, memories. The import
// is new rows of the importer; the original is untouched.
func TestAdventureBundleRoundTrip(t *testing.T) {
	f := newSolo(t)
	ctx := context.Background()
	adv := richAdventure(t, f)
	first := export(t, f, f.user, adv)

	// The bundle carries what the test played, so equality below means something.
	a := first.Adventure
	if first.Format != "adventure-table.adventure" || first.Version != 1 {
		t.Fatalf("header %q %d", first.Format, first.Version)
	}
	if len(a.Branches) != 2 || a.HeadBranch != 2 || a.Branches[1].Parent != 1 || a.Branches[1].ForkDepth != 2 {
		t.Errorf("branches %+v head %d", a.Branches, a.HeadBranch)
	}
	// The retry made two takes of one narration; the fork made the player
	// actions of two branches two children of one node.
	takes, nodes := 0, 0
	for _, turn := range a.Turns {
		nodes += len(turn.Takes)
		if len(turn.Takes) == 2 {
			takes++
		}
	}
	retried := a.Turns[4].Takes
	if takes != 2 || nodes != 8 || len(retried) != 2 || retried[0].Live || !retried[1].Live || retried[1].Text != "The lantern sputters, then holds." {
		t.Errorf("%d turns with two takes, %d nodes; turns %+v", takes, nodes, a.Turns)
	}
	last := a.Turns[len(a.Turns)-1].Takes[0]
	if last.Branch != 2 || last.WorldState["player.hp"] != float64(95) || last.ScriptState["turns"] != float64(2) {
		t.Errorf("last node %+v", last)
	}
	byTitle := map[string]narrative.BundleCard{}
	for _, c := range a.Cards {
		byTitle[c.Title] = c
	}
	if len(a.Cards) != 4 || byTitle["obelisk"].Origin == 0 || !byTitle["Lantern"].Disabled || !byTitle["Ash's map"].PlayerAuthored || byTitle["Gwen"].Entry != "Gwen is a veteran guard." {
		t.Errorf("cards %+v", a.Cards)
	}
	if len(a.Memories) != 2 || !a.Memories[0].Pinned || !a.Memories[1].Forgotten || a.Memories[0].Branch != 2 {
		t.Errorf("memories %+v", a.Memories)
	}
	if a.AuthorsNote != "Tone: dread." || a.PersonaName != "Ash the Bold" || a.Scripts != bundleScripts || a.StatSchema["player.hp"].Max != 100 {
		t.Errorf("adventure fields %+v", a)
	}
	if s := string(encode(t, first)); strings.Contains(s, `"id"`) || strings.Contains(s, "created_at") || strings.Contains(s, "user") {
		t.Errorf("the bundle carries ids, timestamps or an owner: %s", s)
	}

	importer := newSoloUser(t, f)
	page, err := f.svc.ImportAdventure(ctx, importer, encode(t, first))
	must(t, err)
	if page.Adventure.ID == adv || page.Adventure.ScenarioID != nil {
		t.Fatalf("imported adventure %d (scenario %v) from %d", page.Adventure.ID, page.Adventure.ScenarioID, adv)
	}
	if _, err := f.svc.GetAdventure(ctx, f.user, page.Adventure.ID); apperr.CodeOf(err) != apperr.NotFound {
		t.Errorf("the exporter reads the import: %v", err)
	}
	orig := f.page(adv)
	if diff := cmp.Diff(texts(orig), texts(page)); diff != "" {
		t.Errorf("the imported head line differs (-original +import):\n%s", diff)
	}
	if diff := cmp.Diff(orig.Adventure.WorldState, page.Adventure.WorldState); diff != "" || orig.Adventure.HeadDepth != page.Adventure.HeadDepth {
		t.Errorf("state or head differs (-original +import):\n%s", diff)
	}
	again := export(t, f, importer, page.Adventure.ID)
	if diff := cmp.Diff(first, again); diff != "" {
		t.Errorf("export of the import differs (-first +again):\n%s", diff)
	}
	if diff := cmp.Diff(first, export(t, f, f.user, adv)); diff != "" {
		t.Errorf("the original changed (-before +after):\n%s", diff)
	}

	// The import plays on: retry on the imported head, switch to the main line.
	f.user = importer
	f.retry(page.Adventure.ID, "You climb, slower now.", "")
	branches, err := f.svc.ListBranches(ctx, importer, page.Adventure.ID)
	must(t, err)
	if len(branches.Branches) != 2 {
		t.Fatalf("branches %+v", branches)
	}
	main, err := f.svc.SwitchBranch(ctx, importer, page.Adventure.ID, branches.Branches[0].ID)
	must(t, err)
	if got := texts(main); got[len(got)-1] != "The lantern sputters, then holds." {
		t.Errorf("main line after the import: %q", got)
	}
}

// TestScenarioBundleRoundTrip: a scenario exports and imports as a new
// scenario of the importer; another user cannot export it.
func TestScenarioBundleRoundTrip(t *testing.T) {
	f := newSolo(t)
	ctx := context.Background()
	page := f.adventureWith(bundleScripts)
	id := *page.Adventure.ScenarioID
	first, err := f.svc.ExportScenario(ctx, f.user, id)
	must(t, err)
	if first.Format != "adventure-table.scenario" || first.Version != 1 || len(first.Scenario.Cards) != 2 || first.Scenario.Scripts != bundleScripts {
		t.Fatalf("scenario bundle %+v", first)
	}
	importer := newSoloUser(t, f)
	if _, err := f.svc.ExportScenario(ctx, importer, id); apperr.CodeOf(err) != apperr.NotFound {
		t.Errorf("another user's export: %v, want not_found", err)
	}
	v, err := f.svc.ImportScenario(ctx, importer, encode(t, first))
	must(t, err)
	if v.ID == id {
		t.Fatal("the import reused the id")
	}
	again, err := f.svc.ExportScenario(ctx, importer, v.ID)
	must(t, err)
	if diff := cmp.Diff(first, again); diff != "" {
		t.Errorf("export of the import differs (-first +again):\n%s", diff)
	}
	file := string(encode(t, first))
	for _, tt := range []struct{ name, body, code string }{
		{"ErrUnknownField", strings.Replace(file, `"premise":`, `"id":7,"premise":`, 1), "invalid_request"},
		{"ErrDuplicateKey", strings.Replace(file, `"premise":`, `"Premise":"x","premise":`, 1), "invalid_request"},
		{"ErrWrongFormat", strings.Replace(file, `adventure-table.scenario`, `adventure-table.adventure`, 1), "import_format_unsupported"},
		{"ErrRules", strings.Replace(file, `"title":"The Crypt"`, `"title":" "`, 1), "scenario_invalid"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := f.svc.ImportScenario(ctx, importer, []byte(tt.body)); string(apperr.CodeOf(err)) != tt.code {
				t.Fatalf("got %v, want %s", err, tt.code)
			}
		})
	}
	list, err := f.svc.ListScenarios(ctx, importer)
	must(t, err)
	if len(list.Scenarios) != 1 {
		t.Errorf("refused files created scenarios: %+v", list)
	}
}

// TestExportAdventureOfAnotherUser: another user's adventure is not_found.
func TestExportAdventureOfAnotherUser(t *testing.T) {
	f := newSolo(t)
	adv := f.adventure().Adventure.ID
	_, err := f.svc.ExportAdventure(context.Background(), newSoloUser(t, f), adv)
	if apperr.CodeOf(err) != apperr.NotFound {
		t.Fatalf("got %v, want not_found", err)
	}
}

// minimalBundle is the smallest valid adventure bundle: the main line with
// its opening.
func minimalBundle() narrative.AdventureBundle {
	return narrative.AdventureBundle{Format: narrative.AdventureBundleFormat, Version: narrative.BundleVersion, Adventure: narrative.BundleAdventure{
		Title: "Tiny", Branches: []narrative.BundleBranch{{Ref: 1, Name: "Main"}}, HeadBranch: 1,
		Turns: []narrative.BundleTurn{{Takes: []narrative.BundleNode{{Ref: 1, Branch: 1, Live: true, Kind: "opening", Text: "Once."}}}},
	}}
}

// wantNothingImported fails when the user has any adventure.
func wantNothingImported(t *testing.T, f *solo, user int64) {
	t.Helper()
	list, err := f.svc.ListAdventures(context.Background(), user)
	must(t, err)
	if len(list.Adventures) != 0 {
		t.Fatalf("a refused import wrote %+v", list.Adventures)
	}
}

// TestImportAdventureCountsRows: the cap is counted on the rows the import
// would write. A file of three turns (few, as the seed's importer counted)
// whose second turn carries MaxBundleNodes takes is refused before anything
// is written.
func TestImportAdventureCountsRows(t *testing.T) {
	f := newSolo(t)
	b := minimalBundle()
	many := narrative.BundleTurn{Parent: 1}
	for i := range narrative.MaxBundleNodes {
		many.Takes = append(many.Takes, narrative.BundleNode{Ref: i + 2, Branch: 1, Depth: 1, Kind: "player", Text: "again"})
	}
	b.Adventure.Turns = append(b.Adventure.Turns, many, narrative.BundleTurn{Parent: 2,
		Takes: []narrative.BundleNode{{Ref: narrative.MaxBundleNodes + 2, Branch: 1, Depth: 2, Live: true, Kind: "narration"}}})
	if len(b.Adventure.Turns) != 3 {
		t.Fatal("the file should claim three turns")
	}
	_, err := f.svc.ImportAdventure(context.Background(), f.user, encode(t, b))
	var e *apperr.Error
	if !errors.As(err, &e) || e.Code != apperr.BundleInvalid || !strings.Contains(e.Fields["turns"], fmt.Sprint(narrative.MaxBundleNodes+2)) {
		t.Fatalf("got %v, want bundle_invalid on turns counting %d rows", err, narrative.MaxBundleNodes+2)
	}
	wantNothingImported(t, f, f.user)

	// One take fewer than the cap in all is accepted.
	b.Adventure.Turns[1].Takes = b.Adventure.Turns[1].Takes[:narrative.MaxBundleNodes-2]
	b.Adventure.Turns[2].Takes[0].Depth = 2
	if _, err := narrative.CheckAdventureBundle(encode(t, b)); err != nil {
		t.Fatalf("a bundle of %d nodes: %v", narrative.MaxBundleNodes, err)
	}
}

// TestImportAdventureRefuses: files that are not strict JSON of the format,
// or whose tree does not hold together, are refused with a stable code and
// write nothing.
func TestImportAdventureRefuses(t *testing.T) {
	f := newSolo(t)
	file := string(encode(t, minimalBundle()))
	edit := func(fn func(a *narrative.BundleAdventure)) string {
		b := minimalBundle()
		fn(&b.Adventure)
		return string(encode(t, b))
	}
	second := narrative.BundleNode{Ref: 2, Branch: 1, Depth: 1, Live: true, Kind: "player", Text: "go"}
	for _, tt := range []struct{ name, body, code, field string }{
		{"ErrUnknownField", strings.Replace(file, `"title":`, `"id":3,"title":`, 1), "invalid_request", ""},
		{"ErrUnknownNodeField", strings.Replace(file, `"ref":1,"branch":1`, `"ref":1,"id":44,"branch":1`, 1), "invalid_request", ""},
		{"ErrDuplicateKey", strings.Replace(file, `"title":"Tiny"`, `"title":"Tiny","title":"Other"`, 1), "invalid_request", ""},
		{"ErrDuplicateKeyOtherCase", strings.Replace(file, `"title":"Tiny"`, `"title":"Tiny","TITLE":"Other"`, 1), "invalid_request", ""},
		{"ErrTrailing", file + `{}`, "invalid_request", ""},
		{"ErrTooBig", strings.Replace(file, `"premise":"`, `"premise":"`+strings.Repeat("a", narrative.MaxBundleBytes), 1), "invalid_request", ""},
		{"ErrWrongVersion", strings.Replace(file, `"version":1`, `"version":2`, 1), "import_format_unsupported", ""},
		{"ErrScenarioFile", strings.Replace(file, `adventure-table.adventure`, `adventure-table.scenario`, 1), "import_format_unsupported", ""},
		{"ErrRules", strings.Replace(file, `"title":"Tiny"`, `"title":""`, 1), "scenario_invalid", ""},
		{"ErrNoOpening", edit(func(a *narrative.BundleAdventure) { a.Turns[0].Takes[0].Kind = "narration" }), "bundle_invalid", "turns"},
		{"ErrUnknownBranch", edit(func(a *narrative.BundleAdventure) { a.Turns[0].Takes[0].Branch = 9 }), "bundle_invalid", "turns[0].takes[0].branch"},
		{"ErrUnknownHead", edit(func(a *narrative.BundleAdventure) { a.HeadBranch = 2 }), "bundle_invalid", "head_branch"},
		{"ErrParentLater", edit(func(a *narrative.BundleAdventure) {
			a.Turns = append(a.Turns, narrative.BundleTurn{Parent: 3, Takes: []narrative.BundleNode{second}},
				narrative.BundleTurn{Parent: 2, Takes: []narrative.BundleNode{{Ref: 3, Branch: 1, Depth: 2, Live: true, Kind: "narration"}}})
		}), "bundle_invalid", "turns[1].parent"},
		{"ErrTwoLiveTakes", edit(func(a *narrative.BundleAdventure) {
			other := second
			other.Ref = 3
			a.Turns = append(a.Turns, narrative.BundleTurn{Parent: 1, Takes: []narrative.BundleNode{second, other}})
		}), "bundle_invalid", "turns[1].takes[1].live"},
		{"ErrNotDeeper", edit(func(a *narrative.BundleAdventure) {
			n := second
			n.Depth = 0
			a.Turns = append(a.Turns, narrative.BundleTurn{Parent: 1, Takes: []narrative.BundleNode{n}})
		}), "bundle_invalid", "turns[1].takes[0].depth"},
		{"ErrBranchParentLater", edit(func(a *narrative.BundleAdventure) {
			a.Branches = append(a.Branches, narrative.BundleBranch{Ref: 2, Parent: 3, Name: "B"}, narrative.BundleBranch{Ref: 3, Parent: 1, Name: "C"})
		}), "bundle_invalid", "branches[1].parent"},
		{"ErrAboveFork", edit(func(a *narrative.BundleAdventure) {
			a.Branches = append(a.Branches, narrative.BundleBranch{Ref: 2, Parent: 1, ForkDepth: 1, Name: "B"})
			n := second
			n.Branch = 2
			a.Turns = append(a.Turns, narrative.BundleTurn{Parent: 1, Takes: []narrative.BundleNode{n}})
		}), "bundle_invalid", "turns[1].takes[0].depth"},
		{"ErrCardOrigin", edit(func(a *narrative.BundleAdventure) {
			a.Cards = []narrative.BundleCard{{CardInput: narrative.CardInput{Title: "X"}, Origin: 5}}
		}), "bundle_invalid", "cards[0].origin"},
		{"ErrMemory", edit(func(a *narrative.BundleAdventure) {
			a.Memories = []narrative.BundleMemory{{Branch: 1, Depth: 0, FromDepth: 1, Kind: "block", Text: "x"}}
		}), "bundle_invalid", "memories[0].depth"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := f.svc.ImportAdventure(context.Background(), f.user, []byte(tt.body))
			var e *apperr.Error
			if !errors.As(err, &e) || string(e.Code) != tt.code {
				t.Fatalf("got %v, want %s", err, tt.code)
			}
			if _, ok := e.Fields[tt.field]; tt.field != "" && !ok {
				t.Errorf("fields %v, want %s", e.Fields, tt.field)
			}
			wantNothingImported(t, f, f.user)
		})
	}
	// The unchanged file imports.
	if _, err := f.svc.ImportAdventure(context.Background(), f.user, []byte(file)); err != nil {
		t.Fatal(err)
	}
}

// TestImportAdventureIsOneTransaction: a failure once the nodes are
// written, before they are linked, leaves nothing behind.
func TestImportAdventureIsOneTransaction(t *testing.T) {
	f := newSolo(t)
	adv := richAdventure(t, f)
	file := encode(t, export(t, f, f.user, adv))
	importer := newSoloUser(t, f)
	hit := false
	f.svc.SetFailpoint(func(point string) error {
		if point == "bundle.after_nodes" {
			hit = true
			return errors.New("injected")
		}
		return nil
	})
	if _, err := f.svc.ImportAdventure(context.Background(), importer, file); err == nil || !hit {
		t.Fatalf("got %v (failpoint hit %v), want the injected failure", err, hit)
	}
	wantNothingImported(t, f, importer)
	f.svc.SetFailpoint(nil)
	if _, err := f.svc.ImportAdventure(context.Background(), importer, file); err != nil {
		t.Fatal(err)
	}
}
