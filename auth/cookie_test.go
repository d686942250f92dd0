package auth_test

import (
	"strings"
	"testing"

	"github.com/adventure-table/adventure-table/auth"
)

func TestSessionCookie(t *testing.T) {
	secret := []byte(strings.Repeat("a", 32))
	token := auth.NewSessionToken()
	if len(token) != 43 || token == auth.NewSessionToken() {
		t.Fatalf("token %q: want 32 random bytes, base64url", token)
	}
	v := auth.SignToken(secret, token)
	if s, ok := auth.VerifySession(secret, v); !ok || s != (auth.BrowserSession{Token: token, Format: 3}) {
		t.Fatalf("got %+v %v, want the token", s, ok)
	}
	if !strings.HasPrefix(v, "v3."+token+".") {
		t.Fatalf("cookie %q is not v3.<token>.<mac>", v)
	}
	// Legacy cookies (v2, and v1 as version 0, which the server accepts
	// only for a guest) verify with the token their upgrade gets: derived
	// from the user and version with the secret, the same for v1 and v2 at
	// version 0, another for another version or secret.
	v2 := auth.SignSession(secret, 42, 7)
	if s, ok := auth.VerifySession(secret, v2); !ok || s != (auth.BrowserSession{Token: auth.LegacyToken(secret, 42, 7), Format: 2, UserID: 42, Version: 7}) || !s.Legacy() {
		t.Fatalf("v2 cookie: got %+v %v", s, ok)
	}
	if s, ok := auth.VerifySession(secret, auth.SignUserID(secret, 42)); !ok || s != (auth.BrowserSession{Token: auth.LegacyToken(secret, 42, 0), Format: 1, UserID: 42}) {
		t.Fatalf("v1 cookie: got %+v %v", s, ok)
	}
	if a, b := auth.LegacyToken(secret, 42, 0), auth.LegacyToken(secret, 42, 1); a == b || a == auth.LegacyToken([]byte(strings.Repeat("b", 32)), 42, 0) || len(a) != 43 {
		t.Fatalf("legacy tokens do not tell versions or secrets apart: %q %q", a, b)
	}
	if h := auth.SessionTokenHash(token); len(h) != 64 || strings.Contains(h, token) || h != auth.SessionTokenHash(token) {
		t.Fatalf("hash %q of %q", h, token)
	}
	for name, value := range map[string]string{
		"ErrOtherSecret":   auth.SignToken([]byte(strings.Repeat("b", 32)), token),
		"ErrForgedToken":   strings.Replace(v, "v3."+token[:3], "v3.AAA", 1),
		"ErrShortToken":    auth.SignToken(secret, token[:40]),
		"ErrV2OtherSecret": auth.SignSession([]byte(strings.Repeat("b", 32)), 42, 7),
		"ErrForgedID":      strings.Replace(v2, "v2.42.", "v2.43.", 1),
		"ErrForgedVersion": strings.Replace(v2, "v2.42.7.", "v2.42.8.", 1),
		"ErrV1ForgedID":    strings.Replace(auth.SignUserID(secret, 42), "v1.42.", "v1.43.", 1),
		// A v1 signature does not make a v2 payload valid, nor the reverse.
		"ErrV1AsV2":      "v2.42.0." + auth.SignUserID(secret, 42)[len("v1.42."):],
		"ErrEmpty":       "",
		"ErrNoSignature": "v3." + token,
		"ErrGarbage":     "....",
	} {
		if s, ok := auth.VerifySession(secret, value); ok {
			t.Errorf("%s: %q verified as %+v", name, value, s)
		}
	}
}

// FuzzVerifySession: arbitrary cookie values never panic and never verify
// unless they are exactly what SignToken, SignSession or SignUserID
// produced.
func FuzzVerifySession(f *testing.F) {
	secret := []byte(strings.Repeat("s", 32))
	f.Add(auth.SignUserID(secret, 1))
	f.Add(auth.SignSession(secret, 1, 3))
	f.Add(auth.SignToken(secret, strings.Repeat("A", 43)))
	f.Add("v1.1.xyz")
	f.Add("v2.1.-1.xyz")
	f.Add("v3..xyz")
	f.Add("v1.-5." + strings.Repeat("A", 43))
	f.Fuzz(func(t *testing.T, value string) {
		s, ok := auth.VerifySession(secret, value)
		if !ok {
			return
		}
		var want string
		switch s.Format {
		case 1:
			want = auth.SignUserID(secret, s.UserID)
		case 2:
			want = auth.SignSession(secret, s.UserID, s.Version)
		default:
			want = auth.SignToken(secret, s.Token)
		}
		if want != value {
			t.Fatalf("%q verified as %+v but is not the signed form", value, s)
		}
	})
}
