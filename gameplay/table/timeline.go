package table

import (
	"context"
	"encoding/json"
	"time"

	"github.com/adventure-table/adventure-table/models"
)

// CampaignTimeline is a campaign's story so far: its sessions, oldest
// first, each with its posted recap, its fights, who died in them and the
// journal entries it added, as the caller may read them.
type CampaignTimeline struct {
	CampaignID   int64             `json:"campaign_id"`
	CampaignName string            `json:"campaign_name"`
	RoomID       int64             `json:"room_id"`
	Sessions     []TimelineSession `json:"sessions"`
}

// TimelineSession is one session on the timeline.
type TimelineSession struct {
	ID        int64      `json:"id"`
	Number    int        `json:"number" jsonschema:"1 for the campaign's first session"`
	Status    string     `json:"status" jsonschema:"lobby, active, ended or abandoned"`
	StartedAt *time.Time `json:"started_at"`
	EndedAt   *time.Time `json:"ended_at"`
	// Recap is the "Previously on…" posted at its start; a draft is the
	// DM's alone and never shows here.
	Recap   string          `json:"recap,omitempty"`
	Fights  []TimelineFight `json:"fights"`
	Deaths  []string        `json:"deaths" jsonschema:"the combatants who died in its fights"`
	Journal []TimelineEntry `json:"journal" jsonschema:"the journal entries it added that the caller may read"`
}

// TimelineFight is a fight that ended in a session.
type TimelineFight struct {
	Name   string `json:"name"`
	Rounds int    `json:"rounds"`
}

// TimelineEntry names a journal entry on the timeline.
type TimelineEntry struct {
	ID    int64  `json:"id"`
	Kind  string `json:"kind"`
	Title string `json:"title"`
}

// CampaignTimeline returns the campaign's timeline for the caller: a
// member of its room, or an AI of its session. Fights come from their
// public encounter.ended events (never a hidden NPC's numbers), passed
// through the feed's audience rule; journal entries through the journal's.
// An entry belongs to the session it cites, else to the last session
// started before it was written. Returns not_found, room_access_revoked.
func (s *Service) CampaignTimeline(ctx context.Context, c Caller, campaignID int64) (CampaignTimeline, error) {
	js, err := loadJournal(ctx, s.store, c, campaignID)
	if err != nil {
		return CampaignTimeline{}, err
	}
	sessions, err := s.store.FindSessionsOfCampaign(ctx, js.camp.ID)
	if err != nil {
		return CampaignTimeline{}, err
	}
	out := CampaignTimeline{CampaignID: js.camp.ID, CampaignName: js.camp.Name, RoomID: js.camp.RoomID, Sessions: make([]TimelineSession, 0, len(sessions))}
	ids := make([]int64, 0, len(sessions))
	at := map[int64]int{}
	for i, se := range sessions {
		ts := TimelineSession{ID: se.ID, Number: i + 1, Status: se.Status, StartedAt: se.StartedAt, EndedAt: se.EndedAt,
			Fights: []TimelineFight{}, Deaths: []string{}, Journal: []TimelineEntry{}}
		if se.RecapStatus == models.RecapPosted {
			ts.Recap = se.RecapText
		}
		out.Sessions = append(out.Sessions, ts)
		ids = append(ids, se.ID)
		at[se.ID] = i
	}
	ended, err := s.store.FindEventsOfKind(ctx, ids, EventEncounterEnded)
	if err != nil {
		return CampaignTimeline{}, err
	}
	events := campaignViewer(js.actor, js.seats)
	for _, e := range ended {
		if e.Visibility != models.VisibilityPublic || !events.sees(e) {
			continue
		}
		var p struct {
			Encounter struct {
				Name string `json:"name"`
			} `json:"encounter"`
			Summary struct {
				Rounds     int                `json:"rounds"`
				Combatants []CombatantSummary `json:"combatants"`
			} `json:"summary"`
		}
		if json.Unmarshal([]byte(e.Payload), &p) != nil {
			continue
		}
		ts := &out.Sessions[at[e.SessionID]]
		ts.Fights = append(ts.Fights, TimelineFight{Name: p.Encounter.Name, Rounds: p.Summary.Rounds})
		for _, cb := range p.Summary.Combatants {
			if cb.Status == "dead" {
				ts.Deaths = append(ts.Deaths, cb.Name)
			}
		}
	}
	if err := s.placeJournal(ctx, js, sessions, at, &out); err != nil {
		return CampaignTimeline{}, err
	}
	return out, nil
}

// placeJournal puts each journal entry the caller may read on the session
// that added it.
func (s *Service) placeJournal(ctx context.Context, js journalScope, sessions []models.Session, at map[int64]int, out *CampaignTimeline) error {
	if len(sessions) == 0 {
		return nil
	}
	q := models.JournalQuery{}
	if !js.v.dm {
		q.Audiences = []string{models.AudienceTable, models.AudienceSeats}
	}
	heads, err := s.store.FindJournalHeads(ctx, js.camp.ID, q)
	if err != nil {
		return err
	}
	var ids []int64
	for _, h := range heads {
		if js.v.seesAudience(h.Audience, h.SeatIDs) {
			ids = append(ids, h.ID)
		}
	}
	rows, err := s.store.FindJournalEntriesByID(ctx, ids)
	if err != nil {
		return err
	}
	// rows come newest first: walked backwards, each session lists its
	// entries in the order they were written
	for i := len(rows) - 1; i >= 0; i-- {
		e := rows[i]
		if !js.v.seesAudience(e.Audience, e.SeatIDs) {
			continue
		}
		place := 0
		if cited, ok := citedSession(e, at); ok {
			place = cited
		} else {
			for i, se := range sessions {
				if started := se.StartedAt; started != nil && !started.After(e.CreatedAt) {
					place = i
				}
			}
		}
		ts := &out.Sessions[place]
		ts.Journal = append(ts.Journal, TimelineEntry{ID: e.ID, Kind: e.Kind, Title: e.Title})
	}
	return nil
}

// citedSession is the place on the timeline of the session an entry cites.
func citedSession(e models.JournalEntry, at map[int64]int) (int, bool) {
	if e.SourceSessionID == nil {
		return 0, false
	}
	i, ok := at[*e.SourceSessionID]
	return i, ok
}
