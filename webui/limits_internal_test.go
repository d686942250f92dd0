package webui

import (
	"log/slog"
	"strings"
	"testing"

	"github.com/adventure-table/adventure-table/gameplay"
	"github.com/adventure-table/adventure-table/gameplay/limits"
)

// TestLimitedRoutesExist: every route a class is attached to is a route of
// the server, so renaming a route cannot silently drop its limit.
func TestLimitedRoutesExist(t *testing.T) {
	s, err := New(Options{Services: &gameplay.Services{}, Logger: slog.New(slog.DiscardHandler), Limits: limits.New(limits.Defaults())})
	if err != nil {
		t.Fatal(err)
	}
	routes := map[string]bool{}
	for _, r := range s.routes {
		routes[r.Method+" "+r.Path] = true
	}
	for route := range userClassByRoute {
		if !routes[route] {
			t.Errorf("%s has the %s limit but is no route", route, userClassByRoute[route])
		}
	}
	for route, class := range ipClassByPath {
		// The account routes come with the accounts work; the rest must exist.
		if !routes[route] && !strings.HasPrefix(route, "POST /api/account/") {
			t.Errorf("%s has the %s limit but is no route", route, class)
		}
	}
}
