package table

import (
	"context"
	"encoding/json"
	"regexp"
	"sync"
	"time"

	"github.com/adventure-table/adventure-table/gameplay/dice"
	"github.com/adventure-table/adventure-table/models"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// Message event kinds of the chat (wire contract, never renamed).
const (
	EventMessageEdited  = "message.edited"
	EventMessageDeleted = "message.deleted"
)

// MaxInlineRolls bounds the [[...]] rolls of one message.
const MaxInlineRolls = 5

// EditWindow is how long the author may edit or delete a message; the
// current DM may at any time.
const EditWindow = 10 * time.Minute

// inlineRoll matches an inline roll: [[dice]] inside a chat line.
var inlineRoll = regexp.MustCompile(`\[\[([^\[\]]*)\]\]`)

// inlineRolls parses the [[...]] rolls of a text, in order. Returns
// message_text_invalid (more than MaxInlineRolls) and dice_* codes (with
// details.inline_roll, the marker's index).
func inlineRolls(text string) ([]*dice.Expr, error) {
	found := inlineRoll.FindAllStringSubmatch(text, -1)
	if len(found) > MaxInlineRolls {
		return nil, apperr.E(apperr.MessageTextInvalid, "A message holds at most %d inline rolls.", MaxInlineRolls).WithField("text", "at most 5 [[...]] rolls")
	}
	out := make([]*dice.Expr, 0, len(found))
	for i, m := range found {
		e, err := dice.Parse(m[1], dice.DefaultLimits)
		if err != nil {
			if ae, ok := apperr.As(err); ok {
				return nil, ae.WithDetail("inline_roll", i)
			}
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

// rollInline rolls a message's [[...]] markers on the server, inside the
// message's transaction, through the same result store as every roll. Each
// result has the message's audience: public for a public message; for a
// whisper, the two ends and the DM (a DM's whisper to seat X records X as
// the result's subject, so the roll viewer shows it to X).
func (s *Service) rollInline(ctx context.Context, tx *models.Store, sc sessionScope, sessionID int64, p posting, text string) ([]RollResultView, error) {
	exprs, err := inlineRolls(text)
	if err != nil || len(exprs) == 0 {
		return nil, err
	}
	visibility, subject := models.VisibilityPublic, p.subject
	switch p.visibility {
	case models.VisibilityActorAndDM:
		visibility = models.VisibilityActorAndDM
	case models.VisibilitySeatPrivate:
		visibility = models.VisibilityActorAndDM
		if len(p.recipients) > 0 {
			to := p.recipients[0]
			subject = &to
		}
	}
	rv := rollViewer{sc.viewer()}
	out := make([]RollResultView, 0, len(exprs))
	for _, e := range exprs {
		res, err := e.Roll(dice.Crypto)
		if err != nil {
			return nil, err
		}
		r, err := s.storeResult(ctx, tx, sessionID, res, resultFields{acting: *p.acting, subject: subject, character: p.character,
			mode: p.mode, source: models.SourceQuick, total: res.Total, visibility: visibility})
		if err != nil {
			return nil, err
		}
		out = append(out, rv.result(*r, false))
	}
	return out, nil
}

// MessageEdit is a message's new text.
type MessageEdit struct {
	Text string `json:"text" jsonschema:"1 to 4000 characters; inline [[...]] rolls are not rolled again"`
}

// MessageView is a message after an edit or a delete.
type MessageView struct {
	ID              int64            `json:"id"`
	SessionID       int64            `json:"session_id"`
	Kind            string           `json:"kind"`
	Text            string           `json:"text" jsonschema:"empty once deleted"`
	Rolls           []RollResultView `json:"rolls" jsonschema:"the inline rolls as first rolled, in the text's order"`
	CreatedAt       time.Time        `json:"created_at"`
	EditedAt        *time.Time       `json:"edited_at"`
	DeletedAt       *time.Time       `json:"deleted_at"`
	DeletedBySeatID *int64           `json:"deleted_by_seat_id"`
	Event           EventView        `json:"event" jsonschema:"the message.edited or message.deleted event"`
}

// EditMessage replaces a message's text: its author within EditWindow of
// posting, or the session's current DM at any time. The change and its
// message.edited event (with the message's own audience) are one
// transaction. Inline rolls are not rolled again: the message keeps the
// rolls it was posted with, and [[...]] markers added by the edit stay
// text. Returns message_not_editable, message_text_invalid,
// session_not_active, not_found.
func (s *Service) EditMessage(ctx context.Context, c Caller, messageID int64, in MessageEdit) (MessageView, error) {
	if err := validateMessageText(&in.Text); err != nil {
		return MessageView{}, err
	}
	return s.changeMessage(ctx, c, messageID, func(tx *models.Store, m *models.SessionMessage, bySeat int64) (eventDraft, error) {
		now := s.now()
		if err := tx.EditMessage(ctx, m.ID, in.Text, now); err != nil {
			return eventDraft{}, err
		}
		m.Text, m.EditedAt = in.Text, &now
		return eventDraft{kind: EventMessageEdited, payload: map[string]any{"message_id": m.ID, "text": in.Text,
			"edited_at": now, "edited_by_seat_id": bySeat, "roll_result_ids": nonNilIDs(m.RollResultIDs)}}, nil
	})
}

// DeleteMessage deletes a message under the same rule as EditMessage. The
// text is blanked in the message and in every event that carried it; a
// tombstone (when, by which seat) stays, and a message.deleted event with
// the message's audience tells every client. The inline rolls stay in the
// roll history: a roll is never unrolled. Returns message_not_editable,
// session_not_active, not_found.
func (s *Service) DeleteMessage(ctx context.Context, c Caller, messageID int64) (MessageView, error) {
	return s.changeMessage(ctx, c, messageID, func(tx *models.Store, m *models.SessionMessage, bySeat int64) (eventDraft, error) {
		now := s.now()
		if err := tx.DeleteMessage(ctx, m.ID, bySeat, now); err != nil {
			return eventDraft{}, err
		}
		events, err := tx.FindMessageEvents(ctx, m.SessionID, m.EventSeq, m.ID)
		if err != nil {
			return eventDraft{}, err
		}
		for _, e := range events {
			var p map[string]any
			if json.Unmarshal([]byte(e.Payload), &p) != nil {
				continue
			}
			if id, _ := p["message_id"].(float64); int64(id) != m.ID {
				continue
			}
			p["text"], p["deleted"] = "", true
			raw, err := json.Marshal(p)
			if err != nil {
				return eventDraft{}, err
			}
			if err := tx.SetEventPayload(ctx, e.ID, string(raw)); err != nil {
				return eventDraft{}, err
			}
		}
		m.Text, m.DeletedAt, m.DeletedBySeatID = "", &now, &bySeat
		return eventDraft{kind: EventMessageDeleted, payload: map[string]any{"message_id": m.ID, "deleted_at": now, "deleted_by_seat_id": bySeat}}, nil
	})
}

// changeMessage is the edit/delete rule and transaction: the caller must
// see the message (otherwise not_found), the session must be in play, the
// message not deleted, and the caller its author within EditWindow or the
// current DM. The event keeps the message's audience exactly.
func (s *Service) changeMessage(ctx context.Context, c Caller, messageID int64, change func(tx *models.Store, m *models.SessionMessage, bySeat int64) (eventDraft, error)) (MessageView, error) {
	var out MessageView
	var sessionID int64
	err := s.store.Tx(ctx, func(tx *models.Store) error {
		m, err := tx.FindMessage(ctx, messageID, false)
		if apperr.CodeOf(err) == apperr.NotFound {
			return notFound("message")
		}
		if err != nil {
			return err
		}
		sessionID = m.SessionID
		sc, err := loadSession(ctx, tx, c, m.SessionID, true)
		if err != nil {
			if apperr.CodeOf(err) == apperr.NotFound {
				return notFound("message")
			}
			return err
		}
		if m, err = tx.FindMessage(ctx, messageID, true); err != nil {
			return err
		}
		v := sc.viewer()
		audience := models.SessionEvent{Visibility: m.Visibility, ActingSeatID: m.ActingSeatID, SubjectSeatID: m.SubjectSeatID, RecipientSeatIDs: m.RecipientSeatIDs}
		if !v.sees(audience) {
			return notFound("message")
		}
		if sc.session.Status != models.SessionActive {
			return apperr.E(apperr.SessionNotActive, "The session is not in play.")
		}
		if m.DeletedAt != nil {
			return apperr.E(apperr.MessageNotEditable, "This message was deleted.").WithDetail("reason", "deleted")
		}
		var bySeat int64
		switch {
		case sc.isCurrentDM():
			bySeat = sc.session.DMSeatID
		case isAuthor(sc.actor, m):
			if s.now().Sub(m.CreatedAt) > EditWindow {
				return apperr.E(apperr.MessageNotEditable, "A message can be changed for 10 minutes after posting.").WithDetail("reason", "too_old")
			}
			bySeat = sc.actor.SeatID
			if m.ActingSeatID != nil {
				bySeat = *m.ActingSeatID
			}
		default:
			return apperr.E(apperr.MessageNotEditable, "Only the author (for 10 minutes) or the DM can change this message.").WithDetail("reason", "not_author")
		}
		d, err := change(tx, m, bySeat)
		if err != nil {
			return err
		}
		d.acting, d.subject, d.character, d.mode = m.ActingSeatID, m.SubjectSeatID, m.SubjectCharacterID, m.ExecutionMode
		d.visibility, d.recipients = m.Visibility, nonNilIDs(m.RecipientSeatIDs)
		e, err := s.appendNext(ctx, tx, m.SessionID, d)
		if err != nil {
			return err
		}
		rolls, err := tx.FindRollResultsByIDs(ctx, m.RollResultIDs)
		if err != nil {
			return err
		}
		rv := rollViewer{v}
		out = MessageView{ID: m.ID, SessionID: m.SessionID, Kind: m.Kind, Text: m.Text, Rolls: []RollResultView{}, CreatedAt: m.CreatedAt,
			EditedAt: m.EditedAt, DeletedAt: m.DeletedAt, DeletedBySeatID: m.DeletedBySeatID, Event: eventView(e)}
		for _, r := range rolls {
			out.Rolls = append(out.Rolls, rv.result(r, false))
		}
		return nil
	})
	if err != nil {
		return MessageView{}, err
	}
	s.notifier.Notify(sessionID)
	return out, nil
}

// isAuthor: the caller is who posted the message — the same access
// session (human) or grant (AI), not merely the seat's controller now.
func isAuthor(a Actor, m *models.SessionMessage) bool {
	if a.Kind == ActorAI {
		return m.AuthorGrantID != nil && *m.AuthorGrantID == a.GrantID
	}
	return m.AuthorAccessSessionID != nil && *m.AuthorAccessSessionID == a.AccessSessionID
}

// Roll history limits.
const (
	DefaultRollHistory = 50
	MaxRollHistory     = 200
)

// RollHistory is a page of a session's roll results, newest first.
type RollHistory struct {
	Results []RollResultView `json:"results"`
	// Before continues the history: pass it as ?before= for older rolls.
	Before  int64 `json:"before" jsonschema:"the id to pass as before for the next (older) page; 0 when none"`
	HasMore bool  `json:"has_more"`
}

// RollHistory returns the session's roll results the caller may see
// (quick, /gmroll, inline and check rolls), newest first, with ids below
// before (0: from the newest). The audience is the roll board's: private
// rolls only for their seats and the DM; success only for the DM or when
// revealed. Returns invalid_request, not_found, room_access_revoked.
func (s *Service) RollHistory(ctx context.Context, c Caller, sessionID, before int64, limit int) (RollHistory, error) {
	if limit == 0 {
		limit = DefaultRollHistory
	}
	if limit < 1 || limit > MaxRollHistory || before < 0 {
		return RollHistory{}, apperr.E(apperr.InvalidRequest, "limit must be 1 to %d and before 0 or more.", MaxRollHistory).WithField("limit", "1 to 200")
	}
	sc, err := loadAudience(allowEndedRead(ctx), s.store, c, sessionID, false)
	if err != nil {
		return RollHistory{}, err
	}
	rows, err := s.store.FindRollResultsBefore(ctx, sessionID, before, limit+1)
	if err != nil {
		return RollHistory{}, err
	}
	out := RollHistory{Results: []RollResultView{}}
	if len(rows) > limit {
		rows, out.HasMore = rows[:limit], true
	}
	var reqIDs []int64
	for _, r := range rows {
		if r.RollRequestID != nil {
			reqIDs = append(reqIDs, *r.RollRequestID)
		}
	}
	reveal := map[int64]bool{}
	if len(reqIDs) > 0 {
		reqs, err := s.store.FindRollRequestsByIDs(ctx, reqIDs)
		if err != nil {
			return RollHistory{}, err
		}
		for _, r := range reqs {
			reveal[r.ID] = r.RevealOutcome
		}
	}
	rv := rollViewer{sc.viewer()}
	for _, r := range rows {
		if rv.seesResult(r) {
			out.Results = append(out.Results, rv.result(r, r.RollRequestID != nil && reveal[*r.RollRequestID]))
		}
	}
	if out.HasMore && len(rows) > 0 {
		out.Before = rows[len(rows)-1].ID
	}
	return out, nil
}

// Presence: who is at the table now.

// PresenceTTL is how long after their last long poll or call someone
// still counts as online. A long poll lasts at most MaxWait and the last
// seen time is written at most every presenceWrite, so a connected
// client is never staler than their sum.
const (
	PresenceTTL   = 90 * time.Second
	presenceWrite = 20 * time.Second
)

// PresenceEntry is someone online in a session.
type PresenceEntry struct {
	Kind     string `json:"kind" jsonschema:"human or ai"`
	AccessID *int64 `json:"access_id,omitempty" jsonschema:"a human's room access session"`
	SeatID   *int64 `json:"seat_id,omitempty" jsonschema:"the seat they control in the session's campaign, if any"`
	Name     string `json:"name" jsonschema:"display name, or the seat's character or label for an AI"`
	// NameCode is set while name is one the server made: a guest's
	// default name or the DM seat's default label.
	NameCode   string            `json:"name_code,omitempty" jsonschema:"user.guest (params.number) or seat.dm while name is the server's default"`
	NameParams map[string]string `json:"name_params,omitempty" jsonschema:"the parameters of name_code: number, the guest's four digits"`
	Role       string            `json:"role" jsonschema:"dm, player or spectator"`
	LastSeen   time.Time         `json:"last_seen"`
}

// Presence is who is online in a session.
type Presence struct {
	Online []PresenceEntry `json:"online"`
	// TTLSeconds is how recent a last_seen counts as online.
	TTLSeconds int `json:"ttl_seconds"`
}

// presenceThrottle remembers, per process, when each access session's
// last seen time was written, so the long poll writes at most once every
// presenceWrite per person instead of on every request.
type presenceThrottle struct {
	mu   sync.Mutex
	last map[int64]presenceMark
}

type presenceMark struct {
	at        time.Time
	sessionID int64
}

func newPresenceThrottle() *presenceThrottle {
	return &presenceThrottle{last: map[int64]presenceMark{}}
}

// due reports whether a write is due, and records it as done.
func (p *presenceThrottle) due(accessID, sessionID int64, now time.Time) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	m, ok := p.last[accessID]
	if ok && m.sessionID == sessionID && now.Sub(m.at) < presenceWrite && !now.Before(m.at) {
		return false
	}
	if len(p.last) > 100_000 {
		p.last = map[int64]presenceMark{} // bounded: forgetting costs one write
	}
	p.last[accessID] = presenceMark{at: now, sessionID: sessionID}
	return true
}

// touchPresence records that a human read this session's events. A failed
// write costs presence, never the read.
func (s *Service) touchPresence(ctx context.Context, a Actor, sessionID int64) {
	if a.Kind != ActorHuman || a.AccessSessionID == 0 {
		return
	}
	now := s.now()
	if s.presence.due(a.AccessSessionID, sessionID, now) {
		_ = s.store.TouchAccessSession(ctx, a.AccessSessionID, sessionID, now)
	}
}

// grantSeenDue: an AI grant's last seen time is written at most every
// presenceWrite.
func grantSeenDue(last *time.Time, now time.Time) bool {
	return last == nil || now.Sub(*last) >= presenceWrite || now.Before(*last)
}

// SessionPresence lists who is online in a session: humans whose long poll
// (or event read) reached this session within PresenceTTL, and the AI seats
// whose grant called within it. Any member may read it. Returns not_found,
// room_access_revoked.
func (s *Service) SessionPresence(ctx context.Context, c Caller, sessionID int64) (Presence, error) {
	sc, err := loadAudience(ctx, s.store, c, sessionID, false)
	if err != nil {
		return Presence{}, err
	}
	// Whoever asks who is here is here: the page's first presence read
	// may come before its first long poll.
	s.touchPresence(ctx, sc.actor, sessionID)
	members, err := s.store.FindMembers(ctx, sc.session.RoomID)
	if err != nil {
		return Presence{}, err
	}
	grants, err := aiGrants(ctx, s.store, sc.seats)
	if err != nil {
		return Presence{}, err
	}
	chars, err := charactersByID(ctx, s.store, seatCharacterIDs(sc.seats))
	if err != nil {
		return Presence{}, err
	}
	now := s.now()
	online := func(t *time.Time) bool { return t != nil && now.Sub(*t) <= PresenceTTL }
	out := Presence{Online: []PresenceEntry{}, TTLSeconds: int(PresenceTTL / time.Second)}
	seatOf := func(kind string, accessID, grantID int64) (*int64, string) {
		for _, seat := range sc.seats {
			mine := (kind == ActorHuman && seat.ControllerKind == models.ControllerHuman && eqID(seat.ControllerAccessSessionID, &accessID)) ||
				(kind == ActorAI && seat.ControllerKind == models.ControllerAI && eqID(seat.AIControllerGrantID, &grantID))
			if mine {
				id := seat.ID
				if seat.Role == models.SeatDM {
					return &id, RoleDM
				}
				return &id, RolePlayer
			}
		}
		return nil, RoleSpectator
	}
	for _, m := range members {
		if m.Status != models.AccessActive || !online(m.LastSeenAt) || !eqID(m.LastSeenSessionID, &sc.session.ID) {
			continue
		}
		id := m.ID
		seat, role := seatOf(ActorHuman, m.ID, 0)
		code, params := GuestNameCode(m.DisplayName)
		out.Online = append(out.Online, PresenceEntry{Kind: ActorHuman, AccessID: &id, SeatID: seat, Name: m.DisplayName, NameCode: code, NameParams: params,
			Role: role, LastSeen: *m.LastSeenAt})
	}
	for _, seat := range sc.seats {
		if seat.ControllerKind != models.ControllerAI || seat.AIControllerGrantID == nil {
			continue
		}
		g, ok := grants[*seat.AIControllerGrantID]
		if !ok || g.Status != models.GrantActive || !online(g.LastSeenAt) {
			continue
		}
		id := seat.ID
		name, code := seat.Label, seatLabelCode(seat.Role, seat.Label)
		if seat.CharacterID != nil {
			if ch, ok := chars[*seat.CharacterID]; ok {
				name, code = ch.Name, ""
			}
		}
		role := RolePlayer
		if seat.Role == models.SeatDM {
			role = RoleDM
		}
		out.Online = append(out.Online, PresenceEntry{Kind: ActorAI, SeatID: &id, Name: name, NameCode: code, Role: role, LastSeen: *g.LastSeenAt})
	}
	return out, nil
}
