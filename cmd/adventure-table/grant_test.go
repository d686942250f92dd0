package main

import (
	"bytes"
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/adventure-table/adventure-table/gameplay"
	"github.com/adventure-table/adventure-table/gameplay/narrative"
	"github.com/adventure-table/adventure-table/gameplay/table"
)

// TestGrantSoloCommand: `adventure-table grant -adventure N` (and
// -scenario N) prints a solo token for it, which authenticates as the
// adventure's owner for that adventure only; a bad id is refused with the
// usage, an unknown one as not found.
func TestGrantSoloCommand(t *testing.T) {
	ctx := context.Background()
	env, _, store := localStore(t)
	defer store.Close()
	services := gameplay.New(store, gameplay.Options{Mode: "local"})
	u, _, err := table.New(store, nil).EnsureGuest(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := services.Narrative.CreateScenario(ctx, u.ID, narrative.ScenarioInput{Title: "Ferry", Opening: "Fog.", StatSchema: narrative.Schema{}})
	if err != nil {
		t.Fatal(err)
	}
	page, err := services.Narrative.Play(ctx, u.ID, sc.ID, narrative.Persona{PersonaName: "Mira"})
	if err != nil {
		t.Fatal(err)
	}
	grant := func(args ...string) (int, string, string) {
		var out, errOut bytes.Buffer
		code := run(ctx, append([]string{"grant"}, args...), envFunc(env), &out, &errOut)
		return code, strings.TrimSpace(out.String()), errOut.String()
	}
	for _, tt := range []struct {
		args  []string
		check func(narrative.SoloAgent) bool
	}{
		{[]string{"-adventure", itoa(page.Adventure.ID)}, func(a narrative.SoloAgent) bool { return a.AdventureID == page.Adventure.ID }},
		{[]string{"-scenario=" + itoa(sc.ID)}, func(a narrative.SoloAgent) bool { return a.ScenarioID == sc.ID && a.AdventureID == 0 }},
	} {
		code, token, msg := grant(tt.args...)
		if code != 0 || !strings.HasPrefix(token, "at_solo_") || !strings.Contains(msg, "shown once") {
			t.Fatalf("grant %v: %d %q %q", tt.args, code, token, msg)
		}
		a, err := services.Narrative.AuthenticateSoloGrant(ctx, token)
		if err != nil || a.UserID != u.ID || !tt.check(a) {
			t.Errorf("grant %v: the token is %+v, %v", tt.args, a, err)
		}
	}
	if code, _, msg := grant("-adventure", "x"); code != 2 || !strings.Contains(msg, "usage") {
		t.Errorf("a bad id: %d %q", code, msg)
	}
	if code, _, msg := grant("-adventure", "1", "-scenario", "1"); code != 2 || !strings.Contains(msg, "usage") {
		t.Errorf("two targets: %d %q", code, msg)
	}
	if code, out, msg := grant("-adventure", "999"); code != 1 || out != "" || !strings.Contains(msg, "not") {
		t.Errorf("an unknown adventure: %d %q %q", code, out, msg)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
