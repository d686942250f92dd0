package mcp

import (
	"strings"
	"testing"
)

// FuzzBearerToken: the Authorization parser never panics, accepts only the
// Bearer scheme, and never returns an empty or space-padded token.
func FuzzBearerToken(f *testing.F) {
	f.Add("Bearer at_ai_abc_def")
	f.Add("bearer   x ")
	f.Add("Basic dXNlcjpwYXNz")
	f.Add("Bearer")
	f.Add("")
	f.Fuzz(func(t *testing.T, header string) {
		tok, ok := bearerToken(header)
		if !ok {
			return
		}
		if tok == "" || tok != strings.TrimSpace(tok) {
			t.Fatalf("got token %q from %q", tok, header)
		}
		if !strings.EqualFold(header[:len("Bearer")], "Bearer") {
			t.Fatalf("accepted scheme in %q", header)
		}
	})
}
