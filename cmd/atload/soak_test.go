package main

import (
	"errors"
	"testing"
	"time"
)

// TestMissingCountsAcknowledgedOnly: a follower misses an acknowledged
// post or whisper of its own it did not receive; a failed post (written
// or not) is owed to nobody; another seat's whisper is not owed.
func TestMissingCountsAcknowledgedOnly(t *testing.T) {
	posts := &postLog{}
	now := time.Now()
	a, b, failed := posts.add(0, now), posts.add(0, now), posts.add(0, now)
	posts.fail(failed)
	other := posts.add(1, now)
	mine := posts.addWhisper(whisper{table: 0, kind: "http", who: 0})
	theirs := posts.addWhisper(whisper{table: 0, kind: "http", who: 1})
	w := &waiter{kind: "http", table: 0, who: 0, posts: map[int]time.Time{a: now}, whispers: map[int]bool{}}
	if got := missing([]*waiter{w}, posts); got != 2 { // b and the whisper to its seat
		t.Fatalf("missing %d, want 2", got)
	}
	w.posts[b], w.whispers[mine] = now, true
	if got := missing([]*waiter{w}, posts); got != 0 {
		t.Fatalf("missing %d once received, want 0 (failed %d, other table's %d, other seat's whisper %d owed to nobody here)", got, failed, other, theirs)
	}
}

// TestRecovery: the recovery after a fault ends with the last failed
// request that started in its window; none failed, none to recover.
func TestRecovery(t *testing.T) {
	fault := time.Now()
	calls := []soakCall{
		{route: "a", at: fault.Add(-10 * time.Second), lat: time.Second, err: errors.New("before the window")},
		{route: "a", at: fault.Add(time.Second), lat: 500 * time.Millisecond, err: errors.New("refused")},
		{route: "a", at: fault.Add(2 * time.Second), lat: time.Second, err: errors.New("refused")},
		{route: "a", at: fault.Add(4 * time.Second), lat: time.Millisecond},
		{route: "a", at: fault.Add(30 * time.Second), lat: time.Second, err: errors.New("another fault's")},
	}
	if got := recovery(calls, fault); got != 3*time.Second {
		t.Fatalf("recovery %v, want 3s", got)
	}
	if got := recovery(calls[3:4], fault); got != 0 {
		t.Fatalf("recovery with no failure %v, want 0", got)
	}
}
