package scripting

import (
	"container/list"
	"sync"
)

// primedSet keeps, for the compiled scripts run most recently, one runtime
// each that has the prelude run and that script's bytecode read but not run.
// Reading is most of what a large Library costs a hook besides running it
// (Auto-Cards: 311 KB of source, ~1 MB of bytecode, ~3 ms to read); a primed
// runtime does it on the fill goroutine between hooks instead. Like any
// spare, a primed runtime serves exactly one hook, so isolation is as before.
//
// An adventure runs three scripts (input, context, output hooks), each a
// different compiled (Library, hook) pair, so the default limit of three
// keeps one adventure in play fully primed; further adventures share the
// slots in least-recently-run order and fall back to reading in the hook.
type primedSet struct {
	mu    sync.Mutex
	limit int
	slots map[scriptKey]*primedSlot
	lru   *list.List // of *primedSlot; front = most recently run
}

type primedSlot struct {
	entry     *cacheEntry
	elem      *list.Element
	v         *vm    // nil while empty or being prepared
	fn        uint64 // the function value read into v
	preparing bool
	failed    bool // preparing failed; not retried until the script runs again
}

func newPrimedSet(limit int) *primedSet {
	return &primedSet{limit: limit, slots: map[scriptKey]*primedSlot{}, lru: list.New()}
}

// take hands out the primed runtime for key and the function read into it,
// if one is ready.
func (p *primedSet) take(key scriptKey) (*vm, uint64, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	slot := p.slots[key]
	if slot == nil || slot.v == nil {
		return nil, 0, false
	}
	v, fn := slot.v, slot.fn
	slot.v, slot.fn = nil, 0
	return v, fn, true
}

// want records that entry has just run, so a runtime should be primed for
// it. It returns runtimes of slots pushed out by the limit, for the caller
// to close outside the lock.
func (p *primedSet) want(entry *cacheEntry) (evicted []*vm) {
	if p.limit <= 0 {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if slot := p.slots[entry.key]; slot != nil {
		slot.failed = false
		p.lru.MoveToFront(slot.elem)
		return nil
	}
	slot := &primedSlot{entry: entry}
	slot.elem = p.lru.PushFront(slot)
	p.slots[entry.key] = slot
	for p.lru.Len() > p.limit {
		old := p.lru.Remove(p.lru.Back()).(*primedSlot)
		delete(p.slots, old.entry.key)
		if old.v != nil {
			evicted = append(evicted, old.v)
			old.v = nil
		}
	}
	return evicted
}

// next returns the most recently run slot that needs a runtime and marks it
// as being prepared; nil when there is none.
func (p *primedSet) next() *primedSlot {
	p.mu.Lock()
	defer p.mu.Unlock()
	for e := p.lru.Front(); e != nil; e = e.Next() {
		if slot := e.Value.(*primedSlot); slot.v == nil && !slot.preparing && !slot.failed {
			slot.preparing = true
			return slot
		}
	}
	return nil
}

// put stores a prepared runtime (v nil: preparing failed). It reports false
// when the slot was evicted meanwhile; the caller then closes v.
func (p *primedSet) put(slot *primedSlot, v *vm, fn uint64) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	slot.preparing = false
	if v == nil {
		slot.failed = true
		return true
	}
	if p.slots[slot.entry.key] != slot {
		return false
	}
	slot.v, slot.fn = v, fn
	return true
}

// ready reports whether every slot has its runtime (or failed to get one).
func (p *primedSet) ready() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for e := p.lru.Front(); e != nil; e = e.Next() {
		if slot := e.Value.(*primedSlot); slot.v == nil && !slot.failed {
			return false
		}
	}
	return true
}

// clear forgets every slot and returns their runtimes to close.
func (p *primedSet) clear() (runtimes []*vm) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for e := p.lru.Front(); e != nil; e = e.Next() {
		if slot := e.Value.(*primedSlot); slot.v != nil {
			runtimes = append(runtimes, slot.v)
			slot.v = nil
		}
	}
	clear(p.slots)
	p.lru.Init()
	return runtimes
}
