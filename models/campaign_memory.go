package models

import "time"

// Audiences of what a campaign remembers: who may read a memory or a
// journal entry. They follow the event projection: table is what every seat
// saw, seats is what a whisper's parties saw (SeatIDs), dm is what only the
// DM saw (secret DCs, hidden numbers, DM notes).
const (
	AudienceTable = "table"
	AudienceSeats = "seats"
	AudienceDM    = "dm"
)

// Campaign memory kinds.
const (
	// CampaignMemoryBlock is what the bank wrote for one block of events
	// one audience saw.
	CampaignMemoryBlock = "block"
	// CampaignMemoryNote is a memory someone wrote by hand.
	CampaignMemoryNote = "note"
)

// CampaignMemory is one memory of a campaign (issue 31): the solo memory
// bank's machinery over a campaign's session events. A block memory is
// made only from events one audience saw (AudienceKey names that reader
// set, e.g. "table", "dm" or "seats:3,7") and covers that audience's events
// FromSeq..ToSeq of one session; the deepest ToSeq per (session, audience
// key) is the bank's mark, so a job that dies midway redoes only what it
// had not committed, and the unique index makes a block impossible to
// write twice.
type CampaignMemory struct {
	ID          int64     `gorm:"primaryKey"`
	CampaignID  int64     `gorm:"not null;index"`
	Campaign    *Campaign `gorm:"foreignKey:CampaignID;constraint:OnDelete:CASCADE"`
	SessionID   int64     `gorm:"not null;uniqueIndex:uq_campaign_memories_block,priority:1"`
	Session     *Session  `gorm:"foreignKey:SessionID;constraint:OnDelete:CASCADE"`
	Audience    string    `gorm:"size:8;not null;check:ck_campaign_memories_audience,audience IN ('table','seats','dm')"`
	SeatIDs     []int64   `gorm:"serializer:json;type:text;not null"`
	AudienceKey string    `gorm:"size:200;not null;uniqueIndex:uq_campaign_memories_block,priority:2"`
	Kind        string    `gorm:"size:8;not null;check:ck_campaign_memories_kind,kind IN ('block','note')"`
	FromSeq     int64     `gorm:"not null"`
	ToSeq       int64     `gorm:"not null;uniqueIndex:uq_campaign_memories_block,priority:3"`
	Text        string    `gorm:"type:text;not null"`
	// Embedding is the vector as little-endian float32s, written by
	// EmbeddingModel; empty when recall scores lexically.
	Embedding      []byte    `gorm:""`
	EmbeddingModel string    `gorm:"size:200;not null;default:''"`
	CreatedAt      time.Time `gorm:"not null"`
	UpdatedAt      time.Time `gorm:"not null"`
}

// CampaignMemoryJob is a campaign's pending memory work, one row per
// campaign (enqueueing is an upsert), claimed like MemoryJob: the work is
// derived from the events and the marks, never from the job.
type CampaignMemoryJob struct {
	CampaignID   int64      `gorm:"primaryKey;autoIncrement:false"`
	Campaign     *Campaign  `gorm:"foreignKey:CampaignID;constraint:OnDelete:CASCADE"`
	DueAt        *time.Time `gorm:"index"`
	ClaimedBy    string     `gorm:"size:40;not null;default:''"`
	ClaimedAt    *time.Time `gorm:""`
	ClaimedUntil *time.Time `gorm:""`
	Runs         int        `gorm:"not null;default:0"`
	LastError    string     `gorm:"type:text;not null;default:''"`
	LastRunAt    *time.Time `gorm:""`
}

// Journal entry kinds.
const (
	JournalNPC   = "npc"
	JournalPlace = "place"
	JournalItem  = "item"
	JournalQuest = "quest"
	JournalClue  = "clue"
	JournalNote  = "note"
)

// JournalEntry is one fact the table keeps about its campaign (issue 31):
// an NPC, place, item, quest, clue or note, with who knows it (Audience,
// SeatIDs), where it came from (the event it cites) and whether the table
// confirmed it. A player's proposal is unconfirmed until the DM confirms.
type JournalEntry struct {
	ID         int64     `gorm:"primaryKey"`
	CampaignID int64     `gorm:"not null;index"`
	Campaign   *Campaign `gorm:"foreignKey:CampaignID;constraint:OnDelete:CASCADE"`
	Kind       string    `gorm:"size:8;not null;check:ck_journal_entries_kind,kind IN ('npc','place','item','quest','clue','note')"`
	Title      string    `gorm:"size:120;not null"`
	Text       string    `gorm:"type:text;not null"`
	Audience   string    `gorm:"size:8;not null;check:ck_journal_entries_audience,audience IN ('table','seats','dm')"`
	SeatIDs    []int64   `gorm:"serializer:json;type:text;not null"`
	// AuthorSeatID is the seat that wrote it (nil once that seat is gone).
	AuthorSeatID *int64        `gorm:"index"`
	AuthorSeat   *CampaignSeat `gorm:"foreignKey:AuthorSeatID;constraint:OnDelete:SET NULL"`
	// SourceSessionID and SourceSeq cite the event the fact came from.
	SourceSessionID *int64    `gorm:"index"`
	SourceSession   *Session  `gorm:"foreignKey:SourceSessionID;constraint:OnDelete:SET NULL"`
	SourceSeq       *int64    `gorm:""`
	Confirmed       bool      `gorm:"not null;default:false"`
	CreatedAt       time.Time `gorm:"not null"`
	UpdatedAt       time.Time `gorm:"not null"`
}
