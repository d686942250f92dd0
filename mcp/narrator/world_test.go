package narrator_test

import (
	"context"
	"strings"
	"testing"

	"github.com/adventure-table/adventure-table/gameplay/narrative"
	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/gameplay/table/tabletest"
)

// TestNarratorWorldWithinBudget: the DM narrator's prompt carries the
// campaign's world as its own section (Insights counts it); with the
// owner's smallest context budget its stat blocks go, never its
// instructions or the premise.
func TestNarratorWorldWithinBudget(t *testing.T) {
	s := newScene(t)
	ctx := context.Background()
	_, err := s.svc.Table.SetCampaignWorld(ctx, s.f.Owner, s.f.CampaignID, table.World{
		Premise: "PREMISE: a drowned city.", PlotEssentials: "PLOT: the harbourmaster sank it.",
		NPCs: []table.WorldNPC{{Name: "Vell", StatBlock: "STATS-VELL AC 15 HP 40"}}})
	tabletest.Must(t, err)
	s.startedByNarrator()
	first := s.fake.Requests()[0].Messages
	if len(first) < 3 || !strings.Contains(first[2].Content, "STATS-VELL") || !strings.Contains(first[2].Content, "PLOT") || strings.Contains(first[1].Content, "PLOT") {
		t.Fatalf("default budget: want the whole world as the third message: %+v", first)
	}
	instructions := first[0].Content
	steps, err := s.svc.Table.NarratorSteps(ctx, s.f.Owner, s.f.DMSeatID)
	tabletest.Must(t, err)
	step, err := s.svc.Table.NarratorStep(ctx, s.f.Owner, s.f.DMSeatID, steps[0].ID)
	tabletest.Must(t, err)
	found := false
	for _, sec := range step.Record.Sections {
		found = found || sec.Name == "the campaign's world" && sec.Tokens > 0
	}
	if !found {
		t.Fatalf("no world section in %+v", step.Record.Sections)
	}

	// The owner's smallest budget: the tool list alone exceeds it.
	_, err = s.svc.Narrative.PutSettings(ctx, s.f.Owner.UserID, narrative.ProviderSettingsInput{BaseURL: s.fake.URL(), Model: "fake",
		ContextBudget: 512, MaxOutputTokens: 300, Temperature: 0.7, TopP: 1})
	tabletest.Must(t, err)
	s.fake.Push(textReply("The tide turns."))
	s.say(s.f.Seated, "@DM what do I see?")
	s.scan()
	reqs := s.fake.Requests()
	last := reqs[len(reqs)-1].Messages
	if last[0].Content != instructions {
		t.Errorf("the instructions changed under the budget: %q", last[0].Content)
	}
	if len(last) < 3 || strings.Contains(last[2].Content, "STATS-VELL") || !strings.Contains(last[2].Content, "PREMISE") || !strings.Contains(last[2].Content, "Vell") {
		t.Errorf("small budget: want the world without its stat block: %+v", last)
	}
	if strings.Contains(last[1].Content, `"recent"`) {
		t.Errorf("small budget: recent events should be gone first: %q", last[1].Content)
	}
}
