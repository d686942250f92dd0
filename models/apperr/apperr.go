// Package apperr holds the one error type of Adventure Table: a stable
// snake_case code that clients branch on, an English message, and optional
// field-level details. Every code is declared in this file; the edges (webui,
// mcp) map a code to their own wire form exactly once.
package apperr

import (
	"context"
	"errors"
	"fmt"
	"sort"
)

// Kind is the small closed set of error classes the edges map to statuses.
type Kind string

// The kinds. Edges choose an HTTP status or an MCP result from these.
const (
	KindInvalid      Kind = "invalid"
	KindNotFound     Kind = "not_found"
	KindConflict     Kind = "conflict"
	KindUnauthorized Kind = "unauthorized"
	KindForbidden    Kind = "forbidden"
	KindUnavailable  Kind = "unavailable"
	// KindRateLimited: too many requests; details.retry_after_seconds says
	// when to come back.
	KindRateLimited Kind = "rate_limited"
	KindInternal    Kind = "internal"
)

// Code is a stable, snake_case error code. Codes are wire contract: never
// rename one; add a new one instead.
type Code string

// Every error code of the project. Keep the list sorted by area; the web
// app's message maps (webui/app/src/i18n/errors.*.json) must list exactly
// these keys, which a test in webui enforces.
const (
	// Generic request problems.
	InvalidRequest   Code = "invalid_request"
	NotFound         Code = "not_found"
	RouteNotFound    Code = "route_not_found"
	MethodNotAllowed Code = "method_not_allowed"
	Conflict         Code = "conflict"

	// Identity and access.
	Unauthorized    Code = "unauthorized"
	Forbidden       Code = "forbidden"
	OriginForbidden Code = "origin_forbidden"

	// Infrastructure.
	DatabaseUnavailable Code = "database_unavailable"
	Internal            Code = "internal"

	// People and rooms.
	DisplayNameInvalid    Code = "display_name_invalid"
	RoomNameInvalid       Code = "room_name_invalid"
	InviteCodeInvalid     Code = "invite_code_invalid"
	RoomAccessRevoked     Code = "room_access_revoked"
	RoomAuthorityRequired Code = "room_authority_required"
	RoomOwnerRequired     Code = "room_owner_required"
	OwnerCannotBeRevoked  Code = "owner_cannot_be_revoked"

	// Campaigns, seats, characters.
	CampaignNameInvalid       Code = "campaign_name_invalid"
	CampaignWorldInvalid      Code = "campaign_world_invalid"
	SeatLabelInvalid          Code = "seat_label_invalid"
	SelfClaimDisabled         Code = "self_claim_disabled"
	SeatNotClaimable          Code = "seat_not_claimable"
	SeatAlreadyControlled     Code = "seat_already_controlled"
	SeatControllerRequired    Code = "seat_controller_required"
	CharacterInvalid          Code = "character_invalid"
	CharacterAlreadyInSession Code = "character_already_in_session"
	// TableFull: a friend joining by link finds no free player seat in the
	// room's active campaign. TableNotReady: the room has no active
	// campaign to sit at.
	TableFull     Code = "table_full"
	TableNotReady Code = "table_not_ready"
	// ImportFormatUnsupported: an imported file is not in the app's own
	// format or names a version this build cannot read; details.format and
	// details.version say what the file claimed.
	ImportFormatUnsupported Code = "import_format_unsupported"
	// ImportPNGWithoutCard: an imported PNG holds no character card (no
	// chara or ccv3 text chunk).
	ImportPNGWithoutCard Code = "import_png_without_card"

	// Sessions.
	CampaignNotActive        Code = "campaign_not_active"
	CampaignNotRoomActive    Code = "campaign_not_room_active"
	SessionAlreadyOpen       Code = "session_already_open"
	SessionNotLobby          Code = "session_not_lobby"
	SessionNotActive         Code = "session_not_active"
	RecapNotOpen             Code = "recap_not_open"
	NotCurrentDM             Code = "not_current_dm"
	SeatNotReady             Code = "seat_not_ready"
	ParticipantAlreadyJoined Code = "participant_already_joined"

	// The live table.
	MessageTextInvalid    Code = "message_text_invalid"
	MessageKindNotAllowed Code = "message_kind_not_allowed"
	NotAParticipant       Code = "not_a_participant"
	WhisperTargetRequired Code = "whisper_target_required"
	ProxyTargetInvalid    Code = "proxy_target_invalid"
	StageRevisionConflict Code = "stage_revision_conflict"
	StageImageInvalid     Code = "stage_image_invalid"
	StageImageTooLarge    Code = "stage_image_too_large"
	UnknownCommand        Code = "unknown_command"

	// Dice, checks, pending actions, character state.
	DiceInvalidExpression          Code = "dice_invalid_expression"
	DiceExpressionTooLong          Code = "dice_expression_too_long"
	DiceTooManyDiceInTerm          Code = "dice_too_many_dice_in_term"
	DiceTooManyDice                Code = "dice_too_many_dice"
	DiceTooManySides               Code = "dice_too_many_sides"
	DiceExplosionTooDeep           Code = "dice_explosion_too_deep"
	DiceDivisionByZero             Code = "dice_division_by_zero"
	DiceFaceInvalid                Code = "dice_face_invalid"
	DiceFacesMissing               Code = "dice_faces_missing"
	RollFacesMismatch              Code = "roll_faces_mismatch"
	CheckInvalid                   Code = "check_invalid"
	NotRollTarget                  Code = "not_roll_target"
	RollRequestAlreadyResolved     Code = "roll_request_already_resolved"
	RollRequestNotPending          Code = "roll_request_not_pending"
	PendingActionInvalidTransition Code = "pending_action_invalid_transition"
	ActionWindowClosed             Code = "action_window_closed"
	CharacterStateInvalid          Code = "character_state_invalid"
	CharacterStateForbidden        Code = "character_state_forbidden"
	CharacterInSession             Code = "character_in_session"
	CharacterNotAtTable            Code = "character_not_at_table"

	// AI controller grants.
	AITokenInvalid              Code = "ai_token_invalid"
	AITokenRevoked              Code = "ai_token_revoked"
	AITokenExpired              Code = "ai_token_expired"
	AIGrantNotCurrentController Code = "ai_grant_not_current_controller"
	AIGrantWrongSession         Code = "ai_grant_wrong_session"
	AIGrantPreSessionOnly       Code = "ai_grant_pre_session_only"
	AIGrantAlreadyBound         Code = "ai_grant_already_bound"
	TakeBackOriginRequired      Code = "take_back_origin_required"
	SeatNotAIControlled         Code = "seat_not_ai_controlled"
	// SessionEnded: the session this token played in is over (ended or
	// abandoned); details.reason is session_ended, details.status the end.
	SessionEnded Code = "session_ended"

	// Solo adventures.
	ScenarioInvalid         Code = "scenario_invalid"
	ProviderSettingsInvalid Code = "provider_settings_invalid"
	TurnTextInvalid         Code = "turn_text_invalid"
	TurnInProgress          Code = "turn_in_progress"
	NothingToRetry          Code = "nothing_to_retry"
	NothingToUndo           Code = "nothing_to_undo"
	ActionNotOnLine         Code = "action_not_on_line"
	ActionNotEditable       Code = "action_not_editable"
	ProviderUnavailable     Code = "provider_unavailable"
	ProviderAuthFailed      Code = "provider_auth_failed"
	ProviderRateLimited     Code = "provider_rate_limited"
	ProviderRejected        Code = "provider_rejected"
	ProviderEmptyReply      Code = "provider_empty_reply"
	ProviderReasoningOnly   Code = "provider_reasoning_only"
	// The model call's own time limits (AT_MODEL_*_TIMEOUT).
	ProviderConnectTimeout Code = "provider_connect_timeout"
	ProviderHeadersTimeout Code = "provider_headers_timeout"
	ProviderIdleTimeout    Code = "provider_idle_timeout"
	ProviderTotalTimeout   Code = "provider_total_timeout"
	// TurnInterrupted: the server stopped (shutdown) while the turn was
	// being written; the player's action is kept for Retry.
	TurnInterrupted Code = "turn_interrupted"
	ScriptStopped   Code = "script_stopped"
	// MemoryInvalid: a memory the player writes or edits is empty or too long.
	MemoryInvalid Code = "memory_invalid"
	// What a narrator step at a table seat was flagged for (shown to whoever
	// directs it): narration stating a hit, damage or a check's result with
	// no roll in the step; a DC in text the players read (never posted);
	// more tool calls than a step may make.
	NarratorUnbackedOutcome Code = "narrator_unbacked_outcome"
	NarratorSecretInPublic  Code = "narrator_secret_in_public"
	NarratorToolLimit       Code = "narrator_tool_limit"
	// BundleInvalid: an imported adventure bundle's story does not hold
	// together, or the rows it would write pass a cap; fields say where.
	BundleInvalid Code = "bundle_invalid"
	// CardInvalid: a story card written or edited in play breaks the
	// scenario editor's rules (fields name the problems).
	CardInvalid Code = "card_invalid"
	// CardLimitReached: the adventure already holds the most story cards
	// one may (the scenario editor's cap).
	CardLimitReached Code = "card_limit_reached"
	// CardLogicInvalid: a story card's logic is not and_any, and_all,
	// not_any or not_all (fields name the card).
	CardLogicInvalid Code = "card_logic_invalid"
	// CardKeyInvalid: a story card's /regular expression/ key cannot be
	// matched in linear time: longer than 200 bytes, a lookaround or
	// backreference, not a pattern at all, or past five per card. Details:
	// key, reason (too_long, unsupported, too_complex, too_many).
	CardKeyInvalid Code = "card_key_invalid"

	// Hosted mode: accounts, limits and the demo narrator.
	RateLimited         Code = "rate_limited"
	LoginFailed         Code = "login_failed"
	EmailTaken          Code = "email_taken"
	AccountInvalid      Code = "account_invalid"
	AccountRequired     Code = "account_required"
	DemoBudgetExhausted Code = "demo_budget_exhausted"
	// OperatorRequired: the server's dashboard is for its operators (an
	// account named in AT_ADMIN_EMAILS; in local mode, this machine).
	OperatorRequired Code = "operator_required"

	// MessageNotEditable: only the author (within 10 minutes) or the DM
	// (any time) may edit or delete a chat message.
	MessageNotEditable Code = "message_not_editable"

	// Encounters (combat). EncounterInvalid: a bad start, combatant,
	// attack or change. EncounterNotRunning: the session has no running
	// encounter. EncounterAlreadyRunning: one is running; end it first.
	// NotYourCombatant: a player acts only for their own seat's combatant.
	// NotYourTurn: only the current actor (or the DM) ends a turn.
	EncounterInvalid        Code = "encounter_invalid"
	EncounterNotRunning     Code = "encounter_not_running"
	EncounterAlreadyRunning Code = "encounter_already_running"
	NotYourCombatant        Code = "not_your_combatant"
	NotYourTurn             Code = "not_your_turn"

	// The campaign journal. JournalEntryInvalid: a bad kind, title, text,
	// audience, seat or citation (fields name it). JournalAudienceNotAllowed:
	// a player writes for the DM only, or for some players without their
	// own seat. JournalEntryNotEditable: a player changes an entry that is
	// not their own unconfirmed proposal. JournalDMRequired: only the DM
	// confirms. JournalWiderThanSource: the entry would reach readers the
	// event it cites did not (details.most is the widest it may be).
	// JournalFull: the campaign holds the most entries it may.
	JournalEntryInvalid       Code = "journal_entry_invalid"
	JournalAudienceNotAllowed Code = "journal_audience_not_allowed"
	JournalEntryNotEditable   Code = "journal_entry_not_editable"
	JournalDMRequired         Code = "journal_dm_required"
	JournalWiderThanSource    Code = "journal_wider_than_source"
	JournalFull               Code = "journal_full"
)

// kinds is the single registry of codes: a code missing here is not a code.
var kinds = map[Code]Kind{
	InvalidRequest:      KindInvalid,
	NotFound:            KindNotFound,
	RouteNotFound:       KindNotFound,
	MethodNotAllowed:    KindInvalid,
	Conflict:            KindConflict,
	Unauthorized:        KindUnauthorized,
	Forbidden:           KindForbidden,
	OriginForbidden:     KindForbidden,
	DatabaseUnavailable: KindUnavailable,
	Internal:            KindInternal,

	DisplayNameInvalid:    KindInvalid,
	RoomNameInvalid:       KindInvalid,
	InviteCodeInvalid:     KindNotFound,
	RoomAccessRevoked:     KindForbidden,
	RoomAuthorityRequired: KindForbidden,
	RoomOwnerRequired:     KindForbidden,
	OwnerCannotBeRevoked:  KindInvalid,

	CampaignNameInvalid:       KindInvalid,
	CampaignWorldInvalid:      KindInvalid,
	SeatLabelInvalid:          KindInvalid,
	SelfClaimDisabled:         KindForbidden,
	SeatNotClaimable:          KindInvalid,
	SeatAlreadyControlled:     KindConflict,
	SeatControllerRequired:    KindForbidden,
	CharacterInvalid:          KindInvalid,
	CharacterAlreadyInSession: KindConflict,
	TableFull:                 KindConflict,
	TableNotReady:             KindConflict,
	ImportFormatUnsupported:   KindInvalid,
	ImportPNGWithoutCard:      KindInvalid,

	CampaignNotActive:        KindConflict,
	CampaignNotRoomActive:    KindConflict,
	SessionAlreadyOpen:       KindConflict,
	SessionNotLobby:          KindConflict,
	SessionNotActive:         KindConflict,
	RecapNotOpen:             KindConflict,
	NotCurrentDM:             KindForbidden,
	SeatNotReady:             KindConflict,
	ParticipantAlreadyJoined: KindConflict,

	MessageTextInvalid:    KindInvalid,
	MessageKindNotAllowed: KindForbidden,
	NotAParticipant:       KindForbidden,
	WhisperTargetRequired: KindInvalid,
	ProxyTargetInvalid:    KindInvalid,
	StageRevisionConflict: KindConflict,
	StageImageInvalid:     KindInvalid,
	StageImageTooLarge:    KindInvalid,
	UnknownCommand:        KindInvalid,

	DiceInvalidExpression:          KindInvalid,
	DiceExpressionTooLong:          KindInvalid,
	DiceTooManyDiceInTerm:          KindInvalid,
	DiceTooManyDice:                KindInvalid,
	DiceTooManySides:               KindInvalid,
	DiceExplosionTooDeep:           KindInvalid,
	DiceDivisionByZero:             KindInvalid,
	DiceFaceInvalid:                KindInvalid,
	DiceFacesMissing:               KindInvalid,
	RollFacesMismatch:              KindInvalid,
	CheckInvalid:                   KindInvalid,
	NotRollTarget:                  KindForbidden,
	RollRequestAlreadyResolved:     KindConflict,
	RollRequestNotPending:          KindConflict,
	PendingActionInvalidTransition: KindConflict,
	ActionWindowClosed:             KindConflict,
	CharacterStateInvalid:          KindInvalid,
	CharacterStateForbidden:        KindForbidden,
	CharacterInSession:             KindConflict,
	CharacterNotAtTable:            KindConflict,

	EncounterInvalid:        KindInvalid,
	EncounterNotRunning:     KindConflict,
	EncounterAlreadyRunning: KindConflict,
	NotYourCombatant:        KindForbidden,
	NotYourTurn:             KindForbidden,

	AITokenInvalid:              KindUnauthorized,
	AITokenRevoked:              KindUnauthorized,
	AITokenExpired:              KindUnauthorized,
	AIGrantNotCurrentController: KindUnauthorized,
	AIGrantWrongSession:         KindForbidden,
	AIGrantPreSessionOnly:       KindForbidden,
	AIGrantAlreadyBound:         KindConflict,
	TakeBackOriginRequired:      KindForbidden,
	SeatNotAIControlled:         KindConflict,
	SessionEnded:                KindConflict,

	ScenarioInvalid:         KindInvalid,
	ProviderSettingsInvalid: KindInvalid,
	TurnTextInvalid:         KindInvalid,
	TurnInProgress:          KindConflict,
	NothingToRetry:          KindConflict,
	NothingToUndo:           KindConflict,
	ActionNotOnLine:         KindConflict,
	ActionNotEditable:       KindConflict,
	ProviderUnavailable:     KindUnavailable,
	ProviderAuthFailed:      KindUnavailable,
	ProviderRateLimited:     KindUnavailable,
	ProviderRejected:        KindUnavailable,
	ProviderEmptyReply:      KindUnavailable,
	ProviderReasoningOnly:   KindUnavailable,
	ProviderConnectTimeout:  KindUnavailable,
	ProviderHeadersTimeout:  KindUnavailable,
	ProviderIdleTimeout:     KindUnavailable,
	ProviderTotalTimeout:    KindUnavailable,
	TurnInterrupted:         KindUnavailable,
	ScriptStopped:           KindConflict,
	MemoryInvalid:           KindInvalid,
	NarratorUnbackedOutcome: KindConflict,
	NarratorSecretInPublic:  KindConflict,
	NarratorToolLimit:       KindConflict,
	BundleInvalid:           KindInvalid,
	CardInvalid:             KindInvalid,
	CardLimitReached:        KindConflict,
	CardLogicInvalid:        KindInvalid,
	CardKeyInvalid:          KindInvalid,

	RateLimited:         KindRateLimited,
	LoginFailed:         KindUnauthorized,
	EmailTaken:          KindConflict,
	AccountInvalid:      KindInvalid,
	AccountRequired:     KindForbidden,
	DemoBudgetExhausted: KindRateLimited,
	OperatorRequired:    KindForbidden,
	MessageNotEditable:  KindForbidden,

	JournalEntryInvalid:       KindInvalid,
	JournalAudienceNotAllowed: KindForbidden,
	JournalEntryNotEditable:   KindForbidden,
	JournalDMRequired:         KindForbidden,
	JournalWiderThanSource:    KindInvalid,
	JournalFull:               KindConflict,
}

// Codes returns every declared code, sorted.
func Codes() []Code {
	out := make([]Code, 0, len(kinds))
	for c := range kinds {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// Kind returns the kind of a declared code, and internal for anything else.
func (c Code) Kind() Kind {
	if k, ok := kinds[c]; ok {
		return k
	}
	return KindInternal
}

// Error is the application error. Message is English and safe to show;
// Fields carries per-field problems keyed by JSON field name; Details carries
// machine-readable facts (a limit, a position); Err is the wrapped cause and is
// never shown to a client.
type Error struct {
	Code    Code
	Message string
	Fields  map[string]string
	Details map[string]any
	Err     error
}

// Error implements error.
func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.Err)
	}
	return fmt.Sprintf("%s: %s", e.Code, e.Message)
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// E builds an application error with a formatted message.
func E(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Wrap builds an application error that keeps err as its hidden cause.
func Wrap(err error, code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), Err: err}
}

// WithField adds a field-level problem and returns e.
func (e *Error) WithField(field, problem string) *Error {
	if e.Fields == nil {
		e.Fields = map[string]string{}
	}
	e.Fields[field] = problem
	return e
}

// WithDetail adds a machine-readable detail and returns e.
func (e *Error) WithDetail(key string, value any) *Error {
	if e.Details == nil {
		e.Details = map[string]any{}
	}
	e.Details[key] = value
	return e
}

// As returns the application error inside err, if any.
func As(err error) (*Error, bool) {
	var e *Error
	if errors.As(err, &e) {
		return e, true
	}
	return nil, false
}

// CodeOf returns the code of err: its application code when it carries a
// declared one, internal otherwise, and "" for nil.
func CodeOf(err error) Code {
	if err == nil {
		return ""
	}
	if e, ok := As(err); ok {
		if _, declared := kinds[e.Code]; declared {
			return e.Code
		}
	}
	return Internal
}

// MessageOf returns the message safe to show for err. Internal errors never
// leak their cause.
func MessageOf(err error) string {
	if e, ok := As(err); ok && CodeOf(err) != Internal {
		return e.Message
	}
	return "Internal error."
}

// IsCanceled reports whether err comes from a cancelled or expired context;
// the edges answer those without a body and without logging an error.
func IsCanceled(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}
