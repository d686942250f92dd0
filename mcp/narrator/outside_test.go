package narrator_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/adventure-table/adventure-table/gameplay/llm/llmtest"
	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/gameplay/table/tabletest"
	"github.com/adventure-table/adventure-table/mcp"
)

type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// sceneScript is one scene as a DM plays it: tool calls, what the DM says,
// and what the player does between its turns.
type sceneStep struct {
	calls  []toolCall
	say    string
	player string // the player's message after the DM's step
}

type toolCall struct {
	name string
	args map[string]any
}

func script(s *scene) []sceneStep {
	return []sceneStep{
		{calls: []toolCall{{"session", map[string]any{"action": "start"}}, {"set_stage", map[string]any{"text": "## The crypt\nCold air."}}},
			say: "The crypt door stands open. What do you do?", player: "@DM I light a torch and look around."},
		{calls: []toolCall{{"request_check", map[string]any{"seat_id": s.f.PlayerSeatID, "skill": "perception", "dc": 15, "label": "Spot the tracks"}}},
			say: "Roll Perception, Mira.", player: "@DM what do I see?"},
		{calls: []toolCall{{"quick_roll", map[string]any{"formula": "1d6"}}}, say: "Something skitters away into the dark."},
	}
}

// TestSameSceneAsAnOutsideAgent: the scene played by the server's narrator
// (a scripted model) and by an outside agent over /mcp with a DM token
// leaves the same sequence of event kinds: the narrator has no rule of its
// own.
func TestSameSceneAsAnOutsideAgent(t *testing.T) {
	// The narrator.
	s := newScene(t)
	ctx := context.Background()
	_, err := s.svc.Table.SeatNarrator(ctx, s.f.Owner, s.f.DMSeatID, table.NarratorInput{DebounceMS: 1000})
	tabletest.Must(t, err)
	_, err = s.svc.Table.ControlNarrator(ctx, s.f.Owner, s.f.DMSeatID, table.NarratorControl{Action: "act_now"})
	tabletest.Must(t, err)
	for i, st := range script(s) {
		var calls []llmtest.ToolCall
		for j, c := range st.calls {
			calls = append(calls, call(string(rune('a'+i))+string(rune('0'+j)), c.name, c.args))
		}
		s.fake.Push(toolReply(calls...))
		s.fake.Push(textReply(st.say))
		s.scan()
		if st.player != "" {
			s.say(s.f.Seated, st.player)
		}
	}
	narrated := kinds(s.events(s.f.Owner, 0))
	// What each model call of the scene carried (run with -v): the request's
	// bytes, and about a quarter of that in tokens.
	for i, r := range s.fake.Requests() {
		tools := 0
		for _, sch := range r.ToolSchemas {
			tools += len(sch)
		}
		t.Logf("model call %d: %d messages, %d request bytes (≈%d tokens), of which tool schemas %d bytes", i+1, len(r.Messages), len(r.Raw), len(r.Raw)/4, tools)
	}

	// An outside agent with a DM token, over the real handler.
	o := newScene(t)
	g, err := o.svc.Table.SetDMSeatAI(ctx, o.f.Owner, o.f.CampaignID)
	tabletest.Must(t, err)
	srv := httptest.NewServer(mcp.NewHandler(mcp.Options{Version: "test", Table: o.svc.Table, Verify: func(ctx context.Context, tok string) (mcp.Principal, error) {
		c, err := o.svc.Table.AuthenticateGrant(ctx, tok)
		return mcp.Principal{GrantID: c.GrantID, Caller: c}, err
	}}))
	t.Cleanup(srv.Close)
	client := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "outside-dm", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcpsdk.StreamableClientTransport{Endpoint: srv.URL, HTTPClient: &http.Client{Transport: bearer{g.Token}}}, nil)
	tabletest.Must(t, err)
	defer cs.Close()
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}
	for _, st := range script(o) {
		for _, c := range append(st.calls, toolCall{"post_message", map[string]any{"kind": "say", "text": st.say}}) {
			res, err := cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: c.name, Arguments: c.args})
			if err != nil || res.IsError {
				t.Fatalf("%s: %v %+v", c.name, err, res)
			}
		}
		if st.player != "" {
			o.say(o.f.Seated, st.player)
		}
	}
	outside := kinds(o.events(o.f.Owner, 0))
	if !slices.Equal(narrated, outside) {
		t.Fatalf("the narrator's scene:\n%v\nthe outside agent's:\n%v", narrated, outside)
	}
	if len(narrated) < 8 {
		t.Fatalf("the scene is too short to compare: %v", narrated)
	}
}
