package auth_test

import (
	"strings"
	"testing"

	"github.com/adventure-table/adventure-table/auth"
)

func TestUserCookie(t *testing.T) {
	secret := []byte(strings.Repeat("a", 32))
	v := auth.SignUserID(secret, 42)
	if id, ok := auth.VerifyUserID(secret, v); !ok || id != 42 {
		t.Fatalf("got %d %v, want 42 true", id, ok)
	}
	forged := strings.Replace(v, "v1.42.", "v1.43.", 1)
	for name, value := range map[string]string{
		"ErrOtherSecret": auth.SignUserID([]byte(strings.Repeat("b", 32)), 42),
		"ErrForgedID":    forged,
		"ErrEmpty":       "",
		"ErrNoSignature": "v1.42",
		"ErrGarbage":     "....",
	} {
		if _, ok := auth.VerifyUserID(secret, value); ok {
			t.Errorf("%s: %q verified", name, value)
		}
	}
}

// FuzzVerifyUserID: arbitrary cookie values never panic and never verify
// unless they are exactly what SignUserID produced.
func FuzzVerifyUserID(f *testing.F) {
	secret := []byte(strings.Repeat("s", 32))
	f.Add(auth.SignUserID(secret, 1))
	f.Add("v1.1.xyz")
	f.Add("v1.-5." + strings.Repeat("A", 43))
	f.Fuzz(func(t *testing.T, value string) {
		id, ok := auth.VerifyUserID(secret, value)
		if ok && auth.SignUserID(secret, id) != value {
			t.Fatalf("%q verified as %d but is not the signed form", value, id)
		}
	})
}
