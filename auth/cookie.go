package auth

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"strconv"
	"strings"
)

// BrowserCookieName is the cookie that carries a browser's session over
// plain HTTP (a laptop in local mode).
const BrowserCookieName = "at_session"

// SecureBrowserCookieName is the session cookie over TLS, directly or
// behind a TLS proxy. The __Host- prefix makes the browser refuse it
// unless it is Secure, has Path=/ and no Domain, so a sibling subdomain or
// a plain-HTTP page cannot plant or overwrite it (RFC 6265bis §4.1.3.2).
const SecureBrowserCookieName = "__Host-at_session"

// The cookie formats. The version prefix is part of the signed payload, so
// one format can never be read as another.
const (
	// cookieV1 is "v1.<uid>.<hmac>", what browsers got before accounts.
	// It still names a guest, as session version 0.
	cookieV1 = "v1"
	// cookieV2 is "v2.<uid>.<session_version>.<hmac>": every browser of an
	// account held the same value. Nothing issues it any more.
	cookieV2 = "v2"
	// cookieV3 is "v3.<token>.<hmac>": the token is one browser's session,
	// a row on the server that holds only its hash (SessionTokenHash).
	cookieV3 = "v3"
)

// tokenBytes is the entropy of a session token (256 bits).
const tokenBytes = 32

// BrowserSession is what a verified cookie says. Token is the browser
// session it names: a v3 cookie's own token, or for a legacy cookie (v1,
// v2) the token its upgrade to a session row gets (see LegacyToken). A
// legacy cookie also names the user and the session version it was issued
// under, which the server must compare with the user's; a v1 cookie may
// only name a guest.
type BrowserSession struct {
	Token string
	// Format is 3, or 1 or 2 for a legacy cookie.
	Format  int
	UserID  int64
	Version int
}

// Legacy reports whether the cookie is from before session rows (v1, v2).
func (s BrowserSession) Legacy() bool { return s.Format == 1 || s.Format == 2 }

// NewSessionToken returns a fresh browser session token: 32 random bytes,
// base64url without padding.
func NewSessionToken() string {
	b := make([]byte, tokenBytes)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (it crashes the program instead)
	return base64.RawURLEncoding.EncodeToString(b)
}

// SessionTokenHash is how a session token is kept at rest: its SHA-256,
// hex. The token has 256 bits of entropy, so the hash needs no salt and a
// stolen database holds no working cookie.
func SessionTokenHash(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// SignToken returns the cookie value carrying a session token, signed with
// the server secret.
func SignToken(secret []byte, token string) string {
	payload := cookieV3 + "." + token
	return payload + "." + mac(secret, payload)
}

// SignSession returns a v2 cookie value (user and session version), the
// format before session rows. Nothing issues it any more; tests use it to
// act as a browser that still carries one.
func SignSession(secret []byte, userID int64, sessionVersion int) string {
	payload := cookieV2 + "." + strconv.FormatInt(userID, 10) + "." + strconv.Itoa(sessionVersion)
	return payload + "." + mac(secret, payload)
}

// SignUserID returns a v1 cookie value (no session version), the format
// before accounts. Nothing issues it any more; tests use it to act as a
// browser that still carries one.
func SignUserID(secret []byte, userID int64) string {
	payload := cookieV1 + "." + strconv.FormatInt(userID, 10)
	return payload + "." + mac(secret, payload)
}

// LegacyToken is the session token a legacy cookie naming userID at
// sessionVersion is upgraded to: derived with the secret, so the requests
// a browser sends at once with its old cookie all upgrade to one session,
// and nobody without the secret can compute it.
func LegacyToken(secret []byte, userID int64, sessionVersion int) string {
	h := hmac.New(sha256.New, append([]byte("at-browser-upgrade:"), secret...))
	h.Write([]byte(strconv.FormatInt(userID, 10) + "." + strconv.Itoa(sessionVersion)))
	return base64.RawURLEncoding.EncodeToString(h.Sum(nil))
}

// VerifySession checks a cookie value signed by SignToken (or, as a legacy
// session, SignSession or SignUserID) with the same secret, comparing the
// signature in constant time.
func VerifySession(secret []byte, value string) (BrowserSession, bool) {
	i := strings.LastIndexByte(value, '.')
	if i < 0 {
		return BrowserSession{}, false
	}
	payload, sig := value[:i], value[i+1:]
	if !hmac.Equal([]byte(sig), []byte(mac(secret, payload))) {
		return BrowserSession{}, false
	}
	fields := strings.Split(payload, ".")
	var s BrowserSession
	switch {
	case len(fields) == 2 && fields[0] == cookieV3:
		if b, err := base64.RawURLEncoding.Strict().DecodeString(fields[1]); err != nil || len(b) != tokenBytes {
			return BrowserSession{}, false
		}
		return BrowserSession{Token: fields[1], Format: 3}, true
	case len(fields) == 2 && fields[0] == cookieV1:
		s.Format = 1
	case len(fields) == 3 && fields[0] == cookieV2:
		v, err := strconv.Atoi(fields[2])
		if err != nil || v < 0 || strconv.Itoa(v) != fields[2] {
			return BrowserSession{}, false
		}
		s.Format, s.Version = 2, v
	default:
		return BrowserSession{}, false
	}
	id, err := strconv.ParseInt(fields[1], 10, 64)
	if err != nil || id <= 0 {
		return BrowserSession{}, false
	}
	s.UserID = id
	s.Token = LegacyToken(secret, s.UserID, s.Version)
	return s, true
}

func mac(secret []byte, payload string) string {
	h := hmac.New(sha256.New, append([]byte("at-browser-cookie:"), secret...))
	h.Write([]byte(payload))
	return base64.RawURLEncoding.EncodeToString(h.Sum(nil))
}
