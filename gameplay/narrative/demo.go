package narrative

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/adventure-table/adventure-table/gameplay/llm"
	"github.com/adventure-table/adventure-table/models"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// The demo narrator (seed §3.3) lets people play with no API key of their
// own, on an endpoint and key the server pays for. It is the most defended
// path of the service: turnEndpoint is the one place that decides between
// a user's own endpoint (BYOK) and the demo, and on the demo path it pins
// the endpoint, the key and the model, so nothing a caller sends can aim
// the server's key at another URL or an expensive model; a per-user daily
// token budget applies; background work (memory summaries, embeddings,
// the recall query's embedding) never uses it.

// Defaults of the demo narrator.
const (
	DefaultDemoDailyTokens = 20000
	// A demo turn's prompt and reply are capped (the user's own lower
	// settings still apply), so one turn cannot spend a day's budget many
	// times over.
	DefaultDemoContextBudget   = DefaultContextBudget
	DefaultDemoMaxOutputTokens = DefaultMaxOutputTokens
)

// DemoConfig is the server-funded demo narrator. Its APIKey is never
// printed: String, GoString and LogValue redact it.
type DemoConfig struct {
	// BaseURL is the OpenAI-compatible endpoint, such as
	// https://openrouter.ai/api/v1.
	BaseURL string
	// APIKey is the server's key for BaseURL.
	APIKey string
	// Models is the whitelist; Models[0] is the default, used whenever the
	// user's chosen model is not on the list.
	Models []string
	// DailyTokens is each user's budget per UTC day (prompt + completion);
	// 0 means DefaultDemoDailyTokens.
	DailyTokens int64
	// ContextBudget and MaxOutputTokens cap one demo turn; 0 means the
	// defaults above.
	ContextBudget   int
	MaxOutputTokens int
}

// String describes the demo without its key.
func (d DemoConfig) String() string {
	return fmt.Sprintf("demo narrator %s, models %s, %d tokens a day per user, key redacted", d.BaseURL, strings.Join(d.Models, ","), d.DailyTokens)
}

// GoString is String: %#v must not print the key either.
func (d DemoConfig) GoString() string { return d.String() }

// LogValue keeps the key out of structured logs.
func (d DemoConfig) LogValue() slog.Value {
	return slog.GroupValue(slog.String("base_url", d.BaseURL), slog.Any("models", d.Models), slog.Int64("daily_tokens", d.DailyTokens))
}

// validate is the defensive check New makes: a demo that could send the
// server's key somewhere unpinned, or with no model to pin, is a bug in
// the caller's configuration, not a user's mistake.
func (d *DemoConfig) validate() error {
	if !strings.HasPrefix(d.BaseURL, "https://") && !strings.HasPrefix(d.BaseURL, "http://") {
		return errors.New("demo base URL must be an http:// or https:// URL")
	}
	if len(d.Models) == 0 {
		return errors.New("demo models: the whitelist is empty")
	}
	for _, m := range d.Models {
		if strings.TrimSpace(m) == "" || m != strings.TrimSpace(m) {
			return fmt.Errorf("demo models: %q is not a model name", m)
		}
	}
	if d.DailyTokens < 0 || d.ContextBudget < 0 || d.MaxOutputTokens < 0 {
		return errors.New("demo limits must not be negative")
	}
	return nil
}

// withDefaults is a copy with its zero limits filled in.
func (d DemoConfig) withDefaults() *DemoConfig {
	d.Models = slices.Clone(d.Models)
	if d.DailyTokens == 0 {
		d.DailyTokens = DefaultDemoDailyTokens
	}
	if d.ContextBudget == 0 {
		d.ContextBudget = DefaultDemoContextBudget
	}
	if d.MaxOutputTokens == 0 {
		d.MaxOutputTokens = DefaultDemoMaxOutputTokens
	}
	return &d
}

// model pins a user's choice to the whitelist: the user's model when it is
// on the list, else the default (the first).
func (d *DemoConfig) model(chosen string) string {
	if slices.Contains(d.Models, chosen) {
		return chosen
	}
	return d.Models[0]
}

// ownsEndpoint says whether a user's settings name an endpoint of their
// own: an API key, or a base URL other than the default one. Such a user
// is always served by their own settings (BYOK).
func ownsEndpoint(p models.ProviderSetting) bool {
	base := strings.TrimRight(strings.TrimSpace(p.BaseURL), "/")
	return p.APIKeySealed != "" || (base != "" && base != strings.TrimRight(llm.DefaultBaseURL, "/"))
}

// demoServes says whether the demo narrator serves this user's turns: the
// server has one and the user has no endpoint of their own. It is the
// decision turnEndpoint makes; the memory bank and the settings view ask
// it too, never to build a demo call.
func (s *Service) demoServes(p models.ProviderSetting) bool {
	return s.demo != nil && !ownsEndpoint(p)
}

// demoDay is the UTC day the demo budget counts, and how long until the
// next one begins (at least a second).
func (s *Service) demoDay() (string, time.Duration) {
	now := s.now().UTC()
	next := time.Date(now.Year(), now.Month(), now.Day()+1, 0, 0, 0, 0, time.UTC)
	return now.Format(time.DateOnly), max(next.Sub(now), time.Second)
}

// turnEndpoint decides where one narration goes; it is the only place the
// BYOK-versus-demo decision is made.
//
//   - A user with an API key of their own, or a base URL other than the
//     default, is served by their own settings (BYOK), demo or not.
//   - Otherwise, when the server has a demo narrator, the turn goes to the
//     demo: the base URL and the key are the server's (nothing of the
//     user's settings is read for them), the model is the user's choice
//     only when it is on the whitelist (else the default), and the output
//     cap is the lower of the user's and the demo's. Before any request,
//     the user's tokens today (UTC) are checked against the daily budget:
//     at or past it the turn is refused with demo_budget_exhausted, whose
//     details.retry_after_seconds is the wait until UTC midnight.
//   - Otherwise (no demo): the user's own settings, as always.
//
// demo reports which path was taken; the caller reserves what a demo call
// may spend right before it (reserveDemoTokens) and settles it after.
func (s *Service) turnEndpoint(ctx context.Context, userID int64, p models.ProviderSetting) (ls llm.Settings, demo bool, err error) {
	if !s.demoServes(p) {
		ls, err = s.llmSettings(p)
		return ls, false, err
	}
	d := s.demo
	day, wait := s.demoDay()
	used, err := s.store.DemoTokens(ctx, userID, day)
	if err != nil {
		return llm.Settings{}, true, err
	}
	if used >= d.DailyTokens {
		return llm.Settings{}, true, s.demoExhausted(used, wait)
	}
	ls = llm.Settings{BaseURL: d.BaseURL, APIKey: d.APIKey, Model: d.model(p.Model),
		MaxOutputTokens: min(cmpPositive(p.MaxOutputTokens, DefaultMaxOutputTokens), d.MaxOutputTokens),
		Temperature:     p.Temperature, TopP: p.TopP}
	if !slices.Contains(d.Models, ls.Model) || ls.BaseURL != d.BaseURL {
		// Unreachable by construction; refuse rather than spend.
		return llm.Settings{}, true, apperr.E(apperr.Internal, "The demo narrator is misconfigured.")
	}
	return ls, true, nil
}

// demoExhausted is the refusal of a turn when the user's demo tokens today
// (used) have reached the budget; the wait is until the next UTC day.
func (s *Service) demoExhausted(used int64, wait time.Duration) error {
	return apperr.E(apperr.DemoBudgetExhausted,
		"You have used today's %d demo narrator tokens; they renew at midnight UTC. To keep playing now, enter an API key of your own in the narrator settings.", s.demo.DailyTokens).
		WithDetail("retry_after_seconds", int(math.Ceil(wait.Seconds()))).WithDetail("daily_tokens", s.demo.DailyTokens).WithDetail("used_today", used)
}

// demoReservation is what a demo call set aside of the day's budget before
// it ran (reserveDemoTokens), to be settled to what it spent.
type demoReservation struct {
	day    string
	tokens int64
}

// reserveDemoTokens sets aside what a demo call may cost (its prompt's
// estimate and its output cap) if the user's count today is still under
// the budget, in one statement: turns running at once each find the
// others' reservations, so together they pass the budget by at most one
// call, as turns one after another do. Over budget it is
// demo_budget_exhausted and nothing is set aside. A server that dies
// before settling leaves the reservation counted for that day.
func (s *Service) reserveDemoTokens(ctx context.Context, userID int64, messages []llm.Message, maxOutput int) (demoReservation, error) {
	day, wait := s.demoDay()
	r := demoReservation{day: day, tokens: int64(maxOutput)}
	for _, m := range messages {
		r.tokens += int64(countTokens(m.Content))
	}
	ok, err := s.store.ReserveDemoTokens(ctx, userID, day, r.tokens, s.demo.DailyTokens)
	if err != nil {
		return demoReservation{}, err
	}
	if !ok {
		used, err := s.store.DemoTokens(ctx, userID, day)
		if err != nil {
			return demoReservation{}, err
		}
		return demoReservation{}, s.demoExhausted(used, wait)
	}
	return r, nil
}

// demoTokensSpent is what a demo call cost: the endpoint's reported usage,
// or, when it reports none, the prompt's estimate and the reply's count.
// A call the endpoint refused outright (key, rate limit, bad request, no
// connection) cost nothing.
func demoTokensSpent(messages []llm.Message, res llm.Result, callErr error) int64 {
	if res.PromptTokens > 0 || res.CompletionTokens > 0 {
		return int64(res.PromptTokens + res.CompletionTokens)
	}
	var le *llm.Error
	if errors.As(callErr, &le) {
		switch le.Kind {
		case llm.KindAuth, llm.KindRateLimited, llm.KindBadRequest, llm.KindConnectTimeout:
			return 0
		}
	}
	n := countTokens(res.Text) + countTokens(res.Reasoning)
	for _, m := range messages {
		n += countTokens(m.Content)
	}
	return int64(n)
}

// settleDemoTokens replaces a demo call's reservation by the tokens it
// spent, on the reservation's day. It runs whether the browser stayed or
// not: the tokens are spent. A failure to count is logged (without the
// key, which never reaches it); the reservation then stands.
func (s *Service) settleDemoTokens(ctx context.Context, userID int64, r demoReservation, spent int64) {
	delta := spent - r.tokens
	if delta == 0 {
		return
	}
	if _, err := s.store.AddDemoTokens(context.WithoutCancel(ctx), userID, r.day, delta); err != nil {
		s.log.Warn("demo narrator usage not recorded", "user_id", userID, "tokens", spent, "reserved", r.tokens, "error", err)
	}
}

// DemoView tells the settings screen about the demo narrator.
type DemoView struct {
	// Available: the server offers a demo narrator.
	Available bool `json:"available"`
	// InUse: this user's turns go to it (no API key of their own and the
	// default base URL).
	InUse bool `json:"in_use"`
	// Models is the whitelist; the first is the default.
	Models []string `json:"models"`
	// DailyTokens is the per-user budget per UTC day; UsedToday what this
	// user spent of it today.
	DailyTokens int64 `json:"daily_tokens"`
	UsedToday   int64 `json:"used_today"`
}

// demoView is the settings view's demo block for a user.
func (s *Service) demoView(ctx context.Context, userID int64, p models.ProviderSetting) (*DemoView, error) {
	if s.demo == nil {
		return &DemoView{Models: []string{}}, nil
	}
	day, _ := s.demoDay()
	used, err := s.store.DemoTokens(ctx, userID, day)
	return &DemoView{Available: true, InUse: s.demoServes(p), Models: slices.Clone(s.demo.Models),
		DailyTokens: s.demo.DailyTokens, UsedToday: used}, err
}

// checkDemoBudget asks turnEndpoint before a turn is accepted, for a user
// the demo serves, so that a spent budget answers the request itself (429
// demo_budget_exhausted with Retry-After) before the player's action is
// stored or a stream begins; build asks again right before the call.
func (s *Service) checkDemoBudget(ctx context.Context, userID int64) error {
	if s.demo == nil {
		return nil
	}
	p, err := s.loadSettings(ctx, s.store, userID)
	if err != nil || !s.demoServes(p) {
		return err
	}
	_, _, err = s.turnEndpoint(ctx, userID, p)
	return err
}
