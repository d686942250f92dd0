package table

import (
	"context"
	"encoding/json"
	"time"

	"github.com/adventure-table/adventure-table/models"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// A narrator's Insights: the record of its recent steps (what its prompt
// held, section by section, the exact messages and the tool calls), for
// the people who direct it. A DM narrator's prompt holds what only the DM
// may see (secret DCs, hidden numbers), so the rule is the one that lets
// a person direct it (mayControlNarrator), checked on the canonical rows.

// NarratorStepSummary is one step in the list.
type NarratorStepSummary struct {
	ID               int64     `json:"id"`
	CreatedAt        time.Time `json:"created_at"`
	PromptTokens     int64     `json:"prompt_tokens"`
	CompletionTokens int64     `json:"completion_tokens"`
	ToolCalls        int       `json:"tool_calls"`
	Outcome          string    `json:"outcome" jsonschema:"empty, or the step's stable code (a flag or the error that left it stuck)"`
}

// NarratorStepView is one step with its record.
type NarratorStepView struct {
	NarratorStepSummary
	Record NarratorStepRecord `json:"record"`
}

// NarratorStepRecord is what the narrator runner records of a step: what
// its prompt held section by section, the exact messages (the last one the
// narration it posted, if any) and the names of the tools it was offered.
type NarratorStepRecord struct {
	Sections []PromptSection `json:"sections"`
	Messages []StepMessage   `json:"messages"`
	Tools    []string        `json:"tools"`
}

// PromptSection is one part of a step's prompt and its tokens.
type PromptSection struct {
	Name   string `json:"name"`
	Tokens int    `json:"tokens"`
}

// StepMessage is one message of a step's conversation with the model.
type StepMessage struct {
	Role       string     `json:"role" jsonschema:"system, user, assistant or tool"`
	Content    string     `json:"content"`
	ToolCalls  []StepCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
}

// StepCall is a tool call the model made.
type StepCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments" jsonschema:"the arguments as the model wrote them (JSON)"`
}

func stepSummary(r *models.NarratorStep) NarratorStepSummary {
	return NarratorStepSummary{ID: r.ID, CreatedAt: r.CreatedAt, PromptTokens: r.PromptTokens, CompletionTokens: r.CompletionTokens,
		ToolCalls: r.ToolCalls, Outcome: r.Outcome}
}

// directedNarrator finds the narrator at the seat, for a caller who may
// direct it.
func directedNarrator(ctx context.Context, tx *models.Store, c Caller, seatID int64) (*models.AIControllerGrant, error) {
	seat, _, a, err := seatActor(ctx, tx, c, seatID)
	if err != nil {
		return nil, err
	}
	_, g, err := narratorAt(ctx, tx, seat)
	if err != nil {
		return nil, err
	}
	if !mayControlNarrator(a, g) {
		return nil, apperr.E(apperr.RoomAuthorityRequired, "Only the room owner, or the player whose seat it plays, can read the narrator's steps.")
	}
	return g, nil
}

// NarratorSteps lists the recent steps of the narrator at a seat, newest
// first.
//
// Returns not_found, room_authority_required.
func (s *Service) NarratorSteps(ctx context.Context, c Caller, seatID int64) ([]NarratorStepSummary, error) {
	out := []NarratorStepSummary{}
	err := s.store.Tx(ctx, func(tx *models.Store) error {
		g, err := directedNarrator(ctx, tx, c, seatID)
		if err != nil {
			return err
		}
		rows, err := tx.NarratorSteps(ctx, g.ID)
		for i := range rows {
			out = append(out, stepSummary(&rows[i]))
		}
		return err
	})
	return out, err
}

// NarratorStep is one step of the narrator at a seat, with its record.
//
// Returns not_found, room_authority_required.
func (s *Service) NarratorStep(ctx context.Context, c Caller, seatID, stepID int64) (NarratorStepView, error) {
	var out NarratorStepView
	err := s.store.Tx(ctx, func(tx *models.Store) error {
		g, err := directedNarrator(ctx, tx, c, seatID)
		if err != nil {
			return err
		}
		r, err := tx.FindNarratorStep(ctx, g.ID, stepID)
		if err != nil {
			return err
		}
		out = NarratorStepView{NarratorStepSummary: stepSummary(r)}
		return json.Unmarshal([]byte(r.Record), &out.Record)
	})
	return out, err
}
