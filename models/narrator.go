package models

import (
	"context"
	"time"

	"gorm.io/gorm"
)

// Narrator states, as the web app shows them.
const (
	NarratorIdle     = "idle"     // waiting for the table
	NarratorThinking = "thinking" // a step is running
	NarratorWriting  = "writing"  // a step's model is writing narration (Draft)
	NarratorPaused   = "paused"   // a human paused it
	NarratorStuck    = "stuck"    // the last step failed; Act now retries
)

// Narrator is the server's own narrator holding a seat through an AI grant
// (one row per grant): whose model settings it spends, when it acts, its
// claim on the seat's step, its state and what it has cost. The grant's
// token is never shown to anyone; the narrator calls the tools in process.
// Deleting the grant's seat or room deletes the row with the grant.
type Narrator struct {
	GrantID int64              `gorm:"primaryKey;autoIncrement:false"`
	Grant   *AIControllerGrant `gorm:"foreignKey:GrantID;constraint:OnDelete:CASCADE"`
	// ModelUserID is whose narrator settings (or demo budget) it spends;
	// NULL once that user is deleted (it then stays stuck until replaced).
	ModelUserID *int64 `gorm:"index"`
	ModelUser   *User  `gorm:"foreignKey:ModelUserID;constraint:OnDelete:SET NULL"`
	Paused      bool   `gorm:"not null;default:false"`
	// DebounceMS is how long the table stays quiet after a player's message
	// before it answers (a message addressing the DM is answered at once).
	DebounceMS   int `gorm:"not null;default:4000"`
	MaxToolCalls int `gorm:"not null;default:8"`
	// HandledSeq is the last event of its session it has answered.
	HandledSeq int64 `gorm:"not null;default:0"`
	// ActNow asks for a step at once (the web app's "Act now" and retry).
	ActNow bool `gorm:"not null;default:false"`
	// WindowDeadline is when the "What do you do?" window the narrator
	// opened runs out (it adjudicates then, or as soon as every player has
	// declared); NULL when none is open.
	WindowDeadline *time.Time
	// StepToken holds the claim on the seat's step ("<process>.<nonce>"),
	// "" when none; StepHeartbeat is renewed while the step runs, and a
	// claim whose heartbeat went stale may be taken by any process.
	StepToken        string `gorm:"size:40;not null;default:''"`
	StepHeartbeat    *time.Time
	State            string `gorm:"size:16;not null;default:'idle'"`
	LastError        string `gorm:"size:64;not null;default:''"`
	Steps            int64  `gorm:"not null;default:0"`
	PromptTokens     int64  `gorm:"not null;default:0"`
	CompletionTokens int64  `gorm:"not null;default:0"`
	// The last step's tokens (the totals above are the session's: a
	// narrator's grant lasts one session).
	LastStepTokens int64 `gorm:"not null;default:0"`
	// Draft is the narration the running step's model is writing, as the
	// table may read it (see mcp/narrator); "" between steps.
	Draft     string    `gorm:"type:text;not null;default:''"`
	UpdatedAt time.Time `gorm:"not null"`
}

// NarratorStep is the record of one step of a narrator, kept for those
// who direct it (Insights): the last KeptNarratorSteps of each grant.
// Record is JSON the narrator runner writes (its prompt's sections, the
// messages and the tool calls); Outcome is "" or the step's stable code.
type NarratorStep struct {
	ID               int64              `gorm:"primaryKey"`
	GrantID          int64              `gorm:"not null;index:ix_narrator_steps_grant,priority:1"`
	Grant            *AIControllerGrant `gorm:"foreignKey:GrantID;constraint:OnDelete:CASCADE"`
	CreatedAt        time.Time          `gorm:"not null"`
	PromptTokens     int64              `gorm:"not null;default:0"`
	CompletionTokens int64              `gorm:"not null;default:0"`
	ToolCalls        int                `gorm:"not null;default:0"`
	Outcome          string             `gorm:"size:64;not null;default:''"`
	Record           string             `gorm:"type:text;not null"`
}

// KeptNarratorSteps is how many step records a narrator keeps.
const KeptNarratorSteps = 50

// NarratorSteps lists a grant's kept steps, newest first, without their
// records.
func (s *Store) NarratorSteps(ctx context.Context, grantID int64) ([]NarratorStep, error) {
	var rows []NarratorStep
	err := s.db.WithContext(ctx).Omit("record").Where("grant_id = ?", grantID).Order("id DESC").Limit(KeptNarratorSteps).Find(&rows).Error
	return rows, translate(err, "narrator steps")
}

// FindNarratorStep returns one step of a grant with its record.
func (s *Store) FindNarratorStep(ctx context.Context, grantID, stepID int64) (*NarratorStep, error) {
	var n NarratorStep
	if err := s.db.WithContext(ctx).Where("grant_id = ? AND id = ?", grantID, stepID).First(&n).Error; err != nil {
		return nil, translate(err, "narrator step")
	}
	return &n, nil
}

// CreateNarrator inserts a narrator row.
func (s *Store) CreateNarrator(ctx context.Context, n *Narrator) error {
	return translate(s.db.WithContext(ctx).Create(n).Error, "narrator")
}

// FindNarrator returns the narrator of a grant, or not_found.
func (s *Store) FindNarrator(ctx context.Context, grantID int64) (*Narrator, error) {
	var n Narrator
	if err := s.db.WithContext(ctx).Where("grant_id = ?", grantID).First(&n).Error; err != nil {
		return nil, translate(err, "narrator")
	}
	return &n, nil
}

// NarratorsOfGrants returns the narrator rows among grantIDs.
func (s *Store) NarratorsOfGrants(ctx context.Context, grantIDs []int64) ([]Narrator, error) {
	var rows []Narrator
	if len(grantIDs) == 0 {
		return rows, nil
	}
	err := s.db.WithContext(ctx).Where("grant_id IN ?", grantIDs).Find(&rows).Error
	return rows, translate(err, "narrators")
}

// RunnableNarrator is a narrator whose grant is active, with where its
// seat plays and how far its session has gone.
type RunnableNarrator struct {
	Narrator
	SeatID     int64
	CampaignID int64
	Role       string
	// SessionID is the grant's session (nil for a DM's pre-session grant).
	SessionID *int64
	// HeadSeq is the last event of the session (0 without one).
	HeadSeq int64
}

// RunnableNarrators lists the narrators whose grant is still active, each
// with its session's last event, in one statement.
func (s *Store) RunnableNarrators(ctx context.Context) ([]RunnableNarrator, error) {
	var rows []RunnableNarrator
	err := s.db.WithContext(ctx).Table("narrators AS n").
		Select("n.*, g.seat_id, g.campaign_id, g.role, g.session_id, COALESCE(r.last_event_seq, 0) AS head_seq").
		Joins("JOIN ai_controller_grants g ON g.id = n.grant_id").
		Joins("LEFT JOIN session_table_runtime r ON r.session_id = g.session_id").
		Where("g.status = ?", GrantActive).
		Order("n.grant_id").Scan(&rows).Error
	return rows, translate(err, "narrators")
}

// ClaimNarratorStep takes the grant's step claim for token when nobody
// holds it or its holder's heartbeat is older than staleBefore, and no step
// has finished since the caller read seenSteps, and says whether it did.
// One statement, so two processes never both win; and a process whose scan
// read the row before another's step answered the trigger does not answer
// it a second time.
func (s *Store) ClaimNarratorStep(ctx context.Context, grantID int64, token string, seenSteps int64, now, staleBefore time.Time) (bool, error) {
	res := s.db.WithContext(ctx).Model(&Narrator{}).
		Where("grant_id = ? AND steps = ? AND (step_token = '' OR step_heartbeat IS NULL OR step_heartbeat < ?)", grantID, seenSteps, staleBefore).
		Updates(map[string]any{"step_token": token, "step_heartbeat": now, "state": NarratorThinking, "act_now": false, "draft": "", "updated_at": now})
	return res.RowsAffected == 1, translate(res.Error, "narrator")
}

// HeartbeatNarratorStep renews token's claim; false when it is no longer
// token's (taken as stale, or the grant is gone).
func (s *Store) HeartbeatNarratorStep(ctx context.Context, grantID int64, token string, now time.Time) (bool, error) {
	res := s.db.WithContext(ctx).Model(&Narrator{}).Where("grant_id = ? AND step_token = ?", grantID, token).
		Update("step_heartbeat", now)
	return res.RowsAffected == 1, translate(res.Error, "narrator")
}

// SetNarratorDraft records the narration token's step is writing (state
// writing), or with "" that it is thinking again (the model turned to tool
// calls); false when the claim is no longer token's.
func (s *Store) SetNarratorDraft(ctx context.Context, grantID int64, token, draft string, now time.Time) (bool, error) {
	state := NarratorWriting
	if draft == "" {
		state = NarratorThinking
	}
	res := s.db.WithContext(ctx).Model(&Narrator{}).Where("grant_id = ? AND step_token = ?", grantID, token).
		Updates(map[string]any{"draft": draft, "state": state, "updated_at": now})
	return res.RowsAffected == 1, translate(res.Error, "narrator")
}

// NarratorStepEnd is what a finished step records.
type NarratorStepEnd struct {
	HandledSeq       int64
	State            string
	LastError        string
	PromptTokens     int64
	CompletionTokens int64
	// Record, when set, is kept as the step's NarratorStep.
	Record *NarratorStep
}

// FinishNarratorStep releases token's claim and records the step, if the
// claim is still token's.
func (s *Store) FinishNarratorStep(ctx context.Context, grantID int64, token string, end NarratorStepEnd, now time.Time) error {
	if end.Record == nil {
		_, err := s.finishNarratorStep(ctx, grantID, token, end, now)
		return err
	}
	// The step's record is kept with it, or neither (a claim lost to
	// another process records nothing here).
	return s.Tx(ctx, func(tx *Store) error {
		held, err := tx.finishNarratorStep(ctx, grantID, token, end, now)
		if err != nil || !held {
			return err
		}
		step := *end.Record
		step.GrantID, step.CreatedAt = grantID, now
		if err := tx.db.WithContext(ctx).Create(&step).Error; err != nil {
			return translate(err, "narrator step")
		}
		// Keep the last KeptNarratorSteps.
		err = tx.db.WithContext(ctx).Where("grant_id = ? AND id NOT IN (?)", grantID,
			tx.db.Model(&NarratorStep{}).Select("id").Where("grant_id = ?", grantID).Order("id DESC").Limit(KeptNarratorSteps)).
			Delete(&NarratorStep{}).Error
		return translate(err, "narrator steps")
	})
}

func (s *Store) finishNarratorStep(ctx context.Context, grantID int64, token string, end NarratorStepEnd, now time.Time) (bool, error) {
	res := s.db.WithContext(ctx).Model(&Narrator{}).Where("grant_id = ? AND step_token = ?", grantID, token).
		Updates(map[string]any{"step_token": "", "step_heartbeat": nil, "state": end.State, "last_error": end.LastError, "draft": "",
			"handled_seq": gorm.Expr("CASE WHEN handled_seq > ? THEN handled_seq ELSE ? END", end.HandledSeq, end.HandledSeq),
			"steps":       gorm.Expr("steps + 1"), "prompt_tokens": gorm.Expr("prompt_tokens + ?", end.PromptTokens),
			"completion_tokens": gorm.Expr("completion_tokens + ?", end.CompletionTokens),
			"last_step_tokens":  end.PromptTokens + end.CompletionTokens, "updated_at": now})
	return res.RowsAffected == 1, translate(res.Error, "narrator")
}

// SetNarratorHandled moves the narrator's handled event without a step
// (events that ask nothing of it).
func (s *Store) SetNarratorHandled(ctx context.Context, grantID, seq int64) error {
	err := s.db.WithContext(ctx).Model(&Narrator{}).Where("grant_id = ? AND handled_seq < ?", grantID, seq).
		Update("handled_seq", seq).Error
	return translate(err, "narrator")
}

// SetNarratorWindow records (or, with nil, clears) the deadline of the
// window the narrator has open.
func (s *Store) SetNarratorWindow(ctx context.Context, grantID int64, deadline *time.Time) error {
	err := s.db.WithContext(ctx).Model(&Narrator{}).Where("grant_id = ?", grantID).Update("window_deadline", deadline).Error
	return translate(err, "narrator")
}

// NarratorUpdate changes a narrator's controls; nil fields stay.
type NarratorUpdate struct {
	Paused     *bool
	ActNow     *bool
	DebounceMS *int
	State      *string
}

// UpdateNarrator applies u.
func (s *Store) UpdateNarrator(ctx context.Context, grantID int64, u NarratorUpdate, now time.Time) error {
	m := map[string]any{"updated_at": now}
	if u.Paused != nil {
		m["paused"] = *u.Paused
	}
	if u.ActNow != nil {
		m["act_now"] = *u.ActNow
	}
	if u.DebounceMS != nil {
		m["debounce_ms"] = *u.DebounceMS
	}
	if u.State != nil {
		m["state"] = *u.State
	}
	err := s.db.WithContext(ctx).Model(&Narrator{}).Where("grant_id = ?", grantID).Updates(m).Error
	return translate(err, "narrator")
}

// ActiveGrantsOfRoom returns the room's active AI grants.
func (s *Store) ActiveGrantsOfRoom(ctx context.Context, roomID int64) ([]AIControllerGrant, error) {
	var rows []AIControllerGrant
	err := s.db.WithContext(ctx).Where("room_id = ? AND status = ?", roomID, GrantActive).Order("id").Find(&rows).Error
	return rows, translate(err, "grants")
}

// ReleaseNarratorClaims frees the step claims whose token starts with
// prefix (a dead previous run of this process).
func (s *Store) ReleaseNarratorClaims(ctx context.Context, prefix string) error {
	err := s.db.WithContext(ctx).Model(&Narrator{}).Where("step_token LIKE ?", prefix+"%").
		Updates(map[string]any{"step_token": "", "step_heartbeat": nil, "state": NarratorIdle, "draft": ""}).Error
	return translate(err, "narrators")
}
