package narrator_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/adventure-table/adventure-table/gameplay/llm/llmtest"
	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/gameplay/table/tabletest"
)

// seenBy is the narrator at seatID as caller c reads it.
func (s *scene) seenBy(c table.Caller, seatID int64) table.NarratorView {
	s.t.Helper()
	list, err := s.svc.Table.ListNarrators(context.Background(), c, s.f.RoomID)
	tabletest.Must(s.t, err)
	for _, n := range list {
		if n.SeatID == seatID {
			return n
		}
	}
	s.t.Fatalf("no narrator at seat %d in %+v", seatID, list)
	return table.NarratorView{}
}

// until polls the narrator as the player sees it until ok holds (a
// condition, not a timing: the bound only stops a broken build hanging).
func (s *scene) until(what string, ok func(table.NarratorView) bool) table.NarratorView {
	s.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		v := s.seenBy(s.f.Seated, s.f.DMSeatID)
		if ok(v) {
			return v
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("%s: never; last seen %+v", what, v)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestNarrationStreamsIntoTheFeed: while the model writes, a player reads
// the narration so far (state writing); once posted, the draft is gone. A
// DM's draft that comes to name a DC is taken down before the DC reaches
// anyone, and the narration posted after the review has none.
func TestNarrationStreamsIntoTheFeed(t *testing.T) {
	s := newScene(t)
	s.startedByNarrator()

	hold := make(chan struct{})
	s.fake.Push(llmtest.Reply{Chunks: []string{"The stranger ", "leans close ", "and whispers."}, FinishReason: "stop",
		Hold: hold, HoldAfter: 1})
	s.say(s.f.Seated, "@DM who is he?")
	done := make(chan struct{})
	go func() { s.scan(); close(done) }()
	v := s.until("the first words show", func(v table.NarratorView) bool { return v.State == table.NarratorWriting })
	if v.Draft != "The stranger" {
		t.Fatalf("the player reads %q while the model writes, want the words so far", v.Draft)
	}
	close(hold)
	<-done
	evs := s.events(s.f.Seated, 0)
	last := evs[len(evs)-1]
	if last.Kind != table.EventMessagePosted || !strings.Contains(string(last.Payload), "The stranger leans close and whispers.") {
		t.Fatalf("last event %s %s, want the whole narration", last.Kind, last.Payload)
	}
	if v := s.seenBy(s.f.Seated, s.f.DMSeatID); v.Draft != "" || v.State != table.NarratorIdle {
		t.Fatalf("after the post the narrator is %q with draft %q", v.State, v.Draft)
	}

	// A DM's draft that comes to name a DC is taken down (readable, below);
	// the narration posted after the review has none.
	hold = make(chan struct{})
	s.fake.Push(llmtest.Reply{Chunks: []string{"The lock looks sturdy: ", "DC 15 to pick", " it."}, FinishReason: "stop",
		Hold: hold, HoldAfter: 1})
	s.fake.Push(textReply("The lock looks sturdy; it will take skill to pick it."))
	s.say(s.f.Seated, "@DM can I pick the lock?")
	done = make(chan struct{})
	go func() { s.scan(); close(done) }()
	s.until("the words before the DC show", func(v table.NarratorView) bool { return v.Draft == "The lock looks sturdy:" })
	close(hold)
	<-done
	for _, e := range s.events(s.f.Seated, 0) {
		if strings.Contains(string(e.Payload), "DC 15") {
			t.Fatalf("the player read the DC: %s %s", e.Kind, e.Payload)
		}
	}
	if v := s.seenBy(s.f.Owner, s.f.DMSeatID); v.Draft != "" || v.LastError != "narrator_secret_in_public" {
		t.Fatalf("after the step: draft %q, last error %q (want the leak flagged)", v.Draft, v.LastError)
	}
}
