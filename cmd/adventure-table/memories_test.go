package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/adventure-table/adventure-table/gameplay/llm"
	"github.com/adventure-table/adventure-table/gameplay/llm/llmtest"
	"github.com/adventure-table/adventure-table/gameplay/narrative"
	"github.com/adventure-table/adventure-table/gameplay/scripting"
	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/models"
	"github.com/adventure-table/adventure-table/models/modelstest"
)

// memoryBankFixture is a data dir (or the test PostgreSQL) holding one
// user whose model settings point at a scripted fake with an API key, and
// an adventure of eight turns whose bank wrote its block memories: what an
// operator finds on a server that has been played on.
type memoryBankFixture struct {
	t     *testing.T
	env   map[string]string
	store *models.Store
	fake  *llmtest.Fake
	advID int64
	key   string

	mu       sync.Mutex
	narrated int
	memories int
	// memory answers a memory-prompt request (system message, number of
	// the memory request) with the memory's text.
	memory func(system string, n int) llmtest.Reply
}

const memoriesTestKey = "sk-memories-test-0123456789abcdef"

func newMemoryBankFixture(t *testing.T) *memoryBankFixture {
	t.Helper()
	ctx := context.Background()
	f := &memoryBankFixture{t: t, env: map[string]string{"AT_DATA_DIR": t.TempDir()}, fake: llmtest.New(t), key: memoriesTestKey}
	if modelstest.Dialect() == models.Postgres {
		f.env["AT_DATABASE_URL"] = modelstest.Config(t).DatabaseURL
	}
	f.memory = func(_ string, n int) llmtest.Reply {
		return textReply(fmt.Sprintf("Ash swore an oath to Gwen at the crypt gate, original memory %d.", n))
	}
	f.fake.Respond(func(r llmtest.Request) llmtest.Reply {
		system := ""
		if len(r.Messages) > 0 {
			system = r.Messages[0].Content
		}
		f.mu.Lock()
		defer f.mu.Unlock()
		if strings.HasPrefix(system, "You keep the memory bank") {
			f.memories++
			return f.memory(system, f.memories)
		}
		f.narrated++
		return textReply(fmt.Sprintf("The crypt answers, scene %d: water drips and Gwen watches Ash.", f.narrated))
	})

	store, cfg := openAsTheServer(t, f.env)
	f.store = store
	sandbox, err := scripting.New(scripting.Options{Timeout: 5 * time.Second, MemoryLimit: 32 << 20})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sandbox.Close() })
	svc := narrative.New(store, narrative.Options{Provider: llm.NewOpenAI(nil), Secret: []byte(cfg.Secret), Sandbox: sandbox})
	u, _, err := table.New(store, time.Now).EnsureGuest(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	key := f.key
	if _, err := svc.PutSettings(ctx, u.ID, narrative.ProviderSettingsInput{BaseURL: f.fake.URL(), Model: "fake", APIKey: &key,
		ContextBudget: 4000, MaxOutputTokens: 400, Temperature: 0.8, TopP: 0.95}); err != nil {
		t.Fatal(err)
	}
	sc, err := svc.CreateScenario(ctx, u.ID, narrative.ScenarioInput{Title: "The Crypt", Premise: "A damp crypt under the old town.",
		PlotEssentials: "Gwen guards the gate.", Opening: "You stand before the crypt door.",
		Cards: []narrative.CardInput{{Title: "Gwen", Keys: []string{"Gwen"}, Entry: "Gwen is a veteran guard.", Type: "character"}}})
	if err != nil {
		t.Fatal(err)
	}
	page, err := svc.Play(ctx, u.ID, sc.ID, narrative.Persona{PersonaName: "Ash", PersonaPronouns: "they/them"})
	if err != nil {
		t.Fatal(err)
	}
	f.advID = page.Adventure.ID
	for i := range 8 {
		turn, err := svc.StartTurn(ctx, u.ID, f.advID, narrative.TurnInput{Mode: narrative.ModeDo, Text: fmt.Sprintf("step deeper, %d", i+1)})
		if err != nil {
			t.Fatal(err)
		}
		var last narrative.Event
		turn.Run(ctx, func(ev narrative.Event) { last = ev })
		if last.Type != narrative.EventDone {
			t.Fatalf("turn %d ended with %+v", i+1, last)
		}
	}
	if _, err := svc.DrainMemoryJobs(ctx); err != nil {
		t.Fatal(err)
	}
	if got := f.texts(); len(got) < 2 {
		t.Fatalf("the bank wrote %d block memories, want at least 2", len(got))
	}
	return f
}

// openAsTheServer opens, in the test, the database the command opens with
// env, with the same configuration: the local secret it generates in the
// data dir seals a key here and opens it there.
func openAsTheServer(t *testing.T, env map[string]string) (*models.Store, Config) {
	t.Helper()
	cfg, err := LoadConfig(envFunc(env), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := cfg.ensureLocalSecret(); err != nil {
		t.Fatal(err)
	}
	store, _, err := openMigrated(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	return store, cfg
}

func textReply(text string) llmtest.Reply {
	return llmtest.Reply{Chunks: []string{text}, FinishReason: "stop"}
}

// setMemory replaces how the fake answers memory prompts from now on and
// restarts their numbering.
func (f *memoryBankFixture) setMemory(fn func(system string, n int) llmtest.Reply) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.memory, f.memories = fn, 0
}

// texts are the stored block memories' texts by id.
func (f *memoryBankFixture) texts() map[int64]string {
	f.t.Helper()
	mems, err := f.store.AdventureMemories(context.Background(), f.advID, models.MemoryBlock)
	if err != nil {
		f.t.Fatal(err)
	}
	out := map[int64]string{}
	for _, m := range mems {
		out[m.ID] = m.Text
	}
	return out
}

// memoryRequests are the memory-prompt requests the fake got from request
// number from on.
func (f *memoryBankFixture) memoryRequests(from int) []llmtest.Request {
	var out []llmtest.Request
	for _, r := range f.fake.Requests()[from:] {
		if len(r.Messages) > 0 && strings.HasPrefix(r.Messages[0].Content, "You keep the memory bank") {
			out = append(out, r)
		}
	}
	return out
}

// run runs the command in-process with the fixture's configuration.
func (f *memoryBankFixture) run(args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = run(context.Background(), args, envFunc(f.env), &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestMemoriesRewrite(t *testing.T) {
	f := newMemoryBankFixture(t)
	before := f.texts()
	id := fmt.Sprint(f.advID)
	f.setMemory(func(_ string, n int) llmtest.Reply {
		return textReply(fmt.Sprintf("Ash, the protagonist, swore an oath to Gwen the gate guard, rewritten memory %d.", n))
	})

	// --dry-run replays through the current prompt and saves nothing.
	sent := len(f.fake.Requests())
	code, stdout, stderr := f.run("memories", "rewrite", "--adventure", id, "--dry-run")
	if code != 0 {
		t.Fatalf("dry run: exit %d: %s", code, stderr)
	}
	if got := f.texts(); fmt.Sprint(got) != fmt.Sprint(before) {
		t.Fatalf("the dry run changed the bank:\nbefore %v\nafter  %v", before, got)
	}
	if !strings.Contains(stdout, fmt.Sprintf("%d memories replayed (dry run: nothing saved)", len(before))) {
		t.Fatalf("dry run output:\n%s", stdout)
	}
	if n := len(f.memoryRequests(sent)); n != len(before) {
		t.Fatalf("the dry run made %d memory calls, want %d", n, len(before))
	}

	// rewrite saves the fake's new texts, each written through the current
	// framing rule with the owner's key (opened with the local secret).
	sent = len(f.fake.Requests())
	code, stdout, stderr = f.run("memories", "rewrite", "--adventure", id)
	if code != 0 {
		t.Fatalf("rewrite: exit %d: %s", code, stderr)
	}
	after := f.texts()
	for mid, old := range before {
		now := after[mid]
		if now == old || !strings.Contains(now, "rewritten memory") {
			t.Fatalf("memory %d not rewritten: %q -> %q", mid, old, now)
		}
		for _, want := range []string{fmt.Sprintf("memory %d (turns ", mid), "  old: " + old + "\n", "  new: " + now + "\n"} {
			if !strings.Contains(stdout, want) {
				t.Fatalf("output lacks %q:\n%s", want, stdout)
			}
		}
	}
	if !strings.HasSuffix(stdout, fmt.Sprintf("%d memories rewritten\n", len(before))) {
		t.Fatalf("output does not end with the count:\n%s", stdout)
	}
	for i := 1; i <= len(before); i++ {
		if want := fmt.Sprintf("memory %d/%d\n", i, len(before)); !strings.Contains(stderr, want) {
			t.Fatalf("progress lacks %q:\n%s", want, stderr)
		}
	}
	reqs := f.memoryRequests(sent)
	if len(reqs) != len(before) {
		t.Fatalf("rewrite made %d memory calls, want %d", len(reqs), len(before))
	}
	for _, r := range reqs {
		if !strings.Contains(r.Messages[0].Content, narrative.DefaultFraming) {
			t.Fatalf("the memory prompt lacks the framing rule:\n%s", r.Messages[0].Content)
		}
		if r.Authorization != "Bearer "+f.key {
			t.Fatalf("the call did not carry the owner's key: %q", r.Authorization)
		}
	}
	if strings.Contains(stdout+stderr, f.key) {
		t.Fatal("the API key was printed")
	}
}

func TestMemoriesAB(t *testing.T) {
	f := newMemoryBankFixture(t)
	before := f.texts()
	framing := "Write each memory as one line a town crier would shout, naming everyone. (framing B marker)"
	file := filepath.Join(t.TempDir(), "f.txt")
	if err := os.WriteFile(file, []byte(framing+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	f.setMemory(func(system string, n int) llmtest.Reply {
		if strings.Contains(system, "framing B marker") {
			return textReply(fmt.Sprintf("Hear ye: Ash swore to Gwen, version B %d.", n))
		}
		return textReply(fmt.Sprintf("Ash swore an oath to Gwen the guard, version A %d.", n))
	})

	sent := len(f.fake.Requests())
	code, stdout, stderr := f.run("memories", "ab", "--adventure", fmt.Sprint(f.advID), "--framing", file, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rows []struct {
		ID        int64  `json:"id"`
		FromDepth *int   `json:"from_depth"`
		Depth     *int   `json:"depth"`
		Stored    string `json:"stored"`
		A         string `json:"a"`
		B         string `json:"b"`
	}
	if err := json.Unmarshal([]byte(stdout), &rows); err != nil {
		t.Fatalf("output is not a JSON array: %v\n%s", err, stdout)
	}
	if len(rows) != len(before) {
		t.Fatalf("%d rows for %d memories:\n%s", len(rows), len(before), stdout)
	}
	for _, r := range rows {
		if r.FromDepth == nil || r.Depth == nil || *r.FromDepth > *r.Depth || r.Stored != before[r.ID] ||
			!strings.Contains(r.A, "version A") || !strings.Contains(r.B, "version B") {
			t.Fatalf("row %+v (stored %q)", r, before[r.ID])
		}
	}
	var a, b int
	for _, r := range f.memoryRequests(sent) {
		switch system := r.Messages[0].Content; {
		case strings.Contains(system, framing):
			b++
			if strings.Contains(system, narrative.DefaultFraming) {
				t.Fatalf("prompt B still carries the current framing rule:\n%s", system)
			}
		case strings.Contains(system, narrative.DefaultFraming):
			a++
		default:
			t.Fatalf("a memory prompt with neither framing rule:\n%s", system)
		}
	}
	if a != len(before) || b != len(before) {
		t.Fatalf("%d A and %d B calls for %d memories", a, b, len(before))
	}
	if got := f.texts(); fmt.Sprint(got) != fmt.Sprint(before) {
		t.Fatalf("ab changed the bank:\nbefore %v\nafter  %v", before, got)
	}

	// Plain text, one after the other (the output is no terminal).
	code, stdout, stderr = f.run("memories", "ab", "--adventure", fmt.Sprint(f.advID), "--framing="+file)
	if code != 0 {
		t.Fatalf("text: exit %d: %s", code, stderr)
	}
	for _, want := range []string{"  A (current prompt): Ash swore", "  B (" + file + "): Hear ye", "  stored: " + rows[0].Stored,
		fmt.Sprintf("%d memories compared (nothing saved)", len(before))} {
		if !strings.Contains(stdout, want) {
			t.Fatalf("text output lacks %q:\n%s", want, stdout)
		}
	}
	if !strings.Contains(stderr, fmt.Sprintf("A: memory %d/%d", len(before), len(before))) || !strings.Contains(stderr, "B: memory 1/") {
		t.Fatalf("progress:\n%s", stderr)
	}

	// Side by side on a wide terminal: two columns within the width.
	var wide bytes.Buffer
	printAB(&wide, []abRow{{ID: 7, FromDepth: 0, Depth: 5, Stored: "old", A: strings.Repeat("alpha ", 30), B: "short"}}, "B (f.txt)", 130)
	lines := strings.Split(strings.TrimSpace(wide.String()), "\n")
	if len(lines) < 4 || !strings.Contains(lines[2], " | B (f.txt): short") {
		t.Fatalf("side by side:\n%s", wide.String())
	}
	for _, l := range lines {
		if utf8.RuneCountInString(l) > 130 {
			t.Fatalf("line wider than the terminal (%d): %q", utf8.RuneCountInString(l), l)
		}
	}
}

func TestMemoriesErrors(t *testing.T) {
	f := newMemoryBankFixture(t)
	before := f.texts()
	id := fmt.Sprint(f.advID)

	// Usage errors exit 2 before touching anything.
	for _, args := range [][]string{
		{"memories"},
		{"memories", "rewrite"},
		{"memories", "rewrite", "--dry-run"},
		{"memories", "rewrite", "--adventure", "seven"},
		{"memories", "ab", "--adventure", id},
		{"memories", "ab", "--adventure", id, "--framing", filepath.Join(t.TempDir(), "missing.txt")},
		{"memories", "rewrite", "--adventure", id, "--framing", "f.txt"},
		{"memories", "rewrite", "--adventure", id, "--no-such-setting", "x"},
	} {
		code, _, stderr := f.run(args...)
		if code != 2 || stderr == "" {
			t.Fatalf("%q: exit %d, want 2: %s", args, code, stderr)
		}
	}
	if code, _, stderr := f.run("memories", "rewrite"); !strings.Contains(stderr, "--adventure is required") || !strings.Contains(stderr, "usage: adventure-table memories") {
		t.Fatalf("missing --adventure: exit %d: %s", code, stderr)
	}

	// An unknown adventure exits 1 and says so.
	code, _, stderr := f.run("memories", "rewrite", "--adventure", "999999")
	if code != 1 || !strings.Contains(stderr, "adventure 999999 does not exist") {
		t.Fatalf("unknown adventure: exit %d: %s", code, stderr)
	}

	// The model endpoint failing: its stable message, exit 1, no key
	// printed and nothing saved.
	f.setMemory(func(string, int) llmtest.Reply { return llmtest.Reply{Status: 401} })
	code, stdout, stderr := f.run("memories", "rewrite", "--adventure", id)
	if code != 1 || !strings.Contains(stderr, "The model endpoint refused the API key") {
		t.Fatalf("failing model: exit %d: %s", code, stderr)
	}
	if strings.Contains(stdout+stderr, f.key) {
		t.Fatalf("the API key was printed:\n%s\n%s", stdout, stderr)
	}
	if got := f.texts(); fmt.Sprint(got) != fmt.Sprint(before) {
		t.Fatalf("a failed rewrite changed the bank: %v", got)
	}
	f.setMemory(func(string, int) llmtest.Reply { return llmtest.Reply{Status: 503} })
	file := filepath.Join(t.TempDir(), "f.txt")
	if err := os.WriteFile(file, []byte("Be brief."), 0o600); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr = f.run("memories", "ab", "--adventure", id, "--framing", file, "--json")
	if code != 1 || !strings.Contains(stderr, "The model endpoint") || stdout != "" || strings.Contains(stderr, f.key) {
		t.Fatalf("failing model in ab: exit %d: %q %s", code, stdout, stderr)
	}
}
