package table

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/adventure-table/adventure-table/gameplay/narrative/recall"
	"github.com/adventure-table/adventure-table/models"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// Reading what a campaign remembers: every read goes through the viewer's
// seesMemory (events.go), the one audience rule of events and memories.

// Recall limits.
const (
	DefaultRecall = 5
	MaxRecall     = 10
	// maxRecallQuery bounds a recall query, in characters.
	maxRecallQuery = 4000
	// contextRecall is how many memories the agent's table context
	// (Now) recalls, and contextQueryLines how many of the newest lines
	// it asks with: the newest play, not the whole window, which would
	// dilute what the scene is about (the solo bank asks with 3 turns).
	contextRecall     = 3
	contextQueryLines = 4
)

// CampaignMemoryView is one memory of a campaign as a reader may see it.
type CampaignMemoryView struct {
	ID        int64 `json:"id"`
	SessionID int64 `json:"session_id"`
	// Audience is who it was made for: table, seats (SeatIDs) or dm.
	Audience  string    `json:"audience" jsonschema:"table, seats or dm"`
	SeatIDs   []int64   `json:"seat_ids,omitempty" jsonschema:"with audience seats: the seats that saw its events"`
	Kind      string    `json:"kind" jsonschema:"block (written from a block of events) or note"`
	FromSeq   int64     `json:"from_seq"`
	ToSeq     int64     `json:"to_seq"`
	Text      string    `json:"text"`
	CreatedAt time.Time `json:"created_at"`
	// Score is how well it matched a recall's query; 0 in a list.
	Score float64 `json:"score,omitempty"`
}

// CampaignMemoryList is what a reader may see of a campaign's memory.
type CampaignMemoryList struct {
	CampaignID int64                `json:"campaign_id"`
	Memories   []CampaignMemoryView `json:"memories" jsonschema:"in story order"`
	// Pending says memory work is queued or running.
	Pending bool `json:"pending"`
}

func memoryView(m models.CampaignMemory) CampaignMemoryView {
	return CampaignMemoryView{ID: m.ID, SessionID: m.SessionID, Audience: m.Audience, SeatIDs: m.SeatIDs, Kind: m.Kind,
		FromSeq: m.FromSeq, ToSeq: m.ToSeq, Text: m.Text, CreatedAt: m.CreatedAt}
}

// campaignViewer is the viewer at a campaign outside a session: the DM
// seat's controller is the DM; every seat a caller controls is theirs.
func campaignViewer(a Actor, seats []models.CampaignSeat) viewer {
	v := viewer{seats: map[int64]bool{}}
	for _, seat := range seats {
		if controls(a, seat) {
			v.seats[seat.ID] = true
			v.dm = v.dm || seat.Role == models.SeatDM
		}
	}
	return v
}

// visibleMemories reads a campaign's memories (without vectors) and keeps
// those v may see.
func (s *Service) visibleMemories(ctx context.Context, campaignID int64, v viewer) ([]models.CampaignMemory, error) {
	rows, err := s.store.FindCampaignMemories(ctx, models.CampaignMemoryQuery{CampaignID: campaignID, NoVectors: true})
	return slices.DeleteFunc(rows, func(m models.CampaignMemory) bool { return !v.seesMemory(m) }), err
}

// CampaignMemories lists the memories of a campaign the caller may see.
// Returns not_found when the caller is not in the campaign's room.
func (s *Service) CampaignMemories(ctx context.Context, c Caller, campaignID int64) (CampaignMemoryList, error) {
	camp, a, err := campaignActor(ctx, s.store, c, campaignID)
	if err != nil {
		return CampaignMemoryList{}, err
	}
	seats, err := s.store.FindSeatsOfCampaigns(ctx, []int64{camp.ID})
	if err != nil {
		return CampaignMemoryList{}, err
	}
	rows, err := s.visibleMemories(ctx, camp.ID, campaignViewer(a, seats))
	if err != nil {
		return CampaignMemoryList{}, err
	}
	out := CampaignMemoryList{CampaignID: camp.ID, Memories: []CampaignMemoryView{}}
	for _, m := range rows {
		out.Memories = append(out.Memories, memoryView(m))
	}
	job, err := s.store.FindCampaignMemoryJob(ctx, camp.ID)
	if job != nil {
		out.Pending = job.DueAt != nil || job.ClaimedBy != ""
	}
	return out, err
}

// RecallMemories returns at most k (0: DefaultRecall, up to MaxRecall) of
// the memories of the session's campaign that the caller may see, best
// matching query first: the solo bank's recall (narrative/recall), scored
// lexically, above its minimum score, so nothing relevant recalls nothing.
// Returns invalid_request, and the errors of ListEvents.
func (s *Service) RecallMemories(ctx context.Context, c Caller, sessionID int64, query string, k int) ([]CampaignMemoryView, error) {
	if k == 0 {
		k = DefaultRecall
	}
	if k < 1 || k > MaxRecall {
		return nil, apperr.E(apperr.InvalidRequest, "k must be 1 to %d.", MaxRecall).WithField("k", "1 to 10")
	}
	if !models.StorableText(query) || utf8.RuneCountInString(query) > maxRecallQuery {
		return nil, apperr.E(apperr.InvalidRequest, "The query is at most %d characters of text.", maxRecallQuery).WithField("query", "at most 4000 characters")
	}
	sc, err := loadAudience(ctx, s.store, c, sessionID, false)
	if err != nil {
		return nil, err
	}
	return s.recallFor(ctx, sc.session.CampaignID, sc.viewer(), query, k)
}

// recallFor picks the memories v may see that best match query, best
// first.
func (s *Service) recallFor(ctx context.Context, campaignID int64, v viewer, query string, k int) ([]CampaignMemoryView, error) {
	out := []CampaignMemoryView{}
	if strings.TrimSpace(query) == "" {
		return out, nil
	}
	rows, err := s.visibleMemories(ctx, campaignID, v)
	if err != nil || len(rows) == 0 {
		return out, err
	}
	byID := map[int64]models.CampaignMemory{}
	docs := make([]recall.Doc, len(rows))
	for i, m := range rows {
		byID[m.ID] = m
		docs[i] = recall.Doc{ID: m.ID, Text: m.Text}
	}
	for _, p := range recall.Select(docs, recall.Query{Text: query}, recall.Options{K: k}) {
		mv := memoryView(byID[p.ID])
		mv.Score = p.Score
		out = append(out, mv)
	}
	slices.SortStableFunc(out, func(a, b CampaignMemoryView) int { return cmp.Compare(b.Score, a.Score) })
	return out, nil
}

// contextQuery is the recall query of a table context: the lines of the
// newest events the caller saw.
func contextQuery(events []EventView, names seatNames) string {
	var lines []string
	for i := len(events) - 1; i >= 0 && len(lines) < contextQueryLines; i-- {
		e := events[i]
		if l := eventLine(e.Kind, e.ActingSeatID, e.SubjectSeatID, []byte(e.Payload), names); l != "" {
			lines = append(lines, l)
		}
	}
	slices.Reverse(lines)
	return strings.Join(lines, "\n")
}
