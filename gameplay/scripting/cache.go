package scripting

import (
	"container/list"
	"context"
	"errors"
	"hash/maphash"
	"strings"
	"sync"
)

// cacheEntry is one compiled (Library, hook script) pair. ready is closed
// once bytecode or err is set; concurrent callers of the same new version
// wait for one compile instead of each parsing the source.
type cacheEntry struct {
	key                  scriptKey
	library, script      string // the source, compared on every hit
	ready                chan struct{}
	bytecode             []byte
	err                  *Error // a compile (syntax) error, cached like bytecode
	libraryLines         int
	scriptLines          int
	endsWithModifierCall bool
	elem                 *list.Element // nil until finished and counted
}

// bytecodeCache is an LRU of compiled scripts bounded by bytecode size.
// Bytecode is produced only by this package from source; it is never
// accepted from outside (QuickJS trusts bytecode blindly).
type bytecodeCache struct {
	mu      sync.Mutex
	limit   int64
	size    int64
	entries map[scriptKey]*cacheEntry
	lru     *list.List // front = most recently used; finished entries only
}

func newBytecodeCache(limit int64) *bytecodeCache {
	return &bytecodeCache{limit: limit, entries: map[scriptKey]*cacheEntry{}, lru: list.New()}
}

// scriptKey finds a compiled (Library, hook script) pair: a fast hash of
// both and their lengths. It is not collision-proof on its own (the sha256
// it replaced cost ~0.25 ms of every hook with a 311 KB Library, ten times
// this); an entry keeps its source and get compares it, so two sources never
// share bytecode.
type scriptKey struct {
	hash              uint64
	libLen, scriptLen int
}

var keySeed = maphash.MakeSeed()

func cacheKey(library, script string) scriptKey {
	var h maphash.Hash
	h.SetSeed(keySeed)
	h.WriteString(library)
	h.WriteString(script)
	return scriptKey{hash: h.Sum64(), libLen: len(library), scriptLen: len(script)}
}

// size is what an entry counts against the cache's limit.
func (e *cacheEntry) size() int64 {
	return int64(len(e.bytecode) + len(e.library) + len(e.script))
}

// get returns the entry for (library, script) and whether the caller must
// compile it. An entry of another source under the same key is replaced.
func (c *bytecodeCache) get(library, script string) (*cacheEntry, bool) {
	key := cacheKey(library, script)
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.entries[key]; ok {
		if e.library == library && e.script == script {
			if e.elem != nil {
				c.lru.MoveToFront(e.elem)
			}
			return e, false
		}
		c.remove(e)
	}
	e := &cacheEntry{key: key, library: library, script: script, ready: make(chan struct{})}
	c.entries[key] = e
	return e, true
}

// remove drops e; callers still holding it keep a valid entry.
func (c *bytecodeCache) remove(e *cacheEntry) {
	delete(c.entries, e.key)
	if e.elem != nil {
		c.lru.Remove(e.elem)
		e.elem = nil
		c.size -= e.size()
	}
}

// finish publishes a compile result. Transient failures (timeout, memory,
// cancellation) are handed to current waiters but not kept.
func (c *bytecodeCache) finish(e *cacheEntry, keep bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	close(e.ready)
	if !keep {
		if c.entries[e.key] == e {
			delete(c.entries, e.key)
		}
		return
	}
	if c.entries[e.key] != e {
		return // cleared meanwhile
	}
	e.elem = c.lru.PushFront(e)
	c.size += e.size()
	for c.size > c.limit && c.lru.Len() > 1 {
		c.remove(c.lru.Back().Value.(*cacheEntry))
	}
}

func (c *bytecodeCache) clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, e := range c.entries {
		if e.elem != nil {
			delete(c.entries, k)
		}
	}
	c.lru.Init()
	c.size = 0
}

// bytecodeFor returns the compiled Library + script, compiling on a miss.
func (s *Sandbox) bytecodeFor(ctx context.Context, library, script string) (*cacheEntry, *Error) {
	e, owner := s.cache.get(library, script)
	if !owner {
		select {
		case <-e.ready:
		case <-ctx.Done():
			return nil, &Error{Kind: KindCanceled, Message: "the hook was cancelled: " + ctx.Err().Error()}
		}
		if e.err != nil {
			cp := *e.err
			return nil, &cp
		}
		s.hits.Add(1)
		return e, nil
	}
	s.compiles.Add(1)
	e.libraryLines = libraryLines(library)
	e.scriptLines = strings.Count(script, "\n") + 1
	e.endsWithModifierCall = endsWithModifierCall(script)
	keep := s.compile(ctx, e, library, script)
	s.cache.finish(e, keep)
	if e.err != nil {
		cp := *e.err
		return nil, &cp
	}
	return e, nil
}

// compile fills e.bytecode or e.err in a runtime of its own, under
// CompileTimeout and the memory cap, and reports whether the result may be
// cached.
func (s *Sandbox) compile(ctx context.Context, e *cacheEntry, library, script string) (keep bool) {
	// qjs hands the source to QuickJS as a C string, which would silently
	// end at the first NUL byte.
	if strings.IndexByte(library, 0) >= 0 || strings.IndexByte(script, 0) >= 0 {
		e.err = &Error{Kind: KindCompile, Message: "SyntaxError: the script contains a NUL character"}
		return true
	}
	v, err := newVM(s.mountDir, s.opts.MemoryLimit)
	if err != nil {
		e.err = &Error{Kind: KindInternal, Message: "scripting: start runtime: " + err.Error()}
		return false
	}
	v.bind(ctx)
	disarm := v.arm(s.opts.CompileTimeout)
	err = v.call(func() error {
		var cerr error
		e.bytecode, cerr = v.compileSloppy(scriptFile, wrapSource(library, script))
		return cerr
	})
	disarm()
	v.close(false)
	switch {
	case err == nil:
		return true
	case errors.Is(err, errKilled) || v.mem.refused.Load():
		e.err = v.failure(err, s.opts.CompileTimeout, s.opts.MemoryLimit)
		e.err.Message = "while compiling: " + e.err.Message
		return false
	default:
		e.err = errorFromException(err.Error(), e.libraryLines, e.scriptLines)
		e.err.Kind = KindCompile
		return true
	}
}
