package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/adventure-table/adventure-table/gameplay"
	"github.com/adventure-table/adventure-table/gameplay/limits"
	"github.com/adventure-table/adventure-table/gameplay/llm/llmtest"
	"github.com/adventure-table/adventure-table/gameplay/narrative"
	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/gameplay/table/tabletest"
	"github.com/adventure-table/adventure-table/models/modelstest"
)

// soloWorld is a server with both doors (a table and solo stories), a
// fake model, and an owner with two adventures of one scenario; a second
// user has an adventure of their own.
type soloWorld struct {
	svc        *gameplay.Services
	srv        *httptest.Server
	fake       *llmtest.Fake
	owner      table.Caller
	scenario   int64
	adv, other int64 // the owner's two adventures
	stranger   int64 // another user's adventure
}

func newSoloWorld(t *testing.T, lim ...*limits.Limits) *soloWorld {
	t.Helper()
	ctx := context.Background()
	svc := gameplay.New(modelstest.MustOpen(t), gameplay.Options{Secret: []byte("solo-mcp-test-secret-0123456789abcdef")})
	opts := Options{Version: "test", Table: svc.Table, Narrative: svc.Narrative, Verify: func(ctx context.Context, tok string) (Principal, error) {
		c, err := svc.Table.AuthenticateGrant(ctx, tok)
		return Principal{GrantID: c.GrantID}, err
	}}
	if len(lim) > 0 {
		opts.Limits = lim[0]
	}
	srv := httptest.NewServer(NewHandler(opts))
	t.Cleanup(srv.Close)
	w := &soloWorld{svc: svc, srv: srv, fake: llmtest.New(t)}
	n := svc.Narrative
	w.owner = tabletest.NewUser(t, svc.Table, "Author")
	stranger := tabletest.NewUser(t, svc.Table, "Stranger")
	for _, u := range []table.Caller{w.owner, stranger} {
		_, err := n.PutSettings(ctx, u.UserID, narrative.ProviderSettingsInput{BaseURL: w.fake.URL(), Model: "fake", ContextBudget: 4000, MaxOutputTokens: 300, Temperature: 0.8, TopP: 0.9})
		tabletest.Must(t, err)
	}
	in := narrative.ScenarioInput{Title: "The Lantern Ferry", Opening: "Fog lies on the river. The ferry is late.",
		StatSchema: narrative.Schema{"player.hp": {Min: 0, Max: 20, Initial: 20}},
		Cards:      []narrative.CardInput{{Title: "Ferryman", Keys: []string{"ferryman"}, Entry: "Old Brannoc, who never gives change.", Type: "character"}},
		Scripts:    narrative.Scripts{Output: "const modifier = (text) => ({ text: text.replace('fog', 'mist') }); modifier(text)"}}
	sc, err := n.CreateScenario(ctx, w.owner.UserID, in)
	tabletest.Must(t, err)
	w.scenario = sc.ID
	for _, id := range []*int64{&w.adv, &w.other} {
		p, err := n.Play(ctx, w.owner.UserID, sc.ID, narrative.Persona{PersonaName: "Mira"})
		tabletest.Must(t, err)
		*id = p.Adventure.ID
	}
	theirs, err := n.CreateScenario(ctx, stranger.UserID, in)
	tabletest.Must(t, err)
	p, err := n.Play(ctx, stranger.UserID, theirs.ID, narrative.Persona{PersonaName: "Tomas"})
	tabletest.Must(t, err)
	w.stranger = p.Adventure.ID
	return w
}

// turn plays a turn through the service, as the web app does.
func (w *soloWorld) turn(t *testing.T, adventureID int64, userID int64, text, reply string) {
	t.Helper()
	w.fake.Push(llmtest.Reply{Chunks: []string{reply}, FinishReason: "stop"})
	turn, err := w.svc.Narrative.StartTurn(context.Background(), userID, adventureID, narrative.TurnInput{Mode: "do", Text: text})
	tabletest.Must(t, err)
	turn.Run(context.Background(), func(narrative.Event) {})
}

func (w *soloWorld) adventureToken(t *testing.T, adventureID int64) string {
	t.Helper()
	m, err := w.svc.Narrative.MintAdventureGrant(context.Background(), w.owner.UserID, adventureID, narrative.SoloGrantInput{Label: "test"})
	tabletest.Must(t, err)
	return m.Token
}

func toolNames(t *testing.T, url, token string) ([]string, []*mcpsdk.Tool) {
	t.Helper()
	list, err := connect(t, url, token).ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range list.Tools {
		names = append(names, tl.Name)
	}
	slices.Sort(names)
	return names, list.Tools
}

func declaredNames(ts []tool) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.name)
	}
	slices.Sort(out)
	return out
}

// listBytes is a tool list's size as TestToolListBudget measures it.
func listBytes(listed []*mcpsdk.Tool) (visible, whole int) {
	for _, tl := range listed {
		v, _ := json.Marshal(map[string]any{"name": tl.Name, "title": tl.Title, "description": tl.Description, "inputSchema": tl.InputSchema})
		w, _ := json.Marshal(tl)
		visible, whole = visible+len(v), whole+len(w)
	}
	return visible, whole
}

// TestToolsByGrant: tools/list answers with the tools of the token's
// grant, each list within its budget; a tool of another kind of grant is
// unknown to a token, whichever way round.
func TestToolsByGrant(t *testing.T) {
	ctx := context.Background()
	w := newSoloWorld(t)
	f := tabletest.New(t, w.svc.Table)
	_, err := w.svc.Table.StartSession(ctx, f.Owner, f.LobbyID)
	tabletest.Must(t, err)
	seat, err := w.svc.Table.LetAIControl(ctx, f.Seated, f.PlayerSeatID, table.HandoffInput{})
	tabletest.Must(t, err)
	scen, err := w.svc.Narrative.MintScenarioGrant(ctx, w.owner.UserID, w.scenario, narrative.SoloGrantInput{})
	tabletest.Must(t, err)

	// The table's whole list keeps the 28 KB it was given when its
	// output schemas grew (issue 31); the solo lists are held to 24 KB.
	for _, tt := range []struct {
		name, token string
		want        []string
		wholeBudget int
	}{
		{"table seat", seat.Token, declaredNames(tools), wholeListBudget},
		{"adventure", w.adventureToken(t, w.adv), declaredNames(adventureTools), 24 << 10},
		{"scenario", scen.Token, declaredNames(scenarioTools), 24 << 10},
	} {
		names, listed := toolNames(t, w.srv.URL, tt.token)
		if !slices.Equal(names, tt.want) {
			t.Errorf("%s lists %v, want %v", tt.name, names, tt.want)
		}
		for _, tl := range listed {
			if w, _ := json.Marshal(tl); bytes.Contains(w, []byte(`"null"`)) {
				t.Errorf("%s: a schema allows null (the inspector's type-union warning)", tl.Name)
			}
		}
		visible, whole := listBytes(listed)
		t.Logf("tools/list for a %s token: %d tools, model-visible %d bytes, whole %d bytes", tt.name, len(listed), visible, whole)
		if visible > modelVisibleListBudget || whole > tt.wholeBudget {
			t.Errorf("%s: tools/list is %d bytes model-visible (budget %d) and %d whole (budget %d)", tt.name, visible, modelVisibleListBudget, whole, tt.wholeBudget)
		}
	}

	// A table token calling a solo tool and a solo token calling a table
	// tool: the tool does not exist for them, and nothing is touched.
	for _, tt := range []struct{ token, tool string }{
		{seat.Token, "read_story"}, {seat.Token, "take_turn"}, {seat.Token, "get_scenario"},
		{w.adventureToken(t, w.adv), "get_session_context"}, {w.adventureToken(t, w.adv), "get_scenario"},
		{scen.Token, "read_story"}, {scen.Token, "post_message"},
	} {
		res, err := connect(t, w.srv.URL, tt.token).CallTool(ctx, &mcpsdk.CallToolParams{Name: tt.tool, Arguments: map[string]any{}})
		if err == nil && !res.IsError {
			t.Errorf("%s… called %s: %+v", tt.token[:8], tt.tool, res.StructuredContent)
		} else if err == nil || !strings.Contains(err.Error(), "unknown tool") {
			t.Errorf("%s… calling %s: want unknown tool, got %v / %+v", tt.token[:8], tt.tool, err, res)
		}
	}
}

// TestSoloGrantIsolation: a token for one adventure reads and changes that
// adventure only. Every tool that takes an id is given the id of a turn,
// card, memory or branch of the owner's other adventure and of another
// user's: each answers not_found (a fork action_not_on_line) and neither
// adventure changes. A revoked token fails at its next call.
func TestSoloGrantIsolation(t *testing.T) {
	ctx := context.Background()
	w := newSoloWorld(t)
	n := w.svc.Narrative
	for _, adv := range []int64{w.adv, w.other} {
		w.turn(t, adv, w.owner.UserID, "wave at the ferryman", "The ferryman squints through the fog.")
	}
	w.turn(t, w.stranger, mustUser(t, n, w.stranger), "wait", "Nothing comes.")
	_, err := n.AddMemory(ctx, w.owner.UserID, w.other, narrative.MemoryInput{Text: "Brannoc owes Mira a coin."})
	tabletest.Must(t, err)
	_, err = n.Fork(ctx, w.owner.UserID, w.other, firstTurn(t, n, w.owner.UserID, w.other).ID)
	tabletest.Must(t, err)

	token := w.adventureToken(t, w.adv)
	a := connectAgent(t, w.srv.URL, token)
	var story Story
	a.must("read_story", nil, &story)
	if len(story.Turns) != 3 || !strings.Contains(story.Turns[2].Text, "squints") {
		t.Fatalf("read_story: %+v", story)
	}
	before := snapshot(t, n, w.owner.UserID, w.other)

	type foreign struct{ turn, narration, card, memory, branch int64 }
	idsOf := func(userID, adv int64) foreign {
		p, err := n.GetAdventure(ctx, userID, adv)
		tabletest.Must(t, err)
		cards, err := n.ListCards(ctx, userID, adv)
		tabletest.Must(t, err)
		bank, err := n.GetMemoryBank(ctx, userID, adv)
		tabletest.Must(t, err)
		br, err := n.ListBranches(ctx, userID, adv)
		tabletest.Must(t, err)
		f := foreign{turn: p.Story[1].ID, narration: p.Story[len(p.Story)-1].ID, card: cards.Cards[0].ID, branch: br.Branches[0].ID}
		if len(bank.Memories) > 0 {
			f.memory = bank.Memories[0].ID
		}
		return f
	}
	for name, ids := range map[string]foreign{"the owner's other adventure": idsOf(w.owner.UserID, w.other), "another user's adventure": idsOf(mustUser(t, n, w.stranger), w.stranger)} {
		if ids.memory == 0 {
			ids.memory = 1 << 40
		}
		for _, tt := range []struct {
			tool string
			args map[string]any
			want string
		}{
			{"switch_take", map[string]any{"action_id": ids.narration}, "not_found"},
			{"branches", map[string]any{"action": "fork", "action_id": ids.turn}, "action_not_on_line"},
			{"branches", map[string]any{"action": "switch", "branch_id": ids.branch}, "not_found"},
			{"story_cards", map[string]any{"action": "edit", "card_id": ids.card, "entry": "Stolen."}, "not_found"},
			{"insights", map[string]any{"action_id": ids.narration}, "not_found"},
			{"memories", map[string]any{"action": "pin", "memory_id": ids.memory}, "not_found"},
		} {
			if code := a.call(tt.tool, tt.args, nil); code != tt.want {
				t.Errorf("%s with an id of %s: %q, want %s", tt.tool, name, code, tt.want)
			}
		}
	}
	// The tools without ids see only the grant's adventure.
	var cards StoryCards
	a.must("story_cards", nil, &cards)
	var bank Memories
	a.must("memories", nil, &bank)
	var branches Branches
	a.must("branches", nil, &branches)
	if len(cards.Cards) != 1 || len(bank.Memories) != 0 || len(branches.Branches) != 1 {
		t.Errorf("the adventure's own lists: %d cards, %d memories, %d branches; want 1, 0, 1", len(cards.Cards), len(bank.Memories), len(branches.Branches))
	}
	if after := snapshot(t, n, w.owner.UserID, w.other); after != before {
		t.Errorf("the other adventure changed:\n%s\n%s", before, after)
	}

	// Revoked: the very next call fails with ai_token_revoked, before any
	// tool runs; the list too.
	views, err := n.ListAdventureGrants(ctx, w.owner.UserID, w.adv)
	tabletest.Must(t, err)
	if _, err := n.RevokeSoloGrant(ctx, mustUser(t, n, w.stranger), views.Grants[0].ID); err == nil {
		t.Error("another user revoked the owner's token")
	}
	_, err = n.RevokeSoloGrant(ctx, w.owner.UserID, views.Grants[0].ID)
	tabletest.Must(t, err)
	status, body := rawCall(t, w.srv.URL, token, "read_story")
	if status != http.StatusUnauthorized || !strings.Contains(body, `"code":"ai_token_revoked"`) {
		t.Errorf("a revoked token: %d %s", status, body)
	}
	if strings.Contains(body, token) {
		t.Error("the refusal echoes the token")
	}
}

// TestSoloTurnStreamsAsProgress: take_turn sends the narration as progress
// notifications while it is written, and the result holds it whole; it is
// the web app's turn (the story read there has it).
func TestSoloTurnStreamsAsProgress(t *testing.T) {
	ctx := context.Background()
	w := newSoloWorld(t)
	var mu sync.Mutex
	var pieces []string
	client := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "solo-agent", Version: "1"}, &mcpsdk.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcpsdk.ProgressNotificationClientRequest) {
			mu.Lock()
			defer mu.Unlock()
			pieces = append(pieces, req.Params.Message)
		}})
	cs, err := client.Connect(ctx, &mcpsdk.StreamableClientTransport{Endpoint: w.srv.URL,
		HTTPClient: &http.Client{Transport: bearerTransport{w.adventureToken(t, w.adv)}}}, nil)
	tabletest.Must(t, err)
	defer cs.Close()
	w.fake.Push(llmtest.Reply{Chunks: []string{"The ferryman ", "takes your coin ", "and pushes off."}, FinishReason: "stop"})
	params := &mcpsdk.CallToolParams{Name: "take_turn", Arguments: map[string]any{"mode": "say", "text": "Take me across."}}
	params.SetProgressToken("turn-1")
	res, err := cs.CallTool(ctx, params)
	tabletest.Must(t, err)
	if res.IsError {
		t.Fatalf("take_turn: %+v", res.StructuredContent)
	}
	var out Narrated
	raw, _ := json.Marshal(res.StructuredContent)
	tabletest.Must(t, json.Unmarshal(raw, &out))
	mu.Lock()
	streamed := strings.Join(pieces, "")
	mu.Unlock()
	if out.Narration.Text != "The ferryman takes your coin and pushes off." || streamed != out.Narration.Text || len(pieces) != 3 {
		t.Errorf("narration %q streamed as %q (%d pieces)", out.Narration.Text, pieces, len(pieces))
	}
	if out.Player == nil || out.Player.Mode != "say" || out.Narration.Kind != "narration" {
		t.Errorf("turn: %+v", out)
	}
	page, err := w.svc.Narrative.GetAdventure(ctx, w.owner.UserID, w.adv)
	tabletest.Must(t, err)
	if last := page.Story[len(page.Story)-1]; last.ID != out.Narration.ID || last.Text != out.Narration.Text {
		t.Errorf("the web app's story ends with %+v", last)
	}
}

// TestSoloTurnInProgress: a turn started over MCP while the web app's turn
// is being written is refused with turn_in_progress, and the web app's
// turn ends as it would have.
func TestSoloTurnInProgress(t *testing.T) {
	ctx := context.Background()
	w := newSoloWorld(t)
	hold := make(chan struct{})
	w.fake.Push(llmtest.Reply{Chunks: []string{"The fog ", "parts."}, FinishReason: "stop", Hold: hold, HoldAfter: 1})
	turn, err := w.svc.Narrative.StartTurn(ctx, w.owner.UserID, w.adv, narrative.TurnInput{Mode: "do", Text: "look"})
	tabletest.Must(t, err)
	done := make(chan string)
	go func() {
		var text string
		turn.Run(ctx, func(ev narrative.Event) {
			if ev.Type == narrative.EventDone && ev.Action != nil {
				text = ev.Action.Text
			}
		})
		done <- text
	}()
	a := connectAgent(t, w.srv.URL, w.adventureToken(t, w.adv))
	for tool, args := range map[string]map[string]any{"take_turn": {"text": "look again"}, "retry": {}, "undo": {}} {
		if code := a.call(tool, args, nil); code != "turn_in_progress" {
			t.Errorf("%s while the web app's turn runs: %q, want turn_in_progress", tool, code)
		}
	}
	var story Story
	a.must("read_story", nil, &story)
	if !story.TurnInProgress {
		t.Error("read_story does not say a turn is in progress")
	}
	close(hold)
	if text := <-done; text != "The mist parts." { // the scenario's output script
		t.Errorf("the web app's turn ended with %q", text)
	}
}

// TestScenarioGrantCoWrites: a scenario's token reads it, drafts and edits
// a card, and tests its scripts; its changes are the scenario's.
func TestScenarioGrantCoWrites(t *testing.T) {
	ctx := context.Background()
	w := newSoloWorld(t)
	m, err := w.svc.Narrative.MintScenarioGrant(ctx, w.owner.UserID, w.scenario, narrative.SoloGrantInput{})
	tabletest.Must(t, err)
	a := connectAgent(t, w.srv.URL, m.Token)
	var sheet ScenarioSheet
	a.must("get_scenario", nil, &sheet)
	if sheet.Title != "The Lantern Ferry" || len(sheet.Cards) != 1 || !slices.Equal(sheet.Scripts, []string{"output"}) {
		t.Fatalf("get_scenario: %+v", sheet)
	}
	a.must("scenario_cards", map[string]any{"action": "add", "title": "Lantern", "keys": []string{"lantern"}, "entry": "Green glass; it shows the drowned.", "type": "item"}, &sheet)
	if len(sheet.Cards) != 2 {
		t.Fatalf("after add: %+v", sheet.Cards)
	}
	lantern := sheet.Cards[1].ID
	a.must("scenario_cards", map[string]any{"action": "edit", "card_id": lantern, "title": "Lantern", "keys": []string{"lantern", "green light"}, "entry": "Green glass."}, &sheet)
	if code := a.call("scenario_cards", map[string]any{"action": "add", "title": ""}, nil); code != "scenario_invalid" {
		t.Errorf("a card without a title: %q", code)
	}
	stored, err := w.svc.Narrative.GetScenario(ctx, w.owner.UserID, w.scenario)
	tabletest.Must(t, err)
	if len(stored.Cards) != 2 || stored.Cards[1].Entry != "Green glass." || !slices.Equal(stored.Cards[1].Keys, []string{"lantern", "green light"}) {
		t.Errorf("the stored scenario's cards: %+v", stored.Cards)
	}
	var run ScriptRun
	a.must("test_scripts", map[string]any{}, &run)
	if len(run.Hooks) != 1 || run.Hooks[0].Hook != "output" || run.Hooks[0].Failure != nil {
		t.Errorf("test_scripts: %+v", run)
	}
	a.must("test_scripts", map[string]any{"draft": map[string]any{"library": "", "input": "throw new Error('no')", "context": "", "output": ""}}, &run)
	if len(run.Hooks) != 1 || run.Hooks[0].Failure == nil || run.Hooks[0].Failure.Line != 1 {
		t.Errorf("a failing draft: %+v", run)
	}
}

// mustUser is the owner of an adventure (the tests' stranger).
func mustUser(t *testing.T, n *narrative.Service, adventureID int64) int64 {
	t.Helper()
	for uid := int64(1); uid < 20; uid++ {
		if _, err := n.GetAdventure(context.Background(), uid, adventureID); err == nil {
			return uid
		}
	}
	t.Fatalf("no owner for adventure %d", adventureID)
	return 0
}

func firstTurn(t *testing.T, n *narrative.Service, userID, adventureID int64) narrative.ActionView {
	t.Helper()
	p, err := n.GetAdventure(context.Background(), userID, adventureID)
	tabletest.Must(t, err)
	return p.Story[1]
}

// snapshot is everything a player sees of an adventure, to compare.
func snapshot(t *testing.T, n *narrative.Service, userID, adventureID int64) string {
	t.Helper()
	ctx := context.Background()
	p, err := n.GetAdventure(ctx, userID, adventureID)
	tabletest.Must(t, err)
	cards, err := n.ListCards(ctx, userID, adventureID)
	tabletest.Must(t, err)
	bank, err := n.GetMemoryBank(ctx, userID, adventureID)
	tabletest.Must(t, err)
	br, err := n.ListBranches(ctx, userID, adventureID)
	tabletest.Must(t, err)
	p.Adventure.UpdatedAt = p.Adventure.CreatedAt
	for i := range cards.Cards {
		cards.Cards[i].LastTurn = nil
	}
	b, _ := json.Marshal([]any{p, cards.Cards, bank.Memories, br})
	return string(b)
}

// rawCall posts one tools/call as a client would, without an SDK.
func rawCall(t *testing.T, url, token, tool string) (int, string) {
	t.Helper()
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":%q,"arguments":{}}}`, tool)
	req, _ := http.NewRequest("POST", url, bytes.NewBufferString(body))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", ProtocolVersion)
	res, err := http.DefaultClient.Do(req)
	tabletest.Must(t, err)
	defer res.Body.Close()
	var buf bytes.Buffer
	buf.ReadFrom(res.Body)
	return res.StatusCode, buf.String()
}

// TestSoloCallsAreLimited: a solo grant spends the mcp budget of tool
// calls as a table grant does, its own: another solo grant goes on.
func TestSoloCallsAreLimited(t *testing.T) {
	const budget = 3
	w := newSoloWorld(t, limits.New(limits.Config{limits.MCP: {Events: budget, Window: time.Hour, Burst: budget}}))
	first := connectAgent(t, w.srv.URL, w.adventureToken(t, w.adv))
	for range budget {
		first.must("read_story", nil, nil)
	}
	if code, details := first.callDetails("read_story", nil, nil); code != "rate_limited" || details["retry_after_seconds"] == nil {
		t.Fatalf("call %d: %q %v, want rate_limited with retry_after_seconds", budget+1, code, details)
	}
	second := connectAgent(t, w.srv.URL, w.adventureToken(t, w.other))
	second.must("read_story", nil, nil)
}

// TestSoloTurnsShareTheOwnersBudget: an agent's turns, retries and script
// tests spend the owner's turn budget, the one the web app's turn routes
// spend (limits.UserKey): turns the owner played in the browser leave the
// agent none, and a refused turn starts nothing.
func TestSoloTurnsShareTheOwnersBudget(t *testing.T) {
	lim := limits.New(limits.Config{limits.Turn: {Events: 2, Window: time.Hour, Burst: 2}})
	w := newSoloWorld(t, lim)
	// The owner's two turns in the browser, as the web app's route charges them.
	for range 2 {
		tabletest.Must(t, lim.Allow(limits.Turn, limits.UserKey(w.owner.UserID)))
	}
	a := connectAgent(t, w.srv.URL, w.adventureToken(t, w.adv))
	for tool, args := range map[string]map[string]any{"take_turn": {"text": "Wave"}, "retry": {}, "test_scripts": {}} {
		if code := a.call(tool, args, nil); code != "rate_limited" {
			t.Errorf("%s with the owner's turns spent: %q, want rate_limited", tool, code)
		}
	}
	var story Story
	a.must("read_story", nil, &story)
	if len(story.Turns) != 1 || len(w.fake.Requests()) != 0 {
		t.Errorf("a refused turn did something: %d turns, %d model requests", len(story.Turns), len(w.fake.Requests()))
	}
}

// TestSoloToolSchemasGolden keeps the solo tools' contracts, as an
// adventure's and a scenario's token list them, in testdata/solo-tools;
// refresh with -update. Every one has a title and annotations.
func TestSoloToolSchemasGolden(t *testing.T) {
	ctx := context.Background()
	w := newSoloWorld(t)
	scen, err := w.svc.Narrative.MintScenarioGrant(ctx, w.owner.UserID, w.scenario, narrative.SoloGrantInput{})
	tabletest.Must(t, err)
	_, a := toolNames(t, w.srv.URL, w.adventureToken(t, w.adv))
	_, s := toolNames(t, w.srv.URL, scen.Token)
	byName := map[string][]byte{}
	for _, tl := range append(a, s...) {
		got, _ := json.MarshalIndent(tl, "", "  ")
		if prev, ok := byName[tl.Name]; ok && !bytes.Equal(prev, got) {
			t.Errorf("%s is listed differently for an adventure and a scenario", tl.Name)
		}
		byName[tl.Name] = got
		if tl.Title == "" || tl.Annotations == nil || tl.Annotations.OpenWorldHint == nil || *tl.Annotations.OpenWorldHint {
			t.Errorf("%s: needs a title and annotations with openWorldHint false", tl.Name)
		}
	}
	dir := filepath.Join("testdata", "solo-tools")
	if *update {
		os.RemoveAll(dir)
		os.MkdirAll(dir, 0o755)
	}
	for name, got := range byName {
		path := filepath.Join(dir, name+".json")
		if *update {
			os.WriteFile(path, append(got, '\n'), 0o644)
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("no golden schema for %s (run go test ./mcp -update): %v", name, err)
		}
		if strings.TrimSpace(string(want)) != strings.TrimSpace(string(got)) {
			t.Errorf("tool %s changed; if intended, run go test ./mcp -update\n%s", name, got)
		}
	}
	if files, _ := filepath.Glob(filepath.Join(dir, "*.json")); len(files) != len(byName) {
		t.Errorf("%d golden files for %d solo tools: remove the stale ones (go test ./mcp -update)", len(files), len(byName))
	}
}
