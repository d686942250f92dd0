package models

import (
	"context"
	"errors"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// A memory job table holds one row per owner (an adventure, a campaign):
// enqueueing is an upsert that sets due_at, a worker claims a due row for a
// while (claimed_by, claimed_until) and renews the claim as it writes, and
// finishing clears due_at unless the job was enqueued again meanwhile. The
// work is always derived from the data, never from the row. MemoryJob and
// CampaignMemoryJob are such tables; these functions are their one
// implementation, parametrised by the table and its key column.

// jobTable names a memory job table and its key (its primary key).
type jobTable struct {
	name string
	key  string
	what string // for errors
}

var (
	memoryJobs         = jobTable{name: "memory_jobs", key: "adventure_id", what: "memory job"}
	campaignMemoryJobs = jobTable{name: "campaign_memory_jobs", key: "campaign_id", what: "campaign memory job"}
)

// enqueueJob upserts the job of key as due at now.
func (s *Store) enqueueJob(ctx context.Context, t jobTable, key int64, now time.Time) error {
	err := s.db.WithContext(ctx).Exec("INSERT INTO "+t.name+" ("+t.key+", due_at) VALUES (?, ?) ON CONFLICT ("+t.key+") DO UPDATE SET due_at = excluded.due_at",
		key, now).Error
	return translate(err, t.what)
}

// claimJob claims the oldest due job of t that no live claim holds, for
// holder until until, and reads it into row (a pointer to the table's row
// type, whose primary key is the job's key); false when there is none. On
// PostgreSQL the row is locked FOR UPDATE SKIP LOCKED, so several server
// processes never claim one job twice; on SQLite the transaction's BEGIN
// IMMEDIATE serialises claimers. The row read carries the claim.
func (s *Store) claimJob(ctx context.Context, t jobTable, row any, holder string, now, until time.Time) (bool, error) {
	claimed := false
	err := s.Tx(ctx, func(tx *Store) error {
		db := tx.db.WithContext(ctx).Table(t.name).Where("due_at IS NOT NULL AND due_at <= ? AND (claimed_until IS NULL OR claimed_until < ?)", now, now)
		if s.dialect == Postgres {
			db = db.Clauses(clause.Locking{Strength: "UPDATE", Options: "SKIP LOCKED"})
		}
		err := db.Order("due_at, " + t.key).Take(row).Error
		if errors.Is(err, gorm.ErrRecordNotFound) {
			return nil
		}
		if err != nil {
			return translate(err, t.what)
		}
		// The row's primary key (the job's key) is the update's condition.
		err = tx.db.WithContext(ctx).Model(row).
			Updates(map[string]any{"claimed_by": holder, "claimed_at": now, "claimed_until": until, "runs": gorm.Expr("runs + 1")}).Error
		if err != nil {
			return translate(err, t.what)
		}
		claimed = true
		return translate(tx.db.WithContext(ctx).Take(row).Error, t.what)
	})
	return claimed, err
}

// renewJob extends holder's claim on the job of key.
func (s *Store) renewJob(ctx context.Context, t jobTable, key int64, holder string, until time.Time) error {
	err := s.db.WithContext(ctx).Table(t.name).Where(t.key+" = ? AND claimed_by = ?", key, holder).Update("claimed_until", until).Error
	return translate(err, t.what)
}

// finishJob ends holder's claim on the job of key (claimed at claimedAt),
// recording lastError ("" on success). The job stays due only when it was
// enqueued again after it was claimed.
func (s *Store) finishJob(ctx context.Context, t jobTable, key int64, holder string, claimedAt *time.Time, lastError string, now time.Time) error {
	err := s.db.WithContext(ctx).Table(t.name).Where(t.key+" = ? AND claimed_by = ?", key, holder).
		Updates(map[string]any{
			"due_at":        gorm.Expr("CASE WHEN due_at > ? THEN due_at ELSE NULL END", claimedAt),
			"claimed_by":    "",
			"claimed_at":    nil,
			"claimed_until": nil,
			"last_error":    lastError,
			"last_run_at":   now,
		}).Error
	return translate(err, t.what)
}

// releaseJobs frees the claims of t whose holder starts with holderPrefix
// (a dead previous run of this process), so the work resumes at once.
func (s *Store) releaseJobs(ctx context.Context, t jobTable, holderPrefix string) (int64, error) {
	res := s.db.WithContext(ctx).Table(t.name).Where("claimed_by LIKE ?", holderPrefix+"%").
		Updates(map[string]any{"claimed_by": "", "claimed_at": nil, "claimed_until": nil})
	return res.RowsAffected, translate(res.Error, t.what)
}

// findJob reads the job of key into row; false when there is none.
func (s *Store) findJob(ctx context.Context, t jobTable, key int64, row any) (bool, error) {
	err := s.db.WithContext(ctx).Table(t.name).Where(t.key+" = ?", key).Take(row).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return false, nil
	}
	return err == nil, translate(err, t.what)
}
