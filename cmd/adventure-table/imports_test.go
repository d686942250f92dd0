package main

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/adventure-table/adventure-table"

// importRule forbids packages under a folder from importing some paths.
// Test files are exempt: they may build fixtures from any layer.
type importRule struct {
	folder    string   // relative to the repo root; subfolders included
	skip      []string // subfolders judged by their own rule instead
	forbidden []string // import path prefixes
	allowed   []string // exceptions to forbidden, exact paths
	why       string
}

var importRules = []importRule{
	{
		folder: "gameplay",
		skip:   []string{"gameplay/llm"},
		forbidden: []string{"github.com/gin-gonic/", "github.com/modelcontextprotocol/go-sdk", "net/http",
			"gorm.io/", module + "/webui", module + "/mcp", module + "/cmd"},
		why: "gameplay holds the rules for every edge: no transport (gin, MCP SDK, net/http) and no GORM (it calls models.Store)",
	},
	{
		// The model provider is an outbound HTTP client adapter (DESIGN:
		// gameplay/llm): it may use net/http as a client, nothing of the
		// edges, and no storage.
		folder:    "gameplay/llm",
		forbidden: []string{"github.com/gin-gonic/", "github.com/modelcontextprotocol/go-sdk", "gorm.io/", module + "/models", module + "/webui", module + "/mcp", module + "/cmd"},
		why:       "the model provider is a client adapter: no server framework, no storage",
	},
	{
		folder: "auth",
		forbidden: []string{"github.com/gin-gonic/", "github.com/modelcontextprotocol/go-sdk", "gorm.io/",
			module + "/gameplay", module + "/webui", module + "/mcp", module + "/cmd"},
		why: "auth is used by the edges and gameplay and imports none of them",
	},
	{
		folder:    "models",
		forbidden: []string{module + "/", "github.com/gin-gonic/", "github.com/modelcontextprotocol/go-sdk", "net/http"},
		allowed:   []string{module + "/models", module + "/models/apperr"},
		why:       "models is the bottom layer: it imports nothing of ours above it",
	},
	{
		// The edges reach storage only through gameplay. Only models/apperr,
		// the error type, is allowed from models; no read-only DTO imports
		// are needed so far.
		folder:    "webui",
		forbidden: []string{"gorm.io/", module + "/models", module + "/mcp", module + "/cmd"},
		allowed:   []string{module + "/models/apperr"},
		why:       "webui never writes models directly and never imports its sibling mcp",
	},
	{
		folder:    "mcp",
		forbidden: []string{"gorm.io/", module + "/models", module + "/webui", module + "/cmd", "github.com/gin-gonic/"},
		allowed:   []string{module + "/models/apperr"},
		why:       "mcp never writes models directly and never imports its sibling webui",
	},
	{
		// The encounter rules are pure values (gameplay/combat doc): dice
		// come from the dice engine, sheet numbers from the sheet rules;
		// storage, transport, clock and randomness stay with the callers.
		folder:    "gameplay/combat",
		forbidden: []string{module + "/", "gorm.io/", "net/", "os", "time", "math/rand", "crypto/rand"},
		allowed:   []string{module + "/gameplay/dice", module + "/gameplay/sheet", module + "/models/apperr"},
		why:       "combat is pure rules: only the dice engine, the sheet rules and the error type",
	},
	{
		// The counters are anonymous by construction (engine room §3.4):
		// no story, chat, table or identity package can hand them a text or
		// a user, only the counter store.
		folder:    "gameplay/analytics",
		forbidden: []string{module + "/", "gorm.io/", "net/"},
		allowed:   []string{module + "/models"},
		why:       "analytics imports no story, chat or identity package: only the store it flushes to",
	},
	{
		folder:    "tlsdev",
		forbidden: []string{module + "/", "github.com/", "gorm.io/"},
		why:       "tlsdev is standard library only",
	},
}

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("repo root not found from %s", root)
	}
	return root
}

func violates(rule importRule, path string) bool {
	for _, a := range rule.allowed {
		if path == a {
			return false
		}
	}
	for _, f := range rule.forbidden {
		if path == strings.TrimSuffix(f, "/") || strings.HasPrefix(path, f) || strings.HasPrefix(path, f+"/") {
			return true
		}
	}
	return false
}

// TestImportDirection enforces the dependency direction of DESIGN.md.
func TestImportDirection(t *testing.T) {
	root := repoRoot(t)
	checked := 0
	for _, rule := range importRules {
		dir := filepath.Join(root, rule.folder)
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && (d.Name() == "node_modules" || d.Name() == "app" || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			if d.IsDir() {
				for _, sub := range rule.skip {
					if path == filepath.Join(root, sub) {
						return filepath.SkipDir
					}
				}
			}
			if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
			if err != nil {
				return err
			}
			checked++
			rel, _ := filepath.Rel(root, path)
			for _, imp := range f.Imports {
				p, _ := strconv.Unquote(imp.Path.Value)
				// modelstest is a test helper: allowed to open databases.
				if strings.HasPrefix(rel, "models/modelstest/") && strings.HasPrefix(p, "gorm.io/") {
					continue
				}
				if violates(rule, p) {
					t.Errorf("%s imports %s: %s", rel, p, rule.why)
				}
			}
			return nil
		})
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
	if checked < 10 {
		t.Fatalf("checked only %d files; the walk is broken", checked)
	}
}

// TestImportRulesCatchViolations proves the rules fire on the imports they
// exist to stop.
func TestImportRulesCatchViolations(t *testing.T) {
	byFolder := map[string]importRule{}
	for _, r := range importRules {
		byFolder[r.folder] = r
	}
	for _, tt := range []struct {
		folder, path string
		want         bool
	}{
		{"gameplay", "github.com/gin-gonic/gin", true},
		{"gameplay", "github.com/modelcontextprotocol/go-sdk/mcp", true},
		{"gameplay", "net/http", true},
		{"gameplay/llm", "net/http", false},
		{"gameplay/llm", module + "/models", true},
		{"gameplay/llm", "github.com/gin-gonic/gin", true},
		{"gameplay", "gorm.io/gorm", true},
		{"gameplay", module + "/models", false},
		{"models", module + "/gameplay", true},
		{"models", module + "/auth", true},
		{"models", module + "/models/apperr", false},
		{"webui", module + "/models", true},
		{"webui", module + "/models/modelstest", true},
		{"webui", module + "/models/apperr", false},
		{"webui", module + "/mcp", true},
		{"mcp", module + "/webui", true},
		{"mcp", module + "/gameplay", false},
		{"auth", module + "/gameplay", true},
		{"gameplay/analytics", module + "/gameplay/narrative", true},
		{"gameplay/analytics", module + "/gameplay/table", true},
		{"gameplay/analytics", module + "/auth", true},
		{"gameplay/analytics", module + "/models", false},
	} {
		if got := violates(byFolder[tt.folder], tt.path); got != tt.want {
			t.Errorf("%s importing %s: violation=%v, want %v", tt.folder, tt.path, got, tt.want)
		}
	}
}
