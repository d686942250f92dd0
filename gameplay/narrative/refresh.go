package narrative

import (
	"context"
	"sort"
	"time"

	"github.com/adventure-table/adventure-table/models"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// refreshPlan is what "update from scenario" would do to one adventure.
type refreshPlan struct {
	diff    RefreshDiff
	fields  map[string]any
	add     []models.ScenarioCard
	update  []models.AdventureCard // with the scenario's new content
	remove  []int64
	schema  Schema
	removed []string
}

// planRefresh compares an adventure with the scenario it was copied from.
// It never looks at the opening, the title, the summary or player-authored
// cards: those belong to the adventure.
func planRefresh(ctx context.Context, store *models.Store, adv *models.Adventure, now time.Time) (*refreshPlan, error) {
	if adv.ScenarioID == nil {
		return nil, apperr.E(apperr.NotFound, "The scenario this adventure came from was deleted.")
	}
	sc, err := store.FindScenario(ctx, *adv.ScenarioID)
	if err != nil {
		return nil, err
	}
	scCards, err := store.ScenarioCards(ctx, sc.ID)
	if err != nil {
		return nil, err
	}
	advCards, err := store.AdventureCards(ctx, adv.ID, nil)
	if err != nil {
		return nil, err
	}
	p := &refreshPlan{fields: map[string]any{}, diff: RefreshDiff{Fields: []FieldChange{}, CardsAdded: []Card{}, CardsUpdated: []CardChange{},
		CardsRemoved: []Card{}, StatePathsAdded: []string{}, StatePathsRemoved: []string{}}}
	for _, f := range []struct{ name, old, new string }{
		{"premise", adv.Premise, sc.Premise},
		{"plot_essentials", adv.PlotEssentials, sc.PlotEssentials},
		{"ai_instructions", adv.AIInstructions, sc.AIInstructions},
		{"authors_note", adv.AuthorsNote, sc.AuthorsNote},
		{"stat_schema", adv.StatSchema, sc.StatSchema},
		{"script_library", adv.ScriptLibrary, sc.ScriptLibrary},
		{"script_input", adv.ScriptInput, sc.ScriptInput},
		{"script_context", adv.ScriptContext, sc.ScriptContext},
		{"script_output", adv.ScriptOutput, sc.ScriptOutput},
	} {
		if f.old != f.new {
			p.diff.Fields = append(p.diff.Fields, FieldChange{Field: f.name, Old: f.old, New: f.new})
			p.fields[f.name] = f.new
		}
	}
	oldSchema, newSchema := parseSchema(adv.StatSchema), parseSchema(sc.StatSchema)
	p.schema = newSchema
	for path := range newSchema {
		if _, ok := oldSchema[path]; !ok {
			p.diff.StatePathsAdded = append(p.diff.StatePathsAdded, path)
		}
	}
	for path := range oldSchema {
		if _, ok := newSchema[path]; !ok {
			p.diff.StatePathsRemoved = append(p.diff.StatePathsRemoved, path)
		}
	}
	sort.Strings(p.diff.StatePathsAdded)
	sort.Strings(p.diff.StatePathsRemoved)
	p.removed = p.diff.StatePathsRemoved

	bySource := map[int64]models.AdventureCard{}
	// edited: scenario cards whose copy the player edited in play; the
	// copy is theirs now, so the scenario's card is neither applied to it
	// nor added again beside it.
	edited := map[int64]bool{}
	for _, c := range advCards {
		switch {
		case c.SourceCardID != nil && c.PlayerAuthored:
			edited[*c.SourceCardID] = true
		case c.SourceCardID != nil:
			bySource[*c.SourceCardID] = c
		}
	}
	for _, sc := range scCards {
		if edited[sc.ID] {
			continue
		}
		ac, ok := bySource[sc.ID]
		delete(bySource, sc.ID)
		switch {
		case !ok:
			p.add = append(p.add, sc)
			p.diff.CardsAdded = append(p.diff.CardsAdded, scenarioCardView(sc))
		case ac.Title != sc.Title || ac.Keys != sc.Keys || ac.Entry != sc.Entry || ac.Type != sc.Type || ac.CardRules != sc.CardRules:
			p.diff.CardsUpdated = append(p.diff.CardsUpdated, CardChange{Old: adventureCardView(ac), New: scenarioCardView(sc)})
			ac.Title, ac.Keys, ac.Entry, ac.Type, ac.CardRules, ac.UpdatedAt = sc.Title, sc.Keys, sc.Entry, sc.Type, sc.CardRules, now
			p.update = append(p.update, ac)
		}
	}
	for _, c := range advCards {
		if _, gone := bySource[derefID(c.SourceCardID)]; gone && c.SourceCardID != nil && !c.PlayerAuthored {
			p.remove = append(p.remove, c.ID)
			p.diff.CardsRemoved = append(p.diff.CardsRemoved, adventureCardView(c))
		}
	}
	return p, nil
}

func derefID(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}

// RefreshDiff shows what "update from scenario" would change.
func (s *Service) RefreshDiff(ctx context.Context, userID, adventureID int64) (RefreshDiff, error) {
	adv, err := ownAdventure(ctx, s.store, userID, adventureID, false)
	if err != nil {
		return RefreshDiff{}, err
	}
	p, err := planRefresh(ctx, s.store, adv, s.now())
	if err != nil {
		return RefreshDiff{}, err
	}
	return p.diff, nil
}

// ApplyRefresh applies the diff in one transaction, refused while a turn is
// generating. New stats enter the current state at their initial value and
// removed ones leave it; the state of earlier nodes is history and stays.
func (s *Service) ApplyRefresh(ctx context.Context, userID, adventureID int64) (AdventurePage, error) {
	return s.treeChange(ctx, userID, adventureID, func(tx *models.Store, h head) error {
		p, err := planRefresh(ctx, tx, h.adv, s.now())
		if err != nil {
			return err
		}
		if len(p.fields) > 0 {
			p.fields["updated_at"] = s.now()
			if err := tx.UpdateAdventure(ctx, h.adv.ID, p.fields); err != nil {
				return err
			}
		}
		for i := range p.update {
			if err := tx.SaveAdventureCard(ctx, &p.update[i]); err != nil {
				return err
			}
		}
		if err := tx.DeleteAdventureCards(ctx, p.remove); err != nil {
			return err
		}
		if err := s.failpoint("refresh.after_cards"); err != nil {
			return err
		}
		added := make([]models.AdventureCard, len(p.add))
		for i, c := range p.add {
			src := c.ID
			added[i] = models.AdventureCard{AdventureID: h.adv.ID, SourceCardID: &src, Position: c.Position, Title: c.Title, Keys: c.Keys, Entry: c.Entry, Type: c.Type, CardRules: c.CardRules,
				CreatedAt: s.now(), UpdatedAt: s.now()}
		}
		if err := tx.CreateAdventureCards(ctx, added); err != nil {
			return err
		}
		if len(p.diff.StatePathsAdded) == 0 && len(p.removed) == 0 {
			return nil
		}
		tip, err := h.tip(ctx, tx)
		if err != nil {
			return err
		}
		state := parseState(tip.WorldStateAfter)
		initial := InitialState(p.schema)
		for _, path := range p.diff.StatePathsAdded {
			state[path] = initial[path]
		}
		for _, path := range p.removed {
			delete(state, path)
			delete(state, metaLastChanged+path)
		}
		return tx.SetActionWorldState(ctx, tip.ID, mustJSON(state))
	})
}
