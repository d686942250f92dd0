package main

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/adventure-table/adventure-table/gameplay/analytics"
	"github.com/adventure-table/adventure-table/models"
)

// TestStatsCommand: `adventure-table stats` prints the dashboard's report
// of what a server counted (on SQLite or PostgreSQL, as the settings say):
// the funnel in people, failures by code, the time to first token; --csv
// its days; a bad --days is a usage error (2) that reads nothing.
func TestStatsCommand(t *testing.T) {
	env, cfg, store := localStore(t)
	counts := analytics.New(store, []byte(cfg.Secret), time.Now, nil)
	counts.Count(analytics.MetricVisit, "solo", 42)
	for range 6 {
		counts.Reach(9, analytics.Made) // six things made: one person
	}
	counts.Count(analytics.MetricTurn, "solo", 5)
	counts.Failed(analytics.SoloTurn, "provider_timeout")
	counts.ModelCall(700*time.Millisecond, 120, false)
	if err := counts.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	store.Close()

	stats := func(args ...string) (int, string, string) {
		var out, errOut bytes.Buffer
		code := run(context.Background(), append([]string{"stats"}, args...), envFunc(env), &out, &errOut)
		return code, out.String(), errOut.String()
	}
	code, out, errOut := stats("--days", "2")
	if code != 0 {
		t.Fatalf("stats: %d %s", code, errOut)
	}
	today := time.Now().UTC().Format(time.DateOnly)
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^\s+` + today + `\s+42\s+1\s+1\s+0\s+0\s+0\s*$`), // visits, came, made, played, came back, limited
		regexp.MustCompile(`(?m)^\s+` + today + `\s+5\s+1\s+0\s+0\s+0\s+≤ 1 s\s+≤ 1 s\s*$`),
		regexp.MustCompile(`(?m)^\s+turn\s+provider_timeout\s+1$`),
		regexp.MustCompile(`(?m)^\s+solo\s+42$`),
		regexp.MustCompile(`p50 ≤ 1 s, p95 ≤ 1 s \(1 model calls\)`),
	} {
		if !want.MatchString(out) {
			t.Errorf("stats output lacks %s:\n%s", want, out)
		}
	}
	code, out, _ = stats("--days=3", "--csv")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 4 || !strings.HasPrefix(lines[3], today+",42,1,1,0,0,5,1,") {
		t.Errorf("stats --csv: %d\n%s", code, out)
	}
	if code, _, errOut = stats("--days", "0"); code != 2 || !strings.Contains(errOut, "--days must be a number from 1 to 366") {
		t.Errorf("stats --days 0: %d %s", code, errOut)
	}
}

// localStore is a local-mode configuration on a fresh data directory (and
// a fresh PostgreSQL database when the tests run on one) with its store,
// migrated: what a command run with env opens.
func localStore(t *testing.T) (map[string]string, Config, *models.Store) {
	t.Helper()
	env := map[string]string{"AT_DATA_DIR": t.TempDir()}
	if e := newChildEnv(t); e.databaseURL != "" {
		env["AT_DATABASE_URL"] = e.databaseURL
	}
	cfg, err := LoadConfig(envFunc(env), nil)
	if err == nil {
		err = cfg.ensureLocalSecret()
	}
	if err != nil {
		t.Fatal(err)
	}
	store, _, err := openMigrated(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return env, cfg, store
}
