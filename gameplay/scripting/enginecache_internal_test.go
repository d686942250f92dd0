package scripting

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestEngineCacheKey(t *testing.T) {
	base := warmUpFlags()
	if !base.Termination || base.Listeners {
		t.Fatalf("warm-up flags %+v: the engine must be compiled with termination checks and without listeners", base)
	}
	key := engineCacheKey(base)
	if !engineCacheName.MatchString(key) {
		t.Fatalf("key %q does not match %v (pruning would miss it)", key, engineCacheName)
	}
	if engineCacheKey(warmUpFlags()) != key {
		t.Fatal("the key is not stable")
	}
	for name, f := range map[string]func(*engineFlags){
		"NoTermination": func(f *engineFlags) { f.Termination = false },
		"Listeners":     func(f *engineFlags) { f.Listeners = true },
		"OtherBuild":    func(f *engineFlags) { f.Build += "github.com/tetratelabs/wazero v1.9.1\n" },
	} {
		changed := base
		f(&changed)
		if engineCacheKey(changed) == key {
			t.Errorf("%s: same cache directory as the warm-up flags", name)
		}
	}
}

// TestEngineModulesMatchGoMod keeps the versions in the cache key in step
// with go.mod, since test binaries carry no dependency versions.
func TestEngineModulesMatchGoMod(t *testing.T) {
	raw, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	required := map[string]bool{}
	for _, line := range strings.Split(string(raw), "\n") {
		if f := strings.Fields(strings.TrimPrefix(strings.TrimSpace(line), "require ")); len(f) >= 2 {
			required[f[0]+" "+f[1]] = true
		}
	}
	for _, m := range []string{qjsModule, wazeroModule} {
		if !required[m] {
			t.Errorf("go.mod does not require %s: update the constant in enginecache.go", m)
		}
	}
}

func TestEngineCacheRefusesUnsafeDirectories(t *testing.T) {
	flags := warmUpFlags()
	key := engineCacheKey(flags)
	tests := []struct {
		name  string
		setup func(t *testing.T, base string)
	}{
		{"BaseWorldWritable", func(t *testing.T, base string) { chmod(t, base, 0o777) }},
		{"BaseGroupWritable", func(t *testing.T, base string) { chmod(t, base, 0o770) }},
		{"ParentWorldWritable", func(t *testing.T, base string) { chmod(t, filepath.Dir(base), 0o777) }},
		{"CacheDirWorldWritable", func(t *testing.T, base string) {
			mkdir(t, filepath.Join(base, key))
			chmod(t, filepath.Join(base, key), 0o777)
		}},
		{"CacheDirIsSymlink", func(t *testing.T, base string) {
			if err := os.Symlink(t.TempDir(), filepath.Join(base, key)); err != nil {
				t.Fatal(err)
			}
		}},
		{"FileWorldWritable", func(t *testing.T, base string) {
			writeFile(t, filepath.Join(base, key, "wazero-x", "entry"), 0o666)
		}},
		{"SymlinkInside", func(t *testing.T, base string) {
			mkdir(t, filepath.Join(base, key))
			if err := os.Symlink("/etc/passwd", filepath.Join(base, key, "entry")); err != nil {
				t.Fatal(err)
			}
		}},
		{"OtherOwner", func(t *testing.T, base string) {
			if os.Geteuid() != 0 {
				t.Skip("needs root to give a directory away")
			}
			if err := os.Chown(base, 65534, 65534); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := filepath.Join(t.TempDir(), "parent", "cache")
			mkdir(t, base)
			tt.setup(t, base)
			dir, _, err := prepareEngineCache(base, flags)
			if err == nil {
				t.Fatalf("got cache directory %s, want a refusal", dir)
			}
			t.Log(err)
		})
	}

	t.Run("Safe", func(t *testing.T) {
		base := filepath.Join(t.TempDir(), "parent", "cache")
		dir, files, err := prepareEngineCache(base, flags)
		if err != nil {
			t.Fatal(err)
		}
		if dir != filepath.Join(base, key) || len(files) != 0 {
			t.Fatalf("got %s with %d files, want an empty %s", dir, len(files), key)
		}
		for _, d := range []string{base, dir} {
			if fi, err := os.Stat(d); err != nil || fi.Mode().Perm() != 0o700 {
				t.Errorf("%s: %v %v, want mode 0700", d, fi.Mode(), err)
			}
		}
		// A sticky shared directory such as /tmp may sit above it.
		chmod(t, filepath.Dir(base), os.ModeSticky|0o777)
		if _, _, err := prepareEngineCache(base, flags); err != nil {
			t.Errorf("under a sticky directory: %v", err)
		}
	})
}

func chmod(t *testing.T, path string, mode os.FileMode) {
	t.Helper()
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

func mkdir(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(path, 0o700); err != nil {
		t.Fatal(err)
	}
}

func writeFile(t *testing.T, path string, mode os.FileMode) {
	t.Helper()
	mkdir(t, filepath.Dir(path))
	if err := os.WriteFile(path, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	chmod(t, path, mode)
}

// wasmSections lists a wasm binary's sections as "id" or "0:name".
func wasmSections(t *testing.T, wasm []byte) []string {
	t.Helper()
	var out []string
	for rest := wasm[8:]; len(rest) > 0; {
		size, n := binary.Uvarint(rest[1:])
		body := rest[1+n : 1+n+int(size)]
		name := strconv.Itoa(int(rest[0]))
		if rest[0] == 0 {
			l, m := binary.Uvarint(body)
			name += ":" + string(body[m:m+int(l)])
		}
		out = append(out, name)
		rest = rest[1+n+int(size):]
	}
	return out
}

func TestEngineWasm(t *testing.T) {
	if len(qjsWasm) < 8 || string(qjsWasm[:4]) != "\x00asm" {
		t.Fatalf("the linked qjs wasm bytes are not a wasm binary (%d bytes)", len(qjsWasm))
	}
	stripped, err := stripDebugSections(qjsWasm)
	if err != nil {
		t.Fatal(err)
	}
	withExport, err := addFunctionExport(stripped, evalFunctionExport, pinnedEvalFunction)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(engineWasm(), withExport) {
		t.Fatal("engineWasm is not the stripped pinned build with the JS_EvalFunction export")
	}
	var want []string
	for _, s := range wasmSections(t, qjsWasm) {
		if !strings.HasPrefix(s, "0:.debug_") {
			want = append(want, s)
		}
	}
	if diff := cmp.Diff(want, wasmSections(t, stripped)); diff != "" {
		t.Errorf("sections (-want +got):\n%s", diff)
	}
	if len(stripped) >= len(qjsWasm) {
		t.Errorf("nothing was stripped: the engine would carry a source map again (%d bytes)", len(stripped))
	}
	for _, bad := range [][]byte{nil, []byte("\x00asm\x01\x00\x00\x00\x0a\x05\x01"), []byte("\x7fELF\x01\x00\x00\x00")} {
		if _, err := stripDebugSections(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
