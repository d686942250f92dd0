package auth

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"strings"
)

// GrantTokenPrefix starts every AI grant token for a table seat, and
// SoloGrantTokenPrefix every token for a solo adventure or scenario, so a
// leaked one is easy to recognise (and to scan for), and the server knows
// which kind of grant to look up.
const (
	GrantTokenPrefix     = "at_ai_"
	SoloGrantTokenPrefix = "at_solo_"
)

var publicIDEncoding = base32.StdEncoding.WithPadding(base32.NoPadding)

// NewGrantToken returns a fresh AI grant token at_ai_<public-id>_<secret>:
// the public id (80 bits) finds the grant row, the secret (256 bits) proves
// possession. Only HashGrantSecret(secret) is ever stored.
func NewGrantToken() (publicID, secret, token string) {
	return newToken(GrantTokenPrefix)
}

// NewSoloGrantToken returns a fresh solo grant token
// at_solo_<public-id>_<secret>, made as NewGrantToken's.
func NewSoloGrantToken() (publicID, secret, token string) {
	return newToken(SoloGrantTokenPrefix)
}

func newToken(prefix string) (publicID, secret, token string) {
	var id [10]byte
	var sec [32]byte
	rand.Read(id[:])
	rand.Read(sec[:])
	publicID = strings.ToLower(publicIDEncoding.EncodeToString(id[:]))
	secret = base64.RawURLEncoding.EncodeToString(sec[:])
	return publicID, secret, prefix + publicID + "_" + secret
}

// ParseGrantToken splits a table grant token into its public id and secret.
func ParseGrantToken(token string) (publicID, secret string, ok bool) {
	return parseToken(GrantTokenPrefix, token)
}

// ParseSoloGrantToken splits a solo grant token into its public id and
// secret.
func ParseSoloGrantToken(token string) (publicID, secret string, ok bool) {
	return parseToken(SoloGrantTokenPrefix, token)
}

func parseToken(prefix, token string) (publicID, secret string, ok bool) {
	rest, found := strings.CutPrefix(token, prefix)
	if !found {
		return "", "", false
	}
	// The public id is base32 (no underscore); the secret is base64url and
	// may contain underscores, so split at the first one.
	publicID, secret, found = strings.Cut(rest, "_")
	if !found || len(publicID) != 16 || len(secret) != 43 {
		return "", "", false
	}
	return publicID, secret, true
}

// HashGrantSecret is what the database keeps of a secret. A single SHA-256
// is enough: the secret has 256 bits of entropy, so there is nothing to
// guess, unlike a password.
func HashGrantSecret(secret string) string {
	sum := sha256.Sum256([]byte("at-ai-grant:" + secret))
	return hex.EncodeToString(sum[:])
}

// GrantSecretMatches compares a secret with a stored hash in constant time.
func GrantSecretMatches(storedHash, secret string) bool {
	return subtle.ConstantTimeCompare([]byte(storedHash), []byte(HashGrantSecret(secret))) == 1
}

// GrantDisplayPrefix is the part of a token safe to show later to tell
// grants apart ("at_ai_abcd…").
func GrantDisplayPrefix(publicID string) string { return GrantTokenPrefix + publicID[:6] + "…" }

// SoloGrantDisplayPrefix is GrantDisplayPrefix for a solo grant.
func SoloGrantDisplayPrefix(publicID string) string {
	return SoloGrantTokenPrefix + publicID[:6] + "…"
}
