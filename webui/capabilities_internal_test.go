package webui

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/adventure-table/adventure-table/gameplay"
	"github.com/adventure-table/adventure-table/models/modelstest"
)

// capsServer builds the router on real services; mutate changes the options.
func capsServer(t *testing.T, mutate func(*Options)) *Server {
	t.Helper()
	services := gameplay.New(modelstest.MustOpen(t), gameplay.Options{Mode: "local", Logger: slog.New(slog.DiscardHandler)})
	opts := Options{Services: services, Logger: slog.New(slog.DiscardHandler), APIDocs: true, Accounts: true,
		MCP: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })}
	if mutate != nil {
		mutate(&opts)
	}
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// flagsOf turns the capabilities into name → value by their JSON names.
func flagsOf(t *testing.T, caps gameplay.Capabilities) map[string]bool {
	t.Helper()
	b, _ := json.Marshal(caps)
	var m map[string]bool
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// docTags lists, for each tag of the OpenAPI document, how many operations carry it.
func docTags(t *testing.T, s *Server) map[string]int {
	t.Helper()
	var doc struct {
		Paths map[string]map[string]struct {
			Tags []string `json:"tags"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(s.openapi, &doc); err != nil {
		t.Fatal(err)
	}
	tags := map[string]int{}
	for _, ops := range doc.Paths {
		for _, op := range ops {
			for _, tag := range op.Tags {
				tags[tag]++
			}
		}
	}
	return tags
}

// TestCapabilityFlagsMatchRoutes: every flag is computed from what is
// mounted: each true flag has its routes in the OpenAPI document (or, for
// /mcp and /api/docs, in the router), each route family of the document has
// a flag (or is core), and a feature that is not built stays false.
func TestCapabilityFlagsMatchRoutes(t *testing.T) {
	s := capsServer(t, nil)
	flags := flagsOf(t, s.caps)
	tags := docTags(t, s)

	for name := range flags {
		if _, ok := capabilityTags[name]; !ok {
			t.Errorf("capability %q has no entry in capabilityTags", name)
		}
	}
	for name := range capabilityTags {
		if _, ok := flags[name]; !ok {
			t.Errorf("capabilityTags names %q, which is no capability", name)
		}
	}
	family := map[string]bool{}
	for _, ts := range capabilityTags {
		for _, tag := range ts {
			family[tag] = true
		}
	}
	for tag := range tags {
		if !family[tag] && !coreTags[tag] {
			t.Errorf("route family %q has no capability flag (capabilityTags) and is not core", tag)
		}
	}
	for name, on := range flags {
		if !on {
			continue
		}
		for _, tag := range capabilityTags[name] {
			if tags[tag] == 0 {
				t.Errorf("%s is true but the document has no %q route", name, tag)
			}
		}
	}
	engine := map[string]bool{}
	for _, r := range s.engine.Routes() {
		engine[r.Method+" "+r.Path] = true
	}
	if flags["mcp"] != engine["POST /mcp"] || !flags["mcp"] {
		t.Errorf("mcp = %v, /mcp mounted = %v", flags["mcp"], engine["POST /mcp"])
	}
	if flags["api_docs"] != engine["GET /api/docs"] || !flags["api_docs"] {
		t.Errorf("api_docs = %v, /api/docs mounted = %v", flags["api_docs"], engine["GET /api/docs"])
	}
	want := map[string]bool{"table": true, "ai_actor": true, "solo": true, "scripting": true, "combat": true, "timeline": false,
		"mcp": true, "api_docs": true, "accounts": true}
	if !reflect.DeepEqual(flags, want) {
		t.Fatalf("flags %v, want %v", flags, want)
	}

	// The route answers exactly what was computed.
	rec := httptest.NewRecorder()
	req := httptest.NewRequest("GET", "/api/meta/capabilities", nil)
	req.Host = "localhost"
	s.ServeHTTP(rec, req)
	var got gameplay.Capabilities
	if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil || got != s.caps {
		t.Fatalf("GET capabilities: %d %s (%v)", rec.Code, rec.Body, err)
	}
}

// TestCapabilityFlagsFollowOptions: what is not mounted is not offered.
func TestCapabilityFlagsFollowOptions(t *testing.T) {
	s := capsServer(t, func(o *Options) { o.MCP = nil; o.APIDocs = false; o.Accounts = false })
	flags := flagsOf(t, s.caps)
	for _, off := range []string{"mcp", "ai_actor", "api_docs", "accounts", "timeline"} {
		if flags[off] {
			t.Errorf("%s is true without its mount: %v", off, flags)
		}
	}
	for _, on := range []string{"table", "solo", "scripting", "combat"} {
		if !flags[on] {
			t.Errorf("%s is false though mounted: %v", on, flags)
		}
	}
	// Without the narrative service the solo routes cannot work.
	bare, err := New(Options{Services: &gameplay.Services{}, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	if bare.caps.Solo || bare.caps.Scripting {
		t.Fatalf("solo without a narrative service: %+v", bare.caps)
	}
	if !strings.Contains(string(bare.openapi), `"scripting"`) {
		t.Fatal("the script console is not in the scripting family")
	}
}
