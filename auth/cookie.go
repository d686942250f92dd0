package auth

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
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
// one format can never be read as the other.
const (
	// cookieV1 is "v1.<uid>.<hmac>", what browsers got before accounts.
	// It still names a guest, as session version 0.
	cookieV1 = "v1"
	// cookieV2 is "v2.<uid>.<session_version>.<hmac>".
	cookieV2 = "v2"
)

// BrowserSession is what a verified cookie says: the user and the session
// version it was issued under. The server must compare Version with the
// user's current session version; Legacy cookies (v1) may only name a
// guest.
type BrowserSession struct {
	UserID  int64
	Version int
	Legacy  bool
}

// SignSession returns the cookie value naming userID at sessionVersion,
// signed with the server secret so a browser cannot claim another user or
// resurrect an ended session.
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

// VerifySession checks a cookie value signed by SignSession (or, as a
// legacy session at version 0, SignUserID) with the same secret, comparing
// the signature in constant time.
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
	case len(fields) == 2 && fields[0] == cookieV1:
		s.Legacy = true
	case len(fields) == 3 && fields[0] == cookieV2:
		v, err := strconv.Atoi(fields[2])
		if err != nil || v < 0 {
			return BrowserSession{}, false
		}
		s.Version = v
	default:
		return BrowserSession{}, false
	}
	id, err := strconv.ParseInt(fields[1], 10, 64)
	if err != nil || id <= 0 {
		return BrowserSession{}, false
	}
	s.UserID = id
	return s, true
}

func mac(secret []byte, payload string) string {
	h := hmac.New(sha256.New, append([]byte("at-browser-cookie:"), secret...))
	h.Write([]byte(payload))
	return base64.RawURLEncoding.EncodeToString(h.Sum(nil))
}
