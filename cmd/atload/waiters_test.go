package main

import (
	"strings"
	"testing"
	"time"
)

// TestTally checks the verdicts: a missed post, a duplicate, a post of
// another session and a whisper to someone else are each a problem; a
// clean delivery is not.
func TestTally(t *testing.T) {
	posts := &postLog{}
	t0 := time.Unix(1000, 0)
	p0 := posts.add(0, t0)                    // table 0
	p1 := posts.add(1, t0.Add(time.Second))   // table 1
	p2 := posts.add(0, t0.Add(2*time.Second)) // table 0
	w0 := posts.addWhisper(whisper{table: 0, kind: "http", who: 0})
	text := func(kind byte, n int, sent time.Time) string { return marker{kind: kind, n: n, sent: sent}.String() }

	newWaiter := func(table, who int) *waiter {
		return &waiter{kind: "http", table: table, who: who, posts: map[int]time.Time{}, whispers: map[int]bool{}}
	}
	good := newWaiter(0, 0) // everything of table 0, and the whisper
	good.observe([]string{text('p', p0, t0), "plain chat", text('w', w0, t0)}, t0.Add(10*time.Millisecond), posts)
	good.observe([]string{text('p', p2, t0.Add(2*time.Second))}, t0.Add(2*time.Second+20*time.Millisecond), posts)
	other := newWaiter(1, 0) // table 1: its post only
	other.observe([]string{text('p', p1, t0.Add(time.Second))}, t0.Add(time.Second+5*time.Millisecond), posts)

	rep := &report{}
	w := tally([]*waiter{good, other}, posts, rep)
	if len(rep.Problems) != 0 || w.Missed != 0 || w.All.N != 3 || w.All.Max != 20 {
		t.Fatalf("clean run: problems %v, wake %+v", rep.Problems, w)
	}

	leaky := newWaiter(0, 1) // another identity at table 0
	leaky.observe([]string{text('p', p0, t0), text('p', p0, t0), text('w', w0, t0), text('p', p1, t0)}, t0, posts)
	rep = &report{}
	w = tally([]*waiter{leaky}, posts, rep)
	if w.Missed != 1 || w.Duplicates != 1 || w.Forbidden != 2 {
		t.Fatalf("got missed %d, duplicates %d, forbidden %d; want 1, 1, 2", w.Missed, w.Duplicates, w.Forbidden)
	}
	if got := strings.Join(rep.Problems, "\n"); !strings.Contains(got, "missed") || !strings.Contains(got, "must not") {
		t.Fatalf("problems: %s", got)
	}
}

// TestMarkerTexts: the markers of a page as the stream sends it are found
// in its JSON, every one and nothing else.
func TestMarkerTexts(t *testing.T) {
	page := `{"events":[{"seq":7,"kind":"message","payload":{"text":"atload p=3 t=1700000000000000000"}},` +
		`{"seq":8,"kind":"message","payload":{"text":"plain chat"}},` +
		`{"seq":9,"kind":"message","payload":{"text":"atload w=0 t=1700000000000000001"}}],"cursor":9}`
	got := markerTexts([]byte(page))
	if len(got) != 2 {
		t.Fatalf("found %q, want the two markers", got)
	}
	for i, want := range []marker{{kind: 'p', n: 3, sent: time.Unix(0, 1700000000000000000)}, {kind: 'w', n: 0, sent: time.Unix(0, 1700000000000000001)}} {
		if m, ok := parseMarker(got[i]); !ok || m != want {
			t.Fatalf("marker %d: %q parsed as %+v, want %+v", i, got[i], m, want)
		}
	}
	if got := markerTexts([]byte(`{"events":[],"cursor":9}`)); len(got) != 0 {
		t.Fatalf("an empty page has markers %q", got)
	}
}
