package main

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/adventure-table/adventure-table/gameplay"
	"github.com/adventure-table/adventure-table/gameplay/narrative"
	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/models"
)

// oldSnapshot is a prompt snapshot's JSON as every version has written it.
type oldSnapshot struct {
	Messages     []narrative.InsightMessage `json:"messages"`
	Sections     []narrative.InsightSection `json:"sections"`
	Cards        []narrative.InsightCard    `json:"cards"`
	Budget       int                        `json:"budget"`
	TotalTokens  int                        `json:"total_tokens"`
	HistoryTurns int                        `json:"history_turns"`
	Memories     []narrative.InsightMemory  `json:"memories"`
}

// TestSnapshotsRecompressOnACopy, on SQLite and PostgreSQL: a database as
// versions before 37 left it — a 500-turn adventure of natural prose whose
// every narration stores its prompt (about 25 KB of JSON) zlib-compressed
// on its own — is copied with backup and restore, and `snapshots
// recompress` converts the copy. Every turn's Insights read the same as in
// the original, the copy stores 20× less than the raw JSON, the original is
// untouched, and a rerun has nothing to do.
func TestSnapshotsRecompressOnACopy(t *testing.T) {
	ctx := context.Background()
	env, _, store := localStore(t)
	services := gameplay.New(store, gameplay.Options{Mode: "local"})
	u, _, err := table.New(store, nil).EnsureGuest(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := services.Narrative.CreateScenario(ctx, u.ID, narrative.ScenarioInput{Title: "Opticks", Opening: "A beam of light.", StatSchema: narrative.Schema{}})
	if err != nil {
		t.Fatal(err)
	}
	page, err := services.Narrative.Play(ctx, u.ID, sc.ID, narrative.Persona{PersonaName: "Isaac"})
	if err != nil {
		t.Fatal(err)
	}
	narrations, rawBytes := writeOldStory(t, store, page, 500)

	before := map[int64]narrative.Insights{}
	for _, id := range narrations {
		if before[id], err = services.Narrative.GetInsights(ctx, u.ID, id); err != nil {
			t.Fatal(err)
		}
	}
	store.Close()

	// The copy: a backup restored into a fresh data dir or empty database.
	file := filepath.Join(t.TempDir(), "old.backup")
	if code, out, errOut := runCommand(env, "backup", file); code != 0 {
		t.Fatalf("backup: %d %s %s", code, out, errOut)
	}
	copyEnv := map[string]string{"AT_DATA_DIR": t.TempDir()}
	if env["AT_DATABASE_URL"] != "" {
		copyEnv["AT_DATABASE_URL"] = emptyDatabase(t, env["AT_DATABASE_URL"])
	}
	if code, out, errOut := runCommand(copyEnv, "restore", file); code != 0 {
		t.Fatalf("restore: %d %s %s", code, out, errOut)
	}

	code, out, errOut := runCommand(copyEnv, "snapshots", "recompress")
	t.Logf("%s%s", out, lastLine(errOut))
	m := regexp.MustCompile(`recompressed (\d+) snapshots of 1 adventures: (\d+) bytes → (\d+) bytes`).FindStringSubmatch(out)
	if code != 0 || m == nil || m[1] != "500" || !strings.Contains(errOut, "recompressed 500 of 500 snapshots") {
		t.Fatalf("recompress: %d %q %q", code, out, errOut)
	}
	after, _ := strconv.Atoi(m[3])
	t.Logf("raw JSON %d bytes, zlib %s, chained %d: %.1f× against the raw JSON (zlib alone %.1f×)",
		rawBytes, m[2], after, float64(rawBytes)/float64(after), float64(rawBytes)/atof(m[2]))
	if float64(rawBytes)/float64(after) < 20 {
		t.Errorf("the chained snapshots are %.1f× smaller than the raw JSON, want at least 20×", float64(rawBytes)/float64(after))
	}

	// Every turn reads the same from the converted copy.
	copyCfg, err := LoadConfig(envFunc(copyEnv), nil)
	if err != nil {
		t.Fatal(err)
	}
	copied, _, err := openMigrated(ctx, copyCfg)
	if err != nil {
		t.Fatal(err)
	}
	defer copied.Close()
	copySvc := gameplay.New(copied, gameplay.Options{Mode: "local"})
	for i, id := range narrations {
		got, err := copySvc.Narrative.GetInsights(ctx, u.ID, id)
		if err != nil || !reflect.DeepEqual(got, before[id]) {
			t.Fatalf("turn %d reads differently after recompress (%v)", i+1, err)
		}
	}
	if rows, _, err := copied.SnapshotFormatCount(ctx, 0x78); err != nil || rows != 0 {
		t.Errorf("%d old snapshots left in the copy (%v)", rows, err)
	}
	// The original is untouched; a rerun on the copy has nothing to do.
	original, _, err := openMigrated(ctx, mustConfig(t, env))
	if err != nil {
		t.Fatal(err)
	}
	defer original.Close()
	if rows, _, err := original.SnapshotFormatCount(ctx, 0x78); err != nil || rows != 500 {
		t.Errorf("the original holds %d old snapshots, want 500 (%v)", rows, err)
	}
	if code, out, _ := runCommand(copyEnv, "snapshots", "recompress"); code != 0 || !strings.Contains(out, "nothing to do") {
		t.Errorf("a rerun: %d %q", code, out)
	}
	if code, _, errOut := runCommand(copyEnv, "snapshots"); code != 2 || !strings.Contains(errOut, "usage") {
		t.Errorf("no verb: %d %q", code, errOut)
	}
}

func mustConfig(t *testing.T, env map[string]string) Config {
	t.Helper()
	cfg, err := LoadConfig(envFunc(env), nil)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func atof(s string) float64 { f, _ := strconv.ParseFloat(s, 64); return f }

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1] + "\n"
}

// writeOldStory appends turns of natural prose to an adventure's line as
// versions before 37 stored them: each narration with its prompt (the
// fixed sections, the story so far up to a budget, the action) as zlib of
// the JSON. It returns the narrations and the raw JSON's bytes.
func writeOldStory(t *testing.T, store *models.Store, page narrative.AdventurePage, turns int) ([]int64, int) {
	t.Helper()
	ctx := context.Background()
	prose := opticks(t)
	system := strings.Join(prose[:6], "\n\n")
	var narrations []int64
	var history []narrative.InsightMessage
	raw := 0
	parent := page.Story[len(page.Story)-1].ID
	err := store.Tx(ctx, func(tx *models.Store) error {
		for i := range turns {
			action := fmt.Sprintf("> I read paragraph %d.", i+1)
			reply := prose[6+i%(len(prose)-6)]
			player := &models.Action{AdventureID: page.Adventure.ID, BranchID: page.Adventure.HeadBranchID, Depth: 2*i + 1, ParentID: &parent,
				Live: true, Kind: models.ActionPlayer, Mode: "do", Text: action, WorldStateAfter: "{}", ScriptStateAfter: "{}", Outcomes: "[]", CreatedAt: time.Now()}
			if err := tx.CreateAction(ctx, player); err != nil {
				return err
			}
			// The story so far, newest last, within about 20 KB.
			window, size := []narrative.InsightMessage{}, 0
			for j := len(history) - 1; j >= 0 && size+len(history[j].Content) < 20000; j-- {
				window = append([]narrative.InsightMessage{history[j]}, window...)
				size += len(history[j].Content)
			}
			messages := append([]narrative.InsightMessage{{Role: "system", Content: system}}, window...)
			messages = append(messages, narrative.InsightMessage{Role: "user", Content: action})
			js, err := json.Marshal(oldSnapshot{Messages: messages, Sections: []narrative.InsightSection{{Name: "story", Tokens: size / 4}},
				Cards: []narrative.InsightCard{}, Budget: 8000, TotalTokens: (len(system) + size) / 4, HistoryTurns: len(window) / 2, Memories: []narrative.InsightMemory{}})
			if err != nil {
				return err
			}
			raw += len(js)
			var z bytes.Buffer
			w, _ := zlib.NewWriterLevel(&z, 6)
			_, _ = w.Write(js)
			_ = w.Close()
			narration := &models.Action{AdventureID: page.Adventure.ID, BranchID: page.Adventure.HeadBranchID, Depth: 2*i + 2, ParentID: &player.ID,
				Live: true, Kind: models.ActionNarration, Text: reply, WorldStateAfter: "{}", ScriptStateAfter: "{}", Outcomes: "[]",
				PromptSnapshot: z.Bytes(), PromptTokens: (len(system) + size) / 4, CreatedAt: time.Now()}
			if err := tx.CreateAction(ctx, narration); err != nil {
				return err
			}
			narrations = append(narrations, narration.ID)
			history = append(history, narrative.InsightMessage{Role: "user", Content: action}, narrative.InsightMessage{Role: "assistant", Content: reply})
			parent = narration.ID
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return narrations, raw
}

// opticks is the natural prose of the narrative tests (Newton's Opticks,
// public domain) in paragraphs.
func opticks(t *testing.T) []string {
	t.Helper()
	f, err := os.Open("../../gameplay/narrative/testdata/prose/opticks.txt.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if _, err := b.ReadFrom(r); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range strings.Split(b.String(), "\n\n") {
		if p = strings.Join(strings.Fields(p), " "); len(p) > 200 && len(p) < 3000 {
			out = append(out, p)
		}
	}
	return out
}
