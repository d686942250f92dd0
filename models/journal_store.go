package models

import (
	"context"
	"encoding/json"
	"strings"

	"gorm.io/gorm/clause"
)

// JournalQuery selects entries of a campaign's journal.
type JournalQuery struct {
	// Kind keeps one kind ("" every kind).
	Kind string
	// Words keeps entries whose title or text holds it, case aside ("" all).
	Words string
	// Audiences keeps only these audiences (empty: every audience).
	Audiences []string
	// Before keeps entries older than this id (0: from the newest).
	Before int64
}

// JournalHead is what deciding who may read an entry needs, without its
// text: a journal list reads these first and loads only the entries its
// reader may see.
type JournalHead struct {
	ID       int64
	Audience string
	SeatIDs  []int64 `gorm:"serializer:json"`
}

// FindJournalHeads returns the heads of a campaign's entries that q
// selects, newest first. A campaign holds a bounded number of entries
// (gameplay's cap), so this read is bounded too.
func (s *Store) FindJournalHeads(ctx context.Context, campaignID int64, q JournalQuery) ([]JournalHead, error) {
	db := s.db.WithContext(ctx).Model(&JournalEntry{}).Select("id", "audience", "seat_ids").Where("campaign_id = ?", campaignID)
	if q.Kind != "" {
		db = db.Where("kind = ?", q.Kind)
	}
	if len(q.Audiences) > 0 {
		db = db.Where("audience IN ?", q.Audiences)
	}
	if q.Before > 0 {
		db = db.Where("id < ?", q.Before)
	}
	if q.Words != "" {
		// LOWER and LIKE … ESCAPE mean the same on both databases; the
		// words are lower-cased by the caller's side too.
		like := "%" + escapeLike(strings.ToLower(q.Words)) + "%"
		db = db.Where(`(LOWER(title) LIKE ? ESCAPE '\' OR LOWER(text) LIKE ? ESCAPE '\')`, like, like)
	}
	var out []JournalHead
	return out, translate(db.Order("id DESC").Find(&out).Error, "journal entries")
}

// escapeLike makes s match itself in a LIKE pattern with ESCAPE '\'.
func escapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// FindJournalEntriesByID returns the entries with these ids, newest first.
func (s *Store) FindJournalEntriesByID(ctx context.Context, ids []int64) ([]JournalEntry, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	var out []JournalEntry
	return out, translate(s.db.WithContext(ctx).Where("id IN ?", ids).Order("id DESC").Find(&out).Error, "journal entries")
}

// FindJournalEntry returns one entry, or not_found; forUpdate locks it.
func (s *Store) FindJournalEntry(ctx context.Context, id int64, forUpdate bool) (*JournalEntry, error) {
	var e JournalEntry
	return &e, translate(lockIf(s.db.WithContext(ctx), forUpdate).First(&e, id).Error, "journal entry")
}

// CountJournalEntries counts a campaign's entries. With lock, the campaign
// row is locked first (PostgreSQL; SQLite's write lock does the same), so
// that two writers counting toward the cap take turns.
func (s *Store) CountJournalEntries(ctx context.Context, campaignID int64, lock bool) (int64, error) {
	if lock {
		var c Campaign
		if err := lockIf(s.db.WithContext(ctx), true).Select("id").First(&c, campaignID).Error; err != nil {
			return 0, translate(err, "campaign")
		}
	}
	var n int64
	err := s.db.WithContext(ctx).Model(&JournalEntry{}).Where("campaign_id = ?", campaignID).Count(&n).Error
	return n, translate(err, "journal entries")
}

// CreateJournalEntry inserts an entry.
func (s *Store) CreateJournalEntry(ctx context.Context, e *JournalEntry) error {
	if e.SeatIDs == nil {
		e.SeatIDs = []int64{}
	}
	return translate(s.db.WithContext(ctx).Omit(clause.Associations).Create(e).Error, "journal entry")
}

// SaveJournalEntry writes every field of an existing entry (updated_at as
// given: a map, so that GORM does not stamp its own time).
func (s *Store) SaveJournalEntry(ctx context.Context, e *JournalEntry) error {
	if e.SeatIDs == nil {
		e.SeatIDs = []int64{}
	}
	seats, err := json.Marshal(e.SeatIDs)
	if err != nil {
		return err
	}
	res := s.db.WithContext(ctx).Model(&JournalEntry{}).Where("id = ?", e.ID).Updates(map[string]any{
		"kind": e.Kind, "title": e.Title, "text": e.Text, "audience": e.Audience, "seat_ids": string(seats),
		"source_session_id": e.SourceSessionID, "source_seq": e.SourceSeq, "confirmed": e.Confirmed, "updated_at": e.UpdatedAt})
	if res.Error == nil && res.RowsAffected == 0 {
		return translate(errRecordNotFound, "journal entry")
	}
	return translate(res.Error, "journal entry")
}

// DeleteJournalEntry deletes an entry.
func (s *Store) DeleteJournalEntry(ctx context.Context, id int64) error {
	res := s.db.WithContext(ctx).Where("id = ?", id).Delete(&JournalEntry{})
	if res.Error == nil && res.RowsAffected == 0 {
		return translate(errRecordNotFound, "journal entry")
	}
	return translate(res.Error, "journal entry")
}

// FindEventAt returns a session's event at seq, or not_found.
func (s *Store) FindEventAt(ctx context.Context, sessionID, seq int64) (*SessionEvent, error) {
	var e SessionEvent
	err := s.db.WithContext(ctx).Where("session_id = ? AND seq = ?", sessionID, seq).Take(&e).Error
	return &e, translate(err, "event")
}
