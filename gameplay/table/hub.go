package table

import (
	"context"
	"encoding/binary"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/adventure-table/adventure-table/gameplay/oneread"
	"github.com/adventure-table/adventure-table/models"
)

// The live-event fan-out. Every long poll of a session (the web app's wait
// and MCP's wait_for_event) waits on the session's feed, and every read of
// its events (ListEvents) takes the caller's viewer from it. A commit wakes
// the feed; one reader reads the new events once and hands each waiter the
// ones its own viewer may see (the one audience projection, viewer.sees).
// A waiter whose events were all private to others stays, its cursor moved
// past them. A stream's waiter (FollowEvents) stays after its page too: the
// next wake finds it on the feed, with no poll to start again. So one post
// costs one database read, however many wait.
//
// Authority is never taken from the feed: each waiter's viewer was
// resolved from canonical rows when its poll began. The feed caches that
// resolution per caller so the next poll of the same client costs no
// query, but drops it when
//   - an event that changes seats, grants or the session's status passes
//     (the waiters concerned resolve again before they see anything after it),
//   - any process commits an authority change (models'
//     AuthorityGeneration moves: room access, seats, grants, users; another
//     process's change counts when its NOTIFY arrives),
//   - audienceTTL passes (a notification lost while reconnecting).

// audienceTTL bounds how long a resolved viewer is trusted without a
// fresh resolution; a waiter resolves again at least this often.
const audienceTTL = 30 * time.Second

// recheckSpread: all the waiters of one caller share its cached viewer, so
// they would all recheck in the same instant (2,500 goroutines each for the
// four callers of a 10,000-stream table, a burst every 30 s that other
// requests wait behind). The cache keeps a viewer recheckSpread less than
// audienceTTL, and each waiter rechecks at a random moment of the
// recheckSpread after that: the first resolves again, the rest find the
// fresh viewer cached, and none waits longer than audienceTTL.
const recheckSpread = 3 * time.Second

// recheckAfter is how long a waiter whose viewer is trusted until `until`
// waits before it checks again.
func recheckAfter(until time.Time) time.Duration {
	return time.Until(until) + rand.N(recheckSpread)
}

// authorityKinds are the events after which a waiter resolves its actor
// again before it is shown anything more.
var authorityKinds = map[string]bool{
	EventSessionStarted:    true,
	EventParticipantJoined: true,
	EventSessionEnded:      true,
	EventSessionAbandoned:  true,
	EventControllerChanged: true,
}

// Notifier is the fan-out hub of live events (see above). The database is
// the truth: a lost wake costs latency (a poll's own read at its next
// start), never an event.
type Notifier struct {
	store *models.Store
	mu    sync.Mutex
	feeds map[int64]*feed
	// stopping is closed by Shutdown: every wait returns its page.
	stopping chan struct{}
	stopOnce sync.Once
	// sweeps counts polls, to sweep idle feeds now and then.
	sweeps int
	// base is the context of the shared reads (tests count their queries).
	base context.Context
	// resolving shares one resolution of a caller's viewer among its
	// waiters that need it at the same time.
	resolving oneread.Group
	// afterCommit runs on every Notify (each follows a commit): it wakes
	// the campaign memory worker when that commit enqueued a job.
	afterCommit func()
}

// feed is one session's waiters and what the hub knows of its events.
type feed struct {
	waiters map[*waiter]struct{}
	// holders counts the polls inside WaitEvents; a feed they hold is kept
	// so no wake between their read and their wait is lost.
	holders int
	// wakes counts Notify calls.
	wakes uint64
	// reading: a reader goroutine is running for this feed; again asks it
	// for one more read (a waiter came in behind the read under way).
	reading, again bool
	// head is the last seq of a complete read begun at wakes == headWakes:
	// while wakes has not moved since, nothing was committed after it.
	head      int64
	headWakes uint64
	headKnown bool
	// seen is the highest seq the hub has read: where the next shared read
	// starts when no waiter gives an earlier cursor.
	seen int64
	// audiences caches each caller's resolved viewer.
	audiences map[callerKey]audience
	// roster caches the session's seats as SessionSeats shows them (names
	// and characters for MCP's pages), under the same rules as audiences
	// and also dropped when a character changes.
	roster roster
	// snapshot keeps the session's rows for Now (see snapshot.go).
	snapshot *sessionSnapshot
}

type roster struct {
	seats      []SeatView
	generation int64
	until      time.Time
}

// forget drops what the feed cached about who is who.
func (f *feed) forget() {
	f.audiences = nil
	f.roster = roster{}
	f.snapshot = nil
}

// audience is a caller's resolved viewer and actor, and when it stops
// being trusted.
type audience struct {
	actor      Actor
	viewer     viewer
	generation int64
	until      time.Time
}

// waiter is one follower on the feed (FollowEvents): a long poll until its
// first page, a stream from one wake to the next.
type waiter struct {
	viewer viewer
	after  int64
	// generation is the AuthorityGeneration its viewer was resolved at.
	generation int64
	// out receives the waiter's wakes; it holds one, so the hub never
	// blocks on it (see hand).
	out chan wake
}

// wake is what a waiter is told: its page, or to resolve again and read
// on its own (an authority change, a long backlog, a failed read).
type wake struct {
	page    EventPage
	recheck bool
}

func newNotifier(store *models.Store) *Notifier {
	return &Notifier{store: store, feeds: map[int64]*feed{}, stopping: make(chan struct{}), base: context.Background()}
}

// Shutdown answers every long poll, now and later, with its current page;
// the server calls it when it starts to stop, so no wait holds it up.
func (n *Notifier) Shutdown() { n.stopOnce.Do(func() { close(n.stopping) }) }

// Shutdown answers every open long poll (WaitEvents, and so MCP's
// wait_for_event) with its current page, at once and from now on.
func (s *Service) Shutdown() { s.notifier.Shutdown() }

// Stopping is closed when the server starts to stop (Shutdown): a stream
// of events ends then, as a long poll answers.
func (s *Service) Stopping() <-chan struct{} { return s.notifier.stopping }

// Notify tells the hub that events of the session were committed (by this
// process, or by another one through PostgreSQL's LISTEN/NOTIFY).
func (n *Notifier) Notify(sessionID int64) {
	if n.afterCommit != nil {
		n.afterCommit()
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	f := n.feeds[sessionID]
	if f == nil {
		return
	}
	f.wakes++
	if len(f.waiters) == 0 && (len(f.audiences) == 0 || f.seen == 0) {
		// Nobody waits and no read could tell what the new events change:
		// forget the cached viewers rather than trust them.
		f.forget()
		n.dropIfIdle(sessionID, f)
		return
	}
	n.readLocked(sessionID, f)
}

// Waiters reports how many polls wait on a session (tests and metrics).
func (n *Notifier) Waiters(sessionID int64) int {
	n.mu.Lock()
	defer n.mu.Unlock()
	if f := n.feeds[sessionID]; f != nil {
		return len(f.waiters)
	}
	return 0
}

// enter holds the session's feed for one poll; leave releases it.
func (n *Notifier) enter(sessionID int64) *feed {
	n.mu.Lock()
	defer n.mu.Unlock()
	f := n.feeds[sessionID]
	if f == nil {
		f = &feed{waiters: map[*waiter]struct{}{}}
		n.feeds[sessionID] = f
	}
	f.holders++
	if n.sweeps++; n.sweeps%1024 == 0 {
		n.sweepLocked(time.Now())
	}
	return f
}

func (n *Notifier) leave(sessionID int64, f *feed) {
	n.mu.Lock()
	defer n.mu.Unlock()
	f.holders--
	n.dropIfIdle(sessionID, f)
}

// dropIfIdle forgets a feed nobody holds, waits on or is cached in.
func (n *Notifier) dropIfIdle(sessionID int64, f *feed) {
	if f.holders == 0 && len(f.waiters) == 0 && len(f.audiences) == 0 && f.roster.seats == nil && f.snapshot == nil && !f.reading && n.feeds[sessionID] == f {
		delete(n.feeds, sessionID)
	}
}

// sweepLocked drops expired cached viewers and the feeds left idle, so a
// client that went away leaves nothing behind for long.
func (n *Notifier) sweepLocked(now time.Time) {
	for id, f := range n.feeds {
		for c, a := range f.audiences {
			if !now.Before(a.until) {
				delete(f.audiences, c)
			}
		}
		if !now.Before(f.roster.until) {
			f.roster = roster{}
		}
		if f.snapshot != nil && !now.Before(f.snapshot.until) {
			f.snapshot = nil
		}
		n.dropIfIdle(id, f)
	}
}

// ticket is the feed's wake count, taken before a poll reads: a wake after
// it means the read may have missed something.
func (n *Notifier) ticket(f *feed) uint64 {
	n.mu.Lock()
	defer n.mu.Unlock()
	return f.wakes
}

// cachedAudience returns the caller's viewer while it is still trusted.
func (n *Notifier) cachedAudience(f *feed, c Caller, generation int64, now time.Time) (audience, bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	a, ok := f.audiences[c.key()]
	if !ok || a.generation != generation || !now.Before(a.until) {
		return audience{}, false
	}
	return a, true
}

func (n *Notifier) cacheAudience(f *feed, c Caller, a audience) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if f.audiences == nil {
		f.audiences = map[callerKey]audience{}
	}
	f.audiences[c.key()] = a
}

// forgetAudience drops the caller's cached viewer if it is still the stale
// one this waiter held: another waiter of the same caller may have resolved
// and cached a fresh one already, which must not be thrown away.
func (n *Notifier) forgetAudience(f *feed, c Caller, stale audience) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if a, ok := f.audiences[c.key()]; ok && a.generation == stale.generation && a.until.Equal(stale.until) {
		delete(f.audiences, c.key())
	}
}

// cachedRoster returns the session's seats when the hub holds them and
// the caller's trusted viewer (so the caller may read them).
func (n *Notifier) cachedRoster(sessionID int64, c Caller, generation int64, now time.Time) ([]SeatView, bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	f := n.feeds[sessionID]
	if f == nil || f.roster.seats == nil || f.roster.generation != generation || !now.Before(f.roster.until) {
		return nil, false
	}
	a, ok := f.audiences[c.key()]
	if !ok || a.generation != generation || !now.Before(a.until) {
		return nil, false
	}
	return f.roster.seats, true
}

// cacheRoster keeps the seats read at generation, if the session has a
// feed (only sessions someone waits on are cached).
func (n *Notifier) cacheRoster(sessionID int64, seats []SeatView, generation int64, now time.Time) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if f := n.feeds[sessionID]; f != nil && seats != nil {
		f.roster = roster{seats: seats, generation: generation, until: now.Add(audienceTTL)}
	}
}

// covers reports whether the hub has read the session at least up to
// `after`: then a poll need not read, it waits. Whatever was committed
// since the hub's last read is read once for all of them (wait starts
// that read when the feed woke since).
func (n *Notifier) covers(f *feed, after int64) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return f.headKnown && after >= f.seen
}

// sawHead records a complete read up to last, begun at wake count ticket.
func (n *Notifier) sawHead(f *feed, ticket uint64, last int64) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if last > f.seen {
		f.seen = last
	}
	if ticket == f.wakes && (!f.headKnown || f.headWakes != ticket || last >= f.head) {
		f.head, f.headWakes, f.headKnown = last, ticket, true
	}
}

// wait registers a waiter with its viewer and cursor. If the feed woke
// since ticket, a shared read is started so the wake is not lost.
func (n *Notifier) wait(sessionID int64, f *feed, ticket uint64, a audience, after int64) *waiter {
	w := &waiter{viewer: a.viewer, after: after, generation: a.generation, out: make(chan wake, 1)}
	n.mu.Lock()
	defer n.mu.Unlock()
	f.waiters[w] = struct{}{}
	// A wake since the ticket or since the hub's last complete read may
	// have committed events this waiter has not seen, and a read that
	// finished since its poll checked covers may have handed out events
	// after its cursor before it was here: read (again) for it.
	if f.wakes != ticket || f.headWakes != f.wakes || after < f.seen {
		n.readLocked(sessionID, f)
	}
	return w
}

// readLocked starts the feed's reader, or asks the running one for one
// more read; called with n.mu held.
func (n *Notifier) readLocked(sessionID int64, f *feed) {
	if f.reading {
		f.again = true
		return
	}
	f.reading = true
	go n.read(sessionID, f)
}

// unsubscribe takes a waiter off the feed. It returns its cursor (moved
// past the events it may not see) and what the hub handed it that it has
// not taken yet: a page (which it must still hand out) or a recheck.
func (n *Notifier) unsubscribe(f *feed, w *waiter) (int64, wake) {
	n.mu.Lock()
	defer n.mu.Unlock()
	delete(f.waiters, w)
	select {
	case r := <-w.out:
		return w.after, r
	default:
		return w.after, wake{}
	}
}

// read is the feed's reader: one read of the new events per wake (wakes
// during a read are folded into one more read), handed to every waiter.
func (n *Notifier) read(sessionID int64, f *feed) {
	for {
		n.mu.Lock()
		ticket := f.wakes
		f.again = false
		from := f.seen
		for w := range f.waiters {
			if w.after < from {
				from = w.after
			}
		}
		n.mu.Unlock()

		// The wake's one read is shared by every waiter: the same bound as
		// the other shared reads.
		ctx, cancel := context.WithTimeout(n.base, oneread.Timeout)
		rows, err := n.store.FindEventsAfter(ctx, sessionID, from, MaxEventLimit+1)
		cancel()

		n.mu.Lock()
		n.deliver(f, ticket, from, rows, err)
		if f.wakes == ticket && !f.again {
			f.reading = false
			n.dropIfIdle(sessionID, f)
			n.mu.Unlock()
			return
		}
		n.mu.Unlock()
	}
}

// deliver hands one shared read to the waiters; called with n.mu held.
func (n *Notifier) deliver(f *feed, ticket uint64, from int64, rows []models.SessionEvent, err error) {
	if err != nil {
		// Each waiter reads on its own and meets the error itself.
		f.forget()
		for w := range f.waiters {
			n.release(f, w)
		}
		return
	}
	truncated := len(rows) > MaxEventLimit
	if truncated {
		rows = rows[:MaxEventLimit]
	}
	last := from
	if len(rows) > 0 {
		last = rows[len(rows)-1].Seq
	}
	// firstAuthority is the seq of the first authority event read (0: none).
	var firstAuthority int64
	for _, e := range rows {
		if authorityKinds[e.Kind] {
			firstAuthority = e.Seq
			break
		}
	}
	if firstAuthority != 0 || truncated {
		f.forget()
	}
	for _, e := range rows {
		if e.Kind == EventCharacterChanged {
			f.roster = roster{}
		}
	}
	if last > f.seen {
		f.seen = last
	}
	if !truncated && ticket == f.wakes {
		f.head, f.headWakes, f.headKnown = last, ticket, true
	}
	// An authority change this process committed since a waiter resolved
	// (a revoked member, a reassigned seat) is checked before it sees more.
	generation := n.store.AuthorityGeneration()
	views := make([]EventView, len(rows))
	for i, e := range rows {
		views[i] = eventView(e)
	}
	// Waiters that see the same events get the same page, encoded once.
	pages := map[string]EventPage{}
	var key []byte
	var seen []int
	for w := range f.waiters {
		if truncated || (firstAuthority != 0 && firstAuthority > w.after) || w.generation != generation {
			n.release(f, w)
			continue
		}
		// key names the rows this waiter sees: "*" for all of them (the DM
		// from before the read), else "i" and their indexes.
		all := w.after <= from && w.viewer.dm
		key, seen = append(key[:0], '*'), seen[:0]
		if !all {
			key[0] = 'i'
			for i, e := range rows {
				if e.Seq > w.after && w.viewer.sees(e) {
					seen = append(seen, i)
					key = binary.AppendUvarint(key, uint64(i))
				}
			}
		}
		if all && len(rows) == 0 || !all && len(seen) == 0 {
			// Only others' private events: wait on, past them.
			if last > w.after {
				w.after = last
			}
			continue
		}
		page, ok := pages[string(key)]
		if !ok {
			page = EventPage{Events: views, Cursor: last, encoded: &sharedJSON{}}
			if !all {
				page.Events = make([]EventView, len(seen))
				for j, i := range seen {
					page.Events[j] = views[i]
				}
			}
			pages[string(key)] = page
		}
		n.hand(f, w, page)
	}
}

// hand gives a waiter the page of a wake; it stays on the feed, its
// cursor at the page's. A waiter still busy with the page before gets both
// as one (its follower writes more slowly than events come); past
// MaxEventLimit events it is let go to read them itself. Called with n.mu
// held.
func (n *Notifier) hand(f *feed, w *waiter, page EventPage) {
	w.after = page.Cursor
	for {
		select {
		case w.out <- wake{page: page}:
			return
		default:
		}
		// Only the hub sends, under n.mu: if the follower has not taken
		// the last page by now, take it back and send both together.
		select {
		case r := <-w.out:
			if len(r.page.Events)+len(page.Events) > MaxEventLimit {
				n.release(f, w)
				return
			}
			events := append(append(make([]EventView, 0, len(r.page.Events)+len(page.Events)), r.page.Events...), page.Events...)
			page = EventPage{Events: events, Cursor: page.Cursor}
		default:
		}
	}
}

// release takes a waiter off the feed and tells it to resolve its viewer
// again and read on its own (a page it had not taken yet is read again
// with the rest); called with n.mu held.
func (n *Notifier) release(f *feed, w *waiter) {
	delete(f.waiters, w)
	select {
	case <-w.out:
	default:
	}
	w.out <- wake{recheck: true}
}
