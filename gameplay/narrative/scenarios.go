package narrative

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/adventure-table/adventure-table/gameplay/analytics"
	"github.com/adventure-table/adventure-table/gameplay/narrative/prompt"
	"github.com/adventure-table/adventure-table/models"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// Limits of what a person writes into a scenario.
const (
	MaxCards        = 500
	maxKeysPerCard  = 20
	maxTextField    = 20000
	maxCardEntry    = 4000
	maxTitleRunes   = 120
	maxCardTitle    = 200
	maxCardKeyRunes = 80
	maxCardType     = 40
	maxCardPriority = 1000000
	// MaxScriptBytes bounds one script slot: real AI Dungeon libraries run
	// to 0.3–0.8 MB.
	MaxScriptBytes = 1 << 20
)

// ScenarioLimits are the limits validateScenario enforces, for code that fits
// text from elsewhere (an imported file) into a scenario before creating it.
var ScenarioLimits = struct{ Title, Text, CardTitle, CardEntry, CardType, CardKeys, CardKeyRunes, CardPriority int }{
	maxTitleRunes, maxTextField, maxCardTitle, maxCardEntry, maxCardType, maxKeysPerCard, maxCardKeyRunes, maxCardPriority}

func validateScenario(in *ScenarioInput) error {
	bad := apperr.E(apperr.ScenarioInvalid, "The scenario has a problem.")
	in.Title = strings.TrimSpace(in.Title)
	checkText(bad, "title", in.Title, maxTitleRunes, true)
	for field, v := range map[string]string{"premise": in.Premise, "plot_essentials": in.PlotEssentials,
		"ai_instructions": in.AIInstructions, "authors_note": in.AuthorsNote, "opening": in.Opening} {
		checkText(bad, field, v, maxTextField, false)
	}
	if in.StatSchema == nil {
		in.StatSchema = Schema{}
	}
	for path, problem := range ValidateSchema(in.StatSchema) {
		bad.WithField("stat_schema."+path, problem)
	}
	checkScripts(bad, in.Scripts)
	if len(in.Cards) > MaxCards {
		bad.WithField("cards", fmt.Sprintf("at most %d cards", MaxCards))
	}
	for i := range in.Cards {
		if err := checkCard(bad, fmt.Sprintf("cards[%d].", i), &in.Cards[i]); err != nil {
			return err
		}
	}
	if len(bad.Fields) > 0 {
		return bad
	}
	return nil
}

// checkCard bounds one story card as the scenario editor and play write it,
// trimming its title and keys and dropping empty keys; problems go to e
// under prefix + the field's name. An unknown logic or a regular-expression
// key the matcher refuses comes back as its own error (card_logic_invalid,
// card_key_invalid), which the caller returns ahead of e.
func checkCard(e *apperr.Error, prefix string, c *CardInput) *apperr.Error {
	c.Title = strings.TrimSpace(c.Title)
	checkText(e, prefix+"title", c.Title, maxCardTitle, true)
	checkText(e, prefix+"entry", c.Entry, maxCardEntry, false)
	checkText(e, prefix+"type", c.Type, maxCardType, false)
	c.Keys = checkKeys(e, prefix+"keys", c.Keys)
	if c.SecondaryKeys = checkKeys(e, prefix+"secondary_keys", c.SecondaryKeys); len(c.SecondaryKeys) == 0 {
		c.SecondaryKeys = nil
	}
	if c.Priority < -maxCardPriority || c.Priority > maxCardPriority {
		e.WithField(prefix+"priority", fmt.Sprintf("from %d to %d", -maxCardPriority, maxCardPriority))
	}
	if c.Logic == prompt.LogicAndAny {
		c.Logic = ""
	}
	if !prompt.ValidLogic(c.Logic) {
		return apperr.E(apperr.CardLogicInvalid, "A story card's logic is and_any, and_all, not_any or not_all, not %q.", c.Logic).
			WithField(prefix+"logic", "unknown logic")
	}
	if key, err := prompt.CheckKeys(c.Keys, c.SecondaryKeys); err != nil {
		field := prefix + "keys"
		if !slices.Contains(c.Keys, key) {
			field = prefix + "secondary_keys"
		}
		return apperr.E(apperr.CardKeyInvalid, "The story card key %q cannot be used: %v.", key, err).
			WithField(field, err.Error()).WithDetail("key", key).WithDetail("reason", RegexRefusal(err))
	}
	return nil
}

// checkKeys trims keys, drops empty ones and bounds the rest: a plain key
// to 80 characters (a regular expression is bounded by prompt.CheckKeys),
// at most 20 of them.
func checkKeys(e *apperr.Error, field string, in []string) []string {
	keys := in[:0:0]
	for _, k := range in {
		if k = strings.TrimSpace(k); k != "" {
			keys = append(keys, k)
			if !prompt.IsRegexKey(k) {
				checkText(e, field, k, maxCardKeyRunes, false)
			}
		}
	}
	if len(keys) > maxKeysPerCard {
		e.WithField(field, fmt.Sprintf("at most %d keys", maxKeysPerCard))
	}
	return keys
}

// RegexRefusal names why the matcher refuses a regular-expression key, as
// card_key_invalid's reason and an import note's: too_long, unsupported,
// too_complex or too_many.
func RegexRefusal(err error) string {
	switch err {
	case prompt.ErrRegexTooLong:
		return "too_long"
	case prompt.ErrRegexTooComplex:
		return "too_complex"
	case prompt.ErrRegexTooMany:
		return "too_many"
	}
	return "unsupported"
}

func scenarioRow(userID int64, in ScenarioInput) models.Scenario {
	return models.Scenario{UserID: userID, Title: in.Title, Premise: in.Premise, PlotEssentials: in.PlotEssentials,
		AIInstructions: in.AIInstructions, AuthorsNote: in.AuthorsNote, Opening: in.Opening, StatSchema: mustJSON(in.StatSchema),
		ScriptLibrary: in.Scripts.Library, ScriptInput: in.Scripts.Input, ScriptContext: in.Scripts.Context, ScriptOutput: in.Scripts.Output}
}

// scenarioCardRows keeps the ids of existing cards whose title matches, so an
// edited card stays the same card for adventures copied from it.
func scenarioCardRows(in []CardInput, existing []models.ScenarioCard) []models.ScenarioCard {
	byTitle := map[string]int64{}
	for _, c := range existing {
		byTitle[c.Title] = c.ID
	}
	rows := make([]models.ScenarioCard, len(in))
	for i, c := range in {
		rows[i] = models.ScenarioCard{ID: byTitle[c.Title], Title: c.Title, Keys: mustJSON(c.Keys), Entry: c.Entry, Type: c.Type, CardRules: c.rules()}
		delete(byTitle, c.Title)
	}
	return rows
}

func scenarioView(sc models.Scenario, cards []models.ScenarioCard) ScenarioView {
	v := ScenarioView{ID: sc.ID, Title: sc.Title, Premise: sc.Premise, PlotEssentials: sc.PlotEssentials, AIInstructions: sc.AIInstructions,
		AuthorsNote: sc.AuthorsNote, Opening: sc.Opening, StatSchema: parseSchema(sc.StatSchema), Cards: make([]Card, len(cards)),
		Scripts:   Scripts{Library: sc.ScriptLibrary, Input: sc.ScriptInput, Context: sc.ScriptContext, Output: sc.ScriptOutput},
		CreatedAt: sc.CreatedAt, UpdatedAt: sc.UpdatedAt}
	for i, c := range cards {
		v.Cards[i] = scenarioCardView(c)
	}
	return v
}

// ownScenario loads a scenario the user owns; another user's is not_found.
func ownScenario(ctx context.Context, store *models.Store, userID, id int64) (*models.Scenario, error) {
	sc, err := store.FindScenario(ctx, id)
	if err != nil {
		return nil, err
	}
	if sc.UserID != userID {
		return nil, apperr.E(apperr.NotFound, "The scenario does not exist.")
	}
	return sc, nil
}

// CreateScenario stores a new scenario.
func (s *Service) CreateScenario(ctx context.Context, userID int64, in ScenarioInput) (ScenarioView, error) {
	v, err := s.createScenario(ctx, s.store, userID, in)
	if err == nil {
		s.analytics.Reach(userID, analytics.Made)
	}
	return v, err
}

// createScenario is CreateScenario in store (a transaction of a caller's, or
// the service's store).
func (s *Service) createScenario(ctx context.Context, store *models.Store, userID int64, in ScenarioInput) (ScenarioView, error) {
	if err := validateScenario(&in); err != nil {
		return ScenarioView{}, err
	}
	var out ScenarioView
	err := store.Tx(ctx, func(tx *models.Store) error {
		sc := scenarioRow(userID, in)
		sc.CreatedAt, sc.UpdatedAt = s.now(), s.now()
		cards := scenarioCardRows(in.Cards, nil)
		if err := tx.CreateScenario(ctx, &sc, cards); err != nil {
			return err
		}
		out = scenarioView(sc, cards)
		return nil
	})
	return out, err
}

// UpdateScenario replaces a scenario. Adventures already played from it do
// not change (they hold copies) until their player asks for the update.
func (s *Service) UpdateScenario(ctx context.Context, userID, id int64, in ScenarioInput) (ScenarioView, error) {
	if err := validateScenario(&in); err != nil {
		return ScenarioView{}, err
	}
	var out ScenarioView
	err := s.store.Tx(ctx, func(tx *models.Store) error {
		old, err := ownScenario(ctx, tx, userID, id)
		if err != nil {
			return err
		}
		existing, err := tx.ScenarioCards(ctx, id)
		if err != nil {
			return err
		}
		out, err = s.replaceScenario(ctx, tx, old, existing, in)
		return err
	})
	return out, err
}

// replaceScenario writes a validated scenario over old, whose cards are
// existing (a card keeps its id while its title stays).
func (s *Service) replaceScenario(ctx context.Context, tx *models.Store, old *models.Scenario, existing []models.ScenarioCard, in ScenarioInput) (ScenarioView, error) {
	sc := scenarioRow(old.UserID, in)
	sc.ID, sc.CreatedAt, sc.UpdatedAt = old.ID, old.CreatedAt, s.now()
	cards := scenarioCardRows(in.Cards, existing)
	if err := tx.UpdateScenario(ctx, &sc, cards); err != nil {
		return ScenarioView{}, err
	}
	return scenarioView(sc, cards), nil
}

// GetScenario returns one of the caller's scenarios.
func (s *Service) GetScenario(ctx context.Context, userID, id int64) (ScenarioView, error) {
	sc, err := ownScenario(ctx, s.store, userID, id)
	if err != nil {
		return ScenarioView{}, err
	}
	cards, err := s.store.ScenarioCards(ctx, id)
	return scenarioView(*sc, cards), err
}

// ListScenarios returns the caller's scenarios.
func (s *Service) ListScenarios(ctx context.Context, userID int64) (ScenarioList, error) {
	rows, err := s.store.ListScenarios(ctx, userID)
	out := ScenarioList{Scenarios: make([]ScenarioSummary, len(rows))}
	for i, r := range rows {
		premise := r.Premise
		if len(premise) > 200 {
			premise = strings.ToValidUTF8(premise[:200], "") + "…"
		}
		out.Scenarios[i] = ScenarioSummary{ID: r.ID, Title: r.Title, Premise: premise, UpdatedAt: r.UpdatedAt}
	}
	return out, err
}

// DeleteScenario deletes one of the caller's scenarios; its adventures keep
// playing from their copies.
func (s *Service) DeleteScenario(ctx context.Context, userID, id int64) (Deleted, error) {
	err := s.store.Tx(ctx, func(tx *models.Store) error {
		if _, err := ownScenario(ctx, tx, userID, id); err != nil {
			return err
		}
		return tx.DeleteScenario(ctx, id)
	})
	return Deleted{Deleted: err == nil}, err
}

func validatePersona(p *Persona) error {
	bad := apperr.E(apperr.ScenarioInvalid, "The protagonist has a problem.")
	p.PersonaName = strings.TrimSpace(p.PersonaName)
	checkText(bad, "persona_name", p.PersonaName, 120, false)
	checkText(bad, "persona_pronouns", p.PersonaPronouns, 60, false)
	checkText(bad, "persona_desc", p.PersonaDesc, 2000, false)
	if len(bad.Fields) > 0 {
		return bad
	}
	return nil
}

// Play creates an adventure from a scenario: it copies the plot fields, the
// stat schema and the cards, creates the main branch and the opening node
// (depth 0) holding the initial world state, all in one transaction.
func (s *Service) Play(ctx context.Context, userID, scenarioID int64, persona Persona) (AdventurePage, error) {
	advID, err := s.play(ctx, s.store, userID, scenarioID, persona)
	if err != nil {
		return AdventurePage{}, err
	}
	return s.GetAdventure(ctx, userID, advID)
}

// play is Play in store (a transaction of a caller's, or the service's
// store); it returns the new adventure's id.
func (s *Service) play(ctx context.Context, store *models.Store, userID, scenarioID int64, persona Persona) (int64, error) {
	if err := validatePersona(&persona); err != nil {
		return 0, err
	}
	var advID int64
	err := store.Tx(ctx, func(tx *models.Store) error {
		sc, err := ownScenario(ctx, tx, userID, scenarioID)
		if err != nil {
			return err
		}
		scCards, err := tx.ScenarioCards(ctx, scenarioID)
		if err != nil {
			return err
		}
		now := s.now()
		adv := models.Adventure{UserID: userID, ScenarioID: &sc.ID, Title: sc.Title, Premise: sc.Premise, PlotEssentials: sc.PlotEssentials,
			AIInstructions: sc.AIInstructions, AuthorsNote: sc.AuthorsNote, StatSchema: sc.StatSchema,
			ScriptLibrary: sc.ScriptLibrary, ScriptInput: sc.ScriptInput, ScriptContext: sc.ScriptContext, ScriptOutput: sc.ScriptOutput,
			PersonaName: persona.PersonaName, PersonaPronouns: persona.PersonaPronouns, PersonaDesc: persona.PersonaDesc,
			CreatedAt: now, UpdatedAt: now}
		if err := tx.CreateAdventure(ctx, &adv); err != nil {
			return err
		}
		main := models.Branch{AdventureID: adv.ID, Lineage: "[]", Name: mainBranchName, CreatedAt: now}
		if err := tx.CreateBranch(ctx, &main); err != nil {
			return err
		}
		cards := make([]models.AdventureCard, len(scCards))
		for i, c := range scCards {
			src := c.ID
			cards[i] = models.AdventureCard{AdventureID: adv.ID, SourceCardID: &src, Position: i, Title: c.Title, Keys: c.Keys, Entry: c.Entry, Type: c.Type,
				CardRules: c.CardRules, CreatedAt: now, UpdatedAt: now}
		}
		if err := tx.CreateAdventureCards(ctx, cards); err != nil {
			return err
		}
		if err := s.failpoint("play.after_cards"); err != nil {
			return err
		}
		opening := models.Action{AdventureID: adv.ID, BranchID: main.ID, Depth: 0, Live: true, Kind: models.ActionOpening,
			Text: sc.Opening, TokenCount: countTokens(sc.Opening), WorldStateAfter: mustJSON(InitialState(parseSchema(sc.StatSchema))),
			ScriptStateAfter: "{}", Outcomes: "[]", CreatedAt: now}
		if err := tx.CreateAction(ctx, &opening); err != nil {
			return err
		}
		advID = adv.ID
		return tx.UpdateAdventure(ctx, adv.ID, map[string]any{"head_branch_id": main.ID, "head_depth": 0})
	})
	return advID, err
}
