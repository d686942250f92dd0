package mcp

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/gameplay/table/tabletest"
)

// agent is an MCP client that behaves like the validating ones in the
// wild: it lists the tools first, and checks every result it gets —
// success or error — against the output schema it listed. It also counts
// what each call costs a model: the text it reads.
type agent struct {
	t       *testing.T
	cs      *mcpsdk.ClientSession
	schemas map[string]*jsonschema.Resolved
	calls   int
	bytes   []int // text bytes of each call's result, in order
}

func connectAgent(t *testing.T, url, token string) *agent {
	t.Helper()
	a := &agent{t: t, cs: connect(t, url, token), schemas: map[string]*jsonschema.Resolved{}}
	list, err := a.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range list.Tools {
		raw, _ := json.Marshal(tl.OutputSchema)
		var s jsonschema.Schema
		if err := json.Unmarshal(raw, &s); err != nil {
			t.Fatalf("%s: output schema does not parse: %v", tl.Name, err)
		}
		rs, err := s.Resolve(nil)
		if err != nil {
			t.Fatalf("%s: output schema does not resolve: %v", tl.Name, err)
		}
		a.schemas[tl.Name] = rs
	}
	return a
}

// aiDM hands the fixture campaign's DM seat to an AI (its grant is
// pre-session until it starts the session) and connects that agent.
func aiDM(t *testing.T, url string, f tabletest.Fixture) *agent {
	t.Helper()
	g, err := f.Svc.SetDMSeatAI(context.Background(), f.Owner, f.CampaignID)
	tabletest.Must(t, err)
	return connectAgent(t, url, g.Token)
}

// aiPlayer: Mira's player hands her seat (the fixture's player seat) to an
// AI, which connects.
func aiPlayer(t *testing.T, url string, f tabletest.Fixture) *agent {
	t.Helper()
	g, err := f.Svc.LetAIControl(context.Background(), f.Seated, f.PlayerSeatID, table.HandoffInput{})
	tabletest.Must(t, err)
	return connectAgent(t, url, g.Token)
}

func connect(t *testing.T, url, token string) *mcpsdk.ClientSession {
	t.Helper()
	client := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "test-agent", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcpsdk.StreamableClientTransport{Endpoint: url,
		HTTPClient: &http.Client{Transport: bearerTransport{token}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// call calls a tool, validates the result against the listed schema,
// decodes a success into out and returns the error code of a failure
// ("" on success). Its error details, if any, go to details.
func (a *agent) call(name string, args any, out any) string {
	a.t.Helper()
	code, _ := a.callDetails(name, args, out)
	return code
}

func (a *agent) callDetails(name string, args any, out any) (string, map[string]any) {
	a.t.Helper()
	if args == nil {
		args = map[string]any{}
	}
	res, err := a.cs.CallTool(context.Background(), &mcpsdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		a.t.Fatalf("%s: %v", name, err)
	}
	return a.check(name, res, out)
}

// check is the client side of a call that came back: count it, validate
// it, decode it.
func (a *agent) check(name string, res *mcpsdk.CallToolResult, out any) (string, map[string]any) {
	a.t.Helper()
	a.calls++
	text := ""
	if len(res.Content) > 0 {
		if tc, ok := res.Content[0].(*mcpsdk.TextContent); ok {
			text = tc.Text
		}
	}
	a.bytes = append(a.bytes, len(text))
	raw, _ := json.Marshal(res.StructuredContent)
	var instance any
	if err := json.Unmarshal(raw, &instance); err != nil {
		a.t.Fatalf("%s: structured content is not JSON: %v", name, err)
	}
	rs, ok := a.schemas[name]
	if !ok {
		a.t.Fatalf("%s was called but never listed", name)
	}
	if err := rs.Validate(instance); err != nil {
		a.t.Fatalf("%s: result violates the listed output schema: %v\n%s", name, err, raw)
	}
	if res.IsError {
		var e struct {
			Error ToolError `json:"error"`
		}
		json.Unmarshal(raw, &e)
		if e.Error.Code == "" {
			a.t.Fatalf("%s: error result without a code: %s", name, raw)
		}
		return string(e.Error.Code), e.Error.Details
	}
	if !json.Valid([]byte(text)) || text != string(raw) && !jsonEqual(text, string(raw)) {
		a.t.Fatalf("%s: the text content is not the structured result: %q", name, text)
	}
	if out != nil {
		// Absent fields mean zero: decode into a fresh value.
		reflect.ValueOf(out).Elem().SetZero()
		if err := json.Unmarshal(raw, out); err != nil {
			a.t.Fatalf("%s: %v in %s", name, err, raw)
		}
	}
	return "", nil
}

// must calls a tool that must succeed.
func (a *agent) must(name string, args any, out any) {
	a.t.Helper()
	if code := a.call(name, args, out); code != "" {
		a.t.Fatalf("%s(%v): %s", name, args, code)
	}
}

func jsonEqual(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return string(xa) == string(ya)
}
