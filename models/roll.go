package models

import (
	"context"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// Roll request statuses and modes.
const (
	RollPending   = "pending"
	RollResolved  = "resolved"
	RollCancelled = "cancelled"

	ModeNormal       = "normal"
	ModeAdvantage    = "advantage"
	ModeDisadvantage = "disadvantage"

	SourceServer   = "server"
	SourcePhysical = "physical"
	SourceQuick    = "quick"

	// What a request asks for: an ability check, a skill check or a
	// saving throw (AbilityRef names the ability).
	RequestAbility = "ability"
	RequestSkill   = "skill"
	RequestSave    = "save"
)

// RollGroup gathers the requests the DM made in one go ("everyone roll
// Perception").
type RollGroup struct {
	ID                int64     `gorm:"primaryKey"`
	SessionID         int64     `gorm:"not null;index"`
	Session           *Session  `gorm:"foreignKey:SessionID;constraint:OnDelete:CASCADE"`
	Label             string    `gorm:"size:120;not null"`
	RequestedBySeatID int64     `gorm:"not null"`
	CreatedAt         time.Time `gorm:"not null"`
}

// RollRequest asks one seat for a check. DC is secret: only projections
// for the DM carry it until the check resolves. DCSalt is the random salt
// (hex) of the DC's commitment, which players see while the DC is secret;
// empty for a request without a DC (or one made before commitments).
// DCRevealed is set once the DC and salt were revealed to the players (when
// the last check of its group was settled).
type RollRequest struct {
	ID                int64      `gorm:"primaryKey"`
	SessionID         int64      `gorm:"not null;index"`
	Session           *Session   `gorm:"foreignKey:SessionID;constraint:OnDelete:CASCADE"`
	RollGroupID       *int64     `gorm:"index"`
	RollGroup         *RollGroup `gorm:"foreignKey:RollGroupID;constraint:OnDelete:CASCADE"`
	TargetSeatID      int64      `gorm:"not null;index"`
	TargetCharacterID *int64
	RequestType       string    `gorm:"size:16;not null;check:ck_roll_requests_type,request_type IN ('ability','skill','save')"`
	AbilityRef        string    `gorm:"size:8;not null"`
	SkillRef          string    `gorm:"size:32;not null;default:''"`
	DC                *int      `gorm:"column:dc"`
	DCSalt            string    `gorm:"column:dc_salt;size:32;not null;default:''"`
	DCRevealed        bool      `gorm:"column:dc_revealed;not null;default:false"`
	ModifierMode      string    `gorm:"size:16;not null;check:ck_roll_requests_mode,modifier_mode IN ('normal','advantage','disadvantage')"`
	FlatAdjustment    int       `gorm:"not null;default:0"`
	RevealOutcome     bool      `gorm:"not null;default:false"`
	Visibility        string    `gorm:"size:16;not null"`
	Status            string    `gorm:"size:16;not null;check:ck_roll_requests_status,status IN ('pending','resolved','cancelled')"`
	RequestedBySeatID int64     `gorm:"not null"`
	CreatedAt         time.Time `gorm:"not null"`
	ResolvedAt        *time.Time
	Version           int64 `gorm:"not null;default:0"`
	// GroupLabel is the label the DM gave the request's group ("Spot the
	// ambush"), read with the request by the list reads (no column here).
	GroupLabel string `gorm:"->;-:migration;column:group_label"`
}

// withGroupLabel reads requests with their group's label, in one statement.
func withGroupLabel(db *gorm.DB) *gorm.DB {
	return db.Select("roll_requests.*, roll_groups.label AS group_label").
		Joins("LEFT JOIN roll_groups ON roll_groups.id = roll_requests.roll_group_id")
}

// RollResult is one roll: a formal request's single result, or quick dice.
type RollResult struct {
	ID                 int64        `gorm:"primaryKey"`
	RollRequestID      *int64       `gorm:"uniqueIndex:uq_roll_results_request,where:roll_request_id IS NOT NULL"`
	RollRequest        *RollRequest `gorm:"foreignKey:RollRequestID;constraint:OnDelete:CASCADE"`
	SessionID          int64        `gorm:"not null;index;uniqueIndex:uq_roll_results_idempotency,priority:1,where:idempotency_key IS NOT NULL"`
	Session            *Session     `gorm:"foreignKey:SessionID;constraint:OnDelete:CASCADE"`
	ActingSeatID       int64        `gorm:"not null"`
	SubjectSeatID      *int64
	SubjectCharacterID *int64
	ExecutionMode      string `gorm:"size:16;not null;check:ck_roll_results_execution_mode,execution_mode IN ('self','dm_proxy')"`
	Source             string `gorm:"size:16;not null;check:ck_roll_results_source,source IN ('server','physical','quick')"`
	Formula            string `gorm:"size:240;not null"`
	RawDice            []int  `gorm:"serializer:json;type:text;not null"`
	KeptDice           []int  `gorm:"serializer:json;type:text;not null"`
	Audit              string `gorm:"type:text;not null"`
	BaseModifier       int    `gorm:"not null"`
	FlatAdjustment     int    `gorm:"not null"`
	Total              int    `gorm:"not null"`
	Success            *bool
	Visibility         string    `gorm:"size:16;not null"`
	IdempotencyKey     *string   `gorm:"size:120;uniqueIndex:uq_roll_results_idempotency,priority:2"`
	CreatedAt          time.Time `gorm:"not null"`
	// What a quick roll of the sheet rolled (empty for other rolls): a
	// check's key, or an attack's name, roll (to_hit or damage) and
	// damage type.
	CheckKey   string `gorm:"size:32;not null;default:''"`
	AttackName string `gorm:"size:80;not null;default:''"`
	AttackRoll string `gorm:"size:8;not null;default:''"`
	DamageType string `gorm:"size:16;not null;default:''"`
}

// CreateRollGroup inserts a group.
func (s *Store) CreateRollGroup(ctx context.Context, g *RollGroup) error {
	return translate(s.db.WithContext(ctx).Omit(clause.Associations).Create(g).Error, "roll group")
}

// CreateRollRequest inserts a request.
func (s *Store) CreateRollRequest(ctx context.Context, r *RollRequest) error {
	return translate(s.db.WithContext(ctx).Omit(clause.Associations).Create(r).Error, "roll request")
}

// FindRollRequest returns a request; forUpdate locks it.
func (s *Store) FindRollRequest(ctx context.Context, id int64, forUpdate bool) (*RollRequest, error) {
	var r RollRequest
	return &r, translate(lockIf(s.db.WithContext(ctx), forUpdate).First(&r, id).Error, "roll request")
}

// ResolveRollRequest moves a request from pending to status, comparing the
// version it read; it reports whether it won.
func (s *Store) ResolveRollRequest(ctx context.Context, id, version int64, status string, at time.Time) (bool, error) {
	res := s.db.WithContext(ctx).Model(&RollRequest{}).Where("id = ? AND status = ? AND version = ?", id, RollPending, version).
		Updates(map[string]any{"status": status, "resolved_at": at, "version": clauseExpr("version + 1")})
	return res.RowsAffected == 1, translate(res.Error, "roll request")
}

// LockRollGroup locks a group's row (PostgreSQL; SQLite's write lock
// already serialises), so that settling its checks is done one at a time.
func (s *Store) LockRollGroup(ctx context.Context, id int64) error {
	var g RollGroup
	return translate(lockIf(s.db.WithContext(ctx), true).First(&g, id).Error, "roll group")
}

// FindRollRequestsInGroup returns a group's requests, oldest first.
func (s *Store) FindRollRequestsInGroup(ctx context.Context, groupID int64) ([]RollRequest, error) {
	var out []RollRequest
	return out, translate(s.db.WithContext(ctx).Where("roll_group_id = ?", groupID).Order("id").Find(&out).Error, "roll requests")
}

// FindUnrevealedDCs returns a session's rolled requests whose committed DC
// was not revealed yet, oldest first.
func (s *Store) FindUnrevealedDCs(ctx context.Context, sessionID int64) ([]RollRequest, error) {
	var out []RollRequest
	return out, translate(s.db.WithContext(ctx).Where("session_id = ? AND status = ? AND dc IS NOT NULL AND dc_salt <> '' AND NOT dc_revealed", sessionID, RollResolved).
		Order("id").Find(&out).Error, "roll requests")
}

// MarkDCRevealed records that the requests' DCs were revealed.
func (s *Store) MarkDCRevealed(ctx context.Context, ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	return translate(s.db.WithContext(ctx).Model(&RollRequest{}).Where("id IN ?", ids).Update("dc_revealed", true).Error, "roll requests")
}

// FindRollRequests returns a session's requests, newest first, at most limit.
func (s *Store) FindRollRequests(ctx context.Context, sessionID int64, limit int) ([]RollRequest, error) {
	var out []RollRequest
	return out, translate(withGroupLabel(s.db.WithContext(ctx)).Where("roll_requests.session_id = ?", sessionID).Order("roll_requests.id DESC").Limit(limit).Find(&out).Error, "roll requests")
}

// CreateRollResult inserts a result; a second result for a request is a conflict.
func (s *Store) CreateRollResult(ctx context.Context, r *RollResult) error {
	return translate(s.db.WithContext(ctx).Omit(clause.Associations).Create(r).Error, "roll result")
}

// FindResultOfRequest returns the result of a request, or not_found.
func (s *Store) FindResultOfRequest(ctx context.Context, requestID int64) (*RollResult, error) {
	var r RollResult
	return &r, translate(s.db.WithContext(ctx).Where("roll_request_id = ?", requestID).First(&r).Error, "roll result")
}

// FindResultByIdempotencyKey returns the result a key produced, or not_found.
func (s *Store) FindResultByIdempotencyKey(ctx context.Context, sessionID int64, key string) (*RollResult, error) {
	var r RollResult
	return &r, translate(s.db.WithContext(ctx).Where("session_id = ? AND idempotency_key = ?", sessionID, key).First(&r).Error, "roll result")
}

// FindRollResults returns a session's results, newest first, at most limit.
func (s *Store) FindRollResults(ctx context.Context, sessionID int64, limit int) ([]RollResult, error) {
	var out []RollResult
	return out, translate(s.db.WithContext(ctx).Where("session_id = ?", sessionID).Order("id DESC").Limit(limit).Find(&out).Error, "roll results")
}

// CountResultsOfRequest counts the results of a request (tests prove it is 1).
func (s *Store) CountResultsOfRequest(ctx context.Context, requestID int64) (int64, error) {
	var n int64
	err := s.db.WithContext(ctx).Model(&RollResult{}).Where("roll_request_id = ?", requestID).Count(&n).Error
	return n, translate(err, "roll results")
}

// FindRollResultsBefore returns a session's results with id < before (all
// when before is 0), newest first, at most limit.
func (s *Store) FindRollResultsBefore(ctx context.Context, sessionID, before int64, limit int) ([]RollResult, error) {
	var out []RollResult
	q := s.db.WithContext(ctx).Where("session_id = ?", sessionID)
	if before > 0 {
		q = q.Where("id < ?", before)
	}
	return out, translate(q.Order("id DESC").Limit(limit).Find(&out).Error, "roll results")
}

// FindRollResultsByIDs returns the results with the given ids.
func (s *Store) FindRollResultsByIDs(ctx context.Context, ids []int64) ([]RollResult, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	var out []RollResult
	return out, translate(s.db.WithContext(ctx).Where("id IN ?", ids).Order("id").Find(&out).Error, "roll results")
}

// FindRollRequestsByIDs returns the requests with the given ids.
func (s *Store) FindRollRequestsByIDs(ctx context.Context, ids []int64) ([]RollRequest, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	var out []RollRequest
	return out, translate(withGroupLabel(s.db.WithContext(ctx)).Where("roll_requests.id IN ?", ids).Find(&out).Error, "roll requests")
}
