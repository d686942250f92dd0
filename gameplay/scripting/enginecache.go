package scripting

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"strings"
	"time"
)

// Compiling QuickJS to native code takes ~0.65 s (seconds on a busy host).
// wazero can keep the result on disk (qjs.Option.CacheDir), but that file is
// native code the process maps executable and runs, checked only by a
// CRC32. So the cache lives in a directory that only this server writes
// (prepareEngineCache refuses anything else), and that directory's name is
// our own hash of everything that changes the compiled code
// (engineCacheKey): a cache written by another build or with other flags is
// never opened. wazero v1.9.0's own file key does include the termination
// flag and the listeners (wasm.Module.AssignModuleID), but not the build:
// binaries without dependency build info, such as test binaries, all
// report wazero version "dev" and would read each other's entries.

// The module versions in go.mod (a test keeps them in step). Test binaries
// carry no dependency list in their build info, so these stand in for it.
const (
	qjsModule    = "github.com/fastschema/qjs v0.0.6"
	wazeroModule = "github.com/tetratelabs/wazero v1.9.0"
)

// engineFlags is what goes into the engine cache key.
type engineFlags struct {
	// Termination is wazero's CloseOnContextDone (ensureTermination): the
	// compiled code checks for a kill at loop heads and calls. Without it
	// an infinite JS loop cannot be stopped.
	Termination bool
	// Listeners reports a function-listener factory on the compile
	// context, which adds listener calls to the compiled code.
	Listeners bool
	// Build names the code that compiles and what it compiles: the wasm
	// bytes' hash, module versions, build-info sums (a replace directive
	// shows there), Go version, GOOS/GOARCH.
	Build string
}

// warmUpFlags are the flags warmUp compiles with.
func warmUpFlags() engineFlags {
	return engineFlags{Termination: true, Listeners: false, Build: buildIdentity()}
}

func buildIdentity() string {
	var b strings.Builder
	fmt.Fprintf(&b, "wasm sha256 %x\n%s\n%s\n%s %s/%s\n", sha256.Sum256(engineWasm()), qjsModule, wazeroModule,
		runtime.Version(), runtime.GOOS, runtime.GOARCH)
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path != "github.com/fastschema/qjs" && d.Path != "github.com/tetratelabs/wazero" {
				continue
			}
			fmt.Fprintf(&b, "%s %s %s\n", d.Path, d.Version, d.Sum)
			if r := d.Replace; r != nil {
				fmt.Fprintf(&b, "=> %s %s %s\n", r.Path, r.Version, r.Sum)
			}
		}
	}
	return b.String()
}

// engineCacheKey names the cache directory for f.
func engineCacheKey(f engineFlags) string {
	h := sha256.New()
	fmt.Fprintf(h, "adventure-table quickjs engine cache 1\ntermination=%t\nlisteners=%t\n%s", f.Termination, f.Listeners, f.Build)
	return "quickjs-" + hex.EncodeToString(h.Sum(nil)[:16])
}

var engineCacheName = regexp.MustCompile(`^quickjs-[0-9a-f]{32}$`)

// prepareEngineCache creates (0700) or checks the directory for flags under
// base and returns it. It refuses a directory that it cannot trust to hold
// only what this server wrote: base and the cache directory must be real
// directories of this user that nobody else can write, so must every
// directory above them (unless sticky, like /tmp), and every entry inside
// must be this user's and writable by nobody else.
func prepareEngineCache(base string, flags engineFlags) (dir string, files map[string]cacheFile, err error) {
	if !ownershipChecked {
		return "", nil, errors.New("the owner of a directory cannot be checked on " + runtime.GOOS)
	}
	if base, err = filepath.Abs(base); err != nil {
		return "", nil, err
	}
	if err = os.MkdirAll(base, 0o700); err != nil {
		return "", nil, err
	}
	if base, err = filepath.EvalSymlinks(base); err != nil {
		return "", nil, err
	}
	for p := filepath.Dir(base); ; p = filepath.Dir(p) {
		fi, err := os.Stat(p)
		if err != nil {
			return "", nil, err
		}
		if err := checkAncestor(p, fi); err != nil {
			return "", nil, err
		}
		if filepath.Dir(p) == p {
			break
		}
	}
	fi, err := os.Lstat(base)
	if err != nil {
		return "", nil, err
	}
	if err := checkPrivate(base, fi); err != nil {
		return "", nil, err
	}
	dir = filepath.Join(base, engineCacheKey(flags))
	if err = os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return "", nil, err
	}
	if files, err = scanEngineCache(dir); err != nil {
		return "", nil, err
	}
	return dir, files, nil
}

// checkPrivate refuses an entry that is not a directory or regular file of
// this user, or that others may write.
func checkPrivate(path string, fi fs.FileInfo) error {
	if !fi.IsDir() && !fi.Mode().IsRegular() {
		return fmt.Errorf("%s is not a plain directory or file", path)
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("%s can be written by other users (mode %v)", path, fi.Mode().Perm())
	}
	if uid, ok := ownerOf(fi); !ok || uid != os.Geteuid() {
		return fmt.Errorf("%s belongs to another user", path)
	}
	return nil
}

// checkAncestor refuses a directory above the cache in which another user
// could swap the cache for theirs.
func checkAncestor(path string, fi fs.FileInfo) error {
	if uid, ok := ownerOf(fi); !ok || (uid != os.Geteuid() && uid != 0) {
		return fmt.Errorf("%s belongs to another user", path)
	}
	if fi.Mode().Perm()&0o022 != 0 && fi.Mode()&fs.ModeSticky == 0 {
		return fmt.Errorf("%s can be written by other users (mode %v)", path, fi.Mode().Perm())
	}
	return nil
}

// cacheFile identifies one file of the cache, to tell a file wazero wrote
// from one it only read.
type cacheFile struct {
	fi      fs.FileInfo
	size    int64
	modTime time.Time
}

// scanEngineCache lists the files under dir, checking each entry as
// checkPrivate does.
func scanEngineCache(dir string) (map[string]cacheFile, error) {
	files := map[string]cacheFile{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		if err := checkPrivate(path, fi); err != nil {
			return err
		}
		if fi.Mode().IsRegular() {
			files[path] = cacheFile{fi: fi, size: fi.Size(), modTime: fi.ModTime()}
		}
		return nil
	})
	return files, err
}

// cacheWasRead reports whether every file of before is still there
// unchanged and nothing was added: wazero loaded the engine and wrote
// nothing, which it does only on a hit.
func cacheWasRead(before, after map[string]cacheFile) bool {
	if len(before) == 0 || len(after) != len(before) {
		return false
	}
	for path, b := range before {
		a, ok := after[path]
		if !ok || a.size != b.size || !a.modTime.Equal(b.modTime) || !os.SameFile(a.fi, b.fi) {
			return false
		}
	}
	return true
}

// pruneEngineCaches removes the cache directories of other builds or flags
// next to keep (each ~6 MB), so upgrades do not pile them up.
func pruneEngineCaches(keep string) {
	base := filepath.Dir(keep)
	entries, err := os.ReadDir(base)
	if err != nil {
		return
	}
	for _, e := range entries {
		p := filepath.Join(base, e.Name())
		if p == keep || !e.IsDir() || !engineCacheName.MatchString(e.Name()) {
			continue
		}
		if fi, err := e.Info(); err == nil && checkPrivate(p, fi) == nil {
			_ = os.RemoveAll(p)
		}
	}
}
