package table

import (
	"testing"
	"time"
)

// TestRecheckSpread: the waiters of one caller recheck over the
// recheckSpread after their shared viewer's cache expires, not in one
// instant, and every one of them within audienceTTL of the resolution.
func TestRecheckSpread(t *testing.T) {
	resolved := time.Now()
	until := resolved.Add(audienceTTL - recheckSpread) // as audienceOf caches it
	seen := map[time.Duration]bool{}
	for range 1000 {
		at := time.Now().Add(recheckAfter(until))
		if at.Before(until.Add(-time.Second)) || at.After(resolved.Add(audienceTTL+time.Second)) {
			t.Fatalf("a waiter rechecks %v after its viewer's resolution, want %v to %v", at.Sub(resolved), audienceTTL-recheckSpread, audienceTTL)
		}
		seen[at.Sub(until).Truncate(100*time.Millisecond)] = true
	}
	if len(seen) < 20 {
		t.Fatalf("1000 waiters recheck in %d distinct tenths of a second, want them spread over %v", len(seen), recheckSpread)
	}
}

// TestHandMergesWhatAFollowerHasNotTaken: a follower still writing one
// page when the next wakes come gets them as one page, in order, with the
// last cursor; past MaxEventLimit events it is let go to read them itself;
// leaving the feed returns a page it had not taken.
func TestHandMergesWhatAFollowerHasNotTaken(t *testing.T) {
	n := newNotifier(nil)
	f := &feed{waiters: map[*waiter]struct{}{}}
	w := &waiter{after: 10, out: make(chan wake, 1)}
	f.waiters[w] = struct{}{}
	pageOf := func(seqs ...int64) EventPage {
		p := EventPage{Events: []EventView{}, Cursor: seqs[len(seqs)-1]}
		for _, s := range seqs {
			p.Events = append(p.Events, EventView{Seq: s})
		}
		return p
	}
	seqsOf := func(p EventPage) []int64 {
		var out []int64
		for _, e := range p.Events {
			out = append(out, e.Seq)
		}
		return out
	}
	n.hand(f, w, pageOf(11))
	n.hand(f, w, pageOf(12, 13))
	n.hand(f, w, pageOf(14))
	after, r := n.unsubscribe(f, w)
	if got := seqsOf(r.page); r.recheck || len(got) != 4 || got[0] != 11 || got[3] != 14 || r.page.Cursor != 14 || after != 14 {
		t.Fatalf("three wakes not taken came back as %v (cursor %d, recheck %v, after %d), want 11-14 at 14", got, r.page.Cursor, r.recheck, after)
	}
	if _, ok := f.waiters[w]; ok {
		t.Fatal("the waiter is still on the feed after unsubscribe")
	}
	if after, r := n.unsubscribe(f, w); r.page.Events != nil || r.recheck || after != 14 {
		t.Fatalf("nothing pending: got %+v at %d", r, after)
	}

	// Too much to merge: let go, to read on its own from its last page.
	f.waiters[w] = struct{}{}
	big := make([]int64, MaxEventLimit)
	for i := range big {
		big[i] = int64(100 + i)
	}
	n.hand(f, w, pageOf(15))
	n.hand(f, w, pageOf(big...))
	if _, ok := f.waiters[w]; ok {
		t.Fatal("a follower past MaxEventLimit pending events is still on the feed")
	}
	if r := <-w.out; !r.recheck || r.page.Events != nil {
		t.Fatalf("a follower let go got %+v, want a recheck and no page", r)
	}
}
