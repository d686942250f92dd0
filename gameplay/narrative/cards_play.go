package narrative

import (
	"context"
	"errors"
	"math"
	"slices"
	"unicode/utf8"

	"github.com/adventure-table/adventure-table/models"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// Where a card of an adventure came from.
const (
	CardFromScenario = "scenario" // copied from the scenario when play began (or by an update)
	CardFromPlayer   = "player"   // written by the player in play
	CardFromScript   = "script"   // made by a turn's script; it lives on that turn's lines
)

// PlayCard is a story card of an adventure as the play screen shows it.
type PlayCard struct {
	Card
	Enabled bool   `json:"enabled" jsonschema:"false: set aside, it never enters a prompt"`
	Source  string `json:"source" jsonschema:"scenario, player or script"`
	// PlayerAuthored says the player wrote or edited it in play: "update
	// from scenario" never changes it.
	PlayerAuthored bool `json:"player_authored"`
	// LastTurn is what the newest narration's prompt did with the card:
	// nil when its keys were not named there.
	LastTurn *CardUse `json:"last_turn"`
}

// CardUse is what one prompt did with a triggered card.
type CardUse struct {
	Trigger  string `json:"trigger" jsonschema:"the key that named it; empty for a constant card"`
	Constant bool   `json:"constant,omitempty" jsonschema:"in without a key"`
	Tokens   int    `json:"tokens"`
	Included bool   `json:"included" jsonschema:"false when it did not fit the card budget"`
}

// ContextFill is how full the newest narration's prompt was.
type ContextFill struct {
	ActionID int64 `json:"action_id"`
	// Budget is the context budget the prompt was built for.
	Budget int `json:"budget"`
	// Used is the prompt's size: the endpoint's reported prompt tokens, or,
	// when it reported none (Estimated), the offline tokenizer's count
	// times the token ratio.
	Used      int  `json:"used"`
	Estimated bool `json:"estimated"`
}

// PlayCards is an adventure's story cards on the line being read, with what
// the newest narration's prompt did with them.
type PlayCards struct {
	Cards    []PlayCard `json:"cards"`
	MaxCards int        `json:"max_cards"`
	// LastBuild is the newest narration's prompt: nil before the first, or
	// once retention dropped it.
	LastBuild *ContextFill `json:"last_build"`
}

// CardEdit edits a story card in play; nil fields are kept.
type CardEdit struct {
	Title *string `json:"title,omitempty" jsonschema:"1 to 200 characters"`
	// Keys absent (nil) keeps them; [] clears them.
	Keys    []string `json:"keys,omitempty" jsonschema:"up to 20 trigger words of up to 80 characters"`
	Entry   *string  `json:"entry,omitempty" jsonschema:"up to 4000 characters"`
	Type    *string  `json:"type,omitempty" jsonschema:"up to 40 characters"`
	Enabled *bool    `json:"enabled,omitempty" jsonschema:"false sets the card aside"`
	// SecondaryKeys absent (nil) keeps them; [] clears them.
	SecondaryKeys []string `json:"secondary_keys,omitempty" jsonschema:"up to 20 words checked with logic once a key has named the card"`
	Logic         *string  `json:"logic,omitempty" jsonschema:"and_any, and_all, not_any or not_all"`
	Constant      *bool    `json:"constant,omitempty" jsonschema:"true: in every prompt without a key"`
	Priority      *int     `json:"priority,omitempty" jsonschema:"-1000000 to 1000000; higher is nearer the end of the lore and wins a short budget"`
}

// TokenCountInput is text to count.
type TokenCountInput struct {
	Text string `json:"text" jsonschema:"up to 16000 characters"`
}

// TokenCount is an estimate of what a model endpoint will count.
type TokenCount struct {
	// Tokens is the offline tokenizer's count times TokenRatio, rounded:
	// exact for OpenAI vocabularies, an estimate for others.
	Tokens int `json:"tokens"`
	// TokenRatio is the calibration learnt from the endpoint's reports.
	TokenRatio float64 `json:"token_ratio"`
}

// maxCountText bounds what one count reads: four turns' worth.
const maxCountText = 4 * maxTurnText

// enabledCards drops the cards the player set aside: they never enter a
// prompt, the memory bank's cast brief or the scripts' storyCards (so a
// script cannot rewrite or remove them either).
func enabledCards(rows []models.AdventureCard, err error) ([]models.AdventureCard, error) {
	return slices.DeleteFunc(rows, func(c models.AdventureCard) bool { return c.Disabled }), err
}

func playCard(c models.AdventureCard, uses map[int64]*CardUse) PlayCard {
	source := CardFromPlayer
	switch {
	case c.SourceCardID != nil:
		source = CardFromScenario
	case c.OriginActionID != nil:
		source = CardFromScript
	}
	return PlayCard{Card: adventureCardView(c), Enabled: !c.Disabled, Source: source, PlayerAuthored: c.PlayerAuthored, LastTurn: uses[c.ID]}
}

// lastBuild reads the newest narration of the head line (the tip, or the
// node before a player action still waiting for one) and its prompt.
func (s *Service) lastBuild(ctx context.Context, h head, ratio float64) (*ContextFill, map[int64]*CardUse, error) {
	uses := map[int64]*CardUse{}
	rows, err := s.store.LineTail(ctx, models.LineQuery{Line: h.line, Limit: 2})
	if err != nil {
		return nil, uses, err
	}
	i := slices.IndexFunc(rows, func(r models.ActionRow) bool { return r.Kind == models.ActionNarration })
	if i < 0 || !rows[i].HasPrompt {
		return nil, uses, nil
	}
	n := rows[i]
	snap, err := s.readSnapshot(ctx, n.ID)
	if errors.Is(err, errSnapshotGone) {
		return nil, uses, nil
	} else if err != nil {
		return nil, uses, err
	}
	for _, c := range snap.Cards {
		uses[c.ID] = &CardUse{Trigger: c.Trigger, Constant: c.Constant, Tokens: c.Tokens, Included: c.Included}
	}
	fill := &ContextFill{ActionID: n.ID, Budget: snap.Budget, Used: n.PromptTokens}
	if fill.Used == 0 {
		fill.Used, fill.Estimated = int(math.Round(float64(snap.TotalTokens)*ratio)), true
	}
	return fill, uses, nil
}

// ListCards returns the story cards of the line the player is reading —
// the shared ones and those a turn live on it made, set-aside ones too —
// and what the newest narration's prompt did with each. Returns not_found
// for another user's adventure.
func (s *Service) ListCards(ctx context.Context, userID, adventureID int64) (PlayCards, error) {
	h, err := ownHead(ctx, s.store, userID, adventureID, false)
	if err != nil {
		return PlayCards{}, err
	}
	settings, err := s.loadSettings(ctx, s.store, userID)
	if err != nil {
		return PlayCards{}, err
	}
	rows, err := s.store.AdventureCards(ctx, adventureID, h.line)
	if err != nil {
		return PlayCards{}, err
	}
	fill, uses, err := s.lastBuild(ctx, h, ratioOf(settings))
	if err != nil {
		return PlayCards{}, err
	}
	out := PlayCards{Cards: make([]PlayCard, len(rows)), MaxCards: MaxCards, LastBuild: fill}
	for i, c := range rows {
		out.Cards[i] = playCard(c, uses)
	}
	return out, nil
}

// checkPlayCard applies the scenario editor's rules to a card written in
// play; problems are card_invalid, keyed by field.
func checkPlayCard(c *CardInput) error {
	bad := apperr.E(apperr.CardInvalid, "The story card has a problem.")
	if c.Keys == nil {
		c.Keys = []string{}
	}
	if err := checkCard(bad, "", c); err != nil {
		return err
	}
	if len(bad.Fields) > 0 {
		return bad
	}
	return nil
}

// AddCard writes a story card into the adventure during play. It is the
// player's: on every line, and never changed by "update from scenario".
// Refused while a turn is generating (turn_in_progress); card_invalid for a
// bad card, card_limit_reached once the adventure holds MaxCards, not_found
// for another user's adventure.
func (s *Service) AddCard(ctx context.Context, userID, adventureID int64, in CardInput) (PlayCard, error) {
	if err := checkPlayCard(&in); err != nil {
		return PlayCard{}, err
	}
	var row models.AdventureCard
	err := s.store.Tx(ctx, func(tx *models.Store) error {
		if _, err := s.idleHead(ctx, tx, userID, adventureID); err != nil {
			return err
		}
		all, err := tx.AdventureCards(ctx, adventureID, nil)
		if err != nil {
			return err
		}
		if len(all) >= MaxCards {
			return apperr.E(apperr.CardLimitReached, "An adventure holds at most %d story cards; set one aside or edit one instead.", MaxCards)
		}
		pos := 0
		for _, c := range all {
			pos = max(pos, c.Position+1)
		}
		now := s.now()
		rows := []models.AdventureCard{{AdventureID: adventureID, PlayerAuthored: true, Position: pos, Title: in.Title, Keys: mustJSON(in.Keys),
			Entry: in.Entry, Type: in.Type, CardRules: in.rules(), CreatedAt: now, UpdatedAt: now}}
		if err := tx.CreateAdventureCards(ctx, rows); err != nil {
			return err
		}
		row = rows[0]
		return nil
	})
	if err != nil {
		return PlayCard{}, err
	}
	return playCard(row, nil), nil
}

// ChangeCard edits, sets aside or brings back a story card of the line the
// player is reading. An edit of its text makes it the player's (update from
// scenario leaves it alone from then on); setting it aside or back does
// not. A card a turn's script made keeps to that turn's lines. Refused while
// a turn is generating (turn_in_progress); card_invalid for a bad edit;
// not_found for a card not on the line or another user's adventure.
func (s *Service) ChangeCard(ctx context.Context, userID, adventureID, cardID int64, in CardEdit) (PlayCard, error) {
	var out PlayCard
	err := s.store.Tx(ctx, func(tx *models.Store) error {
		h, err := s.idleHead(ctx, tx, userID, adventureID)
		if err != nil {
			return err
		}
		rows, err := tx.AdventureCards(ctx, adventureID, h.line)
		if err != nil {
			return err
		}
		i := slices.IndexFunc(rows, func(c models.AdventureCard) bool { return c.ID == cardID })
		if i < 0 {
			return apperr.E(apperr.NotFound, "The story card does not exist on this line.")
		}
		c := rows[i]
		cur := adventureCardView(c).CardInput
		next := cur
		if in.Title != nil {
			next.Title = *in.Title
		}
		if in.Keys != nil {
			next.Keys = in.Keys
		}
		if in.Entry != nil {
			next.Entry = *in.Entry
		}
		if in.Type != nil {
			next.Type = *in.Type
		}
		if in.SecondaryKeys != nil {
			next.SecondaryKeys = in.SecondaryKeys
		}
		if in.Logic != nil {
			next.Logic = *in.Logic
		}
		if in.Constant != nil {
			next.Constant = *in.Constant
		}
		if in.Priority != nil {
			next.Priority = *in.Priority
		}
		// Only an edit of the card is checked: setting aside a card a script
		// wrote past the editor's limits (a long key) still works.
		edited := in.Title != nil || in.Keys != nil || in.Entry != nil || in.Type != nil ||
			in.SecondaryKeys != nil || in.Logic != nil || in.Constant != nil || in.Priority != nil
		if edited {
			if err := checkPlayCard(&next); err != nil {
				return err
			}
		}
		changed := false
		if edited && (next.Title != cur.Title || !slices.Equal(next.Keys, cur.Keys) || next.Entry != cur.Entry || next.Type != cur.Type ||
			next.rules() != cur.rules()) {
			c.Title, c.Keys, c.Entry, c.Type, c.CardRules, c.PlayerAuthored = next.Title, mustJSON(next.Keys), next.Entry, next.Type, next.rules(), true
			changed = true
		}
		if in.Enabled != nil && *in.Enabled == c.Disabled {
			c.Disabled, changed = !*in.Enabled, true
		}
		if changed {
			c.UpdatedAt = s.now()
			if err := tx.SaveAdventureCard(ctx, &c); err != nil {
				return err
			}
		}
		out = playCard(c, nil)
		return nil
	})
	return out, err
}

// CountTokens estimates what the user's model endpoint will count for text:
// the server's offline tokenizer times the ratio learnt from the endpoint's
// reports. turn_text_invalid for text over 16000 characters.
func (s *Service) CountTokens(ctx context.Context, userID int64, in TokenCountInput) (TokenCount, error) {
	if utf8.RuneCountInString(in.Text) > maxCountText {
		return TokenCount{}, apperr.E(apperr.TurnTextInvalid, "Text to count is at most %d characters.", maxCountText).WithField("text", "is too long")
	}
	settings, err := s.loadSettings(ctx, s.store, userID)
	if err != nil {
		return TokenCount{}, err
	}
	ratio := ratioOf(settings)
	n := 0
	if in.Text != "" {
		n = int(math.Round(float64(countTokens(in.Text)) * ratio))
	}
	return TokenCount{Tokens: n, TokenRatio: ratio}, nil
}

// ratioOf is the settings' token ratio, 1 when unset.
func ratioOf(p models.ProviderSetting) float64 {
	if p.TokenRatio <= 0 {
		return 1
	}
	return p.TokenRatio
}
