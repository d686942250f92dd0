package models

import "time"

// Memory kinds.
const (
	// MemoryBlock is what the bank wrote for one block of six actions.
	MemoryBlock = "block"
	// MemoryNote is a memory the player wrote by hand.
	MemoryNote = "note"
	// MemorySummary is the running summary of a line, rewritten from the
	// block memories every fifteen actions; it is never retrieved, it is
	// the prompt's "Story so far".
	MemorySummary = "summary"
)

// Memory is one entry of a solo adventure's memory bank (Engine Room §2.6).
// It hangs off a node of the story tree, the (BranchID, Depth) coordinate of
// the node its block ends on, not off the adventure or a list position: a
// line sees the memories whose coordinate lies on it, so a fork inherits
// what sits on the ancestors both lines read, and "which memories describe
// this node?" is an indexed lookup. A block memory covers the line's
// actions from FromDepth to Depth; a note covers its own node; a summary
// covers the line up to Depth.
type Memory struct {
	ID          int64      `gorm:"primaryKey"`
	AdventureID int64      `gorm:"not null;index"`
	Adventure   *Adventure `gorm:"foreignKey:AdventureID;constraint:OnDelete:CASCADE"`
	BranchID    int64      `gorm:"not null;index:ix_memories_anchor,priority:1"`
	Branch      *Branch    `gorm:"foreignKey:BranchID;constraint:OnDelete:CASCADE"`
	Depth       int        `gorm:"not null;index:ix_memories_anchor,priority:2"`
	FromDepth   int        `gorm:"not null"`
	Kind        string     `gorm:"size:16;not null;check:ck_memories_kind,kind IN ('block','note','summary')"`
	Text        string     `gorm:"type:text;not null"`
	Pinned      bool       `gorm:"not null;default:false"`
	// Forgotten memories are out of retrieval but kept, so they can be
	// un-forgotten: eviction over capacity never deletes.
	Forgotten bool `gorm:"not null;default:false"`
	// Stale marks a memory whose turns were edited or deleted after it was
	// written; the next cadence rewrites it.
	Stale bool `gorm:"not null;default:false"`
	// Uses and LastUsedAt rank eviction (least used first); LastUsedActionID
	// is the narration whose prompt used it last.
	Uses             int        `gorm:"not null;default:0"`
	LastUsedAt       *time.Time `gorm:""`
	LastUsedActionID *int64     `gorm:""`
	// Embedding is the vector as little-endian float32s, written by
	// EmbeddingModel; empty when the bank scores lexically.
	Embedding      []byte    `gorm:""`
	EmbeddingModel string    `gorm:"size:200;not null;default:''"`
	CreatedAt      time.Time `gorm:"not null"`
	UpdatedAt      time.Time `gorm:"not null"`
}

// MemoryJob is an adventure's pending memory work: summarizing the blocks
// its line has closed, rewriting stale memories, the running summary,
// embeddings and eviction. It is one row per adventure, so enqueueing is an
// upsert and the work itself is derived from the story, never from the job.
// DueAt is set while work is wanted; a worker claims the row (ClaimedBy,
// ClaimedUntil) and clears DueAt when it finishes unless the job was
// enqueued again meanwhile. A failure clears it too: the next turn enqueues
// again, so the cadence is the retry (seed §2.6).
type MemoryJob struct {
	AdventureID  int64      `gorm:"primaryKey;autoIncrement:false"`
	Adventure    *Adventure `gorm:"foreignKey:AdventureID;constraint:OnDelete:CASCADE"`
	DueAt        *time.Time `gorm:"index"`
	ClaimedBy    string     `gorm:"size:40;not null;default:''"`
	ClaimedAt    *time.Time `gorm:""`
	ClaimedUntil *time.Time `gorm:""`
	Runs         int        `gorm:"not null;default:0"`
	LastError    string     `gorm:"type:text;not null;default:''"`
	LastRunAt    *time.Time `gorm:""`
}
