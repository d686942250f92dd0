package narrative

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/adventure-table/adventure-table/auth"
	"github.com/adventure-table/adventure-table/gameplay/analytics"
	"github.com/adventure-table/adventure-table/gameplay/llm"
	"github.com/adventure-table/adventure-table/gameplay/scripting"
	"github.com/adventure-table/adventure-table/models"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// Service is the solo narrated adventure: scenarios, adventures, the story
// tree and the turn. Every call takes the user the edge authenticated and
// checks ownership from the rows it loads.
type Service struct {
	store *models.Store
	// analytics counts turns played and failed; nil counts nothing.
	analytics *analytics.Counter
	now       func() time.Time
	provider  llm.Provider
	// sealer seals the users' API keys with the server secret and opens
	// them with it or the previous one (rotation).
	sealer *auth.Sealer
	// demo is the server-funded demo narrator, nil when none (demo.go).
	demo *DemoConfig
	// processID names this process in its turn claims; turnHeartbeat is
	// how often a running turn renews its claim, and staleTurn how long a
	// claim survives without renewal (claim.go).
	processID     string
	turnHeartbeat time.Duration
	staleTurn     time.Duration
	// stopping ends when the server shuts down; stop ends it.
	stopping context.Context
	stop     context.CancelFunc
	// fail, when set by a test, injects a failure at a named point inside
	// a transaction, to prove the transaction is all or nothing.
	fail func(point string) error

	// claimsMu guards claims: the turns this process is running, by
	// adventure, so StopTurn can reach them (claim.go).
	claimsMu sync.Mutex
	claims   map[int64]*turnClaim

	sandboxOnce sync.Once
	scripts     *scripting.Sandbox

	// The memory bank's worker: memoryWake nudges it after a commit that
	// enqueued work; snapshotKeep and snapshotMaxAge bound how many prompt
	// snapshots an adventure keeps.
	memoryWake     chan struct{}
	banks          bankCache
	snapshotKeep   int
	snapshotMaxAge time.Duration
	// snapshots packs the prompt snapshots (snapshots.go); recompressBatch,
	// when set by a test, replaces recompressBatch.
	snapshots       *snapshotCodec
	recompressBatch int
	log             *slog.Logger
}

// Options configures New.
type Options struct {
	Now      func() time.Time
	Provider llm.Provider
	// Sandbox runs scenario scripts; one with the default limits is made on
	// first use when nil.
	Sandbox *scripting.Sandbox
	// Secret seals the users' API keys at rest.
	Secret []byte
	// PreviousSecret, after a rotation of the server secret, still opens
	// the keys it sealed; each is sealed again with Secret on the user's
	// next settings save or turn. Nil for none.
	PreviousSecret []byte
	// Demo is the server-funded demo narrator for users with no endpoint
	// of their own; nil for none. New panics on one that could not be
	// pinned (no base URL, an empty whitelist).
	Demo *DemoConfig
	// ProcessID names this process in turn claims: up to 20 characters
	// without '.', '%', '_' or '\', stable across restarts and never
	// shared by two live processes (see claim.go). Empty means a random one.
	ProcessID string
	// SnapshotKeep is how many of an adventure's newest prompt snapshots
	// are kept (0: DefaultSnapshotKeep, negative: all); SnapshotMaxAge
	// drops older ones (0: DefaultSnapshotMaxAge, negative: never).
	SnapshotKeep   int
	SnapshotMaxAge time.Duration
	// Logger receives the background worker's failures; none when nil.
	Logger *slog.Logger
	// Analytics counts turns played and failed (nil: nothing is counted).
	Analytics *analytics.Counter
}

// New builds the service.
func New(store *models.Store, opts Options) *Service {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Provider == nil {
		opts.Provider = llm.NewOpenAI(nil)
	}
	if opts.ProcessID == "" {
		opts.ProcessID = newProcessID()
	}
	if !validProcessID(opts.ProcessID) {
		panic(fmt.Sprintf("narrative: invalid process id %q", opts.ProcessID))
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	var demo *DemoConfig
	if opts.Demo != nil {
		if err := opts.Demo.validate(); err != nil {
			panic("narrative: " + err.Error())
		}
		demo = opts.Demo.withDefaults()
	}
	stopping, stop := context.WithCancel(context.Background())
	return &Service{store: store, now: opts.Now, provider: opts.Provider, sealer: auth.NewSealer(opts.Secret, opts.PreviousSecret), demo: demo, scripts: opts.Sandbox,
		processID: opts.ProcessID, turnHeartbeat: defaultTurnHeartbeat, staleTurn: defaultStaleTurn, stopping: stopping, stop: stop,
		memoryWake: make(chan struct{}, 1), log: opts.Logger, analytics: opts.Analytics,
		snapshotKeep: snapshotKeep(opts.SnapshotKeep), snapshotMaxAge: orDefault(opts.SnapshotMaxAge, DefaultSnapshotMaxAge),
		snapshots: newSnapshotCodec()}
}

// snapshotKeep is n, DefaultSnapshotKeep for 0, and 0 ("keep all") when negative.
func snapshotKeep(n int) int {
	switch {
	case n == 0:
		return DefaultSnapshotKeep
	case n < 0:
		return 0
	}
	return n
}

// orDefault is d, or fallback when d is 0; a negative d means "off" (0).
func orDefault(d, fallback time.Duration) time.Duration {
	switch {
	case d == 0:
		return fallback
	case d < 0:
		return 0
	}
	return d
}

// sandbox returns the script sandbox, creating the default one on first use.
func (s *Service) sandbox() *scripting.Sandbox {
	s.sandboxOnce.Do(func() {
		if s.scripts == nil {
			sb, err := scripting.New(scripting.Options{})
			if err != nil {
				panic(fmt.Sprintf("narrative: cannot create the script sandbox: %v", err))
			}
			s.scripts = sb
		}
	})
	return s.scripts
}

func (s *Service) failpoint(point string) error {
	if s.fail != nil {
		return s.fail(point)
	}
	return nil
}

// apiKeyPurpose binds sealed API keys to their use.
const apiKeyPurpose = "provider-api-key"

// Defaults of the provider settings.
const (
	DefaultModel           = "llama3.2"
	DefaultContextBudget   = 8000
	DefaultMaxOutputTokens = 600
	DefaultTemperature     = 0.8
	DefaultTopP            = 0.95
)

// ReasoningEfforts are the values of the reasoning_effort setting: "" sends
// none (the endpoint's default; models that do not think ignore it).
var ReasoningEfforts = []string{"", "low", "medium", "high"}

func defaultSettings(userID int64) models.ProviderSetting {
	return models.ProviderSetting{UserID: userID, BaseURL: llm.DefaultBaseURL, Model: DefaultModel,
		ContextBudget: DefaultContextBudget, MaxOutputTokens: DefaultMaxOutputTokens, Temperature: DefaultTemperature, TopP: DefaultTopP, TokenRatio: 1,
		MemoryTopK: DefaultMemoryTopK, MemoryCapacity: DefaultMemoryCapacity}
}

// settingsView is what a user sees of their settings: never the key, and
// whether the demo narrator serves them.
func (s *Service) settingsView(ctx context.Context, userID int64, p models.ProviderSetting) (ProviderSettingsView, error) {
	demo, err := s.demoView(ctx, userID, p)
	return ProviderSettingsView{Demo: demo, BaseURL: p.BaseURL, Model: p.Model, APIKeySet: p.APIKeySealed != "", ContextBudget: p.ContextBudget,
		MaxOutputTokens: p.MaxOutputTokens, Temperature: p.Temperature, TopP: p.TopP, TokenRatio: p.TokenRatio,
		EmbeddingModel: p.EmbeddingModel, MemoryTopK: cmpPositive(p.MemoryTopK, DefaultMemoryTopK), MemoryCapacity: cmpPositive(p.MemoryCapacity, DefaultMemoryCapacity),
		ReasoningEffort: p.ReasoningEffort}, err
}

func (s *Service) loadSettings(ctx context.Context, store *models.Store, userID int64) (models.ProviderSetting, error) {
	p, err := store.FindProviderSetting(ctx, userID)
	if err != nil || p == nil {
		return defaultSettings(userID), err
	}
	return *p, nil
}

// GetSettings returns the caller's model settings (defaults when unsaved).
func (s *Service) GetSettings(ctx context.Context, userID int64) (ProviderSettingsView, error) {
	p, err := s.loadSettings(ctx, s.store, userID)
	if err != nil {
		return ProviderSettingsView{}, err
	}
	return s.settingsView(ctx, userID, p)
}

// PutSettings saves the caller's model settings. The key is sealed with the
// server secret and never returned; a stored key that only the previous
// secret opens is sealed again with the current one.
func (s *Service) PutSettings(ctx context.Context, userID int64, in ProviderSettingsInput) (ProviderSettingsView, error) {
	bad := apperr.E(apperr.ProviderSettingsInvalid, "These model settings are not valid.")
	in.BaseURL = strings.TrimSpace(in.BaseURL)
	in.Model = strings.TrimSpace(in.Model)
	if in.BaseURL == "" || len(in.BaseURL) > 500 || !(strings.HasPrefix(in.BaseURL, "http://") || strings.HasPrefix(in.BaseURL, "https://")) {
		bad.WithField("base_url", "an http:// or https:// URL of up to 500 characters")
	}
	if in.Model == "" || len(in.Model) > 200 {
		bad.WithField("model", "1 to 200 characters")
	}
	if in.ContextBudget < 512 || in.ContextBudget > 200000 {
		bad.WithField("context_budget", "512 to 200000 tokens")
	}
	if in.MaxOutputTokens < 32 || in.MaxOutputTokens > 16000 {
		bad.WithField("max_output_tokens", "32 to 16000 tokens")
	}
	if in.Temperature < 0 || in.Temperature > 2 {
		bad.WithField("temperature", "0 to 2")
	}
	if in.TopP < 0 || in.TopP > 1 {
		bad.WithField("top_p", "0 to 1")
	}
	in.EmbeddingModel = strings.TrimSpace(in.EmbeddingModel)
	if len(in.EmbeddingModel) > 200 {
		bad.WithField("embedding_model", "up to 200 characters")
	}
	if in.MemoryTopK < 0 || in.MemoryTopK > 20 {
		bad.WithField("memory_top_k", "1 to 20")
	}
	if in.MemoryCapacity != 0 && (in.MemoryCapacity < 10 || in.MemoryCapacity > 10000) {
		bad.WithField("memory_capacity", "10 to 10000")
	}
	if !slices.Contains(ReasoningEfforts, in.ReasoningEffort) {
		bad.WithField("reasoning_effort", "empty, low, medium or high")
	}
	if in.APIKey != nil && len(*in.APIKey) > 1000 {
		bad.WithField("api_key", "up to 1000 characters")
	}
	for field, v := range map[string]*string{"base_url": &in.BaseURL, "model": &in.Model, "api_key": in.APIKey, "embedding_model": &in.EmbeddingModel} {
		if v != nil && !models.StorableText(*v) {
			bad.WithField(field, models.UnstorableTextProblem)
		}
	}
	if len(bad.Fields) > 0 {
		return ProviderSettingsView{}, bad
	}
	var out models.ProviderSetting
	err := s.store.Tx(ctx, func(tx *models.Store) error {
		p, err := s.loadSettings(ctx, tx, userID)
		if err != nil {
			return err
		}
		p.BaseURL, p.Model, p.ContextBudget, p.MaxOutputTokens, p.Temperature, p.TopP =
			in.BaseURL, in.Model, in.ContextBudget, in.MaxOutputTokens, in.Temperature, in.TopP
		p.EmbeddingModel = in.EmbeddingModel
		p.ReasoningEffort = in.ReasoningEffort
		p.MemoryTopK = cmpPositive(in.MemoryTopK, DefaultMemoryTopK)
		p.MemoryCapacity = cmpPositive(in.MemoryCapacity, DefaultMemoryCapacity)
		if in.APIKey != nil {
			sealed, err := s.sealer.Seal(apiKeyPurpose, strings.TrimSpace(*in.APIKey))
			if err != nil {
				return err
			}
			p.APIKeySealed = sealed
		} else if err := s.resealKey(&p); err != nil {
			return err
		}
		p.UpdatedAt = s.now()
		out = p
		return tx.SaveProviderSetting(ctx, &p)
	})
	if err != nil {
		return ProviderSettingsView{}, err
	}
	return s.settingsView(ctx, userID, out)
}

// errKeyUnreadable says a stored key opens with neither the server secret
// nor the previous one.
func errKeyUnreadable() error {
	return apperr.E(apperr.ProviderSettingsInvalid, "The stored API key cannot be read (the server secret changed). Enter the key again in the model settings.")
}

// llmSettings opens the user's own settings for one call: their endpoint,
// their key, their model. It never returns the demo narrator's (only
// turnEndpoint does); background work calls it directly.
func (s *Service) llmSettings(p models.ProviderSetting) (llm.Settings, error) {
	key, _, err := s.sealer.Open(apiKeyPurpose, p.APIKeySealed)
	if err != nil {
		return llm.Settings{}, errKeyUnreadable()
	}
	return llm.Settings{BaseURL: p.BaseURL, Model: p.Model, APIKey: key, MaxOutputTokens: p.MaxOutputTokens,
		Temperature: p.Temperature, TopP: p.TopP, ReasoningEffort: p.ReasoningEffort}, nil
}

// resealKey seals p's stored key again with the current secret when it
// opens but is stale (sealed by the previous secret, or before key ids),
// changing p only. A key that does not open is left as it is: the turn
// says so, and saving other settings still works.
func (s *Service) resealKey(p *models.ProviderSetting) error {
	key, stale, err := s.sealer.Open(apiKeyPurpose, p.APIKeySealed)
	if err != nil || !stale {
		return nil
	}
	sealed, err := s.sealer.Seal(apiKeyPurpose, key)
	if err != nil {
		return err
	}
	p.APIKeySealed = sealed
	return nil
}

// resealOnTurn stores p's key sealed again when it is stale, so a rotated
// secret's keys move to the new one as their users play; p is updated so a
// later save of the row keeps the new value. Only the row still holding
// the old value is changed (a settings save meanwhile wins).
func (s *Service) resealOnTurn(ctx context.Context, p *models.ProviderSetting) error {
	old := p.APIKeySealed
	if err := s.resealKey(p); err != nil || p.APIKeySealed == old {
		return err
	}
	return s.store.ReplaceProviderKey(ctx, p.UserID, old, p.APIKeySealed)
}

// checkText bounds a free-text field.
func checkText(e *apperr.Error, field, value string, max int, required bool) {
	n := utf8.RuneCountInString(value)
	switch {
	case !models.StorableText(value):
		e.WithField(field, models.UnstorableTextProblem)
	case required && strings.TrimSpace(value) == "":
		e.WithField(field, "is required")
	case n > max:
		e.WithField(field, "is too long")
	}
}
