package narrative_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/adventure-table/adventure-table/auth"
	"github.com/adventure-table/adventure-table/gameplay/analytics"
	"github.com/adventure-table/adventure-table/gameplay/clocktest"
	"github.com/adventure-table/adventure-table/gameplay/llm"
	"github.com/adventure-table/adventure-table/gameplay/llm/llmtest"
	"github.com/adventure-table/adventure-table/gameplay/narrative"
	"github.com/adventure-table/adventure-table/gameplay/narrative/prompt"
	"github.com/adventure-table/adventure-table/gameplay/scripting"
	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/models/apperr"
	"github.com/adventure-table/adventure-table/models/modelstest"
)

// demoKey is the server's key for the demo narrator; no test output,
// response, log or error may ever hold it.
const demoKey = "sk-demo-SERVER-FUNDED-4242424242"

// recordingProvider passes calls to the real client and records the
// settings of every call, the key included, so a test can prove where
// each call went. Calls to the default endpoint (Ollama on this machine)
// fail without reaching the network.
type recordingProvider struct {
	inner llm.Provider
	mu    sync.Mutex
	calls []recordedCall
}

type recordedCall struct {
	kind     string // "stream" or "embed"
	settings llm.Settings
	system   string
}

func (p *recordingProvider) record(kind string, s llm.Settings, system string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.calls = append(p.calls, recordedCall{kind: kind, settings: s, system: system})
}

func (p *recordingProvider) Stream(ctx context.Context, s llm.Settings, r llm.Request, on func(llm.Event)) (llm.Result, error) {
	system := ""
	if len(r.Messages) > 0 {
		system = r.Messages[0].Content
	}
	p.record("stream", s, system)
	if strings.TrimRight(s.BaseURL, "/") == llm.DefaultBaseURL {
		return llm.Result{}, &llm.Error{Kind: llm.KindUnavailable, Message: "test: the default endpoint is not running"}
	}
	return p.inner.Stream(ctx, s, r, on)
}

func (p *recordingProvider) Embed(ctx context.Context, s llm.Settings, texts []string) ([][]float32, error) {
	p.record("embed", s, "")
	if strings.TrimRight(s.BaseURL, "/") == llm.DefaultBaseURL {
		return nil, &llm.Error{Kind: llm.KindUnavailable, Message: "test: the default endpoint is not running"}
	}
	return p.inner.Embed(ctx, s, texts)
}

func (p *recordingProvider) Calls() []recordedCall {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]recordedCall(nil), p.calls...)
}

// demoSolo is a solo fixture whose server has a demo narrator: demo is its
// scripted endpoint, own a user's own one. The user starts with no saved
// settings (so the demo serves them).
type demoSolo struct {
	*solo
	demo, own *llmtest.Fake
	clock     *clocktest.Clock
	provider  *recordingProvider
	logs      *bytes.Buffer
}

const memorySystem = "You keep the memory bank"
const summarySystem = "You keep the running summary"

func isBackground(system string) bool {
	return strings.HasPrefix(system, memorySystem) || strings.HasPrefix(system, summarySystem)
}

func newDemoSolo(t *testing.T, daily int64) *demoSolo {
	t.Helper()
	store := modelstest.MustOpen(t)
	u, _, err := table.New(store, time.Now).EnsureGuest(context.Background(), 0)
	must(t, err)
	sandbox, err := scripting.New(scripting.Options{Timeout: 5 * time.Second, MemoryLimit: 32 << 20})
	must(t, err)
	t.Cleanup(func() { _ = sandbox.Close() })
	d := &demoSolo{demo: llmtest.New(t), own: llmtest.New(t), clock: clocktest.At(time.Date(2030, 1, 2, 23, 0, 0, 0, time.UTC)),
		provider: &recordingProvider{inner: llm.NewOpenAI(nil)}, logs: &bytes.Buffer{}}
	// Background calls (on whichever endpoint) get a memory; narrations
	// not scripted with Push get a plain reply.
	var mu sync.Mutex
	memories := 0
	for _, fake := range []*llmtest.Fake{d.demo, d.own} {
		fake.Respond(func(r llmtest.Request) llmtest.Reply {
			if len(r.Messages) > 0 && isBackground(r.Messages[0].Content) {
				mu.Lock()
				defer mu.Unlock()
				memories++
				text := fmt.Sprintf("Ash walked past waypoint %d.", memories)
				if memories == 1 {
					text = "Ash promised Gwen the silver key."
				}
				return llmtest.Reply{Chunks: []string{text}, FinishReason: "stop"}
			}
			return llmtest.Reply{Chunks: []string{"The crypt is silent."}, FinishReason: "stop", Usage: &llmtest.Usage{Prompt: 50, Completion: 10}}
		})
	}
	counts := analytics.New(store, testSecret, d.clock.Now, nil)
	svc := narrative.New(store, narrative.Options{Provider: d.provider, Secret: testSecret, Sandbox: sandbox, Now: d.clock.Now, Analytics: counts,
		Logger: slog.New(slog.NewTextHandler(d.logs, nil)),
		Demo:   &narrative.DemoConfig{BaseURL: d.demo.URL(), APIKey: demoKey, Models: []string{"demo-small", "demo-large"}, DailyTokens: daily}})
	d.solo = &solo{t: t, store: store, svc: svc, fake: d.demo, user: u.ID, counts: counts}
	return d
}

// settings saves the user's settings with the defaults for the rest.
func (d *demoSolo) settings(baseURL, model string, key *string, embedding string) narrative.ProviderSettingsView {
	d.t.Helper()
	v, err := d.svc.PutSettings(context.Background(), d.user, narrative.ProviderSettingsInput{BaseURL: baseURL, Model: model, APIKey: key,
		ContextBudget: 4000, MaxOutputTokens: 400, Temperature: 0.8, TopP: 0.95, EmbeddingModel: embedding})
	must(d.t, err)
	return v
}

func (d *demoSolo) view() narrative.ProviderSettingsView {
	d.t.Helper()
	v, err := d.svc.GetSettings(context.Background(), d.user)
	must(d.t, err)
	return v
}

// turn plays a do-turn and returns its events (the reply comes from
// whichever fake answers).
func (d *demoSolo) turn(adv int64, action string) ([]narrative.Event, error) {
	turn, err := d.svc.StartTurn(context.Background(), d.user, adv, narrative.TurnInput{Mode: narrative.ModeDo, Text: action})
	if err != nil {
		return nil, err
	}
	var events []narrative.Event
	turn.Run(context.Background(), func(ev narrative.Event) { events = append(events, ev) })
	return events, nil
}

func (d *demoSolo) mustTurn(adv int64, action string) narrative.Event {
	d.t.Helper()
	events, err := d.turn(adv, action)
	must(d.t, err)
	last := events[len(events)-1]
	if last.Type != narrative.EventDone {
		d.t.Fatalf("turn %q ended with %+v", action, last)
	}
	return last
}

func str(s string) *string { return &s }

// One function decides BYOK versus demo: a user with a key of their own or
// a base URL other than the default is served by their own settings; a
// user with neither by the demo, whose endpoint, key and model are pinned
// whatever the user's settings say.
func TestTurnEndpointBYOKOrDemo(t *testing.T) {
	d := newDemoSolo(t, 100000)
	adv := d.adventure().Adventure.ID

	// No settings saved at all: the demo, its key, its default model.
	v := d.view()
	if v.Demo == nil || !v.Demo.Available || !v.Demo.InUse || strings.Join(v.Demo.Models, ",") != "demo-small,demo-large" || v.Demo.DailyTokens != 100000 || v.Demo.UsedToday != 0 {
		t.Fatalf("demo view %+v", v.Demo)
	}
	d.mustTurn(adv, "look around")
	if n := d.own.Count("/v1/chat/completions"); n != 0 {
		t.Fatalf("the user's own endpoint got %d requests", n)
	}
	r := d.demo.Requests()[0]
	if r.Authorization != "Bearer "+demoKey || r.Model != "demo-small" {
		t.Fatalf("demo request: authorization %q model %q", r.Authorization, r.Model)
	}

	// The default URL (even spelled with a trailing slash) and a model off
	// the whitelist: still the demo, the model falls back to the default.
	d.settings(llm.DefaultBaseURL+"/", "gpt-5-very-expensive", nil, "")
	d.mustTurn(adv, "open the door")
	if r := d.demo.Requests()[1]; r.Model != "demo-small" || r.Authorization != "Bearer "+demoKey {
		t.Fatalf("off-whitelist model: %q %q", r.Model, r.Authorization)
	}
	// A whitelisted choice is honoured.
	d.settings(llm.DefaultBaseURL, "demo-large", nil, "")
	d.mustTurn(adv, "step in")
	if r := d.demo.Requests()[2]; r.Model != "demo-large" {
		t.Fatalf("whitelisted model: %q", r.Model)
	}
	// The demo caps a turn's output at its own limit (600) and keeps the
	// user's lower one.
	if r := d.demo.Requests()[2]; r.MaxTokens == nil || *r.MaxTokens != 400 {
		t.Fatalf("max tokens %v", r.MaxTokens)
	}
	if calls := d.provider.Calls(); calls[len(calls)-1].settings.BaseURL != d.demo.URL() {
		t.Fatalf("demo call went to %q", calls[len(calls)-1].settings.BaseURL)
	}

	// Another URL and no key: the user's own endpoint, with no key. The
	// demo's key never follows a user-chosen URL.
	v = d.settings(d.own.URL(), "demo-large", nil, "")
	if !v.Demo.Available || v.Demo.InUse {
		t.Fatalf("own URL: demo view %+v", v.Demo)
	}
	d.mustTurn(adv, "walk on")
	own := d.own.Requests()
	if len(own) != 1 || strings.Contains(own[0].Authorization, demoKey) || own[0].Model != "demo-large" {
		t.Fatalf("own endpoint requests %+v", own)
	}
	if n := d.demo.Count("/v1/chat/completions"); n != 3 {
		t.Fatalf("the demo got %d requests, want 3", n)
	}

	// A key of their own, at the default URL: BYOK (the decision, seen in
	// the view), and at their own URL their key goes there.
	v = d.settings(llm.DefaultBaseURL, "llama3.2", str("sk-user-own-key-777"), "")
	if !v.Demo.Available || v.Demo.InUse {
		t.Fatalf("own key: demo view %+v", v.Demo)
	}
	d.settings(d.own.URL(), "my-model", nil, "")
	d.mustTurn(adv, "run")
	own = d.own.Requests()
	if r := own[len(own)-1]; r.Authorization != "Bearer sk-user-own-key-777" || r.Model != "my-model" {
		t.Fatalf("BYOK request %q %q", r.Authorization, r.Model)
	}
	// Clearing the key and going back to the default URL: the demo again.
	d.settings(llm.DefaultBaseURL, "x", str(""), "")
	if v := d.view(); !v.Demo.InUse {
		t.Fatal("a user with no key and the default URL is not on the demo")
	}
	for _, c := range d.provider.Calls() {
		if c.settings.APIKey == demoKey && c.settings.BaseURL != d.demo.URL() {
			t.Fatalf("the demo key went to %q", c.settings.BaseURL)
		}
	}
}

// The per-user daily budget: refused before any request reaches the
// demo, counted from the provider's usage (or an estimate), per UTC day.
func TestDemoDailyBudget(t *testing.T) {
	d := newDemoSolo(t, 1000)
	ctx := context.Background()
	adv := d.adventure().Adventure.ID
	other := newSoloUser(t, d.solo)

	d.demo.Push(llmtest.Reply{Chunks: []string{"Rain."}, FinishReason: "stop", Usage: &llmtest.Usage{Prompt: 600, Completion: 100}})
	d.mustTurn(adv, "wait")
	if v := d.view(); v.Demo.UsedToday != 700 {
		t.Fatalf("used today %d, want 700 (reported usage)", v.Demo.UsedToday)
	}
	// A refused call (the endpoint says 429) costs nothing.
	d.demo.Push(llmtest.Reply{Status: 429})
	before := d.view().Demo.UsedToday
	events, err := d.turn(adv, "try again")
	must(t, err)
	if last := events[len(events)-1]; last.Code != string(apperr.ProviderRateLimited) {
		t.Fatalf("429 from the demo: %+v", last)
	}
	if d.view().Demo.UsedToday != before {
		t.Fatal("a refused call was counted")
	}

	// No usage reported: the prompt's estimate plus the reply's count.
	d.demo.Push(llmtest.Reply{Chunks: []string{"More rain falls on the crypt."}, FinishReason: "stop"})
	d.mustTurn(adv, "wait more")
	reqs := d.demo.Requests()
	est := prompt.Count("More rain falls on the crypt.")
	for _, m := range reqs[len(reqs)-1].Messages {
		est += prompt.Count(m.Content)
	}
	if v := d.view(); v.Demo.UsedToday != int64(700+est) {
		t.Fatalf("used today %d, want %d (700 + estimate %d)", v.Demo.UsedToday, 700+est, est)
	}
	// Now past the budget: the next turn is refused before anything is
	// stored or sent, with the wait until UTC midnight (23:00 → 1 h).
	sent := len(d.demo.Requests())
	storyBefore := len(d.page(adv).Story)
	_, err = d.svc.StartTurn(ctx, d.user, adv, narrative.TurnInput{Mode: narrative.ModeDo, Text: "one more"})
	ae, ok := apperr.As(err)
	if !ok || ae.Code != apperr.DemoBudgetExhausted || ae.Code.Kind() != apperr.KindRateLimited {
		t.Fatalf("over budget: %v", err)
	}
	if got := ae.Details["retry_after_seconds"]; got != 3600 {
		t.Fatalf("retry_after_seconds %v, want 3600", got)
	}
	if _, err := d.svc.StartRetry(ctx, d.user, adv); apperr.CodeOf(err) != apperr.DemoBudgetExhausted {
		t.Fatalf("retry over budget: %v", err)
	}
	if len(d.demo.Requests()) != sent || len(d.page(adv).Story) != storyBefore {
		t.Fatal("a refused turn reached the demo or stored the action")
	}
	if got := d.counted()["turn_failed demo_budget_exhausted"]; got != 2 {
		t.Fatalf("the two refused turns counted %d times as demo_budget_exhausted", got)
	}
	// The budget is per user: another user plays on.
	otherAdv := (&solo{t: t, store: d.store, svc: d.svc, fake: d.demo, user: other}).adventure().Adventure.ID
	otherTurn, err := d.svc.StartTurn(ctx, other, otherAdv, narrative.TurnInput{Mode: narrative.ModeDo, Text: "hello"})
	if err != nil {
		t.Fatalf("another user was refused: %v", err)
	}
	otherTurn.Abandon()

	// A budget that runs out between accepting a turn and calling the
	// model: the turn ends with the code, still before any request.
	d.clock.Set(time.Date(2030, 1, 3, 0, 0, 1, 0, time.UTC))
	turn, err := d.svc.StartTurn(ctx, d.user, adv, narrative.TurnInput{Mode: narrative.ModeDo, Text: "next day"})
	if err != nil {
		t.Fatalf("a new UTC day did not reset the budget: %v", err)
	}
	if v := d.view(); v.Demo.UsedToday != 0 {
		t.Fatalf("used today %d on a new day", v.Demo.UsedToday)
	}
	_, err = d.store.AddDemoTokens(ctx, d.user, "2030-01-03", 1000)
	must(t, err)
	var events2 []narrative.Event
	turn.Run(ctx, func(ev narrative.Event) { events2 = append(events2, ev) })
	if last := events2[len(events2)-1]; last.Type != narrative.EventError || last.Code != string(apperr.DemoBudgetExhausted) {
		t.Fatalf("spent meanwhile: %+v", last)
	}
	if len(d.demo.Requests()) != sent {
		t.Fatal("the demo was called over budget")
	}
	// The next day again: the wait is counted from now (00:00:01 → 86399 s).
	_, err = d.svc.StartTurn(ctx, d.user, adv, narrative.TurnInput{Mode: narrative.ModeDo, Text: "still"})
	if ae, _ := apperr.As(err); ae == nil || ae.Details["retry_after_seconds"] != 86399 {
		t.Fatalf("refusal after midnight: %v", err)
	}
	d.clock.Set(time.Date(2030, 1, 4, 12, 0, 0, 0, time.UTC))
	d.mustTurn(adv, "a new day")
}

// Turns running at once cannot spend the budget many times over: each
// reserves what its call may cost (the prompt and the output cap) before
// the call, in one statement that also checks the budget, and settles to
// what it spent afterwards. Six turns on six adventures are all accepted
// (nothing is spent yet), then run together against a slow demo; only
// those whose reservation found the budget unspent reach it, so the day
// ends at most one turn past the budget.
func TestDemoBudgetHoldsForParallelTurns(t *testing.T) {
	const daily = 1000
	d := newDemoSolo(t, daily)
	ctx := context.Background()
	var turns []*narrative.Turn
	for i := range 6 {
		adv := d.adventure().Adventure.ID
		turn, err := d.svc.StartTurn(ctx, d.user, adv, narrative.TurnInput{Mode: narrative.ModeDo, Text: fmt.Sprintf("wait %d", i)})
		if err != nil {
			t.Fatalf("turn %d refused before anything was spent: %v", i, err)
		}
		turns = append(turns, turn)
	}
	for range turns {
		d.demo.Push(llmtest.Reply{Chunks: []string{"Rain."}, Delay: 300 * time.Millisecond, FinishReason: "stop", Usage: &llmtest.Usage{Prompt: 600, Completion: 100}})
	}
	last := make([]narrative.Event, len(turns))
	var wg sync.WaitGroup
	for i, turn := range turns {
		wg.Go(func() {
			turn.Run(ctx, func(ev narrative.Event) { last[i] = ev })
		})
	}
	wg.Wait()
	done, refused := 0, 0
	for i, ev := range last {
		switch {
		case ev.Type == narrative.EventDone:
			done++
		case ev.Type == narrative.EventError && ev.Code == string(apperr.DemoBudgetExhausted):
			refused++
		default:
			t.Fatalf("turn %d ended with %+v", i, ev)
		}
	}
	narrations := 0
	for _, r := range d.demo.Requests() {
		if len(r.Messages) > 0 && !isBackground(r.Messages[0].Content) {
			narrations++
		}
	}
	used := d.view().Demo.UsedToday
	if done == 0 || refused == 0 || narrations != done || used != int64(700*done) || used > daily+700 {
		t.Fatalf("%d turns narrated, %d refused, %d calls reached the demo, %d tokens used (budget %d)", done, refused, narrations, used, daily)
	}
}

// Background work never spends the demo key: a demo user's memory jobs
// make no model calls at all (no summaries, no vectors), the recall
// query is not embedded on the demo, and an operator's rewrite of their
// bank goes to the user's own endpoint. Once the user has an endpoint of
// their own the bank works there, with their key or none.
func TestDemoNeverUsedInBackground(t *testing.T) {
	d := newDemoSolo(t, 1_000_000)
	ctx := context.Background()
	adv := d.adventure().Adventure.ID
	d.settings(llm.DefaultBaseURL, "demo-small", nil, "embed-model") // an embedding model too
	for i := range 9 {
		d.mustTurn(adv, fmt.Sprintf("I walk towards landmark%d", i))
		n, err := d.svc.DrainMemoryJobs(ctx)
		must(t, err)
		if n == 0 {
			t.Fatal("no memory job ran")
		}
	}
	for _, r := range d.demo.Requests() {
		if r.Path != "/v1/chat/completions" || isBackground(r.Messages[0].Content) {
			t.Fatalf("the demo got a background request: %s %q", r.Path, r.Messages[0].Content[:40])
		}
	}
	if n := d.demo.Count("/v1/embeddings"); n != 0 {
		t.Fatalf("the demo got %d embedding requests", n)
	}
	for _, c := range d.provider.Calls() {
		if c.kind == "embed" || isBackground(c.system) {
			t.Fatalf("a demo user's background call was made: %+v", c.kind)
		}
	}
	if n := d.demo.Count("/v1/chat/completions"); n != 9 {
		t.Fatalf("the demo got %d requests, want the 9 narrations", n)
	}
	if ms, err := d.svc.GetMemoryBank(ctx, d.user, adv); err != nil || len(ms.Memories) != 0 || ms.Summary != nil {
		t.Fatalf("a demo user's bank wrote memories: %+v %v", ms.Memories, err)
	}

	// Their own endpoint, no key: the bank catches up there, never with
	// the demo's key.
	d.settings(d.own.URL(), "own-model", nil, "")
	d.mustTurn(adv, "I walk on")
	_, err := d.svc.DrainMemoryJobs(ctx)
	must(t, err)
	background := 0
	for _, r := range d.own.Requests() {
		if strings.Contains(r.Authorization, demoKey) {
			t.Fatal("the demo key reached the user's endpoint")
		}
		if isBackground(r.Messages[0].Content) {
			background++
		}
	}
	if background == 0 {
		t.Fatal("the bank made no calls on the user's own endpoint")
	}
	// With a key of their own: their key.
	d.settings(d.own.URL(), "own-model", str("sk-user-own-key-888"), "")
	for i := range 7 {
		d.mustTurn(adv, fmt.Sprintf("I run to landmark%d", i))
	}
	_, err = d.svc.DrainMemoryJobs(ctx)
	must(t, err)
	reqs := d.own.Requests()
	if last := reqs[len(reqs)-1]; !isBackground(last.Messages[0].Content) || last.Authorization != "Bearer sk-user-own-key-888" {
		t.Fatalf("last background call: %q", last.Authorization)
	}

	// Back on the demo with a bank and an embedding model: the turn's
	// recall does not embed its query on the demo (it scores lexically).
	// (A small context budget, so the story's early turns are out of the
	// history window and their memories come back through recall.)
	_, err = d.svc.PutSettings(ctx, d.user, narrative.ProviderSettingsInput{BaseURL: llm.DefaultBaseURL, Model: "demo-small", APIKey: str(""),
		ContextBudget: 700, MaxOutputTokens: 64, Temperature: 0.8, TopP: 0.95, EmbeddingModel: "embed-model"})
	must(t, err)
	callsBefore := len(d.provider.Calls())
	done := d.mustTurn(adv, "I remember the silver key I promised Gwen")
	for _, c := range d.provider.Calls()[callsBefore:] {
		if c.kind != "stream" || isBackground(c.system) {
			t.Fatalf("a demo turn made a background or %s call", c.kind)
		}
	}
	if n := d.demo.Count("/v1/embeddings"); n != 0 {
		t.Fatalf("the demo got %d embedding requests", n)
	}
	ins, err := d.svc.GetInsights(ctx, d.user, done.Action.ID)
	must(t, err)
	if len(ins.Memories) == 0 {
		t.Fatal("the demo turn recalled nothing: the test proves nothing")
	}
	// An operator's rewrite of the bank uses the user's own (default)
	// endpoint, never the demo.
	demoBefore := len(d.demo.Requests())
	if _, err := d.svc.ReplayMemories(ctx, adv, narrative.DefaultFraming, false, nil); err == nil {
		t.Fatal("the rewrite reached a model: the default endpoint is not running here")
	}
	if len(d.demo.Requests()) != demoBefore {
		t.Fatal("the rewrite used the demo")
	}
	calls := d.provider.Calls()
	if last := calls[len(calls)-1]; last.settings.BaseURL != llm.DefaultBaseURL || last.settings.APIKey != "" {
		t.Fatalf("the rewrite went to %q", last.settings.BaseURL)
	}
	for _, c := range calls {
		if c.settings.APIKey == demoKey && (c.kind != "stream" || isBackground(c.system)) {
			t.Fatalf("the demo key was used for background work: %+v", c.kind)
		}
	}
}

// The demo's key never shows: not in the settings view, a turn's events
// (an endpoint error that echoes it included), an error, the service's
// logs, or the configuration printed any way.
func TestDemoKeyNeverShown(t *testing.T) {
	d := newDemoSolo(t, 500)
	ctx := context.Background()
	adv := d.adventure().Adventure.ID
	var seen []string
	add := func(v any) {
		b, _ := json.Marshal(v)
		seen = append(seen, string(b), fmt.Sprintf("%+v", v))
	}
	add(d.view())
	d.demo.Push(llmtest.Reply{Status: 401, ErrorBody: `{"error":{"message":"Incorrect API key provided: ` + demoKey + `","type":"invalid_request_error"}}`})
	events, err := d.turn(adv, "look")
	must(t, err)
	add(events)
	if last := events[len(events)-1]; last.Code != string(apperr.ProviderAuthFailed) {
		t.Fatalf("401 from the demo: %+v", last)
	}
	d.demo.Push(llmtest.Reply{Chunks: []string{"Dust."}, FinishReason: "stop", Usage: &llmtest.Usage{Prompt: 400, Completion: 200}})
	events, err = d.turn(adv, "look again")
	must(t, err)
	add(events)
	_, err = d.svc.StartTurn(ctx, d.user, adv, narrative.TurnInput{Mode: narrative.ModeDo, Text: "over"})
	if apperr.CodeOf(err) != apperr.DemoBudgetExhausted {
		t.Fatalf("over budget: %v", err)
	}
	add(err)
	seen = append(seen, err.Error())
	add(d.view())
	cfg := narrative.DemoConfig{BaseURL: "https://demo.example/v1", APIKey: demoKey, Models: []string{"m"}}
	seen = append(seen, fmt.Sprintf("%v %+v %#v %s", cfg, cfg, cfg, cfg), fmt.Sprintf("%v %+v", &cfg, &cfg))
	slog.New(slog.NewTextHandler(d.logs, nil)).Info("config", "demo", cfg, "ptr", &cfg)
	slog.New(slog.NewJSONHandler(d.logs, nil)).Info("config", "demo", cfg)
	seen = append(seen, d.logs.String())
	for _, s := range seen {
		if strings.Contains(s, demoKey) || strings.Contains(s, "SERVER-FUNDED") {
			t.Fatalf("the demo key shows in %q", s)
		}
	}
}

// A demo config that cannot be pinned is refused at start.
func TestDemoConfigRefusedWhenUnpinnable(t *testing.T) {
	store := modelstest.MustOpen(t)
	for name, cfg := range map[string]narrative.DemoConfig{
		"no models": {BaseURL: "https://demo.example/v1", APIKey: "k"},
		"no URL":    {APIKey: "k", Models: []string{"m"}},
		"blank":     {BaseURL: "https://demo.example/v1", APIKey: "k", Models: []string{" "}},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Fatalf("%s: accepted", name)
				}
			}()
			narrative.New(store, narrative.Options{Provider: llm.NewOpenAI(nil), Secret: testSecret, Demo: &cfg})
		}()
	}
}

// After a rotation of the server secret, keys sealed under the previous
// one still work and are sealed again under the new one on the next turn
// or settings save; without the previous secret they cannot be read.
func TestAPIKeyRotation(t *testing.T) {
	f := newSolo(t)
	ctx := context.Background()
	oldSecret := testSecret
	newSecret := []byte(strings.Repeat("N", 40))
	key := "sk-rotation-user-key-5150"
	in := narrative.ProviderSettingsInput{BaseURL: f.fake.URL(), Model: "fake", APIKey: &key, ContextBudget: 4000, MaxOutputTokens: 400, Temperature: 0.7, TopP: 0.9}
	_, err := f.svc.PutSettings(ctx, f.user, in)
	must(t, err)
	adv := f.adventure().Adventure.ID
	sealedKID := func() string {
		p, err := f.store.FindProviderSetting(ctx, f.user)
		must(t, err)
		parts := strings.SplitN(p.APIKeySealed, ":", 3)
		if len(parts) != 3 || parts[0] != "enc2" {
			t.Fatalf("sealed value %q has no key id", p.APIKeySealed)
		}
		return parts[1]
	}
	if sealedKID() != auth.KeyID(oldSecret) {
		t.Fatal("the key is not sealed under the old secret's id")
	}

	// Rotated without the previous secret: the key cannot be read.
	f.svc = narrative.New(f.store, narrative.Options{Provider: llm.NewOpenAI(nil), Secret: newSecret})
	f.fake.Push(llmtest.Reply{Chunks: []string{"x"}, FinishReason: "stop"})
	turn, err := f.svc.StartTurn(ctx, f.user, adv, narrative.TurnInput{Mode: narrative.ModeDo, Text: "go"})
	events := run(t, turn, err)
	if last := events[len(events)-1]; last.Code != string(apperr.ProviderSettingsInvalid) {
		t.Fatalf("without the previous secret: %+v", last)
	}
	// Saving other settings still works (the key is left as it is).
	in.APIKey = nil
	_, err = f.svc.PutSettings(ctx, f.user, in)
	must(t, err)

	// With it: the turn uses the key and seals it again under the new one.
	f.svc = narrative.New(f.store, narrative.Options{Provider: llm.NewOpenAI(nil), Secret: newSecret, PreviousSecret: oldSecret})
	reqs := len(f.fake.Requests())
	f.play(adv, "go on", "Onward.", "")
	if got := f.fake.Requests()[reqs].Authorization; got != "Bearer "+key {
		t.Fatalf("authorization after rotation %q", got)
	}
	if sealedKID() != auth.KeyID(newSecret) {
		t.Fatal("the turn did not seal the key again under the new secret")
	}
	// The previous secret can now be dropped.
	f.svc = narrative.New(f.store, narrative.Options{Provider: llm.NewOpenAI(nil), Secret: newSecret})
	f.play(adv, "and on", "Further.", "")

	// A settings save re-seals too.
	third := []byte(strings.Repeat("T", 40))
	f.svc = narrative.New(f.store, narrative.Options{Provider: llm.NewOpenAI(nil), Secret: third, PreviousSecret: newSecret})
	v, err := f.svc.PutSettings(ctx, f.user, in)
	must(t, err)
	if !v.APIKeySet || sealedKID() != auth.KeyID(third) {
		t.Fatal("a settings save did not seal the key again")
	}
	b, _ := json.Marshal(v)
	if strings.Contains(string(b), key) || strings.Contains(string(b), "enc2") {
		t.Fatalf("the view shows the key: %s", b)
	}
}
