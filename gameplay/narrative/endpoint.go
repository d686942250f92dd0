package narrative

import (
	"context"

	"github.com/adventure-table/adventure-table/gameplay/llm"
)

// CallModel streams one completion on the user's narrator endpoint, for
// work outside a solo turn (the narrator at a table seat): their own
// settings, or, hosted and without a key, the demo narrator inside the
// user's daily budget (reserved before, settled after), exactly as a
// solo turn decides it (turnEndpoint). Returns the provider_* codes (as a
// solo turn maps them), provider_settings_invalid or demo_budget_exhausted.
func (s *Service) CallModel(ctx context.Context, userID int64, r llm.Request, onEvent func(llm.Event)) (llm.Result, error) {
	p, err := s.loadSettings(ctx, s.store, userID)
	if err != nil {
		return llm.Result{}, err
	}
	ls, demo, err := s.turnEndpoint(ctx, userID, p)
	if err != nil {
		return llm.Result{}, err
	}
	if ls.MaxOutputTokens <= 0 {
		ls.MaxOutputTokens = DefaultMaxOutputTokens
	}
	var reserved demoReservation
	if demo {
		if reserved, err = s.reserveDemoTokens(ctx, userID, r.Messages, ls.MaxOutputTokens); err != nil {
			return llm.Result{}, err
		}
	}
	res, err := s.provider.Stream(ctx, ls, r, onEvent)
	if demo {
		s.settleDemoTokens(ctx, userID, reserved, demoTokensSpent(r.Messages, res, err))
	}
	if err != nil {
		return res, providerError(err)
	}
	return res, nil
}
