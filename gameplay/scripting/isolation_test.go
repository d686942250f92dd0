package scripting_test

import (
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/adventure-table/adventure-table/gameplay/scripting"
	"github.com/google/go-cmp/cmp"
)

// probeFS reaches qjs's std and os modules the way a hostile script would
// (the globals are deleted, import() still works), tries to read and write
// host files, and records every outcome in state.probe.
const probeFS = `const paths = JSON.parse(PATHS);
Promise.all([import("qjs:std"), import("qjs:os")]).then(([std, os]) => {
  const r = {};
  r.globals = [typeof std, typeof os].join(",") + "|" + [typeof globalThis.std, typeof globalThis.os, typeof print, typeof setTimeout].join(",");
  for (const p of paths) {
    r["load " + p] = std.loadFile(p);
    r["open " + p] = std.open(p, "r") === null ? null : "opened";
    r["stat " + p] = os.stat(p)[1] === 0 ? "exists" : null;
  }
  r.readdir = os.readdir("/")[0];
  const w = std.open("/pwned.txt", "w");
  r.write = w === null ? null : "opened";
  if (w) { w.puts("pwned"); w.close(); }
  r.writeNextToSecret = std.open(paths[0] + ".pwned", "w") === null ? null : "opened";
  r.osOpen = os.open("/pwned-os.txt", os.O_WRONLY | os.O_CREAT, 0o644) < 0 ? "refused" : "opened";
  r.mkdir = os.mkdir("/pwned-dir") < 0 ? "refused" : "created";
  r.rename = os.rename("/", "/pwned-moved") < 0 ? "refused" : "renamed";
  r.remove = os.remove(paths[0]) < 0 ? "refused" : "removed";
  try { r.tmpfile = std.tmpfile() === null ? null : "file"; } catch (e) { r.tmpfile = "throws"; }
  try { r.evalScript = std.loadScript(paths[0]); } catch (e) { r.evalScript = "throws"; }
  r.env = [std.getenv("HOME"), std.getenv("PATH")].join(",");
  state.probe = r;
});
text`

func TestHostIsolationFilesystem(t *testing.T) {
	work := filepath.Join(t.TempDir(), "work")
	if err := os.Mkdir(work, 0o700); err != nil {
		t.Fatal(err)
	}
	s := mustNew(t, scripting.Options{WorkDir: work})

	hostDir := t.TempDir()
	secret := filepath.Join(hostDir, "secret.txt")
	if err := os.WriteFile(secret, []byte("top secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	cwd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	paths := []string{secret, "/etc/passwd", "../../../../../etc/passwd", "/proc/self/environ", "scripting.go", filepath.Join(cwd, "scripting.go"), "/" + filepath.Base(work)}
	pathsJSON, _ := json.Marshal(string(mustJSON(t, paths)))
	out := mustRun(t, s, scripting.Input{
		Hook:   scripting.HookInput,
		Script: strings.Replace(probeFS, "PATHS", string(pathsJSON), 1),
		Text:   "t",
	})

	got, _ := stateOf(t, out)["probe"].(map[string]any)
	want := map[string]any{
		"globals":           "object,object|undefined,undefined,undefined,undefined",
		"readdir":           []any{},
		"write":             nil,
		"writeNextToSecret": nil,
		"osOpen":            "refused",
		"mkdir":             "refused",
		"rename":            "refused",
		"remove":            "refused",
		"tmpfile":           got["tmpfile"], // checked below: may be null or throw
		"evalScript":        "throws",
		"env":               ",",
	}
	for _, p := range paths {
		want["load "+p] = nil
		want["open "+p] = nil
		want["stat "+p] = nil
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("probe results (-want +got):\n%s", diff)
	}
	if got["tmpfile"] == "file" {
		// Even an in-memory temp file would be harmless, but say so.
		t.Logf("std.tmpfile() returned a file")
	}

	// Nothing was written anywhere on the host, and the secret is intact.
	if b, err := os.ReadFile(secret); err != nil || string(b) != "top secret" {
		t.Errorf("secret file: %q, %v", b, err)
	}
	for _, dir := range []string{work, hostDir, cwd, os.TempDir()} {
		if found := findFiles(t, dir, "pwned"); len(found) > 0 {
			t.Errorf("script wrote to the host: %v", found)
		}
	}
	if _, err := os.Stat("/pwned.txt"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("/pwned.txt: %v", err)
	}
	if entries, err := os.ReadDir(work); err != nil || len(entries) != 0 {
		t.Errorf("work dir holds %v (%v), want it empty", entries, err)
	}
}

func TestWorkDirOwnership(t *testing.T) {
	// A WorkDir given by the caller must be empty and is left in place.
	work := t.TempDir()
	if err := os.WriteFile(filepath.Join(work, "x"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := scripting.New(scripting.Options{WorkDir: work}); err == nil {
		t.Error("New accepted a non-empty work dir")
	}
	if err := os.Remove(filepath.Join(work, "x")); err != nil {
		t.Fatal(err)
	}
	s, err := scripting.New(scripting.Options{WorkDir: work})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(work); err != nil {
		t.Errorf("caller's work dir removed: %v", err)
	}
}

func TestHostIsolationNetwork(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	addr := ln.Addr().(*net.TCPAddr)

	s := mustNew(t, scripting.Options{})
	script := `Promise.all([import("qjs:std"), import("qjs:os")]).then(([std, os]) => {
  const r = {};
  r.apis = [typeof fetch, typeof XMLHttpRequest, typeof WebSocket, typeof std.urlGet, typeof std.popen,
    typeof os.exec, typeof os.socket, typeof os.connect, typeof os.Worker].join(",");
  r.devTcp = std.open("/dev/tcp/127.0.0.1/PORT", "r+") === null ? null : "opened";
  r.osOpen = os.open("/dev/tcp/127.0.0.1/PORT", os.O_RDWR) < 0 ? "refused" : "opened";
  state.probe = r;
});
text`
	script = strings.ReplaceAll(script, "PORT", itoa(addr.Port))
	out := mustRun(t, s, scripting.Input{Hook: scripting.HookInput, Script: script, Text: "t"})
	want := map[string]any{
		"apis":   strings.Repeat("undefined,", 8) + "undefined",
		"devTcp": nil,
		"osOpen": "refused",
	}
	if diff := cmp.Diff(want, stateOf(t, out)["probe"]); diff != "" {
		t.Errorf("probe (-want +got):\n%s", diff)
	}
	// A connection made during the hook would already be queued: accept
	// with a deadline in the past returns it at once, or times out.
	if err := ln.(*net.TCPListener).SetDeadline(time.Now()); err != nil {
		t.Fatal(err)
	}
	if c, err := ln.Accept(); err == nil {
		c.Close()
		t.Error("the script connected to a host socket")
	}
}

func TestGuestOutputIsDiscarded(t *testing.T) {
	s := mustNew(t, scripting.Options{})
	// Swap the process's stdout/stderr for pipes while a script writes to
	// every stream it can reach. The tests in this package do not run in
	// parallel, so nothing else writes meanwhile.
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, stderr := os.Stdout, os.Stderr
	os.Stdout, os.Stderr = w, w
	out := s.Run(t.Context(), scripting.Input{
		Hook:   scripting.HookInput,
		Script: `import("qjs:std").then((std) => { std.out.puts("LEAK-OUT\n"); std.out.flush(); std.err.puts("LEAK-ERR\n"); std.printf("LEAK-PRINTF\n"); }); console.log("to the script console"); text`,
		Text:   "t",
	})
	os.Stdout, os.Stderr = stdout, stderr
	w.Close()
	leaked, _ := io.ReadAll(r)
	r.Close()
	if out.Error != nil {
		t.Fatal(out.Error)
	}
	if len(leaked) > 0 {
		t.Errorf("guest wrote to the process: %q", leaked)
	}
	if diff := cmp.Diff([]string{"to the script console"}, out.Logs); diff != "" {
		t.Errorf("logs (-want +got):\n%s", diff)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// findFiles lists files under dir (two levels deep at most, to keep
// os.TempDir cheap) whose name contains part.
func findFiles(t *testing.T, dir, part string) []string {
	t.Helper()
	var found []string
	root := strings.Count(filepath.Clean(dir), string(filepath.Separator))
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable entries are not ours
		}
		if d.IsDir() && strings.Count(p, string(filepath.Separator))-root >= 2 {
			return filepath.SkipDir
		}
		if strings.Contains(d.Name(), part) {
			found = append(found, p)
		}
		return nil
	})
	return found
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}
