package table

import (
	"context"
	"slices"
	"strings"

	"github.com/adventure-table/adventure-table/gameplay/combat"
	"github.com/adventure-table/adventure-table/gameplay/sheet"
	"github.com/adventure-table/adventure-table/models"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// EventCharacterChanged announces a change to a character's live state.
const EventCharacterChanged = "character.changed"

// Character state operations.
const (
	OpDamage          = "damage"
	OpHeal            = "heal"
	OpSetTempHP       = "set_temp_hp"
	OpAddCondition    = "add_condition"
	OpRemoveCondition = "remove_condition"
	OpSpendResource   = "spend_resource"
	OpRestoreResource = "restore_resource"
)

// playerOps are what a player may do to their own character at the table:
// heal themself, take temporary HP, and spend or restore their resources.
// Damage and conditions are the DM's call (the DM may do everything, to
// any participant, directly or acting for the player).
var playerOps = []string{OpHeal, OpSetTempHP, OpSpendResource, OpRestoreResource}

// StateChangeInput is one change to a participant's character.
type StateChangeInput struct {
	SubjectSeatID int64  `json:"subject_seat_id"`
	Op            string `json:"op" jsonschema:"damage, heal, set_temp_hp, add_condition, remove_condition, spend_resource or restore_resource"`
	Amount        int    `json:"amount,omitempty" jsonschema:"1 to 9999 for HP and resources"`
	DamageType    string `json:"damage_type,omitempty" jsonschema:"damage: its 5e SRD type, for the character's resistances, immunities and vulnerabilities"`
	Condition     string `json:"condition,omitempty" jsonschema:"a 5e SRD condition"`
	Resource      string `json:"resource,omitempty" jsonschema:"the name of one of the character's resources"`
}

// CharacterState is the part of a character the table changes.
type CharacterState struct {
	HP         HP             `json:"hp"`
	Conditions []string       `json:"conditions"`
	Resources  []ResourceView `json:"resources"`
}

// CharacterStateView is a change with the state before and after.
type CharacterStateView struct {
	CharacterID int64          `json:"character_id"`
	Character   string         `json:"character" jsonschema:"the character's name"`
	SeatID      int64          `json:"seat_id"`
	Op          string         `json:"op"`
	Before      CharacterState `json:"before"`
	After       CharacterState `json:"after"`
}

func stateOf(c *models.Character) CharacterState {
	st := CharacterState{HP: HP{Max: c.HPMax, Current: c.HPCurrent, Temp: c.HPTemp}, Conditions: append([]string{}, nonNil(c.Conditions)...), Resources: []ResourceView{}}
	for _, r := range c.Resources {
		st.Resources = append(st.Resources, ResourceView(r))
	}
	return st
}

// ApplyDamage takes damage: temporary HP absorbs it first, the rest comes
// off current HP, never below 0 (the encounter rules' combat.ApplyDamage).
func ApplyDamage(hp HP, amount int) HP {
	after, _ := combat.ApplyDamage(combat.HP(hp), amount)
	return HP(after)
}

// ApplyHealing restores current HP up to the maximum; temporary HP is
// untouched, and an amount below 1 heals nothing (the encounter rules'
// combat.Heal; a character outside an encounter has no death saves).
func ApplyHealing(hp HP, amount int) HP {
	after, _ := combat.Heal(combat.Combatant{HP: combat.HP(hp)}, amount)
	return HP(after.HP)
}

// ApplyTempHP grants temporary HP, which does not stack: keep the higher
// (the encounter rules' combat.GrantTempHP).
func ApplyTempHP(hp HP, amount int) HP {
	return HP(combat.GrantTempHP(combat.HP(hp), amount))
}

// apply changes c by in. Returns character_state_invalid.
func (in StateChangeInput) apply(c *models.Character) error {
	hp := HP{Max: c.HPMax, Current: c.HPCurrent, Temp: c.HPTemp}
	needAmount := func() error {
		if in.Amount < 1 || in.Amount > 9999 {
			return apperr.E(apperr.CharacterStateInvalid, "The amount must be 1 to 9999.").WithField("amount", "1 to 9999")
		}
		return nil
	}
	switch in.Op {
	case OpDamage, OpHeal, OpSetTempHP:
		if err := needAmount(); err != nil {
			return err
		}
		switch in.Op {
		case OpDamage:
			typ := strings.ToLower(strings.TrimSpace(in.DamageType))
			if typ != "" && !slices.Contains(sheet.DamageTypes, typ) {
				return apperr.E(apperr.CharacterStateInvalid, "Unknown damage type %q.", truncate(typ, 40)).WithField("damage_type", "a 5e SRD damage type")
			}
			hp = ApplyDamage(hp, defensesView(c.Defenses).combat().Modified(in.Amount, typ))
		case OpHeal:
			hp = ApplyHealing(hp, in.Amount)
		default:
			hp = ApplyTempHP(hp, in.Amount)
		}
		c.HPCurrent, c.HPTemp = hp.Current, hp.Temp
	case OpAddCondition, OpRemoveCondition:
		cond := strings.ToLower(strings.TrimSpace(in.Condition))
		if !slices.Contains(Conditions, cond) {
			return apperr.E(apperr.CharacterStateInvalid, "Unknown condition %q.", truncate(cond, 40)).WithField("condition", "a 5e SRD condition")
		}
		has := slices.Contains(c.Conditions, cond)
		if in.Op == OpAddCondition && !has {
			c.Conditions = append(nonNil(c.Conditions), cond)
		}
		if in.Op == OpRemoveCondition && has {
			c.Conditions = slices.DeleteFunc(slices.Clone(c.Conditions), func(s string) bool { return s == cond })
		}
	case OpSpendResource, OpRestoreResource:
		if err := needAmount(); err != nil {
			return err
		}
		i := slices.IndexFunc(c.Resources, func(r models.Resource) bool { return strings.EqualFold(r.Name, strings.TrimSpace(in.Resource)) })
		if i < 0 {
			return apperr.E(apperr.CharacterStateInvalid, "The character has no resource %q.", truncate(in.Resource, 80)).WithField("resource", "one of the character's resources")
		}
		res := slices.Clone(c.Resources)
		if in.Op == OpSpendResource {
			if res[i].Current < in.Amount {
				return apperr.E(apperr.CharacterStateInvalid, "Only %d %s left.", res[i].Current, res[i].Name).WithField("amount", "at most what is left")
			}
			res[i].Current -= in.Amount
		} else {
			res[i].Current = min(res[i].Max, res[i].Current+in.Amount)
		}
		c.Resources = res
	default:
		return apperr.E(apperr.CharacterStateInvalid, "Unknown operation %q.", truncate(in.Op, 40)).WithField("op", "damage, heal, set_temp_hp, add_condition, remove_condition, spend_resource or restore_resource")
	}
	return nil
}

// ChangeCharacterState changes a participant's character and records the
// change as an event with before and after, in one transaction. The
// current DM may do every operation to any participant (recorded as
// dm_proxy with both seats); a player only the playerOps on their own.
// Returns character_state_invalid, character_state_forbidden,
// proxy_target_invalid, session_not_active, not_found.
func (s *Service) ChangeCharacterState(ctx context.Context, c Caller, sessionID int64, in StateChangeInput) (CharacterStateView, error) {
	var out CharacterStateView
	err := s.store.Tx(ctx, func(tx *models.Store) error {
		sc, participants, err := loadLive(ctx, tx, c, sessionID)
		if err != nil {
			return err
		}
		target, ok := participantsBySeat(participants)[in.SubjectSeatID]
		if !ok || target.CharacterID == nil {
			return apperr.E(apperr.ProxyTargetInvalid, "That seat has no character in this session.")
		}
		dm := sc.isCurrentDM()
		own := false
		for _, seat := range sc.seats {
			if seat.ID == in.SubjectSeatID && controls(sc.actor, seat) {
				own = true
			}
		}
		switch {
		case dm:
		case own && slices.Contains(playerOps, in.Op):
		case own:
			return apperr.E(apperr.CharacterStateForbidden, "Damage and conditions are the DM's call.")
		default:
			return apperr.E(apperr.CharacterStateForbidden, "You can only change your own character.")
		}
		ch, err := tx.FindCharacterForUpdate(ctx, *target.CharacterID)
		if err != nil {
			return err
		}
		before := stateOf(ch)
		if err := in.apply(ch); err != nil {
			return err
		}
		ch.UpdatedAt = s.now()
		if err := tx.SaveCharacter(ctx, ch); err != nil {
			return err
		}
		out = CharacterStateView{CharacterID: ch.ID, Character: ch.Name, SeatID: in.SubjectSeatID, Op: in.Op, Before: before, After: stateOf(ch)}
		acting, mode := in.SubjectSeatID, models.ExecSelf
		if dm && !own {
			acting, mode = sc.session.DMSeatID, models.ExecDMProxy
		}
		_, err = s.appendNext(ctx, tx, sessionID, eventDraft{kind: EventCharacterChanged, acting: &acting, subject: &in.SubjectSeatID,
			character: &ch.ID, mode: mode, payload: map[string]any{"character_id": ch.ID, "seat_id": in.SubjectSeatID, "op": in.Op,
				"before": out.Before, "after": out.After}})
		return err
	})
	if err != nil {
		return CharacterStateView{}, err
	}
	s.notifier.Notify(sessionID)
	return out, nil
}
