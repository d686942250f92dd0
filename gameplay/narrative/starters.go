package narrative

import (
	"context"
	"embed"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/adventure-table/adventure-table/models"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// Starter scenarios ship inside the binary so that a newcomer can play a
// story with one tap before writing one. Each is an ordinary scenario bundle
// (adventure-table.scenario version 1): it is read by the same strict decoder
// and validated by the same rules as a file a person imports, and starting
// one imports it as the caller's own scenario, which they may then edit.

//go:embed starters/*.scenario.json
var starterFiles embed.FS

const starterSuffix = ".scenario.json"

// Starter is one starter scenario as the solo page lists it.
type Starter struct {
	// Slug names the starter in the start route ("frost-road").
	Slug    string `json:"slug"`
	Title   string `json:"title"`
	Premise string `json:"premise"`
	// HasScripts: the scenario runs AI Dungeon-style scripts.
	HasScripts bool `json:"has_scripts"`
	// Cards is how many story cards it brings.
	Cards int `json:"cards"`
}

// StarterList is the starter scenarios, by title.
type StarterList struct {
	Starters []Starter `json:"starters"`
}

// StarterSlugs lists the slugs of the shipped starters.
func StarterSlugs() []string {
	names, _ := fs.Glob(starterFiles, "starters/*"+starterSuffix)
	slugs := make([]string, len(names))
	for i, n := range names {
		slugs[i] = strings.TrimSuffix(path.Base(n), starterSuffix)
	}
	return slugs
}

// starterFile is the bundle of one starter; not_found for an unknown slug
// (a slug is matched against the shipped list, never used as a path as is).
func starterFile(slug string) ([]byte, error) {
	for _, s := range StarterSlugs() {
		if s == slug {
			return starterFiles.ReadFile("starters/" + s + starterSuffix)
		}
	}
	return nil, apperr.E(apperr.NotFound, "There is no starter scenario of that name.")
}

// decodeStarter reads a starter through the scenario importer's decoder and
// validation, as ImportScenario would.
func decodeStarter(slug string) (ScenarioInput, error) {
	data, err := starterFile(slug)
	if err != nil {
		return ScenarioInput{}, err
	}
	var b ScenarioBundle
	if err := scenarioBundleSpec.Decode(data, &b); err != nil {
		return ScenarioInput{}, err
	}
	return b.Scenario, validateScenario(&b.Scenario)
}

// Starters lists the starter scenarios shipped with the server.
func (s *Service) Starters(context.Context) (StarterList, error) {
	out := StarterList{Starters: []Starter{}}
	for _, slug := range StarterSlugs() {
		in, err := decodeStarter(slug)
		if err != nil {
			return StarterList{}, apperr.Wrap(err, apperr.Internal, "A starter scenario does not load.")
		}
		sc := in.Scripts
		out.Starters = append(out.Starters, Starter{Slug: slug, Title: in.Title, Premise: in.Premise, Cards: len(in.Cards),
			HasScripts: sc.Library != "" || sc.Input != "" || sc.Context != "" || sc.Output != ""})
	}
	sort.Slice(out.Starters, func(i, j int) bool { return out.Starters[i].Title < out.Starters[j].Title })
	return out, nil
}

// StartStarter imports a starter as a scenario of the caller (through
// ImportScenario, the importer of every scenario file) and starts an
// adventure from it, in one transaction: the answer is the new adventure's
// play page, and the scenario is the caller's to edit. Returns not_found for
// an unknown slug.
func (s *Service) StartStarter(ctx context.Context, userID int64, slug string, persona Persona) (AdventurePage, error) {
	data, err := starterFile(slug)
	if err != nil {
		return AdventurePage{}, err
	}
	var advID int64
	err = s.store.Tx(ctx, func(tx *models.Store) error {
		sc, err := s.importScenario(ctx, tx, userID, data)
		if err != nil {
			return err
		}
		advID, err = s.play(ctx, tx, userID, sc.ID, persona)
		return err
	})
	if err != nil {
		return AdventurePage{}, err
	}
	return s.GetAdventure(ctx, userID, advID)
}
