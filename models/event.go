package models

import (
	"context"
	"strconv"
	"time"

	"gorm.io/gorm/clause"
)

// Event visibilities: the audiences the one projection understands.
const (
	VisibilityPublic      = "public"
	VisibilityDMOnly      = "dm_only"
	VisibilityActorAndDM  = "actor_and_dm"
	VisibilitySeatPrivate = "seat_private"
)

// Execution modes of a table action.
const (
	ExecSelf    = "self"
	ExecDMProxy = "dm_proxy"
	ExecSystem  = "system"
)

// SessionTableRuntime is the one row per session that orders its events:
// taking the next seq updates this row, which serialises writers (a row
// lock on PostgreSQL, the write lock on SQLite).
type SessionTableRuntime struct {
	SessionID    int64     `gorm:"primaryKey;autoIncrement:false"`
	Session      *Session  `gorm:"foreignKey:SessionID;constraint:OnDelete:CASCADE"`
	Revision     int64     `gorm:"not null;default:0"`
	LastEventSeq int64     `gorm:"not null;default:0"`
	CreatedAt    time.Time `gorm:"not null"`
	UpdatedAt    time.Time `gorm:"not null"`
}

// SessionEvent is one durable fact of a session, in seq order. Payload is
// versioned JSON holding only what replaying the event needs.
type SessionEvent struct {
	ID                 int64     `gorm:"primaryKey"`
	SessionID          int64     `gorm:"not null;uniqueIndex:uq_session_events_seq,priority:1;uniqueIndex:uq_session_events_idempotency,priority:1,where:idempotency_key IS NOT NULL"`
	Session            *Session  `gorm:"foreignKey:SessionID;constraint:OnDelete:CASCADE"`
	Seq                int64     `gorm:"not null;uniqueIndex:uq_session_events_seq,priority:2"`
	Kind               string    `gorm:"size:48;not null"`
	ActingSeatID       *int64    `gorm:"index"`
	SubjectSeatID      *int64    `gorm:"index"`
	SubjectCharacterID *int64    `gorm:"index"`
	ExecutionMode      string    `gorm:"size:16;not null;check:ck_session_events_execution_mode,execution_mode IN ('self','dm_proxy','system')"`
	Visibility         string    `gorm:"size:16;not null;check:ck_session_events_visibility,visibility IN ('public','dm_only','actor_and_dm','seat_private')"`
	RecipientSeatIDs   []int64   `gorm:"serializer:json;type:text;not null"`
	PayloadVersion     int       `gorm:"not null"`
	Payload            string    `gorm:"type:text;not null"`
	IdempotencyKey     *string   `gorm:"size:120;uniqueIndex:uq_session_events_idempotency,priority:2"`
	CreatedAt          time.Time `gorm:"not null"`
}

// CreateRuntime creates a session's runtime row.
func (s *Store) CreateRuntime(ctx context.Context, sessionID int64, now time.Time) error {
	return translate(s.db.WithContext(ctx).Omit(clause.Associations).Create(&SessionTableRuntime{SessionID: sessionID, CreatedAt: now, UpdatedAt: now}).Error, "session runtime")
}

// NextEventSeq takes the next seq of a session inside the caller's
// transaction. The UPDATE locks the runtime row until commit, so two
// writers can never take the same seq and a rolled-back writer leaves no gap.
// On PostgreSQL the same statement queues the NOTIFY that wakes other
// processes.
func (s *Store) NextEventSeq(ctx context.Context, sessionID int64, now time.Time) (int64, error) {
	// One statement takes the seq and answers it (UPDATE … RETURNING, on
	// SQLite 3.35+ and PostgreSQL): the write lock is held one round trip
	// less. Every event is written through here, so this is the one place
	// that tells the other server processes: pg_notify in the RETURNING
	// list is delivered at commit and dropped on rollback, without a round
	// trip of its own.
	query := "UPDATE session_table_runtime SET last_event_seq = last_event_seq + 1, revision = revision + 1, updated_at = ? WHERE session_id = ? RETURNING last_event_seq"
	args := []any{now, sessionID}
	if s.dialect == Postgres {
		query += ", pg_notify(?, ?) IS NULL AS queued"
		args = append(args, sessionEventsChannel, strconv.FormatInt(sessionID, 10))
	}
	var rows []struct {
		LastEventSeq int64
		Queued       bool // pg_notify's column, read and ignored
	}
	if err := s.db.WithContext(ctx).Raw(query, args...).Scan(&rows).Error; err != nil {
		return 0, translate(err, "session runtime")
	}
	if len(rows) != 1 {
		return 0, translate(errRecordNotFound, "session runtime")
	}
	return rows[0].LastEventSeq, nil
}

// LastEventSeq returns the seq of a session's newest event (0 when none).
func (s *Store) LastEventSeq(ctx context.Context, sessionID int64) (int64, error) {
	var seq int64
	err := s.db.WithContext(ctx).Model(&SessionTableRuntime{}).Where("session_id = ?", sessionID).Select("last_event_seq").Scan(&seq).Error
	return seq, translate(err, "session runtime")
}

// CreateEvent inserts an event; a repeated idempotency key is a conflict.
func (s *Store) CreateEvent(ctx context.Context, e *SessionEvent) error {
	return translate(s.db.WithContext(ctx).Omit(clause.Associations).Create(e).Error, "event")
}

// FindEventByIdempotencyKey returns the event a key already produced, or not_found.
func (s *Store) FindEventByIdempotencyKey(ctx context.Context, sessionID int64, key string) (*SessionEvent, error) {
	var e SessionEvent
	err := s.db.WithContext(ctx).Where("session_id = ? AND idempotency_key = ?", sessionID, key).First(&e).Error
	return &e, translate(err, "event")
}

// FindEventsAfter returns at most limit events with seq > after, oldest
// first: a bounded window over the (session_id, seq) index.
func (s *Store) FindEventsAfter(ctx context.Context, sessionID, after int64, limit int) ([]SessionEvent, error) {
	var out []SessionEvent
	err := s.db.WithContext(ctx).Where("session_id = ? AND seq > ?", sessionID, after).Order("seq").Limit(limit).Find(&out).Error
	return out, translate(err, "events")
}

// FindLatestEvents returns the newest limit events, oldest first.
func (s *Store) FindLatestEvents(ctx context.Context, sessionID int64, limit int) ([]SessionEvent, error) {
	var out []SessionEvent
	err := s.db.WithContext(ctx).Where("session_id = ?", sessionID).Order("seq DESC").Limit(limit).Find(&out).Error
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out, translate(err, "events")
}

// TableName keeps the seed's name for the runtime table.
func (SessionTableRuntime) TableName() string { return "session_table_runtime" }

// FindEventsOfKind returns the events of one kind in the given sessions,
// by session and seq.
func (s *Store) FindEventsOfKind(ctx context.Context, sessionIDs []int64, kind string) ([]SessionEvent, error) {
	if len(sessionIDs) == 0 {
		return nil, nil
	}
	var out []SessionEvent
	err := s.db.WithContext(ctx).Where("session_id IN ? AND kind = ?", sessionIDs, kind).Order("session_id, seq").Find(&out).Error
	return out, translate(err, "events")
}
