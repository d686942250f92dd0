package narrative

import (
	"context"
	"time"

	"github.com/adventure-table/adventure-table/gameplay/analytics"
	"github.com/adventure-table/adventure-table/gameplay/llm"
	"github.com/adventure-table/adventure-table/models"
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
	res, err := s.stream(ctx, userID, ls, r, demo, onEvent)
	if demo {
		s.settleDemoTokens(ctx, userID, reserved, demoTokensSpent(r.Messages, res, err))
	}
	if err != nil {
		return res, providerError(err)
	}
	return res, nil
}

// ContextBudget is how many tokens (as prompt.Count counts them) a prompt
// of userID's model work may hold: their narrator settings' context
// budget (the demo's cap when the demo narrator serves them), turned into
// estimator tokens by the ratio learnt from the endpoint, as a solo turn
// spends it.
func (s *Service) ContextBudget(ctx context.Context, userID int64) (int, error) {
	p, err := s.loadSettings(ctx, s.store, userID)
	if err != nil {
		return 0, err
	}
	_, budget := s.contextBudget(p, s.demoServes(p))
	return budget, nil
}

// contextBudget is p's context budget as the user set it (capped by the
// demo's when the demo serves them) and in estimator tokens.
func (s *Service) contextBudget(p models.ProviderSetting, demo bool) (user, estimator int) {
	ratio := p.TokenRatio
	if ratio <= 0 {
		ratio = 1
	}
	// The tokenizer is exact for OpenAI vocabularies and an estimate for
	// others; the ratio learnt from the endpoint's reported prompt tokens
	// turns the user's budget into estimator tokens.
	user = p.ContextBudget
	if demo {
		user = min(user, s.demo.ContextBudget)
	}
	return user, int(float64(user) / ratio)
}

// stream is every model call of the narrator (a solo turn, the narrator
// at a table seat, the memory bank's summaries): the provider's stream,
// counted on the way (time to its first piece, the tokens it spent and
// who pays for them) without reading anything.
func (s *Service) stream(ctx context.Context, userID int64, ls llm.Settings, r llm.Request, demo bool, onEvent func(llm.Event)) (llm.Result, error) {
	start := time.Now()
	var firstToken time.Duration
	res, err := s.provider.Stream(ctx, ls, r, func(ev llm.Event) {
		if firstToken == 0 {
			firstToken = max(time.Since(start), time.Nanosecond)
		}
		onEvent(ev)
	})
	s.analytics.ModelCall(firstToken, int64(res.PromptTokens+res.CompletionTokens), demo)
	if demo {
		s.analytics.Reach(userID, analytics.Demo)
	}
	return res, err
}
