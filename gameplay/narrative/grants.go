package narrative

import (
	"context"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/adventure-table/adventure-table/auth"
	"github.com/adventure-table/adventure-table/models"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// Solo grants: a token with which an AI agent, over MCP, plays one of its
// owner's adventures or works on one of their scenarios, and nothing else.
// The token is shown once; only its secret's hash is kept.

// Solo grant lifetimes, in days.
const (
	DefaultSoloGrantDays = 30
	MaxSoloGrantDays     = 365
	maxGrantLabel        = 80
)

// SoloGrantInput mints a solo grant.
type SoloGrantInput struct {
	Label string `json:"label,omitempty" jsonschema:"up to 80 characters, to tell your tokens apart (e.g. Claude Desktop)"`
	Days  int    `json:"days,omitempty" jsonschema:"how long the token works: 1 to 365 days, default 30"`
}

// SoloGrantView describes a solo grant without its secret.
type SoloGrantView struct {
	ID            int64      `json:"id"`
	DisplayPrefix string     `json:"display_prefix"`
	AdventureID   *int64     `json:"adventure_id"`
	ScenarioID    *int64     `json:"scenario_id"`
	Label         string     `json:"label"`
	Status        string     `json:"status" jsonschema:"active, revoked or expired"`
	ExpiresAt     time.Time  `json:"expires_at"`
	CreatedAt     time.Time  `json:"created_at"`
	LastSeenAt    *time.Time `json:"last_seen_at"`
}

// MintedSoloGrant is a new solo grant with its token, shown this once.
type MintedSoloGrant struct {
	Token string        `json:"token" jsonschema:"the bearer token; shown once, store it now"`
	Grant SoloGrantView `json:"grant"`
}

// SoloGrantList is the grants of one adventure or scenario, newest first.
type SoloGrantList struct {
	Grants []SoloGrantView `json:"grants"`
}

// SoloAgent is who a solo token speaks for: the owner, and the one
// adventure or scenario (the other id is 0) it may touch.
type SoloAgent struct {
	GrantID     int64
	UserID      int64
	AdventureID int64
	ScenarioID  int64
}

func (s *Service) soloGrantView(g *models.SoloGrant) SoloGrantView {
	status := g.Status
	if status == models.GrantActive && !s.now().Before(g.ExpiresAt) {
		status = "expired"
	}
	return SoloGrantView{ID: g.ID, DisplayPrefix: g.DisplayPrefix, AdventureID: g.AdventureID, ScenarioID: g.ScenarioID, Label: g.Label,
		Status: status, ExpiresAt: g.ExpiresAt, CreatedAt: g.CreatedAt, LastSeenAt: g.LastSeenAt}
}

// MintAdventureGrant mints a token for one of the user's adventures.
// Returns not_found, invalid_request.
func (s *Service) MintAdventureGrant(ctx context.Context, userID, adventureID int64, in SoloGrantInput) (MintedSoloGrant, error) {
	if _, err := ownAdventure(ctx, s.store, userID, adventureID, false); err != nil {
		return MintedSoloGrant{}, err
	}
	return s.mintSoloGrant(ctx, models.SoloGrant{UserID: userID, AdventureID: &adventureID}, in)
}

// MintScenarioGrant mints a token for one of the user's scenarios.
// Returns not_found, invalid_request.
func (s *Service) MintScenarioGrant(ctx context.Context, userID, scenarioID int64, in SoloGrantInput) (MintedSoloGrant, error) {
	if _, err := ownScenario(ctx, s.store, userID, scenarioID); err != nil {
		return MintedSoloGrant{}, err
	}
	return s.mintSoloGrant(ctx, models.SoloGrant{UserID: userID, ScenarioID: &scenarioID}, in)
}

// OperatorSoloGrant mints a token for an adventure (or, with scenario, a
// scenario) on behalf of the server's operator: the `adventure-table grant`
// command in local mode, where the operator owns the machine and the data.
// The grant is its owner's, as if they had minted it. Returns not_found.
func (s *Service) OperatorSoloGrant(ctx context.Context, id int64, scenario bool) (MintedSoloGrant, error) {
	if scenario {
		sc, err := s.store.FindScenario(ctx, id)
		if err != nil {
			return MintedSoloGrant{}, err
		}
		return s.MintScenarioGrant(ctx, sc.UserID, id, SoloGrantInput{Label: "adventure-table grant"})
	}
	adv, err := s.store.FindAdventure(ctx, id)
	if err != nil {
		return MintedSoloGrant{}, err
	}
	return s.MintAdventureGrant(ctx, adv.UserID, id, SoloGrantInput{Label: "adventure-table grant"})
}

func (s *Service) mintSoloGrant(ctx context.Context, g models.SoloGrant, in SoloGrantInput) (MintedSoloGrant, error) {
	label := strings.TrimSpace(in.Label)
	bad := apperr.E(apperr.InvalidRequest, "The token's settings have a problem.")
	if utf8.RuneCountInString(label) > maxGrantLabel || !models.StorableText(label) {
		bad.WithField("label", "at most 80 characters of text")
	}
	days := in.Days
	if days == 0 {
		days = DefaultSoloGrantDays
	}
	if days < 1 || days > MaxSoloGrantDays {
		bad.WithField("days", "1 to 365")
	}
	if len(bad.Fields) > 0 {
		return MintedSoloGrant{}, bad
	}
	publicID, secret, token := auth.NewSoloGrantToken()
	now := s.now()
	g.PublicID, g.SecretHash, g.DisplayPrefix = publicID, auth.HashGrantSecret(secret), auth.SoloGrantDisplayPrefix(publicID)
	g.Label, g.Status, g.CreatedAt, g.ExpiresAt = label, models.GrantActive, now, now.Add(time.Duration(days)*24*time.Hour)
	if err := s.store.CreateSoloGrant(ctx, &g); err != nil {
		return MintedSoloGrant{}, err
	}
	return MintedSoloGrant{Token: token, Grant: s.soloGrantView(&g)}, nil
}

// ListAdventureGrants lists the tokens of one of the user's adventures.
func (s *Service) ListAdventureGrants(ctx context.Context, userID, adventureID int64) (SoloGrantList, error) {
	if _, err := ownAdventure(ctx, s.store, userID, adventureID, false); err != nil {
		return SoloGrantList{}, err
	}
	return s.listSoloGrants(ctx, models.SoloGrantScope{UserID: userID, AdventureID: adventureID})
}

// ListScenarioGrants lists the tokens of one of the user's scenarios.
func (s *Service) ListScenarioGrants(ctx context.Context, userID, scenarioID int64) (SoloGrantList, error) {
	if _, err := ownScenario(ctx, s.store, userID, scenarioID); err != nil {
		return SoloGrantList{}, err
	}
	return s.listSoloGrants(ctx, models.SoloGrantScope{UserID: userID, ScenarioID: scenarioID})
}

func (s *Service) listSoloGrants(ctx context.Context, q models.SoloGrantScope) (SoloGrantList, error) {
	rows, err := s.store.ListSoloGrants(ctx, q)
	if err != nil {
		return SoloGrantList{}, err
	}
	out := SoloGrantList{Grants: make([]SoloGrantView, len(rows))}
	for i := range rows {
		out.Grants[i] = s.soloGrantView(&rows[i])
	}
	return out, nil
}

// RevokeSoloGrant revokes one of the user's solo tokens; its next call
// fails with ai_token_revoked. Revoking it again changes nothing. Returns
// not_found.
func (s *Service) RevokeSoloGrant(ctx context.Context, userID, grantID int64) (SoloGrantView, error) {
	g, err := s.store.RevokeSoloGrant(ctx, userID, grantID, s.now())
	if err != nil {
		return SoloGrantView{}, err
	}
	return s.soloGrantView(g), nil
}

// soloSeenEvery spaces the writes of a grant's last-seen time.
const soloSeenEvery = 30 * time.Second

// AuthenticateSoloGrant checks a solo bearer token on every call, from
// its row (so a revoked token fails at its next call): the secret matches
// in constant time, the grant is active and not expired. Returns
// ai_token_invalid, ai_token_revoked, ai_token_expired.
func (s *Service) AuthenticateSoloGrant(ctx context.Context, token string) (SoloAgent, error) {
	invalid := apperr.E(apperr.AITokenInvalid, "This token is not valid for this server.")
	publicID, secret, ok := auth.ParseSoloGrantToken(token)
	if !ok {
		return SoloAgent{}, invalid
	}
	g, err := s.store.FindSoloGrantByPublicID(ctx, publicID)
	if apperr.CodeOf(err) == apperr.NotFound {
		return SoloAgent{}, invalid
	}
	if err != nil {
		return SoloAgent{}, err
	}
	if !auth.GrantSecretMatches(g.SecretHash, secret) {
		return SoloAgent{}, invalid
	}
	now := s.now()
	if g.Status != models.GrantActive {
		return SoloAgent{}, apperr.E(apperr.AITokenRevoked, "This token was revoked by its owner.").WithDetail("reason", "revoked")
	}
	if !now.Before(g.ExpiresAt) {
		return SoloAgent{}, apperr.E(apperr.AITokenExpired, "This token expired; ask its owner for a new one.")
	}
	if g.LastSeenAt == nil || now.Sub(*g.LastSeenAt) >= soloSeenEvery {
		if err := s.store.TouchSoloGrant(ctx, g.ID, now); err != nil {
			return SoloAgent{}, err
		}
	}
	a := SoloAgent{GrantID: g.ID, UserID: g.UserID}
	if g.AdventureID != nil {
		a.AdventureID = *g.AdventureID
	}
	if g.ScenarioID != nil {
		a.ScenarioID = *g.ScenarioID
	}
	return a, nil
}
