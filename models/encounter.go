package models

import (
	"context"
	"time"

	"gorm.io/gorm/clause"
)

// Encounter statuses.
const (
	EncounterRunning = "running"
	EncounterEnded   = "ended"
)

// Encounter is one fight in a session. State is the rules' value
// (gameplay/combat.Encounter as JSON, with what is revealed to players);
// the storage layer does not read it. A session has at most one running
// encounter, which gameplay enforces under the session's row lock.
type Encounter struct {
	ID        int64      `gorm:"primaryKey"`
	SessionID int64      `gorm:"not null;index"`
	Session   *Session   `gorm:"foreignKey:SessionID;constraint:OnDelete:CASCADE"`
	Status    string     `gorm:"size:16;not null;check:ck_encounters_status,status IN ('running','ended')"`
	State     string     `gorm:"type:text;not null"`
	CreatedAt time.Time  `gorm:"not null"`
	UpdatedAt time.Time  `gorm:"not null"`
	EndedAt   *time.Time `gorm:""`
}

// CreateEncounter inserts an encounter.
func (s *Store) CreateEncounter(ctx context.Context, e *Encounter) error {
	return translate(s.db.WithContext(ctx).Omit(clause.Associations).Create(e).Error, "encounter")
}

// SaveEncounter writes an encounter's state and status.
func (s *Store) SaveEncounter(ctx context.Context, e *Encounter) error {
	return translate(s.db.WithContext(ctx).Omit(clause.Associations).Save(e).Error, "encounter")
}

// FindRunningEncounter returns the session's running encounter, not_found
// when there is none. Callers that change it hold the session's row lock.
func (s *Store) FindRunningEncounter(ctx context.Context, sessionID int64) (*Encounter, error) {
	var e Encounter
	err := s.db.WithContext(ctx).Where("session_id = ? AND status = ?", sessionID, EncounterRunning).Order("id DESC").First(&e).Error
	return &e, translate(err, "encounter")
}
