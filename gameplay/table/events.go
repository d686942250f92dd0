package table

import (
	"context"
	"encoding/json"
	"sync"
	"time"

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
	sc, err := loadAudience(allowEndedRead(ctx), s.store, c, sessionID, false)
	if err != nil {
		return EventPage{}, err
	}
	// Reading the events (the long poll does, every wake) is presence.
	s.touchPresence(ctx, sc)
	rows, err := s.store.FindEventsAfter(ctx, sessionID, after, limit+1)
	if err != nil {
		return EventPage{}, err
	}
	if sc.actor.SessionOver && len(rows) == 0 {
		// Everything up to the end was read: now the token is done.
		g, err := s.store.FindGrantByID(ctx, sc.actor.GrantID, false)
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
	page.Events = sc.viewer().project(rows)
	return page, nil
}

// WaitEvents is the long poll: it returns as soon as the caller may see an
// event after `after`, or with no events and the cursor when timeout
// passes or the server shuts down (Shutdown). While waiting it holds no
// database connection: each check is a short read, and the wait itself is
// on the in-process notifier. A missed wake-up costs latency, never an
// event, because every check reads the database. Returns the errors of
// ListEvents, or the context's error when the caller goes away.
func (s *Service) WaitEvents(ctx context.Context, c Caller, sessionID, after int64, timeout time.Duration) (EventPage, error) {
	if timeout < time.Second || timeout > MaxWait {
		return EventPage{}, apperr.E(apperr.InvalidRequest, "timeout must be 1 to 60 seconds.").WithField("timeout", "1 to 60")
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for {
		// Subscribe before reading, so a commit between the read and the
		// wait still wakes us.
		wake, unsubscribe := s.notifier.Subscribe(sessionID)
		page, err := s.ListEvents(ctx, c, sessionID, after, DefaultEventLimit)
		if err != nil || len(page.Events) > 0 || page.HasMore {
			unsubscribe()
			return page, err
		}
		after = page.Cursor
		select {
		case <-wake:
			unsubscribe()
		case <-timer.C:
			unsubscribe()
			return page, nil
		case <-s.notifier.stopping:
			// The page as it stands, so the client carries on from the
			// cursor with the next server.
			unsubscribe()
			return page, nil
		case <-ctx.Done():
			unsubscribe()
			return EventPage{}, ctx.Err()
		}
	}
}

// Notifier wakes the long polls of a session after a commit. It is only a
// latency shortcut: the database is the truth.
type Notifier struct {
	mu   sync.Mutex
	subs map[int64]*subscription
	// stopping is closed by Shutdown: every wait returns its page.
	stopping chan struct{}
	stopOnce sync.Once
}

type subscription struct {
	ch chan struct{}
	n  int
}

// NewNotifier returns an empty notifier.
func NewNotifier() *Notifier {
	return &Notifier{subs: map[int64]*subscription{}, stopping: make(chan struct{})}
}

// Shutdown answers every long poll, now and later, with its current page;
// the server calls it when it starts to stop, so no wait holds it up.
func (n *Notifier) Shutdown() { n.stopOnce.Do(func() { close(n.stopping) }) }

// Shutdown answers every open long poll (WaitEvents, and so MCP's
// wait_for_event) with its current page, at once and from now on.
func (s *Service) Shutdown() { s.notifier.Shutdown() }

// Subscribe returns a channel closed at the session's next Notify, and a
// function that must be called when the caller stops waiting.
func (n *Notifier) Subscribe(sessionID int64) (<-chan struct{}, func()) {
	n.mu.Lock()
	defer n.mu.Unlock()
	sub := n.subs[sessionID]
	if sub == nil {
		sub = &subscription{ch: make(chan struct{})}
		n.subs[sessionID] = sub
	}
	sub.n++
	ch := sub.ch
	var once sync.Once
	return ch, func() {
		once.Do(func() {
			n.mu.Lock()
			defer n.mu.Unlock()
			if cur := n.subs[sessionID]; cur != nil {
				cur.n--
				if cur.n == 0 {
					delete(n.subs, sessionID)
				}
			}
		})
	}
}

// Notify wakes every current waiter of the session.
func (n *Notifier) Notify(sessionID int64) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if sub := n.subs[sessionID]; sub != nil {
		close(sub.ch)
		sub.ch = make(chan struct{})
	}
}

// Waiters reports how many waiters a session has (for tests and metrics).
func (n *Notifier) Waiters(sessionID int64) int {
	n.mu.Lock()
	defer n.mu.Unlock()
	if sub := n.subs[sessionID]; sub != nil {
		return sub.n
	}
	return 0
}

// FollowOtherProcesses wakes this process's long polls when another server
// process on the same PostgreSQL database commits events (LISTEN/NOTIFY).
// It returns once listening; it is a no-op on SQLite (one process). The
// in-process notifier stays the fast path for this process's own writes.
func (s *Service) FollowOtherProcesses(ctx context.Context, onError func(error)) error {
	return s.store.ListenSessionEvents(ctx, s.notifier.Notify, onError)
}
