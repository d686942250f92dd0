package narrative_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/adventure-table/adventure-table/gameplay/analytics"
	"github.com/adventure-table/adventure-table/gameplay/llm"
	"github.com/adventure-table/adventure-table/gameplay/llm/llmtest"
	"github.com/adventure-table/adventure-table/gameplay/narrative"
	"github.com/adventure-table/adventure-table/gameplay/scripting"
	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/models"
	"github.com/adventure-table/adventure-table/models/modelstest"
)

var testSecret = []byte(strings.Repeat("k", 40))

// solo is a test fixture: a real database, the service, a user and a
// scripted model endpoint (the only fake).
type solo struct {
	t     testing.TB
	store *models.Store
	svc   *narrative.Service
	fake  *llmtest.Fake
	user  int64
	// counts is what the service counted (analytics), flushed on demand.
	counts *analytics.Counter
}

func newSolo(t testing.TB) *solo {
	t.Helper()
	// Generous time: under -race on a loaded machine QuickJS runs slowly,
	// and only the infinite-loop case wants a short limit.
	return newSoloWith(t, scripting.Options{Timeout: 5 * time.Second, MemoryLimit: 32 << 20})
}

// newSoloWith is newSolo with the given script limits.
func newSoloWith(t testing.TB, limits scripting.Options) *solo {
	t.Helper()
	store := modelstest.MustOpen(t)
	tbl := table.New(store, time.Now)
	u, _, err := tbl.EnsureGuest(context.Background(), 0)
	must(t, err)
	sandbox, err := scripting.New(limits)
	must(t, err)
	t.Cleanup(func() { _ = sandbox.Close() })
	counts := analytics.New(store, testSecret, nil, nil)
	f := &solo{t: t, store: store, fake: llmtest.New(t), user: u.ID, counts: counts,
		svc: narrative.New(store, narrative.Options{Provider: llm.NewOpenAI(nil), Secret: testSecret, Sandbox: sandbox, Analytics: counts})}
	_, err = f.svc.PutSettings(context.Background(), u.ID, narrative.ProviderSettingsInput{BaseURL: f.fake.URL(), Model: "fake",
		ContextBudget: 4000, MaxOutputTokens: 400, Temperature: 0.8, TopP: 0.95})
	must(t, err)
	return f
}

// counted flushes what the service counted and returns today's counters
// as "metric label" → hits.
func (f *solo) counted() map[string]int64 {
	f.t.Helper()
	must(f.t, f.counts.Flush(context.Background()))
	rows, err := f.store.AnalyticsHitsSince(context.Background(), "2000-01-01")
	must(f.t, err)
	out := map[string]int64{}
	for _, r := range rows {
		out[r.Metric+" "+r.Label] += r.Hits
	}
	return out
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

var hpSchema = narrative.Schema{
	"player.hp": {Min: 0, Max: 100, Initial: 100, Bands: []narrative.Band{{Lo: 0, Hi: 20, Label: "very weak"}, {Lo: 20, Hi: 40, Label: "hurt"},
		{Lo: 40, Hi: 60, Label: "minor damage"}, {Lo: 60, Hi: 90, Label: "healthy"}, {Lo: 90, Hi: 100, Label: "full health"}}},
	"player.gold": {Min: 0, Max: 999, Initial: 10, Cooldown: 2},
}

// adventure creates a scenario with an hp stat and a card, and plays it.
func (f *solo) adventure() narrative.AdventurePage {
	f.t.Helper()
	return f.adventureWith(narrative.Scripts{})
}

// adventureWith is adventure with scenario scripts.
func (f *solo) adventureWith(scripts narrative.Scripts) narrative.AdventurePage {
	f.t.Helper()
	sc, err := f.svc.CreateScenario(context.Background(), f.user, narrative.ScenarioInput{
		Title: "The Crypt", Premise: "A damp crypt under the old town.", PlotEssentials: "Gwen guards the gate.",
		AIInstructions: "Keep it tense.", Opening: "You stand before the crypt door.", StatSchema: hpSchema,
		Cards: []narrative.CardInput{{Title: "Gwen", Keys: []string{"Gwen"}, Entry: "Gwen is a veteran guard.", Type: "character"},
			{Title: "Lantern", Keys: []string{"lantern"}, Entry: "An old brass lantern that never goes out.", Type: "item"}},
		Scripts: scripts,
	})
	must(f.t, err)
	page, err := f.svc.Play(context.Background(), f.user, sc.ID, narrative.Persona{PersonaName: "Ash", PersonaPronouns: "they/them"})
	must(f.t, err)
	return page
}

// reply scripts one narration with an optional state block.
func (f *solo) reply(prose, state string) {
	text := prose
	if state != "" {
		text += "\n\n```state\n" + state + "\n```"
	}
	half := len(text) / 2
	f.fake.Push(llmtest.Reply{Chunks: []string{text[:half], text[half:]}, FinishReason: "stop", Usage: &llmtest.Usage{Prompt: 100, Completion: 20}})
}

// run plays a started turn to the end and returns its events.
func run(t testing.TB, turn *narrative.Turn, err error) []narrative.Event {
	t.Helper()
	must(t, err)
	var events []narrative.Event
	turn.Run(context.Background(), func(ev narrative.Event) { events = append(events, ev) })
	return events
}

// play runs a do-turn with a scripted reply and returns the done event.
func (f *solo) play(advID int64, action, prose, state string) narrative.Event {
	f.t.Helper()
	f.reply(prose, state)
	turn, err := f.svc.StartTurn(context.Background(), f.user, advID, narrative.TurnInput{Mode: narrative.ModeDo, Text: action})
	events := run(f.t, turn, err)
	last := events[len(events)-1]
	if last.Type != narrative.EventDone {
		f.t.Fatalf("turn %q ended with %+v", action, last)
	}
	return last
}

// retry runs a retry with a scripted reply and returns the last event.
func (f *solo) retry(advID int64, prose, state string) narrative.Event {
	f.t.Helper()
	f.reply(prose, state)
	turn, err := f.svc.StartRetry(context.Background(), f.user, advID)
	events := run(f.t, turn, err)
	return events[len(events)-1]
}

func (f *solo) page(advID int64) narrative.AdventurePage {
	f.t.Helper()
	p, err := f.svc.GetAdventure(context.Background(), f.user, advID)
	must(f.t, err)
	return p
}

// texts lists the story's texts, oldest first.
func texts(p narrative.AdventurePage) []string {
	out := make([]string, len(p.Story))
	for i, a := range p.Story {
		out[i] = a.Text
	}
	return out
}

func hp(p narrative.AdventurePage) float64 {
	v, _ := p.Adventure.WorldState["player.hp"].(float64)
	return v
}

// newSoloUser creates another user in f's database.
func newSoloUser(t testing.TB, f *solo) int64 {
	t.Helper()
	u, _, err := table.New(f.store, time.Now).EnsureGuest(context.Background(), 0)
	must(t, err)
	return u.ID
}
