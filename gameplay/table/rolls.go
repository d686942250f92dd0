package table

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/adventure-table/adventure-table/gameplay/dice"
	"github.com/adventure-table/adventure-table/gameplay/sheet"
	"github.com/adventure-table/adventure-table/models"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// Roll event kinds.
const (
	EventRollRequested = "roll.requested"
	EventRollResolved  = "roll.resolved"
	EventRollOutcome   = "roll.outcome"
	EventRollCancelled = "roll.cancelled"
	EventRollQuick     = "roll.quick"
)

// RollResultView is a roll as a caller may see it. Success is present only
// for the DM, or for everyone when the DM chose to reveal it.
type RollResultView struct {
	ID                 int64       `json:"id"`
	RollRequestID      *int64      `json:"roll_request_id"`
	ActingSeatID       int64       `json:"acting_seat_id"`
	SubjectSeatID      *int64      `json:"subject_seat_id"`
	SubjectCharacterID *int64      `json:"subject_character_id"`
	ExecutionMode      string      `json:"execution_mode"`
	Source             string      `json:"source" jsonschema:"server, physical or quick"`
	Formula            string      `json:"formula"`
	Audit              dice.Result `json:"audit" jsonschema:"every die rolled with kept/dropped/exploded/rerolled marks"`
	RawDice            []int       `json:"raw_dice"`
	KeptDice           []int       `json:"kept_dice"`
	BaseModifier       int         `json:"base_modifier"`
	FlatAdjustment     int         `json:"flat_adjustment"`
	Total              int         `json:"total"`
	Success            *bool       `json:"success,omitempty"`
	Visibility         string      `json:"visibility"`
	CreatedAt          time.Time   `json:"created_at"`
	// What a quick roll of the sheet rolled; absent for other rolls.
	Check      string `json:"check,omitempty" jsonschema:"a quick roll of a sheet check: its key (perception, dex, dex_save)"`
	AttackName string `json:"attack_name,omitempty" jsonschema:"a quick roll of a sheet attack: the attack's name"`
	AttackRoll string `json:"attack_roll,omitempty" jsonschema:"with attack_name: to_hit or damage"`
	DamageType string `json:"damage_type,omitempty" jsonschema:"with attack_roll damage: the damage type"`
}

// RollRequestView is a check request as a caller may see it. DC is present
// only for the DM until it is revealed (when every check of its group is
// settled); then everyone who sees the request gets the DC and its salt, to
// check them against DCCommitment, which everyone sees from the start (see
// commitment.go).
type RollRequestView struct {
	ID                int64           `json:"id"`
	GroupID           *int64          `json:"group_id"`
	Label             string          `json:"label"`
	TargetSeatID      int64           `json:"target_seat_id"`
	TargetCharacterID *int64          `json:"target_character_id"`
	RequestType       string          `json:"request_type" jsonschema:"ability, skill or save (a saving throw of the ability)"`
	Ability           string          `json:"ability"`
	Skill             string          `json:"skill"`
	DC                *int            `json:"dc,omitempty" jsonschema:"secret: sent to the DM only until revealed, then to everyone who sees it"`
	DCCommitment      string          `json:"dc_commitment,omitempty" jsonschema:"hex SHA-256 of 'adventure-table-dc-v1:<dc>:<dc_salt>', sent to everyone while the DC is secret"`
	DCSalt            string          `json:"dc_salt,omitempty" jsonschema:"the commitment's random salt (hex), once revealed: when every check of the group is settled"`
	Mode              string          `json:"mode" jsonschema:"normal, advantage or disadvantage"`
	FlatAdjustment    int             `json:"flat_adjustment"`
	RevealOutcome     bool            `json:"reveal_outcome"`
	Visibility        string          `json:"visibility"`
	Status            string          `json:"status"`
	DiceNeeded        int             `json:"dice_needed" jsonschema:"how many d20 faces a physical roll must send"`
	CreatedAt         time.Time       `json:"created_at"`
	ResolvedAt        *time.Time      `json:"resolved_at"`
	Result            *RollResultView `json:"result"`
}

// CheckRequestInput is the DM's "everyone roll Perception".
type CheckRequestInput struct {
	SeatIDs         []int64 `json:"seat_ids,omitempty" jsonschema:"player seats to ask; empty means every participant"`
	Ability         string  `json:"ability,omitempty" jsonschema:"str, dex, con, int, wis or cha (implied by skill)"`
	Skill           string  `json:"skill,omitempty" jsonschema:"a 5e SRD skill, e.g. perception"`
	Save            string  `json:"save,omitempty" jsonschema:"a saving throw instead of an ability or skill check: dex, dex_save, 'dex save' or 'Dexterity saving throw'"`
	DC              *int    `json:"dc,omitempty" jsonschema:"secret difficulty class, 1 to 40"`
	Mode            string  `json:"mode,omitempty" jsonschema:"normal (default), advantage or disadvantage"`
	FlatAdjustment  int     `json:"flat_adjustment,omitempty" jsonschema:"-20 to 20, added to the derived modifier"`
	RevealOutcome   bool    `json:"reveal_outcome,omitempty" jsonschema:"show players success or failure"`
	Private         bool    `json:"private,omitempty" jsonschema:"only the rolling player and the DM see the result"`
	Label           string  `json:"label,omitempty"`
	PendingActionID *int64  `json:"pending_action_id,omitempty" jsonschema:"a pending action this check adjudicates (one seat only)"`
}

// CheckRequests is what RequestCheck created.
type CheckRequests struct {
	GroupID  int64             `json:"group_id"`
	Requests []RollRequestView `json:"requests"`
}

// RollInput resolves a request: no faces means a server roll; faces are the
// physical dice's raw values.
type RollInput struct {
	Faces          []int  `json:"faces,omitempty" jsonschema:"raw d20 faces of a physical roll"`
	IdempotencyKey string `json:"idempotency_key,omitempty"`
}

// QuickRollInput is a free dice roll that never completes a request.
type QuickRollInput struct {
	Formula string `json:"formula" jsonschema:"dice notation; empty when check is given"`
	// Check rolls 1d20 plus the modifier of the roller's (or, for the DM,
	// the subject seat's) character for a skill or ability.
	Check string `json:"check,omitempty" jsonschema:"a skill, an ability or a saving throw (dex_save) instead of a formula: 1d20 + the character's modifier"`
	// Attack rolls an attack of the character's sheet: its to-hit, or
	// with Damage its damage, both derived by the server.
	Attack         string `json:"attack,omitempty" jsonschema:"an attack of the character's sheet, by name or 1-based number, instead of a formula or check: 1d20 + its to-hit"`
	Damage         bool   `json:"damage,omitempty" jsonschema:"with attack: roll the attack's damage (its dice + the modifier) instead of the to-hit"`
	Private        bool   `json:"private,omitempty" jsonschema:"only the roller (and the seat rolled for) and the DM see it (/gmroll)"`
	SubjectSeatID  *int64 `json:"subject_seat_id,omitempty" jsonschema:"DM only: roll for this player seat"`
	IdempotencyKey string `json:"idempotency_key,omitempty"`
	// forCharacter, set by RollFromSheet, is the character whose sheet
	// rolls: the roll is refused unless the posting seat plays it.
	forCharacter int64
}

// MaxCheckSeats bounds the seats one check request names.
const MaxCheckSeats = 50

// dedupeIDs keeps the first of each id, in order.
func dedupeIDs(ids []int64) []int64 {
	seen := map[int64]bool{}
	out := ids[:0:0]
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// checkModifier derives a check's modifier from the stored character by
// the sheet rules (sheet.CheckModifier). No client field can change it.
func checkModifier(c *models.Character, ability, skill string) int {
	return sheet.CheckModifier(sheetInput(c), ability, skill)
}

// requestModifier is the modifier the stored character adds to a check
// request's roll: a saving throw's (sheet.SaveModifier) or a check's.
func requestModifier(c *models.Character, r models.RollRequest) int {
	if r.RequestType == models.RequestSave {
		return sheet.SaveModifier(sheetInput(c), r.AbilityRef)
	}
	return checkModifier(c, r.AbilityRef, r.SkillRef)
}

// rollKey normalises what a d20 roll of the sheet names: a skill or
// ability check to its key ("sleight_of_hand", "dex"), a saving throw to
// "<ability>_save"; "" when it names neither.
func rollKey(s string) string {
	if c, ok := sheet.ParseCheck(s); ok {
		return c.Key()
	}
	if a, ok := sheet.ParseSave(s); ok {
		return a + sheet.SaveSuffix
	}
	return ""
}

// rollModifier is the modifier the stored character adds to the roll a
// rollKey names: a saving throw's (sheet.SaveModifier) or a check's.
func rollModifier(c *models.Character, key string) int {
	if a, ok := sheet.ParseSave(key); ok {
		return sheet.SaveModifier(sheetInput(c), a)
	}
	check, _ := sheet.ParseCheck(key)
	return checkModifier(c, check.Ability, check.Skill)
}

// What an attack roll rolls (roll.quick's attack_roll).
const (
	attackToHit  = "to_hit"
	attackDamage = "damage"
)

// attackRoll is an attack roll as the stored sheet makes it.
type attackRoll struct {
	name, kind, damageType string
	expr                   *dice.Expr
	base                   int
}

// rollOfAttack finds the attack a quick roll names on the stored character
// and makes its roll: 1d20 + the to-hit, or the damage dice + the damage
// modifier, both by the sheet rules (sheet.DeriveAttack). Returns
// invalid_request (attack) when the sheet has no such attack.
func rollOfAttack(c *models.Character, key string, damage bool) (*attackRoll, error) {
	attacks := sheetAttacks(c.Attacks)
	i, ok := sheet.FindAttack(attacks, key)
	if !ok {
		return nil, apperr.E(apperr.InvalidRequest, "%s has no attack %q.", c.Name, key).WithField("attack", "the name or number of an attack on the sheet")
	}
	d := sheet.DeriveAttack(sheetInput(c), attacks[i])
	r := &attackRoll{name: d.Name, kind: attackToHit, damageType: d.DamageType, base: d.ToHit}
	formula := "1d20"
	if damage {
		r.kind, formula, r.base = attackDamage, attacks[i].Damage, d.DamageModifier
	}
	var err error
	r.expr, err = dice.Parse(formula, dice.DefaultLimits)
	return r, err
}

// diceFor is the d20 expression of a check mode.
func diceFor(mode string) string {
	return dice.D20(mode == models.ModeAdvantage, mode == models.ModeDisadvantage)
}

func diceNeeded(mode string) int {
	if mode == models.ModeNormal {
		return 1
	}
	return 2
}

// rollViewer decides what of rolls a caller sees: the DM everything; others
// the public results and those of seats they control, never a DC, and
// success only when revealed.
type rollViewer struct {
	viewer
}

func (v rollViewer) seesResult(r models.RollResult) bool {
	if v.dm || r.Visibility == models.VisibilityPublic {
		return true
	}
	return (r.SubjectSeatID != nil && v.seats[*r.SubjectSeatID]) || v.seats[r.ActingSeatID]
}

func (v rollViewer) seesRequest(r models.RollRequest) bool {
	return v.dm || v.seats[r.TargetSeatID] || r.Visibility == models.VisibilityPublic
}

func (v rollViewer) result(r models.RollResult, revealed bool) RollResultView {
	out := RollResultView{ID: r.ID, RollRequestID: r.RollRequestID, ActingSeatID: r.ActingSeatID, SubjectSeatID: r.SubjectSeatID,
		SubjectCharacterID: r.SubjectCharacterID, ExecutionMode: r.ExecutionMode, Source: r.Source, Formula: r.Formula,
		RawDice: nonNilInts(r.RawDice), KeptDice: nonNilInts(r.KeptDice),
		BaseModifier: r.BaseModifier, FlatAdjustment: r.FlatAdjustment, Total: r.Total, Visibility: r.Visibility, CreatedAt: r.CreatedAt,
		Check: r.CheckKey, AttackName: r.AttackName, AttackRoll: r.AttackRoll, DamageType: r.DamageType}
	// The audit is written by storeResult from a dice.Result; an unreadable
	// one shows as no groups rather than failing the read.
	_ = json.Unmarshal([]byte(r.Audit), &out.Audit)
	if v.dm || revealed {
		out.Success = r.Success
	}
	return out
}

func (v rollViewer) request(r models.RollRequest, label string, res *models.RollResult) RollRequestView {
	out := RollRequestView{ID: r.ID, GroupID: r.RollGroupID, Label: label, TargetSeatID: r.TargetSeatID, TargetCharacterID: r.TargetCharacterID,
		RequestType: r.RequestType, Ability: r.AbilityRef, Skill: r.SkillRef, Mode: r.ModifierMode, FlatAdjustment: r.FlatAdjustment,
		RevealOutcome: r.RevealOutcome, Visibility: r.Visibility, Status: r.Status, DiceNeeded: diceNeeded(r.ModifierMode),
		CreatedAt: r.CreatedAt, ResolvedAt: r.ResolvedAt}
	out.DCCommitment = requestCommitment(r)
	if v.dm || r.DCRevealed {
		out.DC = r.DC
	}
	if r.DCRevealed {
		out.DCSalt = r.DCSalt
	}
	if res != nil && v.seesResult(*res) {
		rv := v.result(*res, r.RevealOutcome)
		out.Result = &rv
	}
	return out
}

func nonNilInts(s []int) []int {
	if s == nil {
		return []int{}
	}
	return s
}

// requestLabel is the label the DM gave the request's group, or else what
// it checks.
func requestLabel(r models.RollRequest) string {
	if r.GroupLabel != "" {
		return r.GroupLabel
	}
	return checkKey(r.RequestType, r.AbilityRef, r.SkillRef)
}

// checkKey is the rollKey of what a request asks: the skill, the ability,
// or "<ability>_save" for a saving throw.
func checkKey(reqType, ability, skill string) string {
	switch {
	case reqType == models.RequestSave:
		return ability + sheet.SaveSuffix
	case skill != "":
		return skill
	}
	return ability
}

// participantsBySeat maps the session's participant seats.
func participantsBySeat(ps []models.SessionParticipant) map[int64]models.SessionParticipant {
	out := map[int64]models.SessionParticipant{}
	for _, p := range ps {
		out[p.SeatID] = p
	}
	return out
}

// requireLiveDM: the current DM of an active session.
func requireLiveDM(sc sessionScope) error {
	if err := requireCurrentDM(sc); err != nil {
		return err
	}
	if sc.session.Status != models.SessionActive {
		return apperr.E(apperr.SessionNotActive, "The session is not in play.")
	}
	return nil
}

// RequestCheck asks one or more participant seats for an ability or skill
// check, or a saving throw, with a secret DC, in one transaction: a group,
// a request per seat (each with its own DC salt), an event per request (to
// the target and the DM, with the DC's commitment but not the DC), and the
// adjudicated pending action's move to
// waiting_for_roll. Only the current
// DM may. Returns not_current_dm, session_not_active, check_invalid,
// pending_action_invalid_transition, not_found.
func (s *Service) RequestCheck(ctx context.Context, c Caller, sessionID int64, in CheckRequestInput) (CheckRequests, error) {
	reqType, ability, skill, err := validateCheck(&in)
	if err != nil {
		return CheckRequests{}, err
	}
	var out CheckRequests
	err = s.store.Tx(ctx, func(tx *models.Store) error {
		sc, err := loadSession(ctx, tx, c, sessionID, true)
		if err != nil {
			return err
		}
		if err := requireLiveDM(sc); err != nil {
			return err
		}
		participants, err := tx.FindParticipants(ctx, sessionID)
		if err != nil {
			return err
		}
		bySeat := participantsBySeat(participants)
		seats := in.SeatIDs
		if len(seats) == 0 {
			for _, p := range participants {
				seats = append(seats, p.SeatID)
			}
		}
		if len(seats) == 0 {
			return apperr.E(apperr.CheckInvalid, "Nobody is taking part in the session yet.")
		}
		var pending *models.PendingAction
		if in.PendingActionID != nil {
			if len(seats) != 1 {
				return apperr.E(apperr.CheckInvalid, "A check for a pending action asks exactly one seat.").WithField("seat_ids", "exactly one seat")
			}
			pending, err = tx.FindPendingAction(ctx, *in.PendingActionID, true)
			if err != nil || pending.SessionID != sessionID {
				return notFound("pending action")
			}
			if !canTransition(pending.Status, models.PendingWaitingForRoll) {
				return invalidTransition(pending.Status, models.PendingWaitingForRoll)
			}
		}
		label := in.Label
		if label == "" {
			label = checkKey(reqType, ability, skill)
		}
		dm := sc.session.DMSeatID
		group := &models.RollGroup{SessionID: sessionID, Label: label, RequestedBySeatID: dm, CreatedAt: s.now()}
		if err := tx.CreateRollGroup(ctx, group); err != nil {
			return err
		}
		out.GroupID = group.ID
		visibility := models.VisibilityPublic
		if in.Private {
			visibility = models.VisibilityActorAndDM
		}
		rv := rollViewer{sc.viewer()}
		for _, seatID := range seats {
			p, ok := bySeat[seatID]
			if !ok {
				return apperr.E(apperr.CheckInvalid, "Seat %d is not taking part in this session.", seatID).WithField("seat_ids", "participant seats only")
			}
			r := &models.RollRequest{SessionID: sessionID, RollGroupID: &group.ID, TargetSeatID: seatID, TargetCharacterID: p.CharacterID,
				RequestType: reqType, AbilityRef: ability, SkillRef: skill, DC: in.DC, ModifierMode: in.Mode, FlatAdjustment: in.FlatAdjustment,
				RevealOutcome: in.RevealOutcome, Visibility: visibility, Status: models.RollPending, RequestedBySeatID: dm, CreatedAt: s.now()}
			if in.DC != nil {
				// Each request its own salt: equal DCs give unequal commitments.
				r.DCSalt = newDCSalt()
			}
			if err := tx.CreateRollRequest(ctx, r); err != nil {
				return err
			}
			seat := seatID
			// The event carries no DC, only its commitment: whatever its
			// audience, it is safe.
			payload := map[string]any{"request_id": r.ID, "group_id": group.ID, "label": label,
				"request_type": reqType, "ability": ability, "skill": skill, "mode": in.Mode, "flat_adjustment": in.FlatAdjustment,
				"reveal_outcome": in.RevealOutcome}
			if c := requestCommitment(*r); c != "" {
				payload["dc_commitment"] = c
			}
			if _, err := s.appendNext(ctx, tx, sessionID, eventDraft{kind: EventRollRequested, acting: &dm, subject: &seat, character: p.CharacterID,
				visibility: models.VisibilityActorAndDM, payload: payload}); err != nil {
				return err
			}
			if pending != nil {
				if err := s.moveAction(ctx, tx, pending, models.PendingWaitingForRoll, &r.ID); err != nil {
					return err
				}
			}
			out.Requests = append(out.Requests, rv.request(*r, label, nil))
		}
		return nil
	})
	if err != nil {
		return CheckRequests{}, err
	}
	s.notifier.Notify(sessionID)
	return out, nil
}

// validateCheck normalises a check request to what it asks (ability,
// skill or save) and the keys: the skill implies the ability; a saving
// throw names only its ability ("dex save", "Dexterity saving throw",
// "dex_save" or "dex"), and an ability given as a saving throw asks for
// one; the DC is 1–40, the adjustment -20..20. Returns check_invalid.
func validateCheck(in *CheckRequestInput) (reqType, ability, skill string, err error) {
	skill = strings.ToLower(strings.TrimSpace(in.Skill))
	ability = strings.ToLower(strings.TrimSpace(in.Ability))
	bad := apperr.E(apperr.CheckInvalid, "The check request has invalid fields.")
	reqType = models.RequestAbility
	if in.Save == "" && skill == "" {
		if _, ok := sheet.ParseSave(ability); ok {
			in.Save, ability = ability, ""
		}
	}
	if in.Save != "" {
		reqType = models.RequestSave
		a, ok := sheet.ParseSave(in.Save)
		if !ok {
			if c, isCheck := sheet.ParseCheck(in.Save); isCheck && c.Skill == "" {
				a, ok = c.Ability, true
			}
		}
		switch {
		case skill != "" || ability != "":
			bad.WithField("save", "a saving throw names no skill or ability besides")
		case !ok:
			bad.WithField("save", "a saving throw: dex, dex_save or Dexterity saving throw")
		default:
			ability = a
		}
	}
	// Each seat is asked once; a list longer than any campaign's seats is
	// refused before anything is read (every target must also be a
	// participant, checked in the transaction).
	in.SeatIDs = dedupeIDs(in.SeatIDs)
	if len(in.SeatIDs) > MaxCheckSeats {
		bad.WithField("seat_ids", fmt.Sprintf("at most %d seats", MaxCheckSeats))
	}
	if skill != "" {
		reqType = models.RequestSkill
		a, ok := sheet.Skills[skill]
		if !ok {
			bad.WithField("skill", "a 5e SRD skill")
		} else if ability == "" {
			ability = a
		}
	}
	if reqType != models.RequestSave && !slices.Contains(sheet.Abilities, ability) {
		bad.WithField("ability", "str, dex, con, int, wis or cha")
	}
	if in.Mode == "" {
		in.Mode = models.ModeNormal
	}
	if in.Mode != models.ModeNormal && in.Mode != models.ModeAdvantage && in.Mode != models.ModeDisadvantage {
		bad.WithField("mode", "normal, advantage or disadvantage")
	}
	if in.DC != nil && (*in.DC < 1 || *in.DC > 40) {
		bad.WithField("dc", "1 to 40")
	}
	if in.FlatAdjustment < -20 || in.FlatAdjustment > 20 {
		bad.WithField("flat_adjustment", "-20 to 20")
	}
	if len([]rune(in.Label)) > 120 {
		bad.WithField("label", "at most 120 characters")
	}
	if !models.StorableText(in.Label) {
		bad.WithField("label", models.UnstorableTextProblem)
	}
	if len(bad.Fields) > 0 {
		return "", "", "", bad
	}
	return reqType, ability, skill, nil
}

// ResolveRequest completes a pending check with a server roll (no faces) or
// the player's physical dice (raw faces only; the server computes the
// modifier and total). It is single and atomic: the request row is locked
// and moved pending→resolved by compare-and-set, the one result is written
// (a unique index backs this up), the events appended and a waiting pending
// action moved on, in one transaction. A repeated idempotency key replays
// the first answer. The target seat's controller may roll, or the current
// DM for them. Returns not_roll_target, roll_request_already_resolved
// (details.result_id), roll_request_not_pending, roll_faces_mismatch,
// dice_face_invalid, session_not_active, not_found.
func (s *Service) ResolveRequest(ctx context.Context, c Caller, requestID int64, in RollInput) (RollResultView, error) {
	if err := checkIdempotencyKey(in.IdempotencyKey); err != nil {
		return RollResultView{}, err
	}
	var out RollResultView
	var sessionID int64
	err := s.store.Tx(ctx, func(tx *models.Store) error {
		req, err := tx.FindRollRequest(ctx, requestID, true)
		if apperr.CodeOf(err) == apperr.NotFound {
			return notFound("roll request")
		}
		if err != nil {
			return err
		}
		sessionID = req.SessionID
		sc, err := loadSession(ctx, tx, c, req.SessionID, false)
		if err != nil {
			if apperr.CodeOf(err) == apperr.NotFound {
				return notFound("roll request")
			}
			return err
		}
		rv := rollViewer{sc.viewer()}
		if !rv.dm && !rv.seats[req.TargetSeatID] {
			if !rv.seesRequest(*req) {
				return notFound("roll request")
			}
			return apperr.E(apperr.NotRollTarget, "Only the player this check is for, or the DM, can roll it.")
		}
		if in.IdempotencyKey != "" {
			if prior, err := tx.FindResultByIdempotencyKey(ctx, req.SessionID, in.IdempotencyKey); err == nil {
				if prior.RollRequestID == nil || *prior.RollRequestID != req.ID {
					return apperr.E(apperr.Conflict, "This idempotency key was used for another roll.")
				}
				out = rv.result(*prior, req.RevealOutcome)
				return nil
			} else if apperr.CodeOf(err) != apperr.NotFound {
				return err
			}
		}
		switch req.Status {
		case models.RollResolved:
			e := apperr.E(apperr.RollRequestAlreadyResolved, "This check was already rolled.")
			if prior, err := tx.FindResultOfRequest(ctx, req.ID); err == nil {
				e.WithDetail("result_id", prior.ID)
			}
			return e
		case models.RollCancelled:
			return apperr.E(apperr.RollRequestNotPending, "The DM cancelled this check.")
		}
		if sc.session.Status != models.SessionActive {
			return apperr.E(apperr.SessionNotActive, "The session is not in play.")
		}
		var ch *models.Character
		if req.TargetCharacterID != nil {
			if ch, err = tx.FindCharacterByID(ctx, *req.TargetCharacterID); err != nil {
				return err
			}
		}
		expr, err := dice.Parse(diceFor(req.ModifierMode), dice.DefaultLimits)
		if err != nil {
			return err
		}
		source, src := models.SourceServer, dice.Crypto
		var faces *dice.FacesSource
		if in.Faces != nil {
			if len(in.Faces) != expr.DiceCount() {
				return apperr.E(apperr.RollFacesMismatch, "This check needs %d d20 value(s).", expr.DiceCount()).WithDetail("dice_needed", expr.DiceCount())
			}
			faces = dice.Faces(in.Faces...)
			source, src = models.SourcePhysical, faces
		}
		res, err := expr.Roll(src)
		if err != nil {
			return err
		}
		if faces != nil && faces.Remaining() != 0 {
			return apperr.E(apperr.RollFacesMismatch, "Too many dice values for this check.").WithDetail("dice_needed", expr.DiceCount())
		}
		base := 0
		if ch != nil {
			base = requestModifier(ch, *req)
		}
		total := res.Total + base + req.FlatAdjustment
		var success *bool
		if req.DC != nil {
			ok := total >= *req.DC
			success = &ok
		}
		mode := models.ExecSelf
		if rv.dm && !rv.seats[req.TargetSeatID] {
			mode = models.ExecDMProxy
		}
		acting := req.TargetSeatID
		if mode == models.ExecDMProxy {
			acting = sc.session.DMSeatID
		}
		result, err := s.storeResult(ctx, tx, req.SessionID, res, resultFields{request: &req.ID, acting: acting, subject: &req.TargetSeatID,
			character: req.TargetCharacterID, mode: mode, source: source, base: base, flat: req.FlatAdjustment, total: total,
			success: success, visibility: req.Visibility, key: in.IdempotencyKey})
		if err != nil {
			if apperr.CodeOf(err) == apperr.Conflict {
				return apperr.E(apperr.RollRequestAlreadyResolved, "This check was already rolled.")
			}
			return err
		}
		won, err := tx.ResolveRollRequest(ctx, req.ID, req.Version, models.RollResolved, s.now())
		if err != nil {
			return err
		}
		if !won {
			return apperr.E(apperr.RollRequestAlreadyResolved, "This check was already rolled.")
		}
		public := rv.result(*result, req.RevealOutcome)
		public.Success = nil
		if req.RevealOutcome {
			public.Success = success
		}
		subject := req.TargetSeatID
		if _, err := s.appendNext(ctx, tx, req.SessionID, eventDraft{kind: EventRollResolved, acting: &acting, subject: &subject,
			character: req.TargetCharacterID, mode: mode, visibility: req.Visibility,
			payload: map[string]any{"request_id": req.ID, "result": public}}); err != nil {
			return err
		}
		if req.DC != nil {
			if _, err := s.appendNext(ctx, tx, req.SessionID, eventDraft{kind: EventRollOutcome, acting: &acting, subject: &subject,
				mode: mode, visibility: models.VisibilityDMOnly,
				payload: map[string]any{"request_id": req.ID, "result_id": result.ID, "dc": *req.DC, "success": *success}}); err != nil {
				return err
			}
		}
		if err := s.revealSettledGroup(ctx, tx, req.SessionID, req.RollGroupID, sc.session.DMSeatID); err != nil {
			return err
		}
		if pending, err := tx.FindPendingActionByRollRequest(ctx, req.ID); err == nil && pending.Status == models.PendingWaitingForRoll {
			if err := s.moveAction(ctx, tx, pending, models.PendingProcessing, nil); err != nil {
				return err
			}
		} else if err != nil && apperr.CodeOf(err) != apperr.NotFound {
			return err
		}
		out = rv.result(*result, req.RevealOutcome)
		return nil
	})
	if err != nil {
		return RollResultView{}, err
	}
	s.notifier.Notify(sessionID)
	return out, nil
}

// resultFields are the columns of a result besides the dice audit.
type resultFields struct {
	request, subject, character *int64
	acting                      int64
	mode, source, visibility    string
	base, flat, total           int
	success                     *bool
	key                         string
	// what a quick roll of the sheet rolled
	check  string
	attack *attackRoll
}

// storeResult writes a roll result with its audit.
func (s *Service) storeResult(ctx context.Context, tx *models.Store, sessionID int64, res dice.Result, f resultFields) (*models.RollResult, error) {
	audit, err := json.Marshal(res)
	if err != nil {
		return nil, err
	}
	raw, kept := []int{}, []int{}
	for _, g := range res.Groups {
		for _, d := range g.Dice {
			raw = append(raw, d.Value)
			if d.Kept {
				kept = append(kept, d.Value)
			}
		}
	}
	// The formula reads as rolled: dice, then the derived modifier, then the
	// DM's adjustment, each only when it is not zero.
	formula := res.Normalized
	for _, n := range []int{f.base, f.flat} {
		if n != 0 {
			formula += " " + signed(n)
		}
	}
	r := &models.RollResult{RollRequestID: f.request, SessionID: sessionID, ActingSeatID: f.acting, SubjectSeatID: f.subject,
		SubjectCharacterID: f.character, ExecutionMode: f.mode, Source: f.source, Formula: formula, RawDice: raw, KeptDice: kept,
		Audit: string(audit), BaseModifier: f.base, FlatAdjustment: f.flat, Total: f.total, Success: f.success,
		Visibility: f.visibility, CreatedAt: s.now(), CheckKey: f.check}
	if f.attack != nil {
		r.AttackName, r.AttackRoll = f.attack.name, f.attack.kind
		if f.attack.kind == attackDamage {
			r.DamageType = f.attack.damageType
		}
	}
	if f.key != "" {
		r.IdempotencyKey = &f.key
	}
	return r, tx.CreateRollResult(ctx, r)
}

func signed(n int) string {
	if n < 0 {
		return fmt.Sprintf("- %d", -n)
	}
	return fmt.Sprintf("+ %d", n)
}

// CancelRequest cancels a pending check (current DM). Returns
// not_current_dm, roll_request_not_pending, not_found.
func (s *Service) CancelRequest(ctx context.Context, c Caller, requestID int64) (RollRequestView, error) {
	var out RollRequestView
	var sessionID int64
	err := s.store.Tx(ctx, func(tx *models.Store) error {
		req, err := tx.FindRollRequest(ctx, requestID, true)
		if err != nil {
			return notFound("roll request")
		}
		sessionID = req.SessionID
		sc, err := loadSession(ctx, tx, c, req.SessionID, false)
		if err != nil {
			return err
		}
		if err := requireCurrentDM(sc); err != nil {
			return err
		}
		if req.Status != models.RollPending {
			return apperr.E(apperr.RollRequestNotPending, "Only a pending check can be cancelled.")
		}
		won, err := tx.ResolveRollRequest(ctx, req.ID, req.Version, models.RollCancelled, s.now())
		if err != nil {
			return err
		}
		if !won {
			return apperr.E(apperr.RollRequestNotPending, "Only a pending check can be cancelled.")
		}
		dm, seat := sc.session.DMSeatID, req.TargetSeatID
		if _, err := s.appendNext(ctx, tx, req.SessionID, eventDraft{kind: EventRollCancelled, acting: &dm, subject: &seat,
			visibility: models.VisibilityActorAndDM, payload: map[string]any{"request_id": req.ID}}); err != nil {
			return err
		}
		if err := s.revealSettledGroup(ctx, tx, req.SessionID, req.RollGroupID, dm); err != nil {
			return err
		}
		req, err = tx.FindRollRequest(ctx, requestID, false)
		if err != nil {
			return err
		}
		out = rollViewer{sc.viewer()}.request(*req, requestLabel(*req), nil)
		return nil
	})
	if err != nil {
		return RollRequestView{}, err
	}
	s.notifier.Notify(sessionID)
	return out, nil
}

// QuickRoll rolls any expression for the caller (or, for the DM, for a
// participant seat). It is recorded and shown to everyone — or, when
// private (/gmroll), only to the roller, the seat rolled for and the DM —
// and never completes a request. A check (skill or ability) rolls 1d20 plus
// the character's modifier, an attack 1d20 plus its to-hit or its damage
// dice plus the damage modifier, all derived by the server from the stored
// sheet. Returns dice_* codes, message_kind_not_allowed, not_a_participant,
// proxy_target_invalid, session_not_active, invalid_request
// (idempotency_key, check, attack, damage).
func (s *Service) QuickRoll(ctx context.Context, c Caller, sessionID int64, in QuickRollInput) (RollResultView, error) {
	out, _, err := s.quickRoll(ctx, c, sessionID, in)
	return out, err
}

// quickRoll is QuickRoll, also returning the roll.quick event.
func (s *Service) quickRoll(ctx context.Context, c Caller, sessionID int64, in QuickRollInput) (RollResultView, EventView, error) {
	if err := checkIdempotencyKey(in.IdempotencyKey); err != nil {
		return RollResultView{}, EventView{}, err
	}
	formula := in.Formula
	if in.Check != "" {
		key := rollKey(in.Check)
		if key == "" {
			return RollResultView{}, EventView{}, apperr.E(apperr.InvalidRequest, "A check roll names a skill, an ability or a saving throw.").WithField("check", "a skill, ability or saving throw")
		}
		if strings.TrimSpace(in.Formula) != "" {
			return RollResultView{}, EventView{}, apperr.E(apperr.InvalidRequest, "Roll either a formula or a check, not both.").WithField("formula", "empty with check")
		}
		in.Check, formula = key, "1d20"
	}
	if in.Damage && in.Attack == "" {
		return RollResultView{}, EventView{}, apperr.E(apperr.InvalidRequest, "A damage roll names the attack.").WithField("damage", "only with attack")
	}
	if in.Attack != "" && (in.Check != "" || strings.TrimSpace(in.Formula) != "") {
		return RollResultView{}, EventView{}, apperr.E(apperr.InvalidRequest, "Roll either a formula, a check or an attack.").WithField("attack", "empty with formula or check")
	}
	// An attack's dice come from the stored sheet, read in the transaction.
	var expr *dice.Expr
	if in.Attack == "" {
		var err error
		if expr, err = dice.Parse(formula, dice.DefaultLimits); err != nil {
			return RollResultView{}, EventView{}, err
		}
	}
	var out RollResultView
	var ev EventView
	err := s.store.Tx(ctx, func(tx *models.Store) error {
		sc, err := loadSession(ctx, tx, c, sessionID, true)
		if err != nil {
			return err
		}
		rv := rollViewer{sc.viewer()}
		if in.IdempotencyKey != "" {
			if prior, err := tx.FindResultByIdempotencyKey(ctx, sessionID, in.IdempotencyKey); err == nil {
				// Only who rolled it (or the DM) replays a roll by its key.
				if !(rv.dm || rv.seats[prior.ActingSeatID]) || prior.RollRequestID != nil {
					return apperr.E(apperr.Conflict, "This idempotency key was used for another roll.")
				}
				out = rv.result(*prior, false)
				if e, err := tx.FindEventByIdempotencyKey(ctx, sessionID, in.IdempotencyKey); err == nil && e.Kind == EventRollQuick {
					ev = eventView(*e)
				}
				return nil
			}
		}
		if sc.session.Status != models.SessionActive {
			return apperr.E(apperr.SessionNotActive, "The session is not in play.")
		}
		participants, err := tx.FindParticipants(ctx, sessionID)
		if err != nil {
			return err
		}
		// Who rolls for whom follows the posting rules; the DM may also roll
		// for themself.
		var p posting
		if sc.isCurrentDM() && in.SubjectSeatID == nil {
			dm := sc.session.DMSeatID
			p = posting{acting: &dm, mode: models.ExecSelf}
		} else if p, err = decidePosting(sc, participants, MessageInput{Kind: models.MessageAction, SubjectSeatID: in.SubjectSeatID}); err != nil {
			return err
		}
		if in.forCharacter != 0 && (p.character == nil || *p.character != in.forCharacter) {
			return notAtTable()
		}
		base := 0
		var attack *attackRoll
		if in.Check != "" || in.Attack != "" {
			if p.character == nil && in.Attack != "" {
				return apperr.E(apperr.InvalidRequest, "An attack roll needs a character in the seat to take the attack from.").WithField("attack", "needs a seated character")
			}
			if p.character == nil {
				return apperr.E(apperr.InvalidRequest, "A %s roll needs a character in the seat to take the modifier from.", in.Check).WithField("check", "needs a seated character")
			}
			ch, err := tx.FindCharacterByID(ctx, *p.character)
			if err != nil {
				return err
			}
			if in.Attack == "" {
				base = rollModifier(ch, in.Check)
			} else if attack, err = rollOfAttack(ch, in.Attack, in.Damage); err != nil {
				return err
			} else {
				expr, base = attack.expr, attack.base
			}
		}
		res, err := expr.Roll(dice.Crypto)
		if err != nil {
			return err
		}
		visibility := models.VisibilityPublic
		if in.Private {
			visibility = models.VisibilityActorAndDM
		}
		result, err := s.storeResult(ctx, tx, sessionID, res, resultFields{acting: *p.acting, subject: p.subject, character: p.character,
			mode: p.mode, source: models.SourceQuick, base: base, total: res.Total + base, visibility: visibility, key: in.IdempotencyKey,
			check: in.Check, attack: attack})
		if err != nil {
			return err
		}
		out = rv.result(*result, false)
		payload := map[string]any{"result": out}
		if in.Check != "" {
			payload["check"] = in.Check
		}
		if attack != nil {
			payload["attack_name"], payload["attack_roll"] = attack.name, attack.kind
			if attack.kind == attackDamage {
				payload["damage_type"] = attack.damageType
			}
		}
		e, err := s.appendNext(ctx, tx, sessionID, eventDraft{kind: EventRollQuick, acting: p.acting, subject: p.subject, character: p.character,
			mode: p.mode, visibility: visibility, payload: payload, idempotencyKey: in.IdempotencyKey})
		ev = eventView(e)
		return err
	})
	if err != nil {
		return RollResultView{}, EventView{}, err
	}
	s.notifier.Notify(sessionID)
	return out, ev, nil
}
