package models

import (
	"context"
	"time"

	"gorm.io/gorm"
)

// --- memories ---

// MemoryQuery selects the memories that hang off a line.
type MemoryQuery struct {
	AdventureID int64
	Line        []LineSegment
	Kinds       []string // empty means every kind
	// Remembered leaves out forgotten memories (retrieval); the bank screen
	// lists them too.
	Remembered bool
	// NoVectors skips the embedding column (the screen never shows it).
	NoVectors bool
}

// LineMemories returns the memories whose coordinate lies on a line, in
// story order (depth, then id).
func (s *Store) LineMemories(ctx context.Context, q MemoryQuery) ([]Memory, error) {
	cond, args := onLine(q.Line)
	db := s.db.WithContext(ctx).Where("adventure_id = ?", q.AdventureID).Where(cond, args...)
	if len(q.Kinds) > 0 {
		db = db.Where("kind IN ?", q.Kinds)
	}
	if q.Remembered {
		db = db.Where("NOT forgotten")
	}
	if q.NoVectors {
		db = db.Omit("embedding")
	}
	var rows []Memory
	err := db.Order("depth, id").Find(&rows).Error
	return rows, translate(err, "memories")
}

// AdventureMemories returns every memory of an adventure (all lines), in
// story order; the rewrite tool and eviction use it.
func (s *Store) AdventureMemories(ctx context.Context, adventureID int64, kinds ...string) ([]Memory, error) {
	db := s.db.WithContext(ctx).Where("adventure_id = ?", adventureID)
	if len(kinds) > 0 {
		db = db.Where("kind IN ?", kinds)
	}
	var rows []Memory
	err := db.Omit("embedding").Order("branch_id, depth, id").Find(&rows).Error
	return rows, translate(err, "memories")
}

// FindMemory loads one memory.
func (s *Store) FindMemory(ctx context.Context, id int64) (*Memory, error) {
	var m Memory
	err := s.db.WithContext(ctx).Where("id = ?", id).Take(&m).Error
	return &m, translate(err, "memory")
}

// CreateMemory inserts a memory.
func (s *Store) CreateMemory(ctx context.Context, m *Memory) error {
	return translate(s.db.WithContext(ctx).Create(m).Error, "memory")
}

// UpdateMemory changes columns of one memory.
func (s *Store) UpdateMemory(ctx context.Context, id int64, fields map[string]any) error {
	return translate(s.db.WithContext(ctx).Model(&Memory{}).Where("id = ?", id).Updates(fields).Error, "memory")
}

// DeleteMemories deletes memories by id.
func (s *Store) DeleteMemories(ctx context.Context, ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	return translate(s.db.WithContext(ctx).Where("id IN ?", ids).Delete(&Memory{}).Error, "memories")
}

// WithdrawMemoriesAt deletes the memories that hang off a coordinate: the
// node there is being replaced or removed, and a memory anchored to a node
// goes with it. The root (depth 0) is the exception: every line reads it,
// so withdrawing there would retire a whole bank in a click.
func (s *Store) WithdrawMemoriesAt(ctx context.Context, branchID int64, depth int) error {
	if depth <= 0 {
		return nil
	}
	err := s.db.WithContext(ctx).Where("branch_id = ? AND depth = ?", branchID, depth).Delete(&Memory{}).Error
	return translate(err, "memories")
}

// MarkMemoriesStale marks the block memories and summaries of the given
// branches that cover depth: a turn there was edited or deleted after they
// were written.
func (s *Store) MarkMemoriesStale(ctx context.Context, adventureID int64, branchIDs []int64, depth int) error {
	if len(branchIDs) == 0 {
		return nil
	}
	err := s.db.WithContext(ctx).Model(&Memory{}).
		Where("adventure_id = ? AND branch_id IN ? AND kind IN ? AND from_depth <= ? AND depth >= ?",
			adventureID, branchIDs, []string{MemoryBlock, MemorySummary}, depth, depth).
		Update("stale", true).Error
	return translate(err, "memories")
}

// RecordMemoryUse counts one use of each memory by the prompt of action.
func (s *Store) RecordMemoryUse(ctx context.Context, ids []int64, actionID int64, at time.Time) error {
	if len(ids) == 0 {
		return nil
	}
	err := s.db.WithContext(ctx).Model(&Memory{}).Where("id IN ?", ids).Updates(map[string]any{
		"uses": gorm.Expr("uses + 1"), "last_used_at": at, "last_used_action_id": actionID}).Error
	return translate(err, "memories")
}

// ForgetLeastUsed marks forgotten the least used (then least recently
// used, then oldest) unpinned memories of an adventure beyond capacity
// remembered ones, and returns how many. Nothing is deleted.
func (s *Store) ForgetLeastUsed(ctx context.Context, adventureID int64, capacity int, now time.Time) (int64, error) {
	remembered := s.db.WithContext(ctx).Model(&Memory{}).
		Where("adventure_id = ? AND kind IN ? AND NOT forgotten", adventureID, []string{MemoryBlock, MemoryNote})
	var n int64
	if err := remembered.Count(&n).Error; err != nil || n <= int64(capacity) {
		return 0, translate(err, "memories")
	}
	var ids []int64
	err := s.db.WithContext(ctx).Model(&Memory{}).
		Where("adventure_id = ? AND kind IN ? AND NOT forgotten AND NOT pinned", adventureID, []string{MemoryBlock, MemoryNote}).
		Order("uses, last_used_at IS NOT NULL, last_used_at, id").Limit(int(n)-capacity).Pluck("id", &ids).Error
	if err != nil || len(ids) == 0 {
		return 0, translate(err, "memories")
	}
	res := s.db.WithContext(ctx).Model(&Memory{}).Where("id IN ?", ids).Updates(map[string]any{"forgotten": true, "updated_at": now})
	return res.RowsAffected, translate(res.Error, "memories")
}

// --- memory jobs (job_store.go is their implementation) ---

// EnqueueMemoryJob asks for an adventure's memory work to run (an upsert:
// one row per adventure).
func (s *Store) EnqueueMemoryJob(ctx context.Context, adventureID int64, now time.Time) error {
	return s.enqueueJob(ctx, memoryJobs, adventureID, now)
}

// ClaimMemoryJob claims the oldest due job that no live claim holds, for
// holder until until, and returns it (nil when there is none); see claimJob.
func (s *Store) ClaimMemoryJob(ctx context.Context, holder string, now, until time.Time) (*MemoryJob, error) {
	var job MemoryJob
	ok, err := s.claimJob(ctx, memoryJobs, &job, holder, now, until)
	if !ok {
		return nil, err
	}
	return &job, err
}

// RenewMemoryJob extends holder's claim on a job.
func (s *Store) RenewMemoryJob(ctx context.Context, job *MemoryJob, until time.Time) error {
	return s.renewJob(ctx, memoryJobs, job.AdventureID, job.ClaimedBy, until)
}

// FinishMemoryJob ends holder's claim, recording lastError ("" on
// success). The job stays due only when it was enqueued again after it was
// claimed; a failed job otherwise waits for the next turn to enqueue it.
func (s *Store) FinishMemoryJob(ctx context.Context, job *MemoryJob, lastError string, now time.Time) error {
	return s.finishJob(ctx, memoryJobs, job.AdventureID, job.ClaimedBy, job.ClaimedAt, lastError, now)
}

// ReleaseMemoryJobs frees the claims whose holder starts with holderPrefix
// (a dead previous run of this process), so the work resumes at once.
func (s *Store) ReleaseMemoryJobs(ctx context.Context, holderPrefix string) (int64, error) {
	return s.releaseJobs(ctx, memoryJobs, holderPrefix)
}

// FindMemoryJob loads an adventure's job row, or nil.
func (s *Store) FindMemoryJob(ctx context.Context, adventureID int64) (*MemoryJob, error) {
	var job MemoryJob
	ok, err := s.findJob(ctx, memoryJobs, adventureID, &job)
	if !ok {
		return nil, err
	}
	return &job, nil
}

// --- prompt snapshot retention ---

// ExpiringSnapshots returns the ids of an adventure's prompt snapshots
// that are older than olderThan or beyond its keepNewest newest. keepNewest
// <= 0 keeps any number; a zero olderThan keeps any age.
func (s *Store) ExpiringSnapshots(ctx context.Context, adventureID int64, keepNewest int, olderThan time.Time) ([]int64, error) {
	if keepNewest <= 0 && olderThan.IsZero() {
		return nil, nil
	}
	db := s.db.WithContext(ctx).Model(&Action{}).Where("adventure_id = ? AND prompt_snapshot IS NOT NULL", adventureID)
	switch {
	case keepNewest > 0 && !olderThan.IsZero():
		db = db.Where("(created_at < ? OR id NOT IN (?))", olderThan, s.newestSnapshots(ctx, adventureID, keepNewest))
	case keepNewest > 0:
		db = db.Where("id NOT IN (?)", s.newestSnapshots(ctx, adventureID, keepNewest))
	default:
		db = db.Where("created_at < ?", olderThan)
	}
	var ids []int64
	err := db.Order("id").Pluck("id", &ids).Error
	return ids, translate(err, "snapshots")
}

// DropSnapshots drops the prompt snapshots of ids, marking them expired.
func (s *Store) DropSnapshots(ctx context.Context, ids []int64) (int64, error) {
	if len(ids) == 0 {
		return 0, nil
	}
	res := s.db.WithContext(ctx).Model(&Action{}).Where("id IN ? AND prompt_snapshot IS NOT NULL", ids).
		Updates(map[string]any{"prompt_snapshot": nil, "snapshot_base_id": nil, "snapshot_expired": true})
	return res.RowsAffected, translate(res.Error, "snapshots")
}

// newestSnapshots is the subquery of the ids of an adventure's n newest
// snapshots (wrapped once more, as MySQL-style engines and SQLite accept
// LIMIT inside IN only from a derived table).
func (s *Store) newestSnapshots(ctx context.Context, adventureID int64, n int) *gorm.DB {
	inner := s.db.WithContext(ctx).Model(&Action{}).Select("id").
		Where("adventure_id = ? AND prompt_snapshot IS NOT NULL", adventureID).Order("id DESC").Limit(n)
	return s.db.WithContext(ctx).Table("(?) AS newest", inner).Select("id")
}

// MemoryFingerprint changes whenever a line's remembered memories do: a
// memory added (count, max id), removed or forgotten (count) or changed
// (max updated_at; every write that changes what recall reads sets it).
// It is compared for equality only.
type MemoryFingerprint struct {
	Count      int64
	MaxID      int64
	MaxUpdated string
}

// LineMemoryFingerprint is one aggregate over the memories a query selects,
// so a cached recall index can be checked without reading the bank.
func (s *Store) LineMemoryFingerprint(ctx context.Context, q MemoryQuery) (MemoryFingerprint, error) {
	cond, args := onLine(q.Line)
	db := s.db.WithContext(ctx).Model(&Memory{}).Where("adventure_id = ?", q.AdventureID).Where(cond, args...)
	if len(q.Kinds) > 0 {
		db = db.Where("kind IN ?", q.Kinds)
	}
	if q.Remembered {
		db = db.Where("NOT forgotten")
	}
	var row struct {
		Count      int64
		MaxID      *int64
		MaxUpdated *string
	}
	err := db.Select("COUNT(*) AS count, MAX(id) AS max_id, CAST(MAX(updated_at) AS TEXT) AS max_updated").Scan(&row).Error
	fp := MemoryFingerprint{Count: row.Count}
	if row.MaxID != nil {
		fp.MaxID = *row.MaxID
	}
	if row.MaxUpdated != nil {
		fp.MaxUpdated = *row.MaxUpdated
	}
	return fp, translate(err, "memories")
}

// SnapshotLink is one turn's stored snapshot in a delta chain.
type SnapshotLink struct {
	ID             int64
	SnapshotBaseID *int64
	PromptSnapshot []byte
}

// maxSnapshotChain bounds the chain a read follows: writers start a
// keyframe far sooner, so a longer chain is a corrupt one.
const maxSnapshotChain = 256

// SnapshotChain returns a turn's snapshot and the snapshots it is a delta
// against, newest first, in one query: the last link is a keyframe unless
// a base is gone. A turn without a snapshot gives its link with none.
func (s *Store) SnapshotChain(ctx context.Context, id int64) ([]SnapshotLink, error) {
	var links []SnapshotLink
	err := s.db.WithContext(ctx).Raw(`WITH RECURSIVE chain(id, snapshot_base_id, prompt_snapshot, n) AS (
		SELECT id, snapshot_base_id, prompt_snapshot, 0 FROM actions WHERE id = ?
		UNION ALL
		SELECT a.id, a.snapshot_base_id, a.prompt_snapshot, c.n + 1 FROM actions a JOIN chain c ON a.id = c.snapshot_base_id
		WHERE c.n < ? AND c.prompt_snapshot IS NOT NULL)
		SELECT id, snapshot_base_id, prompt_snapshot FROM chain ORDER BY n`, id, maxSnapshotChain).Find(&links).Error
	if err == nil && len(links) == 0 {
		err = gorm.ErrRecordNotFound
	}
	return links, translate(err, "turn")
}

// SnapshotDependents returns the turns outside ids whose snapshots are
// deltas against one of ids.
func (s *Store) SnapshotDependents(ctx context.Context, ids []int64) ([]int64, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	var out []int64
	err := s.db.WithContext(ctx).Model(&Action{}).Where("snapshot_base_id IN ? AND id NOT IN ?", ids, ids).
		Order("id").Pluck("id", &out).Error
	return out, translate(err, "snapshots")
}

// SetSnapshot replaces a turn's stored snapshot and what it is a delta
// against.
func (s *Store) SetSnapshot(ctx context.Context, id int64, snapshot []byte, baseID *int64) error {
	err := s.db.WithContext(ctx).Model(&Action{}).Where("id = ?", id).
		Updates(map[string]any{"prompt_snapshot": snapshot, "snapshot_base_id": baseID}).Error
	return translate(err, "turn")
}

// SnapshotNode is a turn of an adventure as `snapshots recompress` walks
// it: where it hangs and whether its snapshot is in the format asked for.
type SnapshotNode struct {
	ID          int64
	ParentID    *int64
	HasSnapshot bool
	InFormat    bool
}

// snapshotFormatIs is true when a row's snapshot starts with the format
// byte given as its parameter (substr works on blobs and bytea alike).
const snapshotFormatIs = "substr(prompt_snapshot, 1, 1) = ?"

// SnapshotFormatCount counts the snapshots that start with format, and
// their stored bytes.
func (s *Store) SnapshotFormatCount(ctx context.Context, format byte) (rows, bytes int64, err error) {
	var out struct{ Rows, Bytes int64 }
	err = s.db.WithContext(ctx).Model(&Action{}).Select("COUNT(*) AS rows, COALESCE(SUM(length(prompt_snapshot)), 0) AS bytes").
		Where("prompt_snapshot IS NOT NULL AND "+snapshotFormatIs, []byte{format}).Take(&out).Error
	return out.Rows, out.Bytes, translate(err, "snapshots")
}

// AdventuresWithSnapshotFormat returns the ids of the adventures holding a
// snapshot that starts with format, in order.
func (s *Store) AdventuresWithSnapshotFormat(ctx context.Context, format byte) ([]int64, error) {
	var ids []int64
	err := s.db.WithContext(ctx).Model(&Action{}).Distinct("adventure_id").
		Where("prompt_snapshot IS NOT NULL AND "+snapshotFormatIs, []byte{format}).Order("adventure_id").Pluck("adventure_id", &ids).Error
	return ids, translate(err, "snapshots")
}

// SnapshotNodes returns every turn of an adventure, oldest first, with
// whether its snapshot starts with format (no snapshot bytes are read).
func (s *Store) SnapshotNodes(ctx context.Context, adventureID int64, format byte) ([]SnapshotNode, error) {
	var nodes []SnapshotNode
	err := s.db.WithContext(ctx).Model(&Action{}).
		Select("id, parent_id, prompt_snapshot IS NOT NULL AS has_snapshot, COALESCE("+snapshotFormatIs+", false) AS in_format", []byte{format}).
		Where("adventure_id = ?", adventureID).Order("id").Find(&nodes).Error
	return nodes, translate(err, "snapshots")
}

// FindActionPrompts loads the stored snapshots of ids.
func (s *Store) FindActionPrompts(ctx context.Context, ids []int64) ([]SnapshotLink, error) {
	var links []SnapshotLink
	err := s.db.WithContext(ctx).Model(&Action{}).Select("id, snapshot_base_id, prompt_snapshot").
		Where("id IN ?", ids).Order("id").Find(&links).Error
	return links, translate(err, "snapshots")
}
