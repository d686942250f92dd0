package table

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/adventure-table/adventure-table/gameplay/oneread"
	"github.com/adventure-table/adventure-table/models"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// Event kinds. They are wire contract: never renamed.
const (
	EventSessionStarted    = "session.started"
	EventParticipantJoined = "participant.joined"
	EventSessionEnded      = "session.ended"
	EventSessionAbandoned  = "session.abandoned"
	EventMessagePosted     = "message.posted"
	EventStageUpdated      = "stage.updated"
)

// payloadVersion is the version of every payload this build writes.
const payloadVersion = 1

// Limits of the event reads.
const (
	DefaultEventLimit = 100
	MaxEventLimit     = 200
	DefaultWait       = 25 * time.Second
	MaxWait           = 60 * time.Second
)

// EventView is an event as a caller may see it.
type EventView struct {
	Seq                int64        `json:"seq"`
	Kind               string       `json:"kind"`
	CreatedAt          time.Time    `json:"created_at"`
	ActingSeatID       *int64       `json:"acting_seat_id"`
	SubjectSeatID      *int64       `json:"subject_seat_id"`
	SubjectCharacterID *int64       `json:"subject_character_id"`
	ExecutionMode      string       `json:"execution_mode" jsonschema:"self, dm_proxy or system"`
	Visibility         string       `json:"visibility" jsonschema:"public, dm_only, actor_and_dm or seat_private"`
	Payload            EventPayload `json:"payload"`
}

// EventPage is a window of events and the cursor to continue from. The
// cursor can move past events the caller may not see.
type EventPage struct {
	Events  []EventView `json:"events"`
	Cursor  int64       `json:"cursor"`
	HasMore bool        `json:"has_more"`
	// encoded is shared by the pages one wake hands to every waiter that
	// sees the same events: their JSON is written once, not once per
	// waiter (10,000 open streams, one public event).
	encoded *sharedJSON
}

// sharedJSON is one encoding of a page, made by whichever reader needs it
// first.
type sharedJSON struct {
	once sync.Once
	b    []byte
	err  error
}

// JSON is json.Marshal of the page, done once for a page of a shared wake
// however many streams write it.
func (p EventPage) JSON() ([]byte, error) {
	if p.encoded == nil {
		return json.Marshal(p)
	}
	p.encoded.once.Do(func() { p.encoded.b, p.encoded.err = json.Marshal(p) })
	return p.encoded.b, p.encoded.err
}

// eventDraft is an event about to be appended.
type eventDraft struct {
	kind                       string
	acting, subject, character *int64
	mode, visibility           string
	recipients                 []int64
	payload                    map[string]any
	idempotencyKey             string
}

// appendEvent takes the session's next seq and writes the event, inside
// the caller's transaction.
func (s *Service) appendEvent(ctx context.Context, tx *models.Store, sessionID, seq int64, d eventDraft) (models.SessionEvent, error) {
	if d.payload == nil {
		d.payload = map[string]any{}
	}
	d.payload["version"] = payloadVersion
	raw, err := json.Marshal(d.payload)
	if err != nil {
		return models.SessionEvent{}, err
	}
	if d.mode == "" {
		d.mode = models.ExecSelf
	}
	if d.visibility == "" {
		d.visibility = models.VisibilityPublic
	}
	if d.recipients == nil {
		d.recipients = []int64{}
	}
	e := models.SessionEvent{SessionID: sessionID, Seq: seq, Kind: d.kind, ActingSeatID: d.acting, SubjectSeatID: d.subject,
		SubjectCharacterID: d.character, ExecutionMode: d.mode, Visibility: d.visibility, RecipientSeatIDs: d.recipients,
		PayloadVersion: payloadVersion, Payload: string(raw), CreatedAt: s.now()}
	if d.idempotencyKey != "" {
		e.IdempotencyKey = &d.idempotencyKey
	}
	return e, tx.CreateEvent(ctx, &e)
}

// appendNext appends an event with the session's next seq.
func (s *Service) appendNext(ctx context.Context, tx *models.Store, sessionID int64, d eventDraft) (models.SessionEvent, error) {
	seq, err := tx.NextEventSeq(ctx, sessionID, s.now())
	if err != nil {
		return models.SessionEvent{}, err
	}
	return s.appendEvent(ctx, tx, sessionID, seq, d)
}

// viewer is who reads events: the current DM sees everything; anyone else
// sees public events and the private ones addressed to a seat they control.
type viewer struct {
	dm    bool
	seats map[int64]bool
}

func (sc sessionScope) viewer() viewer {
	v := viewer{dm: sc.isCurrentDM(), seats: map[int64]bool{}}
	for _, seat := range sc.seats {
		if controls(sc.actor, seat) {
			v.seats[seat.ID] = true
		}
	}
	return v
}

// sees is the one audience projection: every reader of events goes through
// it, and no caller can choose its own audience.
func (v viewer) sees(e models.SessionEvent) bool {
	if v.dm {
		return true
	}
	switch e.Visibility {
	case models.VisibilityPublic:
		return true
	case models.VisibilityActorAndDM:
		return (e.ActingSeatID != nil && v.seats[*e.ActingSeatID]) || (e.SubjectSeatID != nil && v.seats[*e.SubjectSeatID])
	case models.VisibilitySeatPrivate:
		for _, r := range e.RecipientSeatIDs {
			if v.seats[r] {
				return true
			}
		}
	}
	return false
}

// seesJournal is sees for a journal entry of audience with seats: the DM
// reads every entry; anyone else a table entry, and a seats entry naming a
// seat they control. Every journal read and write goes through it.
func (v viewer) seesJournal(audience string, seats []int64) bool {
	if v.dm {
		return true
	}
	switch audience {
	case models.AudienceTable:
		return true
	case models.AudienceSeats:
		for _, s := range seats {
			if v.seats[s] {
				return true
			}
		}
	}
	return false
}

func eventView(e models.SessionEvent) EventView {
	return EventView{Seq: e.Seq, Kind: e.Kind, CreatedAt: e.CreatedAt, ActingSeatID: e.ActingSeatID, SubjectSeatID: e.SubjectSeatID,
		SubjectCharacterID: e.SubjectCharacterID, ExecutionMode: e.ExecutionMode, Visibility: e.Visibility, Payload: EventPayload(e.Payload)}
}

// project keeps what v may see.
func (v viewer) project(events []models.SessionEvent) []EventView {
	out := []EventView{}
	for _, e := range events {
		if v.sees(e) {
			out = append(out, eventView(e))
		}
	}
	return out
}

// ListEvents returns the events after `after` that the caller may see,
// reading at most limit rows. Returns not_found, room_access_revoked,
// invalid_request.
func (s *Service) ListEvents(ctx context.Context, c Caller, sessionID, after int64, limit int) (EventPage, error) {
	if limit == 0 {
		limit = DefaultEventLimit
	}
	if limit < 1 || limit > MaxEventLimit || after < 0 {
		return EventPage{}, apperr.E(apperr.InvalidRequest, "limit must be 1 to %d and after 0 or more.", MaxEventLimit).WithField("limit", "1 to 200")
	}
	// The caller's viewer is the hub's, under the rules a waiter's is
	// trusted by (see hub.go): a client paging through events, or polling
	// with no wait, resolves it once and not on every call.
	n := s.notifier
	f := n.enter(sessionID)
	defer n.leave(sessionID, f)
	aud, err := s.audienceOf(ctx, f, c, sessionID)
	if err != nil {
		return EventPage{}, err
	}
	return s.readEvents(ctx, aud.actor, aud.viewer, sessionID, after, limit)
}

// readEvents reads up to limit events after `after` and keeps what v may
// see. A grant whose session is over gets its remaining events, then its
// refusal once there are none.
func (s *Service) readEvents(ctx context.Context, a Actor, v viewer, sessionID, after int64, limit int) (EventPage, error) {
	rows, err := s.store.FindEventsAfter(ctx, sessionID, after, limit+1)
	if err != nil {
		return EventPage{}, err
	}
	if a.SessionOver && len(rows) == 0 {
		// Everything up to the end was read: now the token is done.
		g, err := s.store.FindGrantByID(ctx, a.GrantID, false)
		if err != nil {
			return EventPage{}, err
		}
		return EventPage{}, revokedError(g)
	}
	page := EventPage{Cursor: after}
	if len(rows) > limit {
		rows, page.HasMore = rows[:limit], true
	}
	if len(rows) > 0 {
		page.Cursor = rows[len(rows)-1].Seq
	}
	page.Events = v.project(rows)
	return page, nil
}

// WaitEvents is the long poll: it returns as soon as the caller may see an
// event after `after`, or with no events and the cursor when timeout
// passes or the server shuts down (Shutdown). While waiting it holds no
// database connection and costs no query: it waits on the session's feed
// (hub.go), which reads each wake's events once for every waiter. Its own
// reads happen only when it starts, when the hub cannot vouch that nothing
// is new, and when its actor must be resolved again. Returns the errors of
// ListEvents, or the context's error when the caller goes away.
func (s *Service) WaitEvents(ctx context.Context, c Caller, sessionID, after int64, timeout time.Duration) (EventPage, error) {
	if timeout < time.Second || timeout > MaxWait {
		return EventPage{}, apperr.E(apperr.InvalidRequest, "timeout must be 1 to 60 seconds.").WithField("timeout", "1 to 60")
	}
	var got *EventPage
	cursor, err := s.FollowEvents(ctx, c, sessionID, after, func() time.Duration { return timeout }, func(p EventPage) bool {
		got = &p
		return false
	})
	switch {
	case err != nil:
		return EventPage{}, err
	case got != nil:
		return *got, nil
	}
	// The server stops: the page as it stands, so the client carries on
	// from the cursor with the next server.
	return EventPage{Events: []EventView{}, Cursor: cursor}, nil
}

// FollowEvents hands emit every page of events after `after` that the
// caller may see, as they are committed, until emit returns false, the
// server stops (Shutdown), the caller may no longer read (the error, as
// ListEvents returns it) or ctx ends (its error). A wait of idle() with
// nothing to hand out is handed out as a page with no events (the long
// poll's timeout, the stream's keepalive). It returns the cursor reached.
//
// While following it holds no database connection and stays on the
// session's feed (hub.go) from one wake to the next: a wake hands it its
// page, filtered for its viewer, with no query and no lock of its own. It
// reads on its own only when it starts, when the hub cannot vouch that
// nothing is new, and when its actor must be resolved again (an authority
// change, or at least every audienceTTL).
func (s *Service) FollowEvents(ctx context.Context, c Caller, sessionID, after int64, idle func() time.Duration, emit func(EventPage) bool) (int64, error) {
	if after < 0 {
		return 0, apperr.E(apperr.InvalidRequest, "after must be 0 or more.").WithField("after", "0 or more")
	}
	n := s.notifier
	f := n.enter(sessionID)
	defer n.leave(sessionID, f)
	// The grant row verified for this request serves the first resolution
	// only; later ones (after a recheck) read it afresh.
	fresh := c
	c = c.withoutGrantRow()
	quiet := time.NewTimer(idle())
	defer quiet.Stop()
	recheck := time.NewTimer(time.Hour)
	defer recheck.Stop()
	var w *waiter
	var aud audience
	defer func() {
		if w != nil {
			n.unsubscribe(f, w)
		}
	}()
	// hand emits a page and restarts the silence; false: stop.
	hand := func(p EventPage) bool {
		after = p.Cursor
		if !emit(p) {
			return false
		}
		quiet.Reset(idle())
		return true
	}
	for {
		if w == nil {
			// Take the ticket before reading, so a commit between the read
			// and the wait still wakes us.
			ticket := n.ticket(f)
			var err error
			if aud, err = s.audienceOf(ctx, f, fresh, sessionID); err != nil {
				return after, err
			}
			fresh = c
			page, err := s.pollRead(ctx, f, ticket, aud, sessionID, after)
			if err != nil {
				return after, err
			}
			if len(page.Events) > 0 || page.HasMore {
				if !hand(page) {
					return after, nil
				}
				continue
			}
			after = page.Cursor
			w = n.wait(sessionID, f, ticket, aud, after)
			recheck.Reset(recheckAfter(aud.until))
		}
		var why followStop
		select {
		case r := <-w.out:
			if r.recheck {
				// The hub let go of w: resolve again and read on our own.
				w = nil
				n.forgetAudience(f, c, aud)
				continue
			}
			if !hand(r.page) {
				return after, nil
			}
			continue
		case <-recheck.C:
			why = stopRecheck
		case <-quiet.C:
			why = stopQuiet
		case <-n.stopping:
			why = stopServer
		case <-ctx.Done():
			why = stopGone
		}
		// Off the feed; a page the hub handed over meanwhile comes first.
		left, r := n.unsubscribe(f, w)
		w = nil
		handed := r.page.Events != nil
		if handed {
			if !hand(r.page) {
				return after, nil
			}
		} else if !r.recheck {
			after = left // past the events only others may see
		}
		switch why {
		case stopServer:
			return after, nil
		case stopGone:
			return after, ctx.Err()
		case stopRecheck:
			n.forgetAudience(f, c, aud)
		case stopQuiet:
			if !handed && !hand(EventPage{Events: []EventView{}, Cursor: after}) {
				return after, nil
			}
		}
	}
}

// followStop is why a follower left the feed for a moment.
type followStop int

const (
	stopRecheck followStop = iota // its viewer must be resolved again
	stopQuiet                     // idle() passed with nothing to hand out
	stopServer                    // the server stops
	stopGone                      // the caller went away
)

// audienceOf is the caller's viewer in the session: the feed's cached one
// while it is trusted, else resolved from canonical rows (and cached).
// Reading the events is presence, so it is recorded here either way.
func (s *Service) audienceOf(ctx context.Context, f *feed, c Caller, sessionID int64) (audience, error) {
	generation := s.store.AuthorityGeneration()
	now := time.Now()
	if a, ok := s.notifier.cachedAudience(f, c, generation, now); ok {
		s.touchPresence(ctx, a.actor, sessionID)
		return a, nil
	}
	// The waiters of one caller miss together (their trust ends at the same
	// moment, an authority change releases them all): one resolves and the
	// others share its answer.
	key := fmt.Sprintf("%d/%d/%d/%d", sessionID, c.UserID, c.GrantID, generation)
	a, err := oneread.Do(&s.notifier.resolving, ctx, key, func(rctx context.Context) (audience, error) {
		sc, err := loadAudience(allowEndedRead(rctx), s.store, c, sessionID, false)
		if err != nil {
			return audience{}, err
		}
		a := audience{actor: sc.actor, viewer: sc.viewer(), generation: generation, until: now.Add(audienceTTL - recheckSpread)}
		// A grant whose session is over reads to the end, then is refused; a
		// pre-session grant expires on its own clock: neither is cached.
		if !sc.actor.SessionOver && (sc.actor.Kind != ActorAI || sc.actor.GrantSessionID != nil) {
			s.notifier.cacheAudience(f, c, a)
		}
		return a, nil
	})
	if err != nil {
		return audience{}, err
	}
	s.touchPresence(ctx, a.actor, sessionID)
	return a, nil
}

// pollRead is a poll's own read of the events after `after`: none when
// the hub has read that far (the hub's next read serves it), else one
// query (a first poll, or a cursor behind the hub).
func (s *Service) pollRead(ctx context.Context, f *feed, ticket uint64, a audience, sessionID, after int64) (EventPage, error) {
	if !a.actor.SessionOver && s.notifier.covers(f, after) {
		return EventPage{Events: []EventView{}, Cursor: after}, nil
	}
	page, err := s.readEvents(ctx, a.actor, a.viewer, sessionID, after, DefaultEventLimit)
	if err == nil && !page.HasMore {
		s.notifier.sawHead(f, ticket, page.Cursor)
	}
	return page, err
}

// FollowOtherProcesses wakes this process's long polls when another server
// process on the same PostgreSQL database commits events (LISTEN/NOTIFY),
// and makes the authority changes it commits drop the viewers cached here.
// It returns once listening; it is a no-op on SQLite (one process). The
// in-process notifier stays the fast path for this process's own writes.
func (s *Service) FollowOtherProcesses(ctx context.Context, onError func(error)) error {
	return s.store.ListenSessionEvents(ctx, s.notifier.Notify, onError)
}
