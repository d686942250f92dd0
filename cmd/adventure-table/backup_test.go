package main

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"
)

// TestBackupWhileServing, on SQLite and PostgreSQL: a live server takes
// chat lines one after another while `backup` copies its database; the
// lines go on during and after the copy. The copy is restored into a
// fresh data dir (SQLite) or an empty database (PostgreSQL), a server is
// started on it, and every line acknowledged before the backup began is
// there, with no gap and no line twice; the restored server serves the
// session. A second restore into the same, now full, database is refused.
func TestBackupWhileServing(t *testing.T) {
	env := newChildEnv(t)
	live := env.start(t)
	owner := newAPI(t, live.base)
	var tv struct {
		Session struct{ ID int64 }
	}
	owner.must("POST", "/api/tables", map[string]any{"name": "Backed up", "seat_labels": []string{"One"}}, &tv)
	session := tv.Session.ID
	owner.must("POST", fmt.Sprintf("/api/sessions/%d/start", session), map[string]any{}, nil)

	// the writer: one line after another, each acknowledged before the next
	var acked atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	stopWriting := sync.OnceFunc(func() { close(stop); wg.Wait() })
	defer stopWriting()
	wg.Go(func() {
		for n := int64(1); ; n++ {
			select {
			case <-stop:
				return
			default:
			}
			if st, body := owner.call("POST", fmt.Sprintf("/api/sessions/%d/messages", session),
				map[string]any{"kind": "ooc", "text": fmt.Sprintf("line %d", n)}, nil); st >= 300 {
				t.Errorf("line %d: %d %s", n, st, body)
				return
			}
			acked.Store(n)
		}
	})
	waitUntil(t, "50 lines written", func() bool { return acked.Load() >= 50 })

	settings := map[string]string{"AT_DATA_DIR": env.dataDir, "AT_DATABASE_URL": env.databaseURL}
	file := filepath.Join(t.TempDir(), "adventure.backup")
	before := acked.Load()
	code, out, errOut := runCommand(settings, "backup", file)
	after := acked.Load()
	if code != 0 || !strings.Contains(out, "backed up") {
		t.Fatalf("backup: %d %s %s", code, out, errOut)
	}
	waitUntil(t, "20 more lines after the backup", func() bool { return acked.Load() >= after+20 })
	stopWriting()
	t.Logf("lines acknowledged: %d before the backup, %d when it ended, %d in all", before, after, acked.Load())

	// a fresh place to restore into, with the same server secret
	restored := childEnv{dataDir: t.TempDir()}
	secret, err := os.ReadFile(filepath.Join(env.dataDir, "secret"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(restored.dataDir, "secret"), secret, 0o600); err != nil {
		t.Fatal(err)
	}
	if env.databaseURL != "" {
		restored.databaseURL = emptyDatabase(t, env.databaseURL)
	}
	target := map[string]string{"AT_DATA_DIR": restored.dataDir, "AT_DATABASE_URL": restored.databaseURL}
	code, out, errOut = runCommand(target, "restore", file)
	if code != 0 || !strings.Contains(out, "restored") {
		t.Fatalf("restore: %d %s %s", code, out, errOut)
	}
	t.Log(strings.TrimSpace(out))

	// every line acknowledged before the backup, in order, none twice
	var payloads []string
	if err := restored.openDB(t).Raw("SELECT payload FROM session_events WHERE session_id = ? AND kind = 'message.posted' ORDER BY seq", session).
		Scan(&payloads).Error; err != nil {
		t.Fatal(err)
	}
	line := regexp.MustCompile(`line (\d+)`)
	for i, p := range payloads {
		m := line.FindStringSubmatch(p)
		if m == nil {
			t.Fatalf("event %d is not a line: %s", i, p)
		}
		if n, _ := strconv.ParseInt(m[1], 10, 64); n != int64(i+1) {
			t.Fatalf("event %d holds line %d: a gap or a line twice", i, n)
		}
	}
	if got := int64(len(payloads)); got < before || got > after+1 {
		t.Errorf("the copy holds lines 1 to %d; lines 1 to %d were acknowledged before the backup, %d when it ended", got, before, after)
	}

	// a server on the copy serves the session to its owner
	copyServer := restored.start(t)
	owner.base = copyServer.base
	var resumed struct {
		Session struct{ Status string }
	}
	owner.must("GET", fmt.Sprintf("/api/sessions/%d", session), nil, &resumed)
	if resumed.Session.Status != "active" {
		t.Errorf("the restored session: %+v", resumed)
	}
	copyServer.terminate()

	// a restore never overwrites
	if code, _, errOut = runCommand(target, "restore", file); code != 1 || !strings.Contains(errOut, "not empty") {
		t.Errorf("a restore into a full database: %d %s", code, errOut)
	}
}

// runCommand runs the binary's command line in-process with settings as
// its environment.
func runCommand(settings map[string]string, args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = run(context.Background(), args, envFunc(settings), &out, &errOut)
	return code, out.String(), errOut.String()
}

// emptyDatabase creates a new, empty PostgreSQL database on the server of
// databaseURL, dropped at cleanup, and returns databaseURL pointing at it
// (its other parameters, the schema's name included, kept).
func emptyDatabase(t *testing.T, databaseURL string) string {
	t.Helper()
	u, err := url.Parse(databaseURL)
	if err != nil {
		t.Fatal(err)
	}
	admin, err := gorm.Open(postgres.Open(databaseURL), &gorm.Config{Logger: logger.Discard})
	if err != nil {
		t.Fatal(err)
	}
	name := fmt.Sprintf("at_restore_%d", time.Now().UnixNano())
	if err := admin.Exec("CREATE DATABASE " + name).Error; err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := admin.Exec("DROP DATABASE " + name + " WITH (FORCE)").Error; err != nil {
			t.Errorf("drop %s: %v", name, err)
		}
		if db, err := admin.DB(); err == nil {
			db.Close()
		}
	})
	u.Path = "/" + name
	return u.String()
}
