package scripting_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/adventure-table/adventure-table/gameplay/scripting"
)

// engineChild is what a child process reports about its start.
type engineChild struct {
	FromCache bool
	Dir       string
	EngineMS  float64 // compiling or loading QuickJS
	NewMS     float64 // all of scripting.New
	KillKind  string  // Error.Kind of an endless loop
	KillMS    float64 // when it came back
}

const (
	engineChildEnv    = "SCRIPTING_ENGINE_CACHE_CHILD" // the cache base, or "-" for none
	engineChildPrefix = "engine-child: "
)

// runEngineChild starts this test binary as a fresh process that starts a
// Sandbox with the engine cache under base ("" for none) and kills an
// endless loop in it.
func runEngineChild(tb testing.TB, base string) engineChild {
	tb.Helper()
	if base == "" {
		base = "-"
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestEngineCacheAcrossProcesses$", "-test.count=1")
	cmd.Env = append(os.Environ(), engineChildEnv+"="+base)
	out, err := cmd.CombinedOutput()
	if err != nil {
		tb.Fatalf("child: %v\n%s", err, out)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if rest, ok := strings.CutPrefix(line, engineChildPrefix); ok {
			var c engineChild
			if err := json.Unmarshal([]byte(rest), &c); err != nil {
				tb.Fatal(err)
			}
			return c
		}
	}
	tb.Fatalf("the child reported nothing:\n%s", out)
	return engineChild{}
}

// engineChildMain is the child's side of runEngineChild.
func engineChildMain(t *testing.T, base string) {
	if base == "-" {
		base = ""
	}
	const limit = 200 * time.Millisecond
	t0 := time.Now()
	s := mustNew(t, scripting.Options{EngineCacheDir: base, Timeout: limit})
	newTime := time.Since(t0)
	out := s.Run(context.Background(), scripting.Input{Hook: scripting.HookInput, Script: "while (true) {}", Text: "t"})
	st := scripting.LastEngineStart()
	c := engineChild{FromCache: st.FromCache, Dir: st.Dir, EngineMS: ms(st.Elapsed), NewMS: ms(newTime), KillMS: ms(out.Elapsed)}
	if out.Error != nil {
		c.KillKind = out.Error.Kind
	}
	b, _ := json.Marshal(c)
	fmt.Println(engineChildPrefix + string(b))
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// TestEngineCacheAcrossProcesses starts the server's sandbox in fresh
// processes against one cache directory: the first compiles QuickJS and
// stores it, the second loads it without writing, and in both an endless
// loop is killed, so the termination checks survive the cache. A damaged
// cache or an unsafe directory only costs a compile.
func TestEngineCacheAcrossProcesses(t *testing.T) {
	if base := os.Getenv(engineChildEnv); base != "" {
		engineChildMain(t, base)
		return
	}
	if testing.Short() {
		t.Skip("starts child processes")
	}
	if raceEnabled {
		t.Skip("each child compiles QuickJS (~5 s with the race detector); run without -race")
	}
	assertKilled := func(t *testing.T, c engineChild) {
		t.Helper()
		if c.KillKind != scripting.KindTimeout || c.KillMS > 10_000 {
			t.Fatalf("endless loop: kind %q after %v ms, want killed as %q", c.KillKind, c.KillMS, scripting.KindTimeout)
		}
	}
	base := filepath.Join(t.TempDir(), "script-cache")
	// Left by another build: pruned once this one has its cache.
	stale := filepath.Join(base, "quickjs-"+strings.Repeat("0", 32))
	if err := os.MkdirAll(stale, 0o700); err != nil {
		t.Fatal(err)
	}

	first := runEngineChild(t, base)
	t.Logf("first start: %+v", first)
	assertKilled(t, first)
	if first.FromCache || first.Dir == "" || filepath.Dir(first.Dir) != base {
		t.Fatalf("first start: %+v, want compiled into a cache under %s", first, base)
	}
	written := cacheFiles(t, first.Dir)
	if len(written) == 0 {
		t.Fatal("the first start left no file in the cache")
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the stale cache directory is still there (%v)", err)
	}

	second := runEngineChild(t, base)
	t.Logf("second start: %+v", second)
	assertKilled(t, second)
	if !second.FromCache || second.Dir != first.Dir {
		t.Fatalf("second start: %+v, want loaded from %s", second, first.Dir)
	}
	if got := cacheFiles(t, first.Dir); !sameFiles(written, got) {
		t.Fatalf("the second start rewrote the cache: %v, then %v", written, got)
	}

	t.Run("DamagedEntry", func(t *testing.T) {
		for path := range written {
			if err := os.Truncate(path, 100); err != nil {
				t.Fatal(err)
			}
		}
		c := runEngineChild(t, base)
		assertKilled(t, c)
		if c.FromCache {
			t.Fatalf("%+v: a damaged entry was used", c)
		}
		if c := runEngineChild(t, base); !c.FromCache {
			t.Errorf("the start after the damaged one: %+v, want loaded from the cache written afresh", c)
		}
	})

	t.Run("UnsafeDirectory", func(t *testing.T) {
		shared := filepath.Join(t.TempDir(), "shared")
		if err := os.Mkdir(shared, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(shared, 0o777); err != nil {
			t.Fatal(err)
		}
		c := runEngineChild(t, shared)
		assertKilled(t, c)
		if c.FromCache || c.Dir != "" {
			t.Fatalf("%+v: a world-writable directory was used", c)
		}
		if entries, _ := os.ReadDir(shared); len(entries) != 0 {
			t.Errorf("wrote %d entries into a world-writable directory", len(entries))
		}
	})
}

// cacheFiles maps each file under dir to its identity.
func cacheFiles(t *testing.T, dir string) map[string]os.FileInfo {
	t.Helper()
	files := map[string]os.FileInfo{}
	err := filepath.Walk(dir, func(path string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			files[path] = fi
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func sameFiles(a, b map[string]os.FileInfo) bool {
	if len(a) != len(b) {
		return false
	}
	for path, fa := range a {
		fb, ok := b[path]
		if !ok || !os.SameFile(fa, fb) || !fa.ModTime().Equal(fb.ModTime()) || fa.Size() != fb.Size() {
			return false
		}
	}
	return true
}

// BenchmarkEngineStart measures a server start's sandbox in a fresh
// process: "cold" compiles QuickJS, "warm" loads it from the engine cache.
// engine-ms is compiling or loading QuickJS (target warm < 300 ms), new-ms
// all of scripting.New; both are medians over the children. ns/op also
// counts starting the child process.
func BenchmarkEngineStart(b *testing.B) {
	for _, warm := range []bool{false, true} {
		name := map[bool]string{false: "cold", true: "warm"}[warm]
		b.Run(name, func(b *testing.B) {
			base := ""
			if warm {
				base = filepath.Join(b.TempDir(), "script-cache")
				runEngineChild(b, base)
			}
			var engine, all []float64
			b.ResetTimer()
			for range b.N {
				c := runEngineChild(b, base)
				if c.FromCache != warm {
					b.Fatalf("child %+v, want from cache %v", c, warm)
				}
				engine, all = append(engine, c.EngineMS), append(all, c.NewMS)
			}
			b.StopTimer()
			median := func(v []float64) float64 { slices.Sort(v); return v[len(v)/2] }
			b.ReportMetric(median(engine), "engine-ms")
			b.ReportMetric(median(all), "new-ms")
		})
	}
}
