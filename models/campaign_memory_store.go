package models

import (
	"context"
	"time"
)

// --- campaign memories ---

// CampaignMemoryMark is how far a campaign's bank has read one audience's
// events of one session: the deepest ToSeq of its block memories.
type CampaignMemoryMark struct {
	SessionID   int64
	AudienceKey string
	ToSeq       int64
}

// CampaignMemoryMarks returns the marks of a campaign's bank, read from
// the memories themselves (one aggregate query).
func (s *Store) CampaignMemoryMarks(ctx context.Context, campaignID int64) ([]CampaignMemoryMark, error) {
	var out []CampaignMemoryMark
	err := s.db.WithContext(ctx).Model(&CampaignMemory{}).Select("session_id, audience_key, MAX(to_seq) AS to_seq").
		Where("campaign_id = ? AND kind = ?", campaignID, CampaignMemoryBlock).Group("session_id, audience_key").Scan(&out).Error
	return out, translate(err, "campaign memories")
}

// CreateCampaignMemory inserts a memory; a block already written (the same
// session, audience key and ToSeq) is a conflict.
func (s *Store) CreateCampaignMemory(ctx context.Context, m *CampaignMemory) error {
	return translate(s.db.WithContext(ctx).Omit("Campaign", "Session").Create(m).Error, "campaign memory")
}

// CampaignMemoryQuery selects a campaign's memories.
type CampaignMemoryQuery struct {
	CampaignID int64
	// SessionID, when set, keeps one session's memories.
	SessionID int64
	// NoVectors skips the embedding column (lists and lexical recall never
	// read it).
	NoVectors bool
}

// FindCampaignMemories returns a campaign's memories in story order
// (session, then the seq they end at, then id).
func (s *Store) FindCampaignMemories(ctx context.Context, q CampaignMemoryQuery) ([]CampaignMemory, error) {
	db := s.db.WithContext(ctx).Where("campaign_id = ?", q.CampaignID)
	if q.SessionID != 0 {
		db = db.Where("session_id = ?", q.SessionID)
	}
	if q.NoVectors {
		db = db.Omit("embedding")
	}
	var out []CampaignMemory
	err := db.Order("session_id, to_seq, id").Find(&out).Error
	return out, translate(err, "campaign memories")
}

// CampaignSession is a session of a campaign as its memory work reads it.
type CampaignSession struct {
	ID           int64
	Status       string
	DMSeatID     int64
	LastEventSeq int64
}

// FindCampaignSessions returns a campaign's sessions, oldest first, each
// with the seq of its newest event (one query).
func (s *Store) FindCampaignSessions(ctx context.Context, campaignID int64) ([]CampaignSession, error) {
	var out []CampaignSession
	err := s.db.WithContext(ctx).Table("sessions").
		Select("sessions.id, sessions.status, sessions.dm_seat_id, COALESCE(session_table_runtime.last_event_seq, 0) AS last_event_seq").
		Joins("LEFT JOIN session_table_runtime ON session_table_runtime.session_id = sessions.id").
		Where("sessions.campaign_id = ?", campaignID).Order("sessions.id").Scan(&out).Error
	return out, translate(err, "sessions")
}

// --- campaign memory jobs (job_store.go is their implementation) ---

// EnqueueCampaignMemoryJob asks for a campaign's memory work to run (an
// upsert: one row per campaign).
func (s *Store) EnqueueCampaignMemoryJob(ctx context.Context, campaignID int64, now time.Time) error {
	return s.enqueueJob(ctx, campaignMemoryJobs, campaignID, now)
}

// EnqueueCampaignMemoryJobOfSession is EnqueueCampaignMemoryJob for the
// campaign of a session, in one statement: an event writer knows only
// its session.
func (s *Store) EnqueueCampaignMemoryJobOfSession(ctx context.Context, sessionID int64, now time.Time) error {
	t := campaignMemoryJobs
	err := s.db.WithContext(ctx).Exec("INSERT INTO "+t.name+" ("+t.key+", due_at) SELECT campaign_id, ? FROM sessions WHERE id = ? "+
		"ON CONFLICT ("+t.key+") DO UPDATE SET due_at = excluded.due_at", now, sessionID).Error
	return translate(err, t.what)
}

// ClaimCampaignMemoryJob claims the oldest due campaign job that no live
// claim holds, for holder until until, and returns it (nil when there is
// none); see claimJob.
func (s *Store) ClaimCampaignMemoryJob(ctx context.Context, holder string, now, until time.Time) (*CampaignMemoryJob, error) {
	var job CampaignMemoryJob
	ok, err := s.claimJob(ctx, campaignMemoryJobs, &job, holder, now, until)
	if !ok {
		return nil, err
	}
	return &job, err
}

// RenewCampaignMemoryJob extends holder's claim on a campaign job.
func (s *Store) RenewCampaignMemoryJob(ctx context.Context, job *CampaignMemoryJob, until time.Time) error {
	return s.renewJob(ctx, campaignMemoryJobs, job.CampaignID, job.ClaimedBy, until)
}

// FinishCampaignMemoryJob ends holder's claim, recording lastError (""
// on success); the job stays due only when it was enqueued again after it
// was claimed.
func (s *Store) FinishCampaignMemoryJob(ctx context.Context, job *CampaignMemoryJob, lastError string, now time.Time) error {
	return s.finishJob(ctx, campaignMemoryJobs, job.CampaignID, job.ClaimedBy, job.ClaimedAt, lastError, now)
}

// ReleaseCampaignMemoryJobs frees the campaign job claims whose holder
// starts with holderPrefix (a dead previous run of this process).
func (s *Store) ReleaseCampaignMemoryJobs(ctx context.Context, holderPrefix string) (int64, error) {
	return s.releaseJobs(ctx, campaignMemoryJobs, holderPrefix)
}

// FindCampaignMemoryJob loads a campaign's job row, or nil.
func (s *Store) FindCampaignMemoryJob(ctx context.Context, campaignID int64) (*CampaignMemoryJob, error) {
	var job CampaignMemoryJob
	ok, err := s.findJob(ctx, campaignMemoryJobs, campaignID, &job)
	if !ok {
		return nil, err
	}
	return &job, nil
}
