package narrator_test

import (
	"context"
	"strings"
	"testing"

	"github.com/adventure-table/adventure-table/gameplay/table/tabletest"
	"github.com/adventure-table/adventure-table/models"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// TestNarratorInsights: the owner reads each step of the DM narrator: its
// tokens, its tool calls, its prompt's sections and the exact messages the
// model got (the same the fake model received), the secret DC in them (the
// DM's own view). A player, who may not direct the DM narrator, reads
// none of it. Only the last KeptNarratorSteps are kept.
func TestNarratorInsights(t *testing.T) {
	s := newScene(t)
	ctx := context.Background()
	s.startedByNarrator()
	s.fake.Push(toolReply(call("c2", "request_check", map[string]any{"seat_id": s.f.PlayerSeatID, "skill": "perception", "dc": 17, "label": "Spot the blade"})))
	s.fake.Push(textReply("Mira, roll Perception."))
	s.say(s.f.Seated, "@DM I watch his hands.")
	s.scan()

	steps, err := s.svc.Table.NarratorSteps(ctx, s.f.Owner, s.f.DMSeatID)
	tabletest.Must(t, err)
	if len(steps) != 2 || steps[0].ToolCalls != 1 || steps[0].PromptTokens != 900+950 || steps[0].CompletionTokens != 40+30 || steps[0].Outcome != "" {
		t.Fatalf("steps: %+v", steps)
	}
	step, err := s.svc.Table.NarratorStep(ctx, s.f.Owner, s.f.DMSeatID, steps[0].ID)
	tabletest.Must(t, err)
	rec := step.Record
	sent := s.fake.Requests()[len(s.fake.Requests())-1].Messages
	if len(rec.Messages) != len(sent)+1 {
		t.Fatalf("the record holds %d messages; the model's last request had %d (and then its narration)", len(rec.Messages), len(sent))
	}
	for i, m := range sent {
		if rec.Messages[i].Role != m.Role || rec.Messages[i].Content != m.Content {
			t.Fatalf("message %d: recorded %s %q, sent %s %q", i, rec.Messages[i].Role, rec.Messages[i].Content, m.Role, m.Content)
		}
	}
	if c := rec.Messages[2].ToolCalls; len(c) != 1 || c[0].Name != "request_check" || !strings.Contains(c[0].Arguments, `"dc":17`) {
		t.Fatalf("the model's call is not recorded: %+v", rec.Messages[2])
	}
	if last := rec.Messages[len(rec.Messages)-1]; last.Role != "assistant" || last.Content != "Mira, roll Perception." {
		t.Fatalf("the narration is not the record's last message: %+v", last)
	}
	names := map[string]int{}
	for _, sec := range rec.Sections {
		names[sec.Name] = sec.Tokens
	}
	for _, want := range []string{"instructions", "tool definitions", "the table (get_session_context)", "the model's replies and calls", "tool results"} {
		if names[want] <= 0 {
			t.Fatalf("section %q has no tokens: %+v", want, rec.Sections)
		}
	}
	if len(rec.Tools) != len(s.tools.Specs())-1 {
		t.Fatalf("tools offered %v", rec.Tools)
	}

	// A player may not read the DM narrator's steps (its prompt holds the DC).
	for _, err := range []error{
		func() error { _, err := s.svc.Table.NarratorSteps(ctx, s.f.Seated, s.f.DMSeatID); return err }(),
		func() error {
			_, err := s.svc.Table.NarratorStep(ctx, s.f.Seated, s.f.DMSeatID, steps[0].ID)
			return err
		}(),
	} {
		if apperr.CodeOf(err) != apperr.RoomAuthorityRequired {
			t.Fatalf("a player reading the DM narrator's steps: %v", err)
		}
	}

	// Only the last steps are kept.
	for i := range models.KeptNarratorSteps {
		s.fake.Push(textReply("The fire crackles."))
		s.say(s.f.Seated, "@DM and now? "+strings.Repeat("!", i))
		s.scan()
	}
	steps, err = s.svc.Table.NarratorSteps(ctx, s.f.Owner, s.f.DMSeatID)
	tabletest.Must(t, err)
	if len(steps) != models.KeptNarratorSteps || steps[len(steps)-1].ID <= step.ID {
		t.Fatalf("%d steps listed, the oldest %d; want the last %d, after step %d", len(steps), steps[len(steps)-1].ID, models.KeptNarratorSteps, step.ID)
	}
	if _, err := s.svc.Table.NarratorStep(ctx, s.f.Owner, s.f.DMSeatID, step.ID); apperr.CodeOf(err) != apperr.NotFound {
		t.Fatalf("the oldest step should be gone: %v", err)
	}
}
