package auth_test

import (
	"strings"
	"testing"

	"github.com/adventure-table/adventure-table/auth"
)

func TestSessionCookie(t *testing.T) {
	secret := []byte(strings.Repeat("a", 32))
	v := auth.SignSession(secret, 42, 7)
	if s, ok := auth.VerifySession(secret, v); !ok || s != (auth.BrowserSession{UserID: 42, Version: 7}) {
		t.Fatalf("got %+v %v, want user 42 version 7", s, ok)
	}
	if !strings.HasPrefix(v, "v2.42.7.") {
		t.Fatalf("cookie %q is not v2.<uid>.<version>.<mac>", v)
	}
	// A v1 cookie (before accounts) still verifies, as a legacy session at
	// version 0: the server accepts it only for a guest.
	if s, ok := auth.VerifySession(secret, auth.SignUserID(secret, 42)); !ok || s != (auth.BrowserSession{UserID: 42, Legacy: true}) {
		t.Fatalf("v1 cookie: got %+v %v", s, ok)
	}
	for name, value := range map[string]string{
		"ErrOtherSecret":   auth.SignSession([]byte(strings.Repeat("b", 32)), 42, 7),
		"ErrForgedID":      strings.Replace(v, "v2.42.", "v2.43.", 1),
		"ErrForgedVersion": strings.Replace(v, "v2.42.7.", "v2.42.8.", 1),
		"ErrV1ForgedID":    strings.Replace(auth.SignUserID(secret, 42), "v1.42.", "v1.43.", 1),
		// A v1 signature does not make a v2 payload valid, nor the reverse.
		"ErrV1AsV2":      "v2.42.0." + auth.SignUserID(secret, 42)[len("v1.42."):],
		"ErrEmpty":       "",
		"ErrNoSignature": "v2.42.7",
		"ErrGarbage":     "....",
	} {
		if s, ok := auth.VerifySession(secret, value); ok {
			t.Errorf("%s: %q verified as %+v", name, value, s)
		}
	}
}

// FuzzVerifySession: arbitrary cookie values never panic and never verify
// unless they are exactly what SignSession or SignUserID produced.
func FuzzVerifySession(f *testing.F) {
	secret := []byte(strings.Repeat("s", 32))
	f.Add(auth.SignUserID(secret, 1))
	f.Add(auth.SignSession(secret, 1, 3))
	f.Add("v1.1.xyz")
	f.Add("v2.1.-1.xyz")
	f.Add("v1.-5." + strings.Repeat("A", 43))
	f.Fuzz(func(t *testing.T, value string) {
		s, ok := auth.VerifySession(secret, value)
		if !ok {
			return
		}
		want := auth.SignSession(secret, s.UserID, s.Version)
		if s.Legacy {
			want = auth.SignUserID(secret, s.UserID)
		}
		if want != value {
			t.Fatalf("%q verified as %+v but is not the signed form", value, s)
		}
	})
}
