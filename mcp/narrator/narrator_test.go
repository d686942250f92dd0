package narrator_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/adventure-table/adventure-table/gameplay"
	"github.com/adventure-table/adventure-table/gameplay/llm"
	"github.com/adventure-table/adventure-table/gameplay/llm/llmtest"
	"github.com/adventure-table/adventure-table/gameplay/narrative"
	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/gameplay/table/tabletest"
	"github.com/adventure-table/adventure-table/mcp"
	"github.com/adventure-table/adventure-table/mcp/narrator"
	"github.com/adventure-table/adventure-table/models"
	"github.com/adventure-table/adventure-table/models/modelstest"
)

// scene is a table whose DM seat the owner gave to the server's narrator,
// driven by a scripted model.
type scene struct {
	t      testing.TB
	store  *models.Store
	svc    *gameplay.Services
	f      tabletest.Fixture
	fake   *llmtest.Fake
	tools  *mcp.Toolbox
	runner *narrator.Runner
	clock  atomic.Int64 // the runner's clock, unix nanoseconds
}

func newScene(t *testing.T) *scene { return newSceneTB(t) }

func newSceneTB(t testing.TB) *scene {
	t.Helper()
	store := modelstest.MustOpen(t)
	s := &scene{t: t, store: store, fake: llmtest.New(t)}
	s.svc = gameplay.New(store, gameplay.Options{Mode: "local", Secret: []byte(strings.Repeat("k", 40)), Provider: llm.NewOpenAI(nil),
		Logger: slog.New(slog.DiscardHandler)})
	s.f = tabletest.New(t, s.svc.Table)
	for _, c := range []table.Caller{s.f.Owner, s.f.Seated} {
		_, err := s.svc.Narrative.PutSettings(context.Background(), c.UserID, narrative.ProviderSettingsInput{BaseURL: s.fake.URL(), Model: "fake",
			ContextBudget: 8000, MaxOutputTokens: 300, Temperature: 0.7, TopP: 1})
		tabletest.Must(t, err)
	}
	s.tools = mcp.NewToolbox(mcp.Options{Table: s.svc.Table, Logger: slog.New(slog.DiscardHandler)})
	s.clock.Store(time.Now().UnixNano())
	s.runner = s.newRunner("proc1")
	return s
}

func (s *scene) newRunner(process string) *narrator.Runner {
	return narrator.New(narrator.Options{Table: s.svc.Table, Tools: s.tools, Model: s.svc.Narrative, ProcessID: process,
		Logger: slog.New(slog.DiscardHandler), Now: func() time.Time { return time.Unix(0, s.clock.Load()) }})
}

// later moves the runner's clock past any quiet time.
func (s *scene) later() { s.clock.Add(int64(time.Minute)) }

// scan runs one scan of the runner and waits for the steps it started.
func (s *scene) scan() {
	s.runner.Scan(context.Background())
	s.runner.Wait()
}

func call(id, name string, args map[string]any) llmtest.ToolCall {
	b, _ := json.Marshal(args)
	return llmtest.ToolCall{ID: id, Name: name, Arguments: string(b)}
}

func toolReply(calls ...llmtest.ToolCall) llmtest.Reply {
	return llmtest.Reply{ToolCalls: calls, FinishReason: "tool_calls", Usage: &llmtest.Usage{Prompt: 900, Completion: 40}}
}

func textReply(text string) llmtest.Reply {
	return llmtest.Reply{Chunks: []string{text}, FinishReason: "stop", Usage: &llmtest.Usage{Prompt: 950, Completion: 30}}
}

// startedByNarrator gives the DM seat to the narrator and lets it start
// the session and open the scene.
func (s *scene) startedByNarrator() int64 {
	s.t.Helper()
	ctx := context.Background()
	_, err := s.svc.Table.SeatNarrator(ctx, s.f.Owner, s.f.DMSeatID, table.NarratorInput{DebounceMS: 1000})
	tabletest.Must(s.t, err)
	_, err = s.svc.Table.ControlNarrator(ctx, s.f.Owner, s.f.DMSeatID, table.NarratorControl{Action: "act_now"})
	tabletest.Must(s.t, err)
	s.fake.Push(toolReply(call("c1", "session", map[string]any{"action": "start"})))
	s.fake.Push(textReply("Rain drums on the roof of the Yawning Portal. A hooded stranger watches you. What do you do?"))
	s.scan()
	return s.f.LobbyID
}

// events is what caller sees of the session.
func (s *scene) events(c table.Caller, after int64) []table.EventView {
	s.t.Helper()
	p, err := s.svc.Table.ListEvents(context.Background(), c, s.f.LobbyID, after, 200)
	tabletest.Must(s.t, err)
	return p.Events
}

func kinds(evs []table.EventView) []string {
	var out []string
	for _, e := range evs {
		out = append(out, e.Kind)
	}
	return out
}

func (s *scene) narratorView(seatID int64) table.NarratorView {
	s.t.Helper()
	list, err := s.svc.Table.ListNarrators(context.Background(), s.f.Owner, s.f.RoomID)
	tabletest.Must(s.t, err)
	for _, n := range list {
		if n.SeatID == seatID {
			return n
		}
	}
	s.t.Fatalf("no narrator at seat %d in %+v", seatID, list)
	return table.NarratorView{}
}

func (s *scene) say(c table.Caller, text string) {
	s.t.Helper()
	_, err := s.svc.Table.PostMessage(context.Background(), c, s.f.LobbyID, table.MessageInput{Kind: "say", Text: text})
	tabletest.Must(s.t, err)
}

// TestNarratorRunsAScene: the narrator takes the DM seat, starts the
// session and opens the scene through the MCP tools; the model is offered
// exactly the tools an outside agent lists (but wait_for_event); a
// player's message is answered after the quiet time with a check whose
// secret DC the player never sees; the step's tokens are counted.
func TestNarratorRunsAScene(t *testing.T) {
	s := newScene(t)
	s.startedByNarrator()
	evs := s.events(s.f.Seated, 0)
	if got := kinds(evs); !slices.Contains(got, table.EventSessionStarted) || got[len(got)-1] != table.EventMessagePosted {
		t.Fatalf("after the opening step the player sees %v", got)
	}
	if !strings.Contains(string(evs[len(evs)-1].Payload), "Yawning Portal") {
		t.Fatalf("the opening narration is not in the feed: %s", evs[len(evs)-1].Payload)
	}

	// What the model was offered: the tools' own names, descriptions and schemas.
	reqs := s.fake.Requests()
	var want []string
	for _, spec := range s.tools.Specs() {
		if spec.Name != "wait_for_event" {
			want = append(want, spec.Name)
		}
	}
	if !slices.Equal(reqs[0].Tools, want) {
		t.Fatalf("offered tools %v, want %v", reqs[0].Tools, want)
	}
	for _, spec := range s.tools.Specs() {
		var offered, listed any
		_ = json.Unmarshal(reqs[0].ToolSchemas[spec.Name], &offered)
		_ = json.Unmarshal(spec.InputSchema, &listed)
		if spec.Name == "request_check" && !reflect.DeepEqual(offered, listed) {
			t.Fatalf("request_check's schema differs from the listed one:\n%s\n%s", reqs[0].ToolSchemas["request_check"], spec.InputSchema)
		}
	}
	if m := reqs[1].Messages; m[len(m)-1].Role != "tool" || m[len(m)-1].ToolCallID != "c1" || m[len(m)-2].ToolCalls[0].Name != "session" {
		t.Fatalf("the tool result did not go back to the model: %+v", m[len(m)-2:])
	}

	// A player's message: nothing until the table is quiet, then one step.
	s.say(s.f.Seated, "I walk over to the stranger and look closely at his hands.")
	before := s.fake.Count("/v1/chat/completions")
	s.scan()
	if n := s.fake.Count("/v1/chat/completions"); n != before {
		t.Fatalf("the narrator answered before the quiet time (%d calls)", n-before)
	}
	s.later()
	s.fake.Push(toolReply(call("c2", "request_check", map[string]any{"seat_id": s.f.PlayerSeatID, "skill": "perception", "dc": 17, "label": "Spot the hidden blade"})))
	s.fake.Push(textReply("Mira, roll Perception as the stranger shifts in his seat."))
	s.scan()
	last := s.fake.Requests()[len(s.fake.Requests())-2]
	if ctx := last.Messages[1].Content; !strings.Contains(ctx, "look closely at his hands") {
		t.Fatalf("the step's context does not hold the player's message:\n%s", ctx)
	}
	var requested *table.EventView
	for _, e := range s.events(s.f.Seated, 0) {
		if e.Kind == table.EventRollRequested {
			requested = &e
		}
	}
	if requested == nil {
		t.Fatal("the player sees no check requested")
	}
	if strings.Contains(string(requested.Payload), `"dc":17`) || !strings.Contains(string(requested.Payload), `"dc_commitment"`) {
		t.Fatalf("the player's view of the check holds the secret DC, or no commitment to it: %s", requested.Payload)
	}
	v := s.narratorView(s.f.DMSeatID)
	if v.Steps != 2 || v.PromptTokens != 900+950+900+950 || v.CompletionTokens != 40+30+40+30 || v.LastStepTokens != 900+40+950+30 ||
		v.State != table.NarratorIdle || v.LastError != "" {
		t.Fatalf("narrator after two steps: %+v", v)
	}
	// Its own messages never wake it.
	n := s.fake.Count("/v1/chat/completions")
	s.later()
	s.scan()
	if s.fake.Count("/v1/chat/completions") != n {
		t.Fatal("the narrator answered its own narration")
	}
}

// TestNarratorAnswersTheDMAtOnce: a message addressed to the DM needs no
// quiet time.
func TestNarratorAnswersTheDMAtOnce(t *testing.T) {
	s := newScene(t)
	s.startedByNarrator()
	s.say(s.f.Seated, "@DM can I see the exits from here?")
	s.fake.Push(textReply("Two doors: the one you came in by, and a narrow one behind the bar."))
	s.scan() // the clock did not move
	if got := s.events(s.f.Seated, 0); !strings.Contains(string(got[len(got)-1].Payload), "narrow one behind the bar") {
		t.Fatalf("an @DM message was not answered at once: %v", kinds(got))
	}
}

// TestNarratorCheats: every way the model tries to bend the rules is
// refused or flagged, and the table stays consistent.
func TestNarratorCheats(t *testing.T) {
	t.Run("OutcomeWithoutARoll", func(t *testing.T) {
		s := newScene(t)
		s.startedByNarrator()
		s.say(s.f.Seated, "@DM I swing my sword at the stranger!")
		s.fake.Push(textReply("You hit the stranger for 12 damage."))
		s.fake.Push(textReply("You hit the stranger for 12 damage!"))
		s.scan()
		reqs := s.fake.Requests()
		nudge := reqs[len(reqs)-1].Messages
		if !strings.Contains(nudge[len(nudge)-1].Content, "without a roll") {
			t.Fatalf("the model was not asked to use the tools: %+v", nudge[len(nudge)-1])
		}
		if v := s.narratorView(s.f.DMSeatID); v.LastError != "narrator_unbacked_outcome" {
			t.Fatalf("the unbacked outcome is not flagged: %+v", v)
		}
	})
	t.Run("OutcomeAfterTheRollIsFine", func(t *testing.T) {
		s := newScene(t)
		s.startedByNarrator()
		s.say(s.f.Seated, "@DM I search the bar.")
		s.fake.Push(toolReply(call("c9", "request_check", map[string]any{"seat_id": s.f.PlayerSeatID, "skill": "investigation", "dc": 12})))
		s.fake.Push(textReply("If you succeed, you find something. Roll it."))
		s.scan()
		if v := s.narratorView(s.f.DMSeatID); v.LastError != "" {
			t.Fatalf("narration after a real check was flagged: %+v", v)
		}
	})
	t.Run("SecretDCInPublic", func(t *testing.T) {
		s := newScene(t)
		s.startedByNarrator()
		s.say(s.f.Seated, "@DM how hard is the lock?")
		s.fake.Push(textReply("The lock is DC 15, a fair challenge."))
		s.fake.Push(textReply("It's a DC 15 lock."))
		s.scan()
		for _, e := range s.events(s.f.Seated, 0) {
			if strings.Contains(string(e.Payload), "DC 15") {
				t.Fatalf("a secret DC reached the players: %s", e.Payload)
			}
		}
		if v := s.narratorView(s.f.DMSeatID); v.LastError != "narrator_secret_in_public" {
			t.Fatalf("the leak is not flagged: %+v", v)
		}
	})
	t.Run("UnknownIDAndLoop", func(t *testing.T) {
		s := newScene(t)
		s.startedByNarrator()
		head := s.events(s.f.Owner, 0)
		s.say(s.f.Seated, "@DM what now?")
		s.fake.Push(toolReply(call("u1", "request_check", map[string]any{"seat_id": 987654, "skill": "perception"})))
		// Then it loops, one read after another, for ever.
		s.fake.Respond(func(llmtest.Request) llmtest.Reply {
			return toolReply(call("loop", "get_session_context", map[string]any{}))
		})
		s.scan()
		reqs := s.fake.Requests()
		second := reqs[len(reqs)-1].Messages
		found := false
		for _, m := range second {
			if m.ToolCallID == "u1" && strings.Contains(m.Content, `"code":"check_invalid"`) {
				found = true
			}
		}
		if !found {
			t.Fatalf("the unknown seat id was not refused: %+v", second)
		}
		if v := s.narratorView(s.f.DMSeatID); v.LastError != "narrator_tool_limit" || v.MaxToolCalls != 8 {
			t.Fatalf("the loop is not cut at the limit: %+v", v)
		}
		// 1 + 8 calls: the opening step's model calls, then this step's.
		if got := len(reqs); got > 2+8+1 {
			t.Fatalf("%d model calls: the loop ran past its limit", got)
		}
		// Nothing happened on the table but the player's message.
		if got := s.events(s.f.Owner, 0); len(got) != len(head)+1 {
			t.Fatalf("the cheating step changed the table: %v", kinds(got[len(head):]))
		}
	})
	t.Run("CompanionUsesADMTool", func(t *testing.T) {
		s := newScene(t)
		ctx := context.Background()
		_, err := s.svc.Table.StartSession(ctx, s.f.Owner, s.f.LobbyID)
		tabletest.Must(t, err)
		_, err = s.svc.Table.SeatNarrator(ctx, s.f.Seated, s.f.PlayerSeatID, table.NarratorInput{})
		tabletest.Must(t, err)
		_, err = s.svc.Table.ControlNarrator(ctx, s.f.Seated, s.f.PlayerSeatID, table.NarratorControl{Action: "act_now"})
		tabletest.Must(t, err)
		s.fake.Push(toolReply(call("s1", "set_stage", map[string]any{"text": "## The companion rewrites the world"})))
		s.fake.Push(textReply("Mira grins and keeps watch."))
		s.scan()
		reqs := s.fake.Requests()
		res := reqs[len(reqs)-1].Messages
		if tm := res[len(res)-1]; tm.ToolCallID != "s1" || !strings.Contains(tm.Content, "not_current_dm") {
			t.Fatalf("a companion's DM tool call was not refused: %+v", tm)
		}
		for _, e := range s.events(s.f.Owner, 0) {
			if e.Kind == table.EventStageUpdated {
				t.Fatal("the companion changed the stage")
			}
		}
	})
}

// TestTakeBackMidStep: the player takes their seat back while the
// narrator's step runs; its remaining tool calls are refused and nothing
// more is posted, and the narrator is not left stuck.
func TestTakeBackMidStep(t *testing.T) {
	s := newScene(t)
	ctx := context.Background()
	_, err := s.svc.Table.StartSession(ctx, s.f.Owner, s.f.LobbyID)
	tabletest.Must(t, err)
	_, err = s.svc.Table.SeatNarrator(ctx, s.f.Seated, s.f.PlayerSeatID, table.NarratorInput{})
	tabletest.Must(t, err)
	_, err = s.svc.Table.ControlNarrator(ctx, s.f.Seated, s.f.PlayerSeatID, table.NarratorControl{Action: "act_now"})
	tabletest.Must(t, err)
	var once sync.Once
	s.fake.Respond(func(r llmtest.Request) llmtest.Reply {
		once.Do(func() {
			// The human presses "Take back" while the model is thinking.
			_, err := s.svc.Table.TakeBackNarrator(ctx, s.f.Seated, s.f.PlayerSeatID)
			tabletest.Must(t, err)
		})
		return toolReply(call("p1", "post_message", map[string]any{"kind": "say", "text": "I draw my blade!"}))
	})
	before := len(s.events(s.f.Owner, 0))
	s.scan()
	evs := s.events(s.f.Owner, 0)
	for _, e := range evs[before:] {
		if e.Kind == table.EventMessagePosted {
			t.Fatalf("the narrator posted after the take-back: %s", e.Payload)
		}
	}
	if got := kinds(evs[before:]); !slices.Equal(got, []string{table.EventControllerChanged}) {
		t.Fatalf("events after the take-back: %v", got)
	}
	// The player holds the seat again and speaks.
	s.say(s.f.Seated, "I'm back.")
	if n := s.fake.Count("/v1/chat/completions"); n != 1 {
		t.Fatalf("%d model calls, want 1 (the step ended at the refusal)", n)
	}
}

// TestOneStepPerSeatAcrossProcesses: two server processes on one database
// scan at once; one step runs. A process that died mid-step (its claim's
// heartbeat stale) does not block the seat for long, and a restart frees
// its own claims at once.
func TestOneStepPerSeatAcrossProcesses(t *testing.T) {
	s := newScene(t)
	s.startedByNarrator()
	s.say(s.f.Seated, "@DM hello?")
	var calls atomic.Int32
	s.fake.Respond(func(llmtest.Request) llmtest.Reply {
		calls.Add(1)
		return textReply(fmt.Sprintf("Hello from step %d.", calls.Load()))
	})
	other := s.newRunner("proc2")
	var wg sync.WaitGroup
	for _, r := range []*narrator.Runner{s.runner, other} {
		wg.Add(1)
		go func() { defer wg.Done(); r.Scan(context.Background()); r.Wait() }()
	}
	wg.Wait()
	if n := calls.Load(); n != 1 {
		t.Fatalf("two processes ran %d steps for one seat", n)
	}

	// proc1 dies holding a claim (as kill -9 mid-step leaves it).
	grant := s.narratorView(s.f.DMSeatID).GrantID
	won, err := s.svc.Table.ClaimNarratorStep(context.Background(), grant, "proc1.dead", s.narratorView(s.f.DMSeatID).Steps, 10*time.Second)
	if err != nil || !won {
		t.Fatalf("claim: %v %v", won, err)
	}
	s.say(s.f.Seated, "@DM anyone there?")
	other.Scan(context.Background())
	other.Wait()
	if n := calls.Load(); n != 1 {
		t.Fatal("a live-looking claim was run over")
	}
	// proc1 restarts: its own dead claims are freed at once.
	tabletest.Must(t, s.svc.Table.ReleaseNarratorClaims(context.Background(), "proc1."))
	other.Scan(context.Background())
	other.Wait()
	if n := calls.Load(); n != 2 {
		t.Fatalf("after the restart the seat was not served (%d steps)", n)
	}
	if got := s.events(s.f.Seated, 0); !strings.Contains(string(got[len(got)-1].Payload), "Hello from step 2") {
		t.Fatalf("the second step's narration is missing: %v", kinds(got))
	}
}

// TestNarratorStuckIsNeverSilent: a model that fails leaves the narrator
// stuck with the code, tells the table, and Act now retries.
func TestNarratorStuckIsNeverSilent(t *testing.T) {
	s := newScene(t)
	s.startedByNarrator()
	s.say(s.f.Seated, "@DM ?")
	s.fake.Push(llmtest.Reply{Status: 500})
	s.scan()
	v := s.narratorView(s.f.DMSeatID)
	if v.State != table.NarratorStuck || v.LastError != "provider_unavailable" {
		t.Fatalf("after a failed step: %+v", v)
	}
	evs := s.events(s.f.Seated, 0)
	if !strings.Contains(string(evs[len(evs)-1].Payload), "The narrator is stuck") {
		t.Fatalf("the players were not told: %s", evs[len(evs)-1].Payload)
	}
	// Stuck: new messages wait for a human's retry.
	s.say(s.f.Seated, "@DM hello?")
	n := s.fake.Count("/v1/chat/completions")
	s.scan()
	if s.fake.Count("/v1/chat/completions") != n {
		t.Fatal("a stuck narrator tried again by itself")
	}
	_, err := s.svc.Table.ControlNarrator(context.Background(), s.f.Owner, s.f.DMSeatID, table.NarratorControl{Action: "act_now"})
	tabletest.Must(t, err)
	s.fake.Push(textReply("Sorry for the pause. The stranger stands."))
	s.scan()
	if v := s.narratorView(s.f.DMSeatID); v.State != table.NarratorIdle {
		t.Fatalf("the retry did not recover: %+v", v)
	}
	// Only the owner or the seat's player directs it.
	_, err = s.svc.Table.ControlNarrator(context.Background(), s.f.Seated, s.f.DMSeatID, table.NarratorControl{Action: "pause"})
	if err == nil {
		t.Fatal("a player paused the DM's narrator")
	}
}

// TestNarratorPlaysTheMonsters: in combat the narrator starts the fight,
// begins it once the player has rolled initiative, plays the monster on
// its turn at once (attacking through fight, so the server rolls), and
// leaves the player's turn to the player.
func TestNarratorPlaysTheMonsters(t *testing.T) {
	s := newScene(t)
	s.startedByNarrator()
	ctx := context.Background()
	mira := fmt.Sprintf("seat:%d", s.f.PlayerSeatID)
	s.say(s.f.Seated, "@DM I kick open the door of the crypt.")
	s.fake.Push(toolReply(
		call("f1", "fight", map[string]any{"action": "start", "name": "Crypt", "npcs": []any{map[string]any{"name": "Ghoul", "ac": 12, "hp": 22, "initiative_bonus": 2}}}),
		call("f2", "fight", map[string]any{"action": "initiative", "combatant_id": "npc:1", "faces": []int{19}})))
	s.fake.Push(textReply("A ghoul lurches out of the dark! Roll initiative, Mira."))
	s.scan()

	// Mira rolls; the table goes quiet; the narrator begins the fight.
	_, err := s.svc.Table.RollEncounterInitiative(ctx, s.f.Seated, s.f.LobbyID, table.InitiativeInput{CombatantID: mira, Faces: []int{2}})
	tabletest.Must(t, err)
	s.fake.Push(toolReply(call("f3", "fight", map[string]any{"action": "end_turn"})))
	s.fake.Push(textReply("The ghoul is quicker."))
	s.later()
	s.scan()
	now, err := s.svc.Table.GetEncounter(ctx, s.f.Owner, s.f.LobbyID)
	tabletest.Must(t, err)
	if now.Encounter == nil || now.Encounter.CurrentID != "npc:1" {
		t.Fatalf("the fight did not begin on the ghoul's turn: %+v", now.Encounter)
	}

	// The ghoul's turn is the narrator's at once (the clock does not move).
	s.fake.Push(toolReply(
		call("f4", "fight", map[string]any{"action": "attack", "combatant_id": "npc:1", "target_id": mira, "weapon": "Claws", "bonus": 4, "damage": "2d6+2", "faces": []int{17}}),
		call("f5", "fight", map[string]any{"action": "end_turn"})))
	s.fake.Push(textReply("Claws rake across Mira's shoulder."))
	s.scan()
	var attacks int
	for _, e := range s.events(s.f.Seated, 0) {
		if e.Kind == table.EventEncounterAttack && e.ActingSeatID != nil && *e.ActingSeatID == s.f.DMSeatID {
			attacks++
		}
	}
	if attacks != 1 {
		t.Fatalf("the ghoul attacked %d times, want 1", attacks)
	}
	if v := s.narratorView(s.f.DMSeatID); v.LastError != "" {
		t.Fatalf("the narration after a real attack was flagged: %+v", v)
	}
	now, err = s.svc.Table.GetEncounter(ctx, s.f.Seated, s.f.LobbyID)
	tabletest.Must(t, err)
	if now.Encounter.CurrentID != mira {
		t.Fatalf("after the ghoul's turn it is %q's", now.Encounter.CurrentID)
	}
	// Mira's turn waits for Mira.
	n := s.fake.Count("/v1/chat/completions")
	s.later()
	s.scan()
	if s.fake.Count("/v1/chat/completions") != n {
		t.Fatal("the narrator acted on the player's turn")
	}
}

// TestExplorationWindow: the narrator opens a "What do you do?" window;
// one player's declaration wakes nothing, the second (everyone) wakes it
// at once, and it adjudicates; a window only one player answers wakes it
// when its two minutes are up, once.
func TestExplorationWindow(t *testing.T) {
	s := newScene(t)
	s.startedByNarrator()
	ctx := context.Background()
	tomas, err := s.svc.Table.JoinAndSit(ctx, s.f.Unseated, table.JoinInput{InviteCode: s.f.InviteCode, DisplayName: "Unseated", CharacterID: &s.f.UnseatedCharacterID})
	tabletest.Must(t, err)

	openWindow := func() int64 {
		t.Helper()
		s.say(s.f.Seated, "@DM we step into the great hall.")
		s.fake.Push(toolReply(call("w", "action_window", map[string]any{"prompt": "Statues line the hall. What do you do?"})))
		s.fake.Push(textReply("Statues line the hall. What do you do?"))
		s.scan()
		board, err := s.svc.Table.Board(ctx, s.f.Seated, s.f.LobbyID)
		tabletest.Must(t, err)
		if len(board.Windows) == 0 {
			t.Fatal("no window opened")
		}
		s.scan() // the runner notes the window it opened
		return board.Windows[len(board.Windows)-1].ID
	}
	declare := func(c table.Caller, window int64, text string) {
		t.Helper()
		_, err := s.svc.Table.DeclareAction(ctx, c, s.f.LobbyID, table.ActionInput{Text: text, WindowID: &window})
		tabletest.Must(t, err)
	}

	w := openWindow()
	n := s.fake.Count("/v1/chat/completions")
	declare(s.f.Seated, w, "I study the statues' eyes.")
	s.later() // a minute: still inside the window
	s.scan()
	if v := s.narratorView(s.f.DMSeatID); v.WindowDeadline == nil || !slices.Equal(v.WaitingFor, []int64{tomas.SeatID}) {
		t.Fatalf("the narrator does not say whom it waits for: %+v", v)
	}
	if s.fake.Count("/v1/chat/completions") != n {
		t.Fatal("the narrator adjudicated before every player declared")
	}
	declare(s.f.Unseated, w, "I guard the door.")
	s.fake.Push(toolReply(call("c", "action_window", map[string]any{"window_id": w})))
	s.fake.Push(textReply("One statue's eyes follow Mira; the door holds."))
	s.scan()
	if s.fake.Count("/v1/chat/completions") != n+2 {
		t.Fatalf("the last declaration did not wake the narrator (%d calls)", s.fake.Count("/v1/chat/completions")-n)
	}
	ctxMsg := s.fake.Requests()[n].Messages[1].Content
	if !strings.Contains(ctxMsg, "study the statues") || !strings.Contains(ctxMsg, "guard the door") {
		t.Fatalf("the adjudicating step does not see the declarations:\n%s", ctxMsg)
	}

	// A window only Mira answers: nothing until its time is up, then once.
	w = openWindow()
	declare(s.f.Seated, w, "I listen at the far door.")
	n = s.fake.Count("/v1/chat/completions")
	s.scan()
	if s.fake.Count("/v1/chat/completions") != n {
		t.Fatal("the narrator did not wait for the window's time")
	}
	s.clock.Add(int64(3 * time.Minute))
	s.fake.Push(textReply("Time presses on. Mira hears chanting; Tomas hesitates."))
	s.scan()
	if s.fake.Count("/v1/chat/completions") != n+1 {
		t.Fatalf("the window's end did not wake the narrator once (%d calls)", s.fake.Count("/v1/chat/completions")-n)
	}
	s.scan()
	if s.fake.Count("/v1/chat/completions") != n+1 {
		t.Fatal("the narrator woke again for the same expired window")
	}
}

// TestShutdownMidStepIsNotAFailure: a server stopping in the middle of a
// step does not leave the narrator stuck or tell the table it is; the
// message it was answering is answered by the next step.
func TestShutdownMidStepIsNotAFailure(t *testing.T) {
	s := newScene(t)
	s.startedByNarrator()
	s.say(s.f.Seated, "@DM is anyone there?")
	stopping, stop := context.WithCancel(context.Background())
	var once sync.Once
	s.fake.Respond(func(llmtest.Request) llmtest.Reply {
		first := false
		once.Do(func() { first = true; stop() }) // SIGTERM while the model thinks
		if first {
			return llmtest.Reply{Chunks: []string{"…"}, Delay: time.Minute, FinishReason: "stop"}
		}
		return textReply("Yes, the innkeeper answers.")
	})
	s.runner.Scan(stopping)
	s.runner.Wait()
	if v := s.narratorView(s.f.DMSeatID); v.State != table.NarratorIdle || v.LastError != "" {
		t.Fatalf("after a shutdown mid-step: %+v", v)
	}
	for _, e := range s.events(s.f.Seated, 0) {
		if strings.Contains(string(e.Payload), "stuck") {
			t.Fatalf("the table was told the narrator is stuck: %s", e.Payload)
		}
	}
	s.scan()
	if got := s.events(s.f.Seated, 0); !strings.Contains(string(got[len(got)-1].Payload), "the innkeeper answers") {
		t.Fatalf("the message was not answered after the restart: %v", kinds(got))
	}
}

// TestAtDMDuringTheOpeningIsAnswered: a player who writes to the DM while
// the step that started the session is still narrating is answered by the
// next step; the opening step answered the start, not that message.
func TestAtDMDuringTheOpeningIsAnswered(t *testing.T) {
	s := newScene(t)
	ctx := context.Background()
	_, err := s.svc.Table.SeatNarrator(ctx, s.f.Owner, s.f.DMSeatID, table.NarratorInput{DebounceMS: 1000})
	tabletest.Must(t, err)
	_, err = s.svc.Table.ControlNarrator(ctx, s.f.Owner, s.f.DMSeatID, table.NarratorControl{Action: "act_now"})
	tabletest.Must(t, err)
	s.fake.Push(toolReply(call("c1", "session", map[string]any{"action": "start"})))
	var posted error
	s.fake.Respond(func(r llmtest.Request) llmtest.Reply {
		if len(s.fake.Requests()) == 2 {
			// The opening step is writing: a player speaks to the DM.
			_, posted = s.svc.Table.PostMessage(ctx, s.f.Seated, s.f.LobbyID, table.MessageInput{Kind: "say", Text: "@DM wait, who is that?"})
			return textReply("The doors of the inn swing open.")
		}
		return textReply("A stranger in grey, who nods at you.")
	})
	s.scan()
	tabletest.Must(t, posted)
	s.scan() // the clock did not move: the @DM wakes it at once
	got := s.events(s.f.Seated, 0)
	if n := s.fake.Count("/v1/chat/completions"); n != 3 {
		t.Fatalf("%d model calls, want 3 (the opening's two, then the answer): %v", n, kinds(got))
	}
	if !strings.Contains(string(got[len(got)-1].Payload), "A stranger in grey") {
		t.Fatalf("the @DM during the opening was not answered: %v", kinds(got))
	}
}
