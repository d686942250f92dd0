package narrative

import (
	"context"
	"errors"
	"strings"

	"github.com/adventure-table/adventure-table/gameplay/llm"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// ProviderProbeInput names the endpoint the settings screen probes: the
// form's values, which need not be saved yet. An empty base_url or model
// takes the saved one; api_key absent uses the stored key, "" none.
type ProviderProbeInput struct {
	BaseURL string  `json:"base_url,omitempty" jsonschema:"empty for the saved base URL"`
	Model   string  `json:"model,omitempty" jsonschema:"empty for the saved model"`
	APIKey  *string `json:"api_key,omitempty" jsonschema:"absent for the stored key"`
}

// ProviderModel is one model the endpoint lists.
type ProviderModel struct {
	ID string `json:"id"`
	// ContextLength is the model's context window in tokens where the
	// endpoint says it; absent when it does not.
	ContextLength int `json:"context_length,omitempty"`
}

// ProviderModelList is the endpoint's models, sorted by id.
type ProviderModelList struct {
	Models []ProviderModel `json:"models"`
	// Demo is true when the list is the demo narrator's (the user has no
	// endpoint of their own and the server offers one); no call was made.
	Demo bool `json:"demo"`
}

// ProviderTestResult is a successful connection test.
type ProviderTestResult struct {
	// Model is the model that answered, as the endpoint names it.
	Model     string `json:"model"`
	LatencyMS int64  `json:"latency_ms"`
	Demo      bool   `json:"demo"`
}

// Reasons in the details of a provider_rejected error from a probe.
const (
	// ReasonModelNotFound: the endpoint does not know the model (HTTP 404).
	ReasonModelNotFound = "model_not_found"
	// ReasonNoModelList: the endpoint has no GET /models (HTTP 404),
	// usually a base URL without its /v1.
	ReasonNoModelList = "no_model_list"
)

// probeEndpoint is where a probe goes: the form's endpoint over the saved
// one, or the demo narrator's when it would serve that endpoint.
func (s *Service) probeEndpoint(ctx context.Context, userID int64, in ProviderProbeInput) (llm.Settings, bool, error) {
	bad := apperr.E(apperr.ProviderSettingsInvalid, "These model settings are not valid.")
	in.BaseURL, in.Model = strings.TrimSpace(in.BaseURL), strings.TrimSpace(in.Model)
	if in.BaseURL != "" && (len(in.BaseURL) > 500 || !(strings.HasPrefix(in.BaseURL, "http://") || strings.HasPrefix(in.BaseURL, "https://"))) {
		bad.WithField("base_url", "an http:// or https:// URL of up to 500 characters")
	}
	if len(in.Model) > 200 {
		bad.WithField("model", "1 to 200 characters")
	}
	if in.APIKey != nil && len(*in.APIKey) > 1000 {
		bad.WithField("api_key", "up to 1000 characters")
	}
	if len(bad.Fields) > 0 {
		return llm.Settings{}, false, bad
	}
	p, err := s.loadSettings(ctx, s.store, userID)
	if err != nil {
		return llm.Settings{}, false, err
	}
	if in.BaseURL != "" {
		p.BaseURL = in.BaseURL
	}
	if in.Model != "" {
		p.Model = in.Model
	}
	if in.APIKey == nil {
		return s.turnEndpoint(ctx, userID, p)
	}
	key := strings.TrimSpace(*in.APIKey)
	probe := p
	probe.APIKeySealed = ""
	if key != "" {
		probe.APIKeySealed = "(the form's key)" // only says "owns an endpoint" to demoServes
	}
	if s.demoServes(probe) {
		return s.turnEndpoint(ctx, userID, probe)
	}
	return llm.Settings{BaseURL: p.BaseURL, Model: p.Model, APIKey: key, MaxOutputTokens: p.MaxOutputTokens,
		Temperature: p.Temperature, TopP: p.TopP}, false, nil
}

func (s *Service) prober() (llm.Prober, error) {
	pr, ok := s.provider.(llm.Prober)
	if !ok {
		return nil, apperr.E(apperr.ProviderUnavailable, "This server's model client cannot probe endpoints.")
	}
	return pr, nil
}

// ListProviderModels lists the models of the caller's endpoint (the form's
// values over the saved ones) from its GET /models, with each one's context
// length where the endpoint gives it. When the demo narrator would serve
// that endpoint, it lists the demo's models without a call.
//
// Returns provider_settings_invalid for a malformed base URL or a stored
// key that no longer opens; provider_auth_failed, provider_rejected
// (details.reason no_model_list for a 404), provider_unavailable or a
// provider_*_timeout when the endpoint fails.
func (s *Service) ListProviderModels(ctx context.Context, userID int64, in ProviderProbeInput) (ProviderModelList, error) {
	ls, demo, err := s.probeEndpoint(ctx, userID, in)
	if err != nil {
		return ProviderModelList{}, err
	}
	if demo {
		out := ProviderModelList{Models: []ProviderModel{}, Demo: true}
		for _, m := range s.demo.Models {
			out.Models = append(out.Models, ProviderModel{ID: m})
		}
		return out, nil
	}
	pr, err := s.prober()
	if err != nil {
		return ProviderModelList{}, err
	}
	list, err := pr.Models(ctx, ls)
	if err != nil {
		if status404(err) {
			return ProviderModelList{}, apperr.E(apperr.ProviderRejected,
				"The endpoint has no model list at %s/models; check the base URL (an OpenAI-compatible one usually ends in /v1).", strings.TrimRight(ls.BaseURL, "/")).
				WithDetail("reason", ReasonNoModelList)
		}
		return ProviderModelList{}, providerError(err)
	}
	out := ProviderModelList{Models: make([]ProviderModel, 0, len(list))}
	for _, m := range list {
		out.Models = append(out.Models, ProviderModel{ID: m.ID, ContextLength: m.ContextLength})
	}
	return out, nil
}

// TestProvider sends one tiny chat completion (max_tokens 1) to the
// caller's endpoint and model (the form's values over the saved ones, or
// the demo narrator's when it would serve them) and reports the latency
// and the model that answered.
//
// Returns provider_settings_invalid as ListProviderModels; provider_rejected
// with details.reason model_not_found when the endpoint does not know the
// model; provider_auth_failed, provider_rate_limited, provider_unavailable
// or a provider_*_timeout when the endpoint fails; demo_budget_exhausted
// when the demo serves and today's budget is spent.
func (s *Service) TestProvider(ctx context.Context, userID int64, in ProviderProbeInput) (ProviderTestResult, error) {
	ls, demo, err := s.probeEndpoint(ctx, userID, in)
	if err != nil {
		return ProviderTestResult{}, err
	}
	pr, err := s.prober()
	if err != nil {
		return ProviderTestResult{}, err
	}
	res, err := pr.Ping(ctx, ls)
	if err != nil {
		if status404(err) {
			return ProviderTestResult{}, apperr.E(apperr.ProviderRejected, "The model endpoint does not know the model %q.", ls.Model).
				WithDetail("reason", ReasonModelNotFound).WithDetail("model", ls.Model)
		}
		return ProviderTestResult{}, providerError(err)
	}
	return ProviderTestResult{Model: res.Model, LatencyMS: max(res.Latency.Milliseconds(), 1), Demo: demo}, nil
}

func status404(err error) bool {
	var le *llm.Error
	return errors.As(err, &le) && le.Status == 404
}
