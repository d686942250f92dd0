package narrative_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/adventure-table/adventure-table/auth"
	"github.com/adventure-table/adventure-table/gameplay/narrative"
	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// TestSoloGrants: a solo token is shown once and kept only hashed; it
// names its adventure; it is refused once revoked or past its days; bad
// settings change nothing; only the owner mints, lists and revokes.
func TestSoloGrants(t *testing.T) {
	ctx := context.Background()
	f := newSolo(t)
	adv := f.adventure().Adventure.ID
	now := time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)
	svc := narrative.New(f.store, narrative.Options{Now: func() time.Time { return now }, Secret: testSecret})
	stranger, _, err := table.New(f.store, time.Now).EnsureGuest(ctx, 0)
	must(t, err)

	for _, in := range []narrative.SoloGrantInput{{Days: -1}, {Days: 366}, {Label: strings.Repeat("x", 81)}} {
		if _, err := svc.MintAdventureGrant(ctx, f.user, adv, in); apperr.CodeOf(err) != apperr.InvalidRequest {
			t.Errorf("mint %+v: %v, want invalid_request", in, err)
		}
	}
	if _, err := svc.MintAdventureGrant(ctx, stranger.ID, adv, narrative.SoloGrantInput{}); apperr.CodeOf(err) != apperr.NotFound {
		t.Errorf("another user minting: %v", err)
	}
	if l, err := svc.ListAdventureGrants(ctx, f.user, adv); err != nil || len(l.Grants) != 0 {
		t.Fatalf("grants after refusals: %+v %v", l, err)
	}
	m, err := svc.MintAdventureGrant(ctx, f.user, adv, narrative.SoloGrantInput{Label: "Claude", Days: 2})
	must(t, err)
	if !strings.HasPrefix(m.Token, "at_solo_") || m.Grant.Status != "active" || !m.Grant.ExpiresAt.Equal(now.Add(48*time.Hour)) {
		t.Fatalf("minted %+v", m)
	}
	publicID, secret, _ := auth.ParseSoloGrantToken(m.Token)
	row, err := f.store.FindSoloGrantByPublicID(ctx, publicID)
	must(t, err)
	if row.SecretHash == secret || strings.Contains(row.SecretHash, secret) || row.SecretHash != auth.HashGrantSecret(secret) {
		t.Errorf("stored %q for token %q", row.SecretHash, m.Token)
	}
	l, err := svc.ListAdventureGrants(ctx, f.user, adv)
	must(t, err)
	if len(l.Grants) != 1 || l.Grants[0].Label != "Claude" || l.Grants[0].DisplayPrefix == "" || !strings.HasPrefix(m.Token, strings.TrimSuffix(l.Grants[0].DisplayPrefix, "…")) {
		t.Errorf("list %+v", l)
	}

	a, err := svc.AuthenticateSoloGrant(ctx, m.Token)
	if err != nil || a.AdventureID != adv || a.UserID != f.user || a.ScenarioID != 0 {
		t.Fatalf("authenticate: %+v %v", a, err)
	}
	for _, bad := range []string{m.Token[:len(m.Token)-1] + "x", "at_solo_", strings.Replace(m.Token, "at_solo_", "at_ai_", 1)} {
		if _, err := svc.AuthenticateSoloGrant(ctx, bad); apperr.CodeOf(err) != apperr.AITokenInvalid {
			t.Errorf("token %q: %v, want ai_token_invalid", bad, err)
		}
	}
	now = now.Add(48 * time.Hour)
	if _, err := svc.AuthenticateSoloGrant(ctx, m.Token); apperr.CodeOf(err) != apperr.AITokenExpired {
		t.Errorf("after its two days: %v, want ai_token_expired", err)
	}
	if l, _ := svc.ListAdventureGrants(ctx, f.user, adv); l.Grants[0].Status != "expired" {
		t.Errorf("listed as %q after expiry", l.Grants[0].Status)
	}

	m2, err := svc.MintAdventureGrant(ctx, f.user, adv, narrative.SoloGrantInput{})
	must(t, err)
	if _, err := svc.RevokeSoloGrant(ctx, stranger.ID, m2.Grant.ID); apperr.CodeOf(err) != apperr.NotFound {
		t.Errorf("another user revoking: %v", err)
	}
	if _, err := svc.AuthenticateSoloGrant(ctx, m2.Token); err != nil {
		t.Fatalf("still the owner's: %v", err)
	}
	v, err := svc.RevokeSoloGrant(ctx, f.user, m2.Grant.ID)
	if err != nil || v.Status != "revoked" {
		t.Fatalf("revoke: %+v %v", v, err)
	}
	if _, err := svc.AuthenticateSoloGrant(ctx, m2.Token); apperr.CodeOf(err) != apperr.AITokenRevoked {
		t.Errorf("revoked: %v, want ai_token_revoked", err)
	}
	if v, err := svc.RevokeSoloGrant(ctx, f.user, m2.Grant.ID); err != nil || v.Status != "revoked" {
		t.Errorf("revoking again: %+v %v", v, err)
	}

	// Deleting the adventure deletes its tokens.
	_, err = svc.DeleteAdventure(ctx, f.user, adv)
	must(t, err)
	if _, err := svc.AuthenticateSoloGrant(ctx, m2.Token); apperr.CodeOf(err) != apperr.AITokenInvalid {
		t.Errorf("after the adventure is deleted: %v", err)
	}
}
