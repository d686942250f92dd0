package table

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/adventure-table/adventure-table/gameplay/llm"
	"github.com/adventure-table/adventure-table/models"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// The "Previously on…" recap (issue 31). A session that starts after
// earlier ones is marked drafting in the same transaction; the campaign's
// memory job, once the earlier sessions' memories are written, drafts it
// from the table's memories only (a recap is posted to everyone, so a
// whisper or a DM secret can never be in it) with the owner's narrator, or
// as a plain list of those memories without a model. The DM edits the
// draft and posts it as a public event, or skips it; nobody else reads the
// draft.

// EventRecapPosted is the recap the DM posted: payload {text}.
const EventRecapPosted = "recap.posted"

// Recap limits.
const (
	maxRecapRunes = 4000
	// A brief recap reads the last session's memories, a detailed one the
	// last few sessions'.
	briefRecapSessions, detailedRecapSessions = 1, 4
	briefRecapMemories, detailedRecapMemories = 8, 30
	briefRecapWords, detailedRecapWords       = 90, 260
)

// RecapInput is the DM's text of a recap.
type RecapInput struct {
	Text string `json:"text"`
}

// RecapView is a session's recap as the caller may see it: every seat
// sees its status; only the current DM reads the draft's text (everyone
// reads the posted text in the feed).
type RecapView struct {
	Status string `json:"status" jsonschema:"none, drafting, draft, posted or skipped"`
	Text   string `json:"text,omitempty" jsonschema:"the draft (the DM only)"`
}

func recapView(sc sessionScope) RecapView {
	v := RecapView{Status: sc.session.RecapStatus}
	if v.Status == "" {
		v.Status = models.RecapNone
	}
	if sc.isCurrentDM() && (v.Status == models.RecapDraft || v.Status == models.RecapPosted) {
		v.Text = sc.session.RecapText
	}
	return v
}

// wantRecap marks a starting session's recap as drafting when the campaign
// played before it, inside StartSession's transaction, and says whether
// the memory job must run to draft it.
func wantRecap(ctx context.Context, tx *models.Store, se *models.Session) (bool, error) {
	earlier, err := tx.HasEarlierSession(ctx, se.CampaignID, se.ID)
	if err != nil || !earlier {
		return false, err
	}
	drafting := models.RecapDrafting
	return true, tx.UpdateSession(ctx, se.ID, models.SessionUpdate{RecapStatus: &drafting})
}

// RecapWriter completes a recap's messages with the campaign owner's
// narrator; it returns an error when no model is configured or the call
// fails, and the recap falls back to a plain list.
type RecapWriter func(ctx context.Context, ownerID int64, msgs []llm.Message) (string, error)

// DraftRecaps drafts the recaps of a campaign's sessions that wait for one.
// The campaign's memory job calls it after the memories are written; a
// failure of the model leaves a plain list, so a draft is always written.
func (s *Service) DraftRecaps(ctx context.Context, campaignID int64, write RecapWriter) error {
	waiting, err := s.store.SessionsWithRecap(ctx, campaignID, models.RecapDrafting)
	if err != nil || len(waiting) == 0 {
		return err
	}
	camp, err := s.store.FindCampaignByID(ctx, campaignID)
	if err != nil {
		return err
	}
	room, err := s.store.FindRoomByID(ctx, camp.RoomID)
	if err != nil {
		return err
	}
	for _, se := range waiting {
		sessions, limit := briefRecapSessions, briefRecapMemories
		if camp.RecapStyle == models.RecapDetailed {
			sessions, limit = detailedRecapSessions, detailedRecapMemories
		}
		mems, err := s.store.RecapMemories(ctx, campaignID, se.ID, sessions, limit)
		if err != nil {
			return err
		}
		text := plainRecap(mems)
		if len(mems) > 0 && write != nil {
			if reply, err := write(ctx, room.OwnerUserID, recapMessages(camp, mems)); err == nil {
				if cleaned := cleanRecap(reply, recapWords(camp)); cleaned != "" {
					text = cleaned
				}
			}
		}
		if _, err := s.store.SetRecapIf(ctx, se.ID, models.RecapDrafting, models.RecapDraft, text); err != nil {
			return err
		}
		s.notifier.Notify(se.ID)
	}
	return nil
}

func recapWords(camp *models.Campaign) int {
	if camp.RecapStyle == models.RecapDetailed {
		return detailedRecapWords
	}
	return briefRecapWords
}

// plainRecap is the recap without a model: the memories as a list.
func plainRecap(mems []models.CampaignMemory) string {
	if len(mems) == 0 {
		return "Previously on this campaign: nothing the table remembers yet."
	}
	var b strings.Builder
	b.WriteString("Previously on this campaign:")
	for _, m := range mems {
		b.WriteString("\n- ")
		b.WriteString(strings.Join(strings.Fields(m.Text), " "))
	}
	return b.String()
}

// recapMessages asks the narrator for a "Previously on…" narration made
// only of what the table remembers.
func recapMessages(camp *models.Campaign, mems []models.CampaignMemory) []llm.Message {
	var facts strings.Builder
	session := int64(0)
	for _, m := range mems {
		if m.SessionID != session {
			session = m.SessionID
			facts.WriteString("\n[an earlier session]\n")
		}
		facts.WriteString("- ")
		facts.WriteString(strings.Join(strings.Fields(m.Text), " "))
		facts.WriteString("\n")
	}
	system := fmt.Sprintf("You are the narrator of a tabletop role-playing campaign, %q. Write the \"Previously on…\" recap read aloud "+
		"at the start of the next session: at most %d words, past tense, vivid but plain. Use only the facts given, in their order; "+
		"invent nothing, keep every name as written, and end where the facts end. Reply with the recap only.", camp.Name, recapWords(camp))
	return []llm.Message{
		{Role: llm.RoleSystem, Content: system},
		{Role: llm.RoleUser, Content: "What the table remembers, oldest first:\n" + facts.String()},
	}
}

// cleanRecap trims a model's recap to maxWords words on a sentence where it can.
func cleanRecap(reply string, maxWords int) string {
	reply = strings.TrimSpace(reply)
	words := strings.Fields(reply)
	if len(words) <= maxWords {
		return reply
	}
	cut := strings.Join(words[:maxWords], " ")
	if i := strings.LastIndexAny(cut, ".!?"); i > len(cut)/2 {
		return cut[:i+1]
	}
	return cut + "…"
}

// checkRecapText validates a recap the DM wrote.
func checkRecapText(text string) (string, error) {
	text = strings.TrimSpace(text)
	if text == "" || !utf8.ValidString(text) || utf8.RuneCountInString(text) > maxRecapRunes {
		return "", apperr.E(apperr.InvalidRequest, "A recap is 1 to %d characters.", maxRecapRunes).WithField("text", "1 to 4000 characters")
	}
	return text, nil
}

// openRecap refuses unless the caller is the current DM and the session's
// recap is a draft.
func openRecap(sc sessionScope) error {
	if err := requireCurrentDM(sc); err != nil {
		return err
	}
	if sc.session.RecapStatus != models.RecapDraft {
		return apperr.E(apperr.RecapNotOpen, "There is no recap draft to change: it is %s.", sc.session.RecapStatus)
	}
	return nil
}

// EditRecap saves the DM's edit of the draft. Returns not_current_dm,
// recap_not_open, invalid_request.
func (s *Service) EditRecap(ctx context.Context, c Caller, sessionID int64, text string) (SessionResume, error) {
	text, err := checkRecapText(text)
	if err != nil {
		return SessionResume{}, err
	}
	return s.mutateSession(ctx, c, sessionID, func(tx *models.Store, sc *sessionScope) error {
		if err := openRecap(*sc); err != nil {
			return err
		}
		return tx.UpdateSession(ctx, sessionID, models.SessionUpdate{RecapText: &text})
	})
}

// PostRecap posts the draft (or text, the DM's last edit, when given) to
// the table as a public event, in one transaction with the status. Returns
// not_current_dm, recap_not_open, session_not_active, invalid_request.
func (s *Service) PostRecap(ctx context.Context, c Caller, sessionID int64, text *string) (SessionResume, error) {
	if text != nil {
		t, err := checkRecapText(*text)
		if err != nil {
			return SessionResume{}, err
		}
		text = &t
	}
	return s.mutateSession(ctx, c, sessionID, func(tx *models.Store, sc *sessionScope) error {
		if err := openRecap(*sc); err != nil {
			return err
		}
		if sc.session.Status != models.SessionActive {
			return apperr.E(apperr.SessionNotActive, "The session is not in play.")
		}
		posted := sc.session.RecapText
		if text != nil {
			posted = *text
		}
		status := models.RecapPosted
		if err := tx.UpdateSession(ctx, sessionID, models.SessionUpdate{RecapStatus: &status, RecapText: &posted}); err != nil {
			return err
		}
		_, err := s.appendNext(ctx, tx, sessionID, eventDraft{kind: EventRecapPosted, acting: &sc.session.DMSeatID,
			payload: map[string]any{"text": posted}})
		return err
	})
}

// SkipRecap drops the recap, drafted or still being written. Returns
// not_current_dm, recap_not_open.
func (s *Service) SkipRecap(ctx context.Context, c Caller, sessionID int64) (SessionResume, error) {
	return s.mutateSession(ctx, c, sessionID, func(tx *models.Store, sc *sessionScope) error {
		if err := requireCurrentDM(*sc); err != nil {
			return err
		}
		if st := sc.session.RecapStatus; st != models.RecapDraft && st != models.RecapDrafting {
			return apperr.E(apperr.RecapNotOpen, "There is no recap to skip: it is %s.", st)
		}
		skipped, empty := models.RecapSkipped, ""
		return tx.UpdateSession(ctx, sessionID, models.SessionUpdate{RecapStatus: &skipped, RecapText: &empty})
	})
}
