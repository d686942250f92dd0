package table

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/adventure-table/adventure-table/gameplay/sheet"
	"github.com/adventure-table/adventure-table/models"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// MaxMessageLength bounds a chat line, in characters.
const MaxMessageLength = 4000

// MessageInput is a line posted at the table.
type MessageInput struct {
	Kind           string `json:"kind" jsonschema:"character_dialogue, narration, action, ooc or whisper_dm (or say: the speaker's natural voice)"`
	Text           string `json:"text" jsonschema:"1 to 4000 characters"`
	Intent         string `json:"intent,omitempty" jsonschema:"empty, search or check (actions only)"`
	Check          string `json:"check,omitempty" jsonschema:"the skill, ability or saving throw (dex_save) of a check intent"`
	SubjectSeatID  *int64 `json:"subject_seat_id,omitempty" jsonschema:"DM only: act as this player seat (DM proxy)"`
	ToSeatID       *int64 `json:"to_seat_id,omitempty" jsonschema:"DM only: the seat a whisper goes to"`
	Speaker        string `json:"speaker,omitempty" jsonschema:"DM narration only: the NPC who speaks, 1 to 60 characters"`
	IdempotencyKey string `json:"idempotency_key,omitempty" jsonschema:"repeat-safe key: the same key returns the first result"`
	// textCode and textParams name a line the server wrote (the DM's
	// /check announcement), so readers see it in their language.
	textCode   string
	textParams map[string]string
}

// MaxSpeakerLength bounds an NPC speaker's name, in characters.
const MaxSpeakerLength = 60

// InputLine is free text typed at the table, slash commands included.
type InputLine struct {
	Text           string `json:"text"`
	SubjectSeatID  *int64 `json:"subject_seat_id,omitempty"`
	ToSeatID       *int64 `json:"to_seat_id,omitempty"`
	IdempotencyKey string `json:"idempotency_key,omitempty"`
}

// PostedMessage is the result of a post.
type PostedMessage struct {
	MessageID int64     `json:"message_id" jsonschema:"0 when the line was a roll (/r, /roll, /gmroll)"`
	Event     EventView `json:"event" jsonschema:"message.posted, or roll.quick for a roll"`
	// Roll is the result of a /r, /roll or /gmroll line.
	Roll *RollResultView `json:"roll,omitempty"`
}

// PostInput parses a typed line (slash commands included) and posts it with
// PostMessage. Returns unknown_command and PostMessage's codes.
func (s *Service) PostInput(ctx context.Context, c Caller, sessionID int64, in InputLine) (PostedMessage, error) {
	// Refused before parsing: the DM's /check opens its requests before the
	// message is validated.
	if !models.StorableText(in.Text) {
		return PostedMessage{}, models.UnstorableText(apperr.MessageTextInvalid, "text")
	}
	if err := checkIdempotencyKey(in.IdempotencyKey); err != nil {
		return PostedMessage{}, err
	}
	cmd, err := ParseInput(in.Text)
	if err != nil {
		return PostedMessage{}, err
	}
	if cmd.Kind == KindRoll {
		// The one quick-roll path: /r and /roll for everyone, /gmroll for
		// the roller and the DM.
		res, ev, err := s.quickRoll(ctx, c, sessionID, QuickRollInput{Formula: cmd.Formula, Check: cmd.Check, Attack: cmd.Attack, Damage: cmd.Damage, Private: cmd.Private,
			SubjectSeatID: in.SubjectSeatID, IdempotencyKey: in.IdempotencyKey})
		if err != nil {
			return PostedMessage{}, err
		}
		return PostedMessage{Event: ev, Roll: &res}, nil
	}
	if cmd.Intent == IntentCheck {
		// The DM's /check opens the same request service as the dialog; a
		// player's only records the intent for the DM to decide on.
		sc, err := loadAudience(ctx, s.store, c, sessionID, false)
		if err != nil {
			return PostedMessage{}, err
		}
		if sc.isCurrentDM() {
			return s.dmSlashCheck(ctx, c, sessionID, cmd, in.IdempotencyKey)
		}
	}
	return s.PostMessage(ctx, c, sessionID, MessageInput{Kind: cmd.Kind, Text: cmd.Text, Intent: cmd.Intent, Check: cmd.Check, Speaker: cmd.Speaker,
		SubjectSeatID: in.SubjectSeatID, ToSeatID: in.ToSeatID, IdempotencyKey: in.IdempotencyKey})
}

// posting is a message decided: who acts, for whom, and who may read it.
type posting struct {
	kind                       string
	acting, subject, character *int64
	mode, visibility           string
	recipients                 []int64
}

// decidePosting applies the table's posting rules (seed §6.3): the current
// DM narrates, whispers to a seat and acts for a participant seat (DM
// proxy); a player speaks, acts and whispers the DM for their own
// participant seat; everyone else only reads. Room authority alone grants
// nothing here.
func decidePosting(sc sessionScope, participants []models.SessionParticipant, in MessageInput) (posting, error) {
	bySeat := map[int64]models.SessionParticipant{}
	for _, p := range participants {
		bySeat[p.SeatID] = p
	}
	notAllowed := func() (posting, error) {
		return posting{}, apperr.E(apperr.MessageKindNotAllowed, "You cannot post a %s message here.", in.Kind)
	}
	if sc.isCurrentDM() {
		dmSeat := sc.session.DMSeatID
		p := posting{acting: &dmSeat, mode: models.ExecSelf, visibility: models.VisibilityPublic}
		switch {
		case in.SubjectSeatID != nil && in.Speaker != "":
			return posting{}, apperr.E(apperr.InvalidRequest, "Speak either as an NPC or for a player seat, not both.").WithField("speaker", "not with a seat")
		case in.SubjectSeatID != nil:
			target, ok := bySeat[*in.SubjectSeatID]
			if !ok {
				return posting{}, apperr.E(apperr.ProxyTargetInvalid, "The DM can only act for a player seat taking part in this session.")
			}
			kind := in.Kind
			if kind == KindSay {
				kind = models.MessageDialogue
			}
			if kind != models.MessageDialogue && kind != models.MessageAction && kind != models.MessageOOC {
				return notAllowed()
			}
			seat := target.SeatID
			p.kind, p.subject, p.character, p.mode = kind, &seat, target.CharacterID, models.ExecDMProxy
		case in.Kind == KindSay || in.Kind == models.MessageNarration:
			p.kind = models.MessageNarration
		case in.Speaker != "":
			return posting{}, apperr.E(apperr.InvalidRequest, "Only narration names an NPC speaker.").WithField("speaker", "narration only")
		case in.Kind == models.MessageOOC:
			p.kind = models.MessageOOC
		case in.Kind == models.MessageWhisperDM:
			if in.ToSeatID == nil {
				return posting{}, apperr.E(apperr.WhisperTargetRequired, "Choose the seat the whisper goes to.")
			}
			if _, ok := bySeat[*in.ToSeatID]; !ok {
				return posting{}, apperr.E(apperr.WhisperTargetRequired, "A whisper goes to a player seat taking part in this session.")
			}
			p.kind, p.visibility, p.recipients = models.MessageWhisperDM, models.VisibilitySeatPrivate, []int64{*in.ToSeatID}
		default:
			return notAllowed()
		}
		return p, nil
	}
	if in.SubjectSeatID != nil || in.ToSeatID != nil || in.Speaker != "" {
		return posting{}, apperr.E(apperr.MessageKindNotAllowed, "Only the DM can act for another seat, whisper to one or speak as an NPC.")
	}
	var own *models.SessionParticipant
	controlsAny := false
	for _, seat := range sc.seats {
		if seat.Role == models.SeatPlayer && controls(sc.actor, seat) {
			controlsAny = true
			if p, ok := bySeat[seat.ID]; ok {
				own = &p
				break
			}
		}
	}
	if own == nil {
		if controlsAny {
			return posting{}, apperr.E(apperr.NotAParticipant, "Your seat is not taking part in this session yet.")
		}
		return notAllowed()
	}
	seat := own.SeatID
	p := posting{acting: &seat, subject: &seat, character: own.CharacterID, mode: models.ExecSelf, visibility: models.VisibilityPublic}
	switch in.Kind {
	case KindSay, models.MessageDialogue:
		p.kind = models.MessageDialogue
	case models.MessageAction, models.MessageOOC:
		p.kind = in.Kind
	case models.MessageWhisperDM:
		p.kind, p.visibility = models.MessageWhisperDM, models.VisibilityActorAndDM
	default:
		return notAllowed()
	}
	return p, nil
}

// validateMessage checks the text and the intent and normalises them.
func validateMessage(in *MessageInput) error {
	if err := validateMessageText(&in.Text); err != nil {
		return err
	}
	if _, err := inlineRolls(in.Text); err != nil {
		return err
	}
	switch in.Intent {
	case "":
		in.Check = ""
	case IntentSearch:
		in.Check = ""
	case IntentCheck:
		if !isCheckable(in.Check) {
			return apperr.E(apperr.InvalidRequest, "A check names a skill, an ability or a saving throw.").WithField("check", "a skill, an ability or a saving throw (dex_save)")
		}
	default:
		return apperr.E(apperr.InvalidRequest, "The intent must be empty, search or check.").WithField("intent", "empty, search or check")
	}
	if in.Intent != "" && in.Kind != models.MessageAction {
		return apperr.E(apperr.InvalidRequest, "Only actions carry an intent.").WithField("intent", "actions only")
	}
	in.Speaker = strings.TrimSpace(in.Speaker)
	if !models.StorableText(in.Speaker) {
		return models.UnstorableText(apperr.InvalidRequest, "speaker")
	}
	if n := utf8.RuneCountInString(in.Speaker); n > MaxSpeakerLength || strings.ContainsFunc(in.Speaker, unicode.IsControl) {
		return apperr.E(apperr.InvalidRequest, "A speaker's name is at most %d characters, on one line.", MaxSpeakerLength).WithField("speaker", "at most 60 characters")
	}
	return checkIdempotencyKey(in.IdempotencyKey)
}

// validateMessageText trims a message's text and checks it.
func validateMessageText(text *string) error {
	*text = strings.TrimSpace(*text)
	if !models.StorableText(*text) {
		return models.UnstorableText(apperr.MessageTextInvalid, "text")
	}
	if n := utf8.RuneCountInString(*text); n < 1 || n > MaxMessageLength {
		return apperr.E(apperr.MessageTextInvalid, "A message must be 1 to %d characters.", MaxMessageLength).WithField("text", "1 to 4000 characters")
	}
	return nil
}

// checkIdempotencyKey bounds a repeat-safe key. Returns invalid_request.
func checkIdempotencyKey(key string) error {
	if !models.StorableText(key) {
		return models.UnstorableText(apperr.InvalidRequest, "idempotency_key")
	}
	if len(key) > 120 {
		return apperr.E(apperr.InvalidRequest, "The idempotency key is at most 120 characters.").WithField("idempotency_key", "at most 120 characters")
	}
	return nil
}

// PostMessage posts a chat line: the message row and its event are written
// in one transaction, and waiters are woken after it commits. A repeated
// idempotency key returns the first result without writing. Returns
// session_not_active, message_text_invalid, message_kind_not_allowed,
// not_a_participant, whisper_target_required, proxy_target_invalid,
// invalid_request, not_found, room_access_revoked.
func (s *Service) PostMessage(ctx context.Context, c Caller, sessionID int64, in MessageInput) (PostedMessage, error) {
	if err := validateMessage(&in); err != nil {
		return PostedMessage{}, err
	}
	var out PostedMessage
	err := s.store.Tx(ctx, func(tx *models.Store) error {
		sc, err := loadSession(ctx, tx, c, sessionID, true)
		if err != nil {
			return err
		}
		if in.IdempotencyKey != "" {
			if prior, err := tx.FindEventByIdempotencyKey(ctx, sessionID, in.IdempotencyKey); err == nil {
				if !sc.viewer().sees(*prior) || prior.Kind != EventMessagePosted {
					return apperr.E(apperr.Conflict, "This idempotency key was used for something else.")
				}
				var p struct {
					MessageID int64 `json:"message_id"`
				}
				json.Unmarshal([]byte(prior.Payload), &p)
				out = PostedMessage{MessageID: p.MessageID, Event: eventView(*prior)}
				return nil
			} else if apperr.CodeOf(err) != apperr.NotFound {
				return err
			}
		}
		if sc.session.Status != models.SessionActive {
			return apperr.E(apperr.SessionNotActive, "The session is not in play.")
		}
		participants, err := tx.FindParticipants(ctx, sessionID)
		if err != nil {
			return err
		}
		p, err := decidePosting(sc, participants, in)
		if err != nil {
			return err
		}
		rolls, err := s.rollInline(ctx, tx, sc, sessionID, p, in.Text)
		if err != nil {
			return err
		}
		seq, err := tx.NextEventSeq(ctx, sessionID, s.now())
		if err != nil {
			return err
		}
		msg := &models.SessionMessage{SessionID: sessionID, EventSeq: seq, ActingSeatID: p.acting, SubjectSeatID: p.subject,
			SubjectCharacterID: p.character, ExecutionMode: p.mode, Kind: p.kind, Intent: in.Intent, Text: in.Text,
			Visibility: p.visibility, RecipientSeatIDs: nonNilIDs(p.recipients), CreatedAt: s.now(), RollResultIDs: []int64{}}
		if sc.actor.Kind == ActorAI {
			msg.AuthorGrantID = &sc.actor.GrantID
		} else {
			msg.AuthorAccessSessionID = &sc.actor.AccessSessionID
		}
		for _, r := range rolls {
			msg.RollResultIDs = append(msg.RollResultIDs, r.ID)
		}
		if err := tx.CreateMessage(ctx, msg); err != nil {
			return err
		}
		if err := s.failpoint("after_message_insert"); err != nil {
			return err
		}
		ev, err := s.appendEvent(ctx, tx, sessionID, seq, eventDraft{kind: EventMessagePosted, acting: p.acting, subject: p.subject,
			character: p.character, mode: p.mode, visibility: p.visibility, recipients: p.recipients, idempotencyKey: in.IdempotencyKey,
			payload: messagePayload(msg.ID, p, in, rolls)})
		if err != nil {
			return err
		}
		out = PostedMessage{MessageID: msg.ID, Event: eventView(ev)}
		return nil
	})
	if err != nil {
		return PostedMessage{}, err
	}
	s.notifier.Notify(sessionID)
	return out, nil
}

// messagePayload is a message.posted event's payload; the speaker only
// appears on NPC speech.
func messagePayload(id int64, p posting, in MessageInput, rolls []RollResultView) map[string]any {
	out := map[string]any{"message_id": id, "kind": p.kind, "intent": in.Intent, "check": in.Check, "text": in.Text,
		"recipient_seat_ids": nonNilIDs(p.recipients)}
	if len(rolls) > 0 {
		out["rolls"] = rolls
	}
	if in.textCode != "" {
		out["text_code"], out["text_params"] = in.textCode, in.textParams
	}
	if in.Speaker != "" {
		out["speaker"] = in.Speaker
	}
	return out
}

func nonNilIDs(ids []int64) []int64 {
	if ids == nil {
		return []int64{}
	}
	return ids
}

// checkAnnouncement is the narration line of the DM's /check: English
// text, and its code for the readers' language.
func checkAnnouncement(check, key string) MessageInput {
	return MessageInput{Kind: models.MessageNarration, Text: "Everyone: roll " + check + ".", IdempotencyKey: key,
		textCode: codeCheckEveryone, textParams: map[string]string{"check": check}}
}

// dmSlashCheck turns the DM's "/check perception 15" into a check request
// for every participant (DC hidden, outcome not revealed) and announces it
// in the chat.
func (s *Service) dmSlashCheck(ctx context.Context, c Caller, sessionID int64, cmd Command, key string) (PostedMessage, error) {
	if key != "" {
		if _, err := s.store.FindEventByIdempotencyKey(ctx, sessionID, key); err == nil {
			// A retry: the checks exist already; PostMessage replays the answer.
			return s.PostMessage(ctx, c, sessionID, checkAnnouncement(cmd.Check, key))
		}
	}
	in := CheckRequestInput{Label: cmd.Check}
	if _, ok := sheet.Skills[cmd.Check]; ok {
		in.Skill = cmd.Check
	} else if _, ok := sheet.ParseSave(cmd.Check); ok {
		in.Save = cmd.Check
	} else {
		in.Ability = cmd.Check
	}
	if dc, err := strconv.Atoi(strings.Fields(cmd.Text + " x")[0]); err == nil {
		in.DC = &dc
	}
	if _, err := s.RequestCheck(ctx, c, sessionID, in); err != nil {
		return PostedMessage{}, err
	}
	return s.PostMessage(ctx, c, sessionID, checkAnnouncement(cmd.Check, key))
}
