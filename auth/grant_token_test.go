package auth_test

import (
	"strings"
	"testing"

	"github.com/adventure-table/adventure-table/auth"
)

func TestGrantToken(t *testing.T) {
	id, secret, token := auth.NewGrantToken()
	if !strings.HasPrefix(token, "at_ai_"+id+"_") || len(secret) < 43 {
		t.Fatalf("token %q", token)
	}
	pid, sec, ok := auth.ParseGrantToken(token)
	if !ok || pid != id || sec != secret {
		t.Fatalf("parse: %q %q %v", pid, sec, ok)
	}
	hash := auth.HashGrantSecret(secret)
	if strings.Contains(hash, secret) || !auth.GrantSecretMatches(hash, secret) || auth.GrantSecretMatches(hash, secret+"x") {
		t.Fatal("hash check")
	}
	_, _, other := auth.NewGrantToken()
	if other == token {
		t.Fatal("two tokens alike")
	}
	for _, bad := range []string{"", "at_ai_", "at_ai_short_x", "bearer at_ai_" + id + "_" + secret, strings.TrimPrefix(token, "at_")} {
		if _, _, ok := auth.ParseGrantToken(bad); ok {
			t.Errorf("%q parsed", bad)
		}
	}
}

// FuzzParseGrantToken: no panic; anything accepted has the documented shape.
func FuzzParseGrantToken(f *testing.F) {
	_, _, token := auth.NewGrantToken()
	f.Add(token)
	f.Add("at_ai_aaaaaaaaaaaaaaaa_" + strings.Repeat("b", 43))
	f.Add("at_ai__")
	f.Fuzz(func(t *testing.T, s string) {
		id, sec, ok := auth.ParseGrantToken(s)
		if ok && (len(id) != 16 || len(sec) != 43 || s != "at_ai_"+id+"_"+sec) {
			t.Fatalf("%q accepted as %q/%q", s, id, sec)
		}
	})
}

// TestSoloGrantToken: a solo token has its own prefix, and neither parser
// accepts the other kind.
func TestSoloGrantToken(t *testing.T) {
	id, secret, token := auth.NewSoloGrantToken()
	if !strings.HasPrefix(token, "at_solo_"+id+"_") {
		t.Fatalf("token %q", token)
	}
	pid, sec, ok := auth.ParseSoloGrantToken(token)
	if !ok || pid != id || sec != secret {
		t.Fatalf("parse: %q %q %v", pid, sec, ok)
	}
	if _, _, ok := auth.ParseGrantToken(token); ok {
		t.Error("a solo token parsed as a table token")
	}
	_, _, table := auth.NewGrantToken()
	if _, _, ok := auth.ParseSoloGrantToken(table); ok {
		t.Error("a table token parsed as a solo token")
	}
	if p := auth.SoloGrantDisplayPrefix(id); !strings.HasPrefix(token, strings.TrimSuffix(p, "…")) {
		t.Errorf("display prefix %q", p)
	}
}
