package models

import (
	"context"
	"time"

	"gorm.io/gorm/clause"
)

// Pending action statuses.
const (
	PendingPending        = "pending"
	PendingProcessing     = "processing"
	PendingWaitingForRoll = "waiting_for_roll"
	PendingResolved       = "resolved"
	PendingCancelled      = "cancelled"
)

// ActionWindow collects everyone's answer to "what do you do?". It is a
// container, not a turn order.
type ActionWindow struct {
	ID             int64     `gorm:"primaryKey"`
	SessionID      int64     `gorm:"not null;index"`
	Session        *Session  `gorm:"foreignKey:SessionID;constraint:OnDelete:CASCADE"`
	Prompt         string    `gorm:"type:text;not null"`
	Status         string    `gorm:"size:16;not null;check:ck_action_windows_status,status IN ('open','closed')"`
	OpenedBySeatID int64     `gorm:"not null"`
	CreatedAt      time.Time `gorm:"not null"`
	ClosedAt       *time.Time
}

// PendingAction is something a player (or the DM for them) wants to do that
// the DM still has to adjudicate.
type PendingAction struct {
	ID                 int64    `gorm:"primaryKey"`
	SessionID          int64    `gorm:"not null;index"`
	Session            *Session `gorm:"foreignKey:SessionID;constraint:OnDelete:CASCADE"`
	ActingSeatID       int64    `gorm:"not null"`
	SubjectSeatID      int64    `gorm:"not null"`
	SubjectCharacterID *int64
	ExecutionMode      string        `gorm:"size:16;not null;check:ck_pending_actions_execution_mode,execution_mode IN ('self','dm_proxy')"`
	Text               string        `gorm:"type:text;not null"`
	Intent             string        `gorm:"size:16;not null;default:''"`
	Status             string        `gorm:"size:24;not null;check:ck_pending_actions_status,status IN ('pending','processing','waiting_for_roll','resolved','cancelled')"`
	RollRequestID      *int64        `gorm:"index"`
	RollRequest        *RollRequest  `gorm:"foreignKey:RollRequestID;constraint:OnDelete:CASCADE"`
	WindowID           *int64        `gorm:"index"`
	Window             *ActionWindow `gorm:"foreignKey:WindowID;constraint:OnDelete:CASCADE"`
	Version            int64         `gorm:"not null;default:0"`
	CreatedAt          time.Time     `gorm:"not null"`
	UpdatedAt          time.Time     `gorm:"not null"`
}

// CreatePendingAction inserts a pending action.
func (s *Store) CreatePendingAction(ctx context.Context, p *PendingAction) error {
	return translate(s.db.WithContext(ctx).Omit(clause.Associations).Create(p).Error, "pending action")
}

// FindPendingAction returns a pending action; forUpdate locks it.
func (s *Store) FindPendingAction(ctx context.Context, id int64, forUpdate bool) (*PendingAction, error) {
	var p PendingAction
	return &p, translate(lockIf(s.db.WithContext(ctx), forUpdate).First(&p, id).Error, "pending action")
}

// FindPendingActionByRollRequest returns the action waiting on a roll request, or not_found.
func (s *Store) FindPendingActionByRollRequest(ctx context.Context, requestID int64) (*PendingAction, error) {
	var p PendingAction
	err := s.db.WithContext(ctx).Clauses(clause.Locking{Strength: "UPDATE"}).Where("roll_request_id = ?", requestID).First(&p).Error
	return &p, translate(err, "pending action")
}

// UpdatePendingAction moves an action to status (and roll request), comparing versions.
func (s *Store) UpdatePendingAction(ctx context.Context, id, version int64, status string, rollRequestID *int64, now time.Time) (bool, error) {
	m := map[string]any{"status": status, "version": clauseExpr("version + 1"), "updated_at": now}
	if rollRequestID != nil {
		m["roll_request_id"] = *rollRequestID
	}
	res := s.db.WithContext(ctx).Model(&PendingAction{}).Where("id = ? AND version = ?", id, version).Updates(m)
	return res.RowsAffected == 1, translate(res.Error, "pending action")
}

// FindPendingActions returns a session's actions, newest first.
func (s *Store) FindPendingActions(ctx context.Context, sessionID int64, limit int) ([]PendingAction, error) {
	var out []PendingAction
	return out, translate(s.db.WithContext(ctx).Where("session_id = ?", sessionID).Order("id DESC").Limit(limit).Find(&out).Error, "pending actions")
}

// CreateActionWindow inserts a window.
func (s *Store) CreateActionWindow(ctx context.Context, w *ActionWindow) error {
	return translate(s.db.WithContext(ctx).Omit(clause.Associations).Create(w).Error, "action window")
}

// FindActionWindow returns a window; forUpdate locks it.
func (s *Store) FindActionWindow(ctx context.Context, id int64, forUpdate bool) (*ActionWindow, error) {
	var w ActionWindow
	return &w, translate(lockIf(s.db.WithContext(ctx), forUpdate).First(&w, id).Error, "action window")
}

// CloseActionWindow closes a window.
func (s *Store) CloseActionWindow(ctx context.Context, id int64, at time.Time) error {
	return translate(s.db.WithContext(ctx).Model(&ActionWindow{}).Where("id = ?", id).Updates(map[string]any{"status": "closed", "closed_at": at}).Error, "action window")
}

// FindOpenActionWindows returns a session's open windows.
func (s *Store) FindOpenActionWindows(ctx context.Context, sessionID int64) ([]ActionWindow, error) {
	var out []ActionWindow
	return out, translate(s.db.WithContext(ctx).Where("session_id = ? AND status = 'open'", sessionID).Order("id").Find(&out).Error, "action windows")
}
