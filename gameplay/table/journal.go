package table

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/adventure-table/adventure-table/models"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// The journal a campaign's table keeps (issue 31): facts (NPCs, places,
// items, quests, clues, notes), each with who knows it, the event it came
// from and whether the table confirmed it. The DM writes anything; a
// player proposes entries and changes their own proposals until the DM
// confirms them. Who reads an entry follows the events' audience rule
// (viewer.seesAudience).

// Limits of the journal.
const (
	JournalTitleMax     = 120
	JournalTextMax      = 2000
	JournalQueryMax     = 100
	JournalEntriesMax   = 500
	DefaultJournalLimit = 50
	MaxJournalLimit     = 200
)

// JournalKinds are the kinds of entry, in the order the journal shows them.
var JournalKinds = []string{models.JournalNPC, models.JournalPlace, models.JournalItem, models.JournalQuest, models.JournalClue, models.JournalNote}

// JournalAudiences are who may know an entry: the whole table, some
// players (seat_ids), or the DM only.
var JournalAudiences = []string{models.AudienceTable, models.AudienceSeats, models.AudienceDM}

// JournalInput is a new entry.
type JournalInput struct {
	Kind     string  `json:"kind" jsonschema:"npc, place, item, quest, clue or note"`
	Title    string  `json:"title" jsonschema:"1 to 120 characters on one line"`
	Text     string  `json:"text,omitempty" jsonschema:"at most 2000 characters"`
	Audience string  `json:"audience,omitempty" jsonschema:"table (the default), seats (the players of seat_ids) or dm"`
	SeatIDs  []int64 `json:"seat_ids,omitempty" jsonschema:"with audience seats: the player seats who know it"`
	// SourceSessionID and SourceSeq cite the event the fact came from.
	SourceSessionID *int64 `json:"source_session_id,omitempty" jsonschema:"with source_seq: the session of the event this came from"`
	SourceSeq       *int64 `json:"source_seq,omitempty" jsonschema:"with source_session_id: the event's seq"`
}

// JournalChange edits an entry: each field given replaces the stored one.
type JournalChange struct {
	Kind     *string `json:"kind,omitempty" jsonschema:"npc, place, item, quest, clue or note"`
	Title    *string `json:"title,omitempty"`
	Text     *string `json:"text,omitempty"`
	Audience *string `json:"audience,omitempty" jsonschema:"table, seats or dm; leaving seats drops seat_ids"`
	SeatIDs  []int64 `json:"seat_ids,omitempty" jsonschema:"replaces the seats of an audience seats entry"`
	// A citation is replaced by giving both, removed by clear_source.
	SourceSessionID *int64 `json:"source_session_id,omitempty"`
	SourceSeq       *int64 `json:"source_seq,omitempty"`
	ClearSource     bool   `json:"clear_source,omitempty"`
}

// JournalFilter selects a page of the journal, newest first.
type JournalFilter struct {
	Kind  string
	Query string
	// Before continues a list: entries older than this id.
	Before int64
	Limit  int
}

// JournalEntryView is an entry as its reader may use it.
type JournalEntryView struct {
	ID              int64     `json:"id"`
	CampaignID      int64     `json:"campaign_id"`
	Kind            string    `json:"kind" jsonschema:"npc, place, item, quest, clue or note"`
	Title           string    `json:"title"`
	Text            string    `json:"text"`
	Audience        string    `json:"audience" jsonschema:"table, seats (the players of seat_ids) or dm"`
	SeatIDs         []int64   `json:"seat_ids"`
	AuthorSeatID    *int64    `json:"author_seat_id" jsonschema:"the seat that wrote it (null once the seat is gone, or for room authority without a seat)"`
	SourceSessionID *int64    `json:"source_session_id"`
	SourceSeq       *int64    `json:"source_seq"`
	Confirmed       bool      `json:"confirmed" jsonschema:"false: a player's proposal the DM has not confirmed"`
	CreatedAt       time.Time `json:"created_at"`
	UpdatedAt       time.Time `json:"updated_at"`
	CanEdit         bool      `json:"can_edit" jsonschema:"the caller may edit and delete it"`
	CanConfirm      bool      `json:"can_confirm"`
}

// JournalSeat is a seat of the campaign an entry may name.
type JournalSeat struct {
	ID        int64  `json:"id"`
	Role      string `json:"role" jsonschema:"dm or player"`
	Label     string `json:"label"`
	Character string `json:"character,omitempty" jsonschema:"the character the seat plays"`
}

// JournalView is a page of a campaign's journal, with what the caller may
// write.
type JournalView struct {
	CampaignID   int64              `json:"campaign_id"`
	CampaignName string             `json:"campaign_name"`
	RoomID       int64              `json:"room_id"`
	Entries      []JournalEntryView `json:"entries"`
	HasMore      bool               `json:"has_more" jsonschema:"older entries follow (before= the last id)"`
	// DM: the caller keeps the journal as its DM.
	DM bool `json:"dm" jsonschema:"the caller reads every entry, writes for any audience and confirms"`
	// SeatID is the seat the caller writes as.
	SeatID    *int64        `json:"seat_id"`
	Audiences []string      `json:"audiences" jsonschema:"the audiences the caller may write for; empty: read only"`
	Seats     []JournalSeat `json:"seats"`
}

// journalScope is a campaign's journal as one caller meets it.
type journalScope struct {
	camp  *models.Campaign
	seats []models.CampaignSeat
	actor Actor
	v     viewer
}

// journalDM is who keeps the journal as its DM: the DM seat's controller,
// and who reads the whole world (the room owner, a DM-key holder).
func journalDM(a Actor) bool { return seesWholeWorld(a) }

// loadJournal resolves the caller in a campaign's journal. An AI reaches
// only its own campaign's journal, from a grant bound to a session.
// Returns not_found, room_access_revoked, ai_grant_pre_session_only and
// the token codes.
func loadJournal(ctx context.Context, tx *models.Store, c Caller, campaignID int64) (journalScope, error) {
	camp, err := tx.FindCampaignByID(ctx, campaignID)
	if apperr.CodeOf(err) == apperr.NotFound {
		return journalScope{}, notFound("campaign")
	}
	if err != nil {
		return journalScope{}, err
	}
	seats, err := tx.FindSeatsOfCampaigns(ctx, []int64{camp.ID})
	if err != nil {
		return journalScope{}, err
	}
	a, err := actorAmong(ctx, tx, c, camp.RoomID, "campaign", seats)
	if err != nil {
		return journalScope{}, err
	}
	if a.Kind == ActorAI {
		if a.CampaignID != camp.ID {
			return journalScope{}, notFound("campaign")
		}
		if a.GrantSessionID == nil {
			return journalScope{}, apperr.E(apperr.AIGrantPreSessionOnly, "Before its session starts, this token can only read its pre-session context and start the session.")
		}
	}
	a = a.withSeats(camp.ID, seats)
	v := viewer{dm: journalDM(a), seats: map[int64]bool{}}
	for _, s := range seats {
		if controls(a, s) {
			v.seats[s.ID] = true
		}
	}
	return journalScope{camp: camp, seats: seats, actor: a, v: v}, nil
}

// player is the caller writing as a player: the seat they write as.
func (js journalScope) player() (int64, bool) {
	return js.actor.SeatID, !js.v.dm && js.actor.Role == RolePlayer && js.actor.SeatID != 0
}

// audiences are what the caller may write for.
func (js journalScope) audiences() []string {
	if js.v.dm {
		return JournalAudiences
	}
	if _, ok := js.player(); ok {
		return []string{models.AudienceTable, models.AudienceSeats}
	}
	return []string{}
}

// canEdit: the DM changes any entry; a player their own proposal until it
// is confirmed.
func (js journalScope) canEdit(e *models.JournalEntry) bool {
	if js.v.dm {
		return true
	}
	_, ok := js.player()
	return ok && !e.Confirmed && e.AuthorSeatID != nil && js.v.seats[*e.AuthorSeatID]
}

func (js journalScope) view(e *models.JournalEntry) JournalEntryView {
	seats := e.SeatIDs
	if seats == nil {
		seats = []int64{}
	}
	return JournalEntryView{ID: e.ID, CampaignID: e.CampaignID, Kind: e.Kind, Title: e.Title, Text: e.Text, Audience: e.Audience,
		SeatIDs: seats, AuthorSeatID: e.AuthorSeatID, SourceSessionID: e.SourceSessionID, SourceSeq: e.SourceSeq,
		Confirmed: e.Confirmed, CreatedAt: e.CreatedAt, UpdatedAt: e.UpdatedAt, CanEdit: js.canEdit(e), CanConfirm: js.v.dm && !e.Confirmed}
}

// ListJournal returns a page of a campaign's journal that the caller may
// read, newest first, optionally of one kind and holding some words.
// Returns not_found, room_access_revoked, invalid_request.
func (s *Service) ListJournal(ctx context.Context, c Caller, campaignID int64, f JournalFilter) (JournalView, error) {
	if f.Limit == 0 {
		f.Limit = DefaultJournalLimit
	}
	f.Query = strings.TrimSpace(f.Query)
	switch {
	case f.Limit < 1 || f.Limit > MaxJournalLimit:
		return JournalView{}, apperr.E(apperr.InvalidRequest, "limit must be 1 to %d.", MaxJournalLimit).WithField("limit", fmt.Sprintf("1 to %d", MaxJournalLimit))
	case f.Before < 0:
		return JournalView{}, apperr.E(apperr.InvalidRequest, "before must be an entry id.").WithField("before", "an entry id")
	case f.Kind != "" && !slices.Contains(JournalKinds, f.Kind):
		return JournalView{}, apperr.E(apperr.InvalidRequest, "kind must be one of %s.", strings.Join(JournalKinds, ", ")).WithField("kind", strings.Join(JournalKinds, ", "))
	case !models.StorableText(f.Query):
		return JournalView{}, models.UnstorableText(apperr.InvalidRequest, "q")
	case utf8.RuneCountInString(f.Query) > JournalQueryMax:
		return JournalView{}, apperr.E(apperr.InvalidRequest, "A search is at most %d characters.", JournalQueryMax).WithField("q", fmt.Sprintf("at most %d characters", JournalQueryMax))
	}
	js, err := loadJournal(ctx, s.store, c, campaignID)
	if err != nil {
		return JournalView{}, err
	}
	q := models.JournalQuery{Kind: f.Kind, Words: f.Query, Before: f.Before}
	if !js.v.dm {
		q.Audiences = []string{models.AudienceTable, models.AudienceSeats}
	}
	heads, err := s.store.FindJournalHeads(ctx, js.camp.ID, q)
	if err != nil {
		return JournalView{}, err
	}
	var ids []int64
	more := false
	for _, h := range heads {
		if !js.v.seesAudience(h.Audience, h.SeatIDs) {
			continue
		}
		if len(ids) == f.Limit {
			more = true
			break
		}
		ids = append(ids, h.ID)
	}
	rows, err := s.store.FindJournalEntriesByID(ctx, ids)
	if err != nil {
		return JournalView{}, err
	}
	out := JournalView{CampaignID: js.camp.ID, CampaignName: js.camp.Name, RoomID: js.camp.RoomID, Entries: make([]JournalEntryView, 0, len(rows)), HasMore: more, DM: js.v.dm,
		Audiences: js.audiences()}
	for i := range rows {
		// The heads decided; the rows are checked again, as every read is.
		if js.v.seesAudience(rows[i].Audience, rows[i].SeatIDs) {
			out.Entries = append(out.Entries, js.view(&rows[i]))
		}
	}
	if id := js.actor.SeatID; id != 0 && (js.v.dm || js.actor.Role == RolePlayer) {
		out.SeatID = &id
	}
	if out.Seats, err = s.journalSeats(ctx, js.seats); err != nil {
		return JournalView{}, err
	}
	return out, nil
}

// journalSeats names a campaign's seats with the characters they play.
func (s *Service) journalSeats(ctx context.Context, seats []models.CampaignSeat) ([]JournalSeat, error) {
	var charIDs []int64
	for _, seat := range seats {
		if seat.CharacterID != nil {
			charIDs = append(charIDs, *seat.CharacterID)
		}
	}
	chars, err := s.store.FindCharactersByIDs(ctx, charIDs)
	if err != nil {
		return nil, err
	}
	names := map[int64]string{}
	for _, ch := range chars {
		names[ch.ID] = ch.Name
	}
	out := make([]JournalSeat, 0, len(seats))
	for _, seat := range seats {
		js := JournalSeat{ID: seat.ID, Role: seat.Role, Label: seat.Label}
		if seat.CharacterID != nil {
			js.Character = names[*seat.CharacterID]
		}
		out = append(out, js)
	}
	return out, nil
}

// AddJournalEntry writes a new entry. The DM's is confirmed and may be for
// any audience; a player's is a proposal authored by their seat, for the
// table or for some players including their own seat. Returns
// seat_controller_required (a spectator), journal_entry_invalid,
// journal_audience_not_allowed, journal_wider_than_source, not_found (a
// citation the caller cannot see), journal_full.
func (s *Service) AddJournalEntry(ctx context.Context, c Caller, campaignID int64, in JournalInput) (JournalEntryView, error) {
	e := &models.JournalEntry{Kind: in.Kind, Title: in.Title, Text: in.Text, Audience: in.Audience, SeatIDs: in.SeatIDs,
		SourceSessionID: in.SourceSessionID, SourceSeq: in.SourceSeq}
	if e.Audience == "" {
		e.Audience = models.AudienceTable
	}
	if err := cleanJournalEntry(e); err != nil {
		return JournalEntryView{}, err
	}
	var out JournalEntryView
	err := s.store.Tx(ctx, func(tx *models.Store) error {
		js, err := loadJournal(ctx, tx, c, campaignID)
		if err != nil {
			return err
		}
		seat, isPlayer := js.player()
		switch {
		case js.v.dm:
			e.Confirmed = true
			if js.actor.SeatID != 0 {
				e.AuthorSeatID = &js.actor.SeatID
			}
		case isPlayer:
			e.AuthorSeatID = &seat
		default:
			return apperr.E(apperr.SeatControllerRequired, "Only the DM and the players write in the journal.")
		}
		if err := js.checkEntry(ctx, tx, e); err != nil {
			return err
		}
		n, err := tx.CountJournalEntries(ctx, js.camp.ID, true)
		if err != nil {
			return err
		}
		if n >= JournalEntriesMax {
			return apperr.E(apperr.JournalFull, "The journal holds %d entries, the most it may; delete some first.", JournalEntriesMax).
				WithDetail("limit", JournalEntriesMax)
		}
		now := s.journalNow()
		e.CampaignID, e.CreatedAt, e.UpdatedAt = js.camp.ID, now, now
		if err := tx.CreateJournalEntry(ctx, e); err != nil {
			return err
		}
		out = js.view(e)
		return nil
	})
	return out, err
}

// EditJournalEntry changes an entry: the DM any entry, a player their own
// unconfirmed proposal (which stays a proposal). Returns not_found (also
// for an entry the caller cannot read), journal_entry_not_editable, and
// AddJournalEntry's codes.
func (s *Service) EditJournalEntry(ctx context.Context, c Caller, entryID int64, ch JournalChange) (JournalEntryView, error) {
	var out JournalEntryView
	err := s.withEntry(ctx, c, entryID, func(tx *models.Store, js journalScope, e *models.JournalEntry) error {
		if !js.canEdit(e) {
			return notEditable()
		}
		applyJournalChange(e, ch)
		if err := cleanJournalEntry(e); err != nil {
			return err
		}
		if err := js.checkEntry(ctx, tx, e); err != nil {
			return err
		}
		e.UpdatedAt = s.journalNow()
		if err := tx.SaveJournalEntry(ctx, e); err != nil {
			return err
		}
		out = js.view(e)
		return nil
	})
	return out, err
}

// ConfirmJournalEntry makes a proposal part of what the table holds true;
// confirming a confirmed entry changes nothing. Only the DM may. Returns
// not_found, journal_dm_required.
func (s *Service) ConfirmJournalEntry(ctx context.Context, c Caller, entryID int64) (JournalEntryView, error) {
	var out JournalEntryView
	err := s.withEntry(ctx, c, entryID, func(tx *models.Store, js journalScope, e *models.JournalEntry) error {
		if !js.v.dm {
			return apperr.E(apperr.JournalDMRequired, "Only the DM confirms journal entries.")
		}
		if !e.Confirmed {
			e.Confirmed, e.UpdatedAt = true, s.journalNow()
			if err := tx.SaveJournalEntry(ctx, e); err != nil {
				return err
			}
		}
		out = js.view(e)
		return nil
	})
	return out, err
}

// JournalDeleted answers a deletion.
type JournalDeleted struct {
	ID      int64 `json:"id"`
	Deleted bool  `json:"deleted"`
}

// DeleteJournalEntry removes an entry: the DM any entry, a player their
// own unconfirmed proposal. Returns not_found, journal_entry_not_editable.
func (s *Service) DeleteJournalEntry(ctx context.Context, c Caller, entryID int64) (JournalDeleted, error) {
	err := s.withEntry(ctx, c, entryID, func(tx *models.Store, js journalScope, e *models.JournalEntry) error {
		if !js.canEdit(e) {
			return notEditable()
		}
		return tx.DeleteJournalEntry(ctx, e.ID)
	})
	if err != nil {
		return JournalDeleted{}, err
	}
	return JournalDeleted{ID: entryID, Deleted: true}, nil
}

// journalNow is the time an entry is stamped with, to the microsecond
// PostgreSQL keeps: what a write answers is what a later read returns.
func (s *Service) journalNow() time.Time { return s.now().Truncate(time.Microsecond) }

func notEditable() error {
	return apperr.E(apperr.JournalEntryNotEditable, "Only the DM, or the player who proposed it while it is unconfirmed, may change this entry.")
}

// withEntry runs fn in one transaction on an entry (locked) the caller may
// read; one they may not is not_found, as if it did not exist.
func (s *Service) withEntry(ctx context.Context, c Caller, entryID int64, fn func(tx *models.Store, js journalScope, e *models.JournalEntry) error) error {
	return s.store.Tx(ctx, func(tx *models.Store) error {
		e, err := tx.FindJournalEntry(ctx, entryID, true)
		if apperr.CodeOf(err) == apperr.NotFound {
			return notFound("journal entry")
		}
		if err != nil {
			return err
		}
		js, err := loadJournal(ctx, tx, c, e.CampaignID)
		if apperr.CodeOf(err) == apperr.NotFound {
			return notFound("journal entry")
		}
		if err != nil {
			return err
		}
		if !js.v.seesAudience(e.Audience, e.SeatIDs) {
			return notFound("journal entry")
		}
		return fn(tx, js, e)
	})
}

// applyJournalChange puts a change's given fields on e.
func applyJournalChange(e *models.JournalEntry, ch JournalChange) {
	if ch.Kind != nil {
		e.Kind = *ch.Kind
	}
	if ch.Title != nil {
		e.Title = *ch.Title
	}
	if ch.Text != nil {
		e.Text = *ch.Text
	}
	if ch.Audience != nil {
		if *ch.Audience != models.AudienceSeats && *ch.Audience != e.Audience {
			e.SeatIDs = nil
		}
		e.Audience = *ch.Audience
	}
	if ch.SeatIDs != nil {
		e.SeatIDs = ch.SeatIDs
	}
	if ch.ClearSource {
		e.SourceSessionID, e.SourceSeq = nil, nil
	}
	if ch.SourceSessionID != nil || ch.SourceSeq != nil {
		e.SourceSessionID, e.SourceSeq = ch.SourceSessionID, ch.SourceSeq
	}
}

// cleanJournalEntry trims an entry's texts and checks what needs no rows:
// kind, title, text, audience and the shape of seats and citation.
func cleanJournalEntry(e *models.JournalEntry) error {
	invalid := func(field, problem, format string, args ...any) error {
		return apperr.E(apperr.JournalEntryInvalid, format, args...).WithField(field, problem)
	}
	if !slices.Contains(JournalKinds, e.Kind) {
		return invalid("kind", strings.Join(JournalKinds, ", "), "kind must be one of %s.", strings.Join(JournalKinds, ", "))
	}
	e.Title, e.Text = strings.TrimSpace(e.Title), strings.TrimSpace(e.Text)
	for field, text := range map[string]string{"title": e.Title, "text": e.Text} {
		if !models.StorableText(text) {
			return models.UnstorableText(apperr.JournalEntryInvalid, field)
		}
	}
	if n := utf8.RuneCountInString(e.Title); n < 1 || n > JournalTitleMax || strings.IndexFunc(e.Title, isControl) >= 0 {
		return invalid("title", fmt.Sprintf("1 to %d characters on one line", JournalTitleMax), "A title is 1 to %d characters on one line.", JournalTitleMax)
	}
	if utf8.RuneCountInString(e.Text) > JournalTextMax {
		return invalid("text", fmt.Sprintf("at most %d characters", JournalTextMax), "The text is longer than %d characters.", JournalTextMax)
	}
	if !slices.Contains(JournalAudiences, e.Audience) {
		return invalid("audience", "table, seats or dm", "audience must be table, seats or dm.")
	}
	if e.Audience == models.AudienceSeats {
		if len(e.SeatIDs) == 0 {
			return invalid("seat_ids", "at least one player seat", "An entry for some players names their seats.")
		}
		e.SeatIDs = slices.Compact(slices.Sorted(slices.Values(e.SeatIDs)))
	} else if len(e.SeatIDs) > 0 {
		return invalid("seat_ids", "only with audience seats", "seat_ids go with audience seats.")
	}
	if e.SeatIDs == nil {
		e.SeatIDs = []int64{}
	}
	if (e.SourceSessionID == nil) != (e.SourceSeq == nil) {
		return invalid("source_seq", "with source_session_id", "A citation names a session and an event's seq.")
	}
	return nil
}

// checkEntry checks an entry against the campaign: its seats are player
// seats of the campaign; a player writes for the table or for some
// players among them themselves; a citation is an event of the campaign
// the caller may see, and the entry reaches no reader that event did not.
func (js journalScope) checkEntry(ctx context.Context, tx *models.Store, e *models.JournalEntry) error {
	for _, id := range e.SeatIDs {
		i := slices.IndexFunc(js.seats, func(s models.CampaignSeat) bool { return s.ID == id })
		if i < 0 || js.seats[i].Role != models.SeatPlayer {
			return apperr.E(apperr.JournalEntryInvalid, "Seat %d is not a player seat of this campaign.", id).WithField("seat_ids", "player seats of the campaign")
		}
	}
	if !js.v.dm {
		mine := slices.ContainsFunc(e.SeatIDs, func(id int64) bool { return js.v.seats[id] })
		switch {
		case e.Audience == models.AudienceDM:
			return apperr.E(apperr.JournalAudienceNotAllowed, "Only the DM writes entries for the DM alone.").WithField("audience", "table or seats")
		case e.Audience == models.AudienceSeats && !mine:
			return apperr.E(apperr.JournalAudienceNotAllowed, "An entry for some players includes your own seat.").WithField("seat_ids", "include your seat")
		}
	}
	if e.SourceSessionID == nil {
		return nil
	}
	cited := func() error { return notFound("cited event") }
	se, err := tx.FindSessionByID(ctx, *e.SourceSessionID, false)
	if apperr.CodeOf(err) == apperr.NotFound || err == nil && se.CampaignID != js.camp.ID {
		return cited()
	}
	if err != nil {
		return err
	}
	ev, err := tx.FindEventAt(ctx, se.ID, *e.SourceSeq)
	if apperr.CodeOf(err) == apperr.NotFound {
		return cited()
	}
	if err != nil {
		return err
	}
	if !js.v.sees(*ev) {
		return cited()
	}
	return withinSource(e, ev)
}

// withinSource: an entry citing an event reaches no reader that event did
// not. A public event may be cited for anyone; a DM-only one for the DM;
// a whisper or private roll for the DM or some of its parties.
func withinSource(e *models.JournalEntry, ev *models.SessionEvent) error {
	var parties []int64
	switch ev.Visibility {
	case models.VisibilityPublic:
		return nil
	case models.VisibilityActorAndDM:
		for _, id := range []*int64{ev.ActingSeatID, ev.SubjectSeatID} {
			if id != nil {
				parties = append(parties, *id)
			}
		}
	case models.VisibilitySeatPrivate:
		parties = ev.RecipientSeatIDs
	}
	most := models.AudienceDM
	if len(parties) > 0 {
		most = models.AudienceSeats
	}
	ok := e.Audience == models.AudienceDM ||
		e.Audience == models.AudienceSeats && len(parties) > 0 && !slices.ContainsFunc(e.SeatIDs, func(id int64) bool { return !slices.Contains(parties, id) })
	if ok {
		return nil
	}
	err := apperr.E(apperr.JournalWiderThanSource, "The cited event was %s; the entry may reach no one else.", ev.Visibility).
		WithField("audience", "at most the cited event's audience").WithDetail("most", most)
	if len(parties) > 0 {
		err = err.WithDetail("seat_ids", parties)
	}
	return err
}
