package narrative_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/adventure-table/adventure-table/gameplay/llm/llmtest"
	"github.com/adventure-table/adventure-table/gameplay/narrative"
	"github.com/adventure-table/adventure-table/models/apperr"
	"github.com/adventure-table/adventure-table/models/modelstest"
)

// TestUnstorableTextRefused posts a NUL character, then invalid UTF-8, into
// every free-text field of the solo services: each is refused with its
// validator's code and fields[<json name>], on SQLite as on PostgreSQL
// (which cannot store either), and nothing changes.
func TestUnstorableTextRefused(t *testing.T) {
	f := newSolo(t)
	ctx := context.Background()
	page := f.adventure()
	adv := page.Adventure.ID
	f.play(adv, "open the door", "The door creaks open.", "")
	branches, err := f.svc.ListBranches(ctx, f.user, adv)
	must(t, err)
	story := f.page(adv).Story
	action := story[len(story)-1].ID

	scenario := func(edit func(in *narrative.ScenarioInput, s string)) func(string) error {
		return func(s string) error {
			in := narrative.ScenarioInput{Title: "T", Opening: "O",
				Cards:      []narrative.CardInput{{Title: "Card", Keys: []string{"key"}, Entry: "e", Type: "item"}},
				StatSchema: narrative.Schema{"player.hp": {Min: 0, Max: 10, Initial: 5, Bands: []narrative.Band{{Lo: 0, Hi: 10, Label: "fine"}}}}}
			edit(&in, s)
			_, err := f.svc.CreateScenario(ctx, f.user, in)
			return err
		}
	}
	settings := func(edit func(in *narrative.ProviderSettingsInput, s string)) func(string) error {
		return func(s string) error {
			in := narrative.ProviderSettingsInput{BaseURL: f.fake.URL(), Model: "fake", ContextBudget: 4000, MaxOutputTokens: 400, Temperature: 0.8, TopP: 0.95}
			edit(&in, s)
			_, err := f.svc.PutSettings(ctx, f.user, in)
			return err
		}
	}
	change := func(pick func(in *narrative.AdventureChange, s *string)) func(string) error {
		return func(s string) error {
			var in narrative.AdventureChange
			pick(&in, &s)
			_, err := f.svc.UpdateAdventure(ctx, f.user, adv, in)
			return err
		}
	}
	persona := func(edit func(p *narrative.Persona, s string)) func(string) error {
		return func(s string) error {
			p := narrative.Persona{PersonaName: "Ash"}
			edit(&p, s)
			_, err := f.svc.Play(ctx, f.user, *page.Adventure.ScenarioID, p)
			return err
		}
	}
	tests := []struct {
		field string
		code  apperr.Code
		call  func(s string) error
	}{
		{"title", apperr.ScenarioInvalid, scenario(func(in *narrative.ScenarioInput, s string) { in.Title = s })},
		{"premise", apperr.ScenarioInvalid, scenario(func(in *narrative.ScenarioInput, s string) { in.Premise = s })},
		{"plot_essentials", apperr.ScenarioInvalid, scenario(func(in *narrative.ScenarioInput, s string) { in.PlotEssentials = s })},
		{"ai_instructions", apperr.ScenarioInvalid, scenario(func(in *narrative.ScenarioInput, s string) { in.AIInstructions = s })},
		{"authors_note", apperr.ScenarioInvalid, scenario(func(in *narrative.ScenarioInput, s string) { in.AuthorsNote = s })},
		{"opening", apperr.ScenarioInvalid, scenario(func(in *narrative.ScenarioInput, s string) { in.Opening = s })},
		{"scripts.library", apperr.ScenarioInvalid, scenario(func(in *narrative.ScenarioInput, s string) { in.Scripts.Library = s })},
		{"scripts.input", apperr.ScenarioInvalid, scenario(func(in *narrative.ScenarioInput, s string) { in.Scripts.Input = s })},
		{"scripts.context", apperr.ScenarioInvalid, scenario(func(in *narrative.ScenarioInput, s string) { in.Scripts.Context = s })},
		{"scripts.output", apperr.ScenarioInvalid, scenario(func(in *narrative.ScenarioInput, s string) { in.Scripts.Output = s })},
		{"cards[0].title", apperr.ScenarioInvalid, scenario(func(in *narrative.ScenarioInput, s string) { in.Cards[0].Title = s })},
		{"cards[0].entry", apperr.ScenarioInvalid, scenario(func(in *narrative.ScenarioInput, s string) { in.Cards[0].Entry = s })},
		{"cards[0].type", apperr.ScenarioInvalid, scenario(func(in *narrative.ScenarioInput, s string) { in.Cards[0].Type = s })},
		{"cards[0].keys", apperr.ScenarioInvalid, scenario(func(in *narrative.ScenarioInput, s string) { in.Cards[0].Keys = []string{s} })},
		{"stat_schema.player.hp", apperr.ScenarioInvalid, scenario(func(in *narrative.ScenarioInput, s string) {
			in.StatSchema["player.hp"].Bands[0].Label = s
		})},
		{"persona_name", apperr.ScenarioInvalid, persona(func(p *narrative.Persona, s string) { p.PersonaName = s })},
		{"persona_pronouns", apperr.ScenarioInvalid, persona(func(p *narrative.Persona, s string) { p.PersonaPronouns = s })},
		{"persona_desc", apperr.ScenarioInvalid, persona(func(p *narrative.Persona, s string) { p.PersonaDesc = s })},
		{"title", apperr.ScenarioInvalid, change(func(in *narrative.AdventureChange, s *string) { in.Title = s })},
		{"authors_note", apperr.ScenarioInvalid, change(func(in *narrative.AdventureChange, s *string) { in.AuthorsNote = s })},
		{"persona_name", apperr.ScenarioInvalid, change(func(in *narrative.AdventureChange, s *string) { in.PersonaName = s })},
		{"persona_pronouns", apperr.ScenarioInvalid, change(func(in *narrative.AdventureChange, s *string) { in.PersonaPronouns = s })},
		{"persona_desc", apperr.ScenarioInvalid, change(func(in *narrative.AdventureChange, s *string) { in.PersonaDesc = s })},
		{"name", apperr.InvalidRequest, func(s string) error {
			_, err := f.svc.RenameBranch(ctx, f.user, adv, branches.Branches[0].ID, s)
			return err
		}},
		{"text", apperr.TurnTextInvalid, func(s string) error {
			_, err := f.svc.EditAction(ctx, f.user, action, s)
			return err
		}},
		{"text", apperr.TurnTextInvalid, func(s string) error {
			_, err := f.svc.StartTurn(ctx, f.user, adv, narrative.TurnInput{Mode: narrative.ModeSay, Text: s})
			return err
		}},
		{"base_url", apperr.ProviderSettingsInvalid, settings(func(in *narrative.ProviderSettingsInput, s string) { in.BaseURL += "/" + s })},
		{"model", apperr.ProviderSettingsInvalid, settings(func(in *narrative.ProviderSettingsInput, s string) { in.Model = s })},
		{"api_key", apperr.ProviderSettingsInvalid, settings(func(in *narrative.ProviderSettingsInput, s string) { in.APIKey = &s })},
	}
	snapshot := func() string {
		var out []any
		for _, read := range []func() (any, error){
			func() (any, error) { return f.svc.ListScenarios(ctx, f.user) },
			func() (any, error) { return f.svc.ListAdventures(ctx, f.user) },
			func() (any, error) { return f.svc.GetAdventure(ctx, f.user, adv) },
			func() (any, error) { return f.svc.ListBranches(ctx, f.user, adv) },
			func() (any, error) { return f.svc.GetSettings(ctx, f.user) },
		} {
			v, err := read()
			must(t, err)
			out = append(out, v)
		}
		b, _ := json.MarshalIndent(out, "", " ")
		return string(b)
	}
	refusals := make([]modelstest.TextRefusal, len(tests))
	for i, tt := range tests {
		refusals[i] = modelstest.TextRefusal{Name: tt.field, Field: tt.field, Code: tt.code, Call: tt.call}
	}
	modelstest.CheckRefusesUnstorableText(t, refusals, snapshot)
	// The turn slot was never taken: the next turn plays at once.
	f.play(adv, "look around", "Dust.", "")
}

// TestModelNULStoredStripped: a reply (and its finish reason) with NUL
// characters is stored without them, and so is what scripts write to the
// story (an output hook) and the console (an input hook's error), on both
// databases.
func TestModelNULStoredStripped(t *testing.T) {
	f := newSolo(t)
	ctx := context.Background()
	turn := func(adv int64) (stored, done narrative.ActionView) {
		t.Helper()
		turn, err := f.svc.StartTurn(ctx, f.user, adv, narrative.TurnInput{Mode: narrative.ModeDo, Text: "push the door"})
		events := run(t, turn, err)
		last := events[len(events)-1]
		if last.Type != narrative.EventDone {
			t.Fatalf("turn ended with %+v", last)
		}
		story := f.page(adv).Story
		return story[len(story)-1], *last.Action
	}

	adv := f.adventure().Adventure.ID
	f.fake.Push(llmtest.Reply{Chunks: []string{"The door\x00 ", "opens\x00."}, FinishReason: "st\x00op"})
	stored, done := turn(adv)
	if want := "The door opens."; stored.Text != want || done.Text != want {
		t.Fatalf("stored %q (done event %q), want %q", stored.Text, done.Text, want)
	}
	if stored.FinishReason != "stop" || stored.Truncated {
		t.Fatalf("finish reason %q, truncated %v", stored.FinishReason, stored.Truncated)
	}

	adv = f.adventureWith(narrative.Scripts{
		Input: `throw new Error('bo\u0000om')`,
		Output: `const modifier = (text) => ({ text: text + ' Then\u0000 silence.' })
modifier(text)`}).Adventure.ID
	f.fake.Push(llmtest.Reply{Chunks: []string{"The door opens."}, FinishReason: "stop"})
	if stored, _ = turn(adv); stored.Text != "The door opens. Then silence." {
		t.Fatalf("stored %q after the output script", stored.Text)
	}
	var logged bool
	for _, e := range f.console(adv) {
		logged = logged || strings.Contains(e.Text, "boom")
		if strings.ContainsRune(e.Text, 0) {
			t.Fatalf("console line %q kept a NUL", e.Text)
		}
	}
	if !logged {
		t.Fatalf("console %+v lacks the script's error", f.console(adv))
	}
}
