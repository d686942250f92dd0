package narrative

import (
	"context"
	"slices"

	"github.com/adventure-table/adventure-table/models"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// What an agent with a scenario's solo grant changes and runs: the calls
// the scenario editor makes in pieces, for a writer's assistant that
// drafts one card at a time and tries the scripts as they are stored.

// ScenarioCardChange adds, edits or deletes one card of a scenario.
type ScenarioCardChange struct {
	Action string    `json:"action" jsonschema:"add, edit or delete"`
	CardID int64     `json:"card_id,omitempty" jsonschema:"edit, delete"`
	Card   CardInput `json:"card,omitzero" jsonschema:"add, edit: the whole card"`
}

// ChangeScenarioCard changes one card of one of the user's scenarios, in
// one transaction with the same validation as saving the whole scenario.
// The scenario's other fields and cards are kept. Returns not_found,
// invalid_request, scenario_invalid (with the card's fields as
// cards[i].field), card_logic_invalid, card_key_invalid.
func (s *Service) ChangeScenarioCard(ctx context.Context, userID, scenarioID int64, in ScenarioCardChange) (ScenarioView, error) {
	var out ScenarioView
	err := s.store.Tx(ctx, func(tx *models.Store) error {
		sc, err := ownScenario(ctx, tx, userID, scenarioID)
		if err != nil {
			return err
		}
		existing, err := tx.ScenarioCards(ctx, scenarioID)
		if err != nil {
			return err
		}
		next := scenarioView(*sc, existing)
		i := slices.IndexFunc(next.Cards, func(c Card) bool { return c.ID == in.CardID })
		switch {
		case in.Action == "add":
			next.Cards = append(next.Cards, Card{CardInput: in.Card})
		case in.Action != "edit" && in.Action != "delete":
			return apperr.E(apperr.InvalidRequest, "Unknown action %q.", in.Action).WithField("action", "add, edit or delete")
		case i < 0:
			return apperr.E(apperr.NotFound, "The scenario has no card %d.", in.CardID)
		case in.Action == "edit":
			next.Cards[i].CardInput = in.Card
		default:
			next.Cards = slices.Delete(next.Cards, i, i+1)
		}
		input := ScenarioInput{Title: next.Title, Premise: next.Premise, PlotEssentials: next.PlotEssentials, AIInstructions: next.AIInstructions,
			AuthorsNote: next.AuthorsNote, Opening: next.Opening, StatSchema: next.StatSchema, Scripts: next.Scripts, Cards: make([]CardInput, len(next.Cards))}
		for j, c := range next.Cards {
			input.Cards[j] = c.CardInput
		}
		if err := validateScenario(&input); err != nil {
			return err
		}
		out, err = s.replaceScenario(ctx, tx, sc, existing, input)
		return err
	})
	return out, err
}

// StoredScriptTest runs the scripts stored with one adventure or scenario
// (ScenarioID when AdventureID is 0), or a draft of them, once against the
// sample story, as TestScripts does; nothing is stored.
type StoredScriptTest struct {
	AdventureID int64
	ScenarioID  int64
	// Text is the player's action the input hook gets; empty for a sample.
	Text string
	// Draft, when set, replaces the stored scripts for this run.
	Draft *Scripts
}

// TestStoredScripts runs TestScripts on the scripts of one of the user's
// adventures or scenarios. Returns not_found, scenario_invalid.
func (s *Service) TestStoredScripts(ctx context.Context, userID int64, in StoredScriptTest) (ScriptTestResult, error) {
	var scripts Scripts
	if in.AdventureID != 0 {
		adv, err := ownAdventure(ctx, s.store, userID, in.AdventureID, false)
		if err != nil {
			return ScriptTestResult{}, err
		}
		scripts = Scripts{Library: adv.ScriptLibrary, Input: adv.ScriptInput, Context: adv.ScriptContext, Output: adv.ScriptOutput}
	} else {
		sc, err := ownScenario(ctx, s.store, userID, in.ScenarioID)
		if err != nil {
			return ScriptTestResult{}, err
		}
		scripts = Scripts{Library: sc.ScriptLibrary, Input: sc.ScriptInput, Context: sc.ScriptContext, Output: sc.ScriptOutput}
	}
	if in.Draft != nil {
		scripts = *in.Draft
	}
	return s.TestScripts(ctx, ScriptTestInput{Scripts: scripts, Text: in.Text})
}
