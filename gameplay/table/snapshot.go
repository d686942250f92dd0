package table

import (
	"context"
	"time"
)

// sessionSnapshot keeps a session's rows (sessionRows) as the hub's feed
// of the session last read them, so an agent that reads the table every
// turn (MCP's get_session_context, through Now) costs the scope's reads
// and its characters, not the whole table, while nothing happens.
//
// Every change to those rows is committed with an event, which wakes the
// feed (Notify: this process's commits, and on PostgreSQL the others'
// through LISTEN/NOTIFY), or changes authority (models'
// AuthorityGeneration: seats, members, names). So the rows are used only
// while the feed's wake count and the authority generation are what they
// were when the read began, and for at most snapshotTTL (a notification
// lost while reconnecting). Who may read what is never taken from here:
// the caller's scope is resolved from canonical rows on every call, and
// each view is projected for it from the kept rows.
type sessionSnapshot struct {
	rows       sessionRows
	wakes      uint64
	generation int64
	until      time.Time
}

// snapshotTTL bounds how long kept rows are trusted.
const snapshotTTL = audienceTTL

// snapshotOf returns the feed's rows if nothing was committed in the
// session nor authority changed since they were read, and they hold at
// least the newest `recent` events.
func (n *Notifier) snapshotOf(f *feed, generation int64, recent int, now time.Time) (sessionRows, bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	sn := f.snapshot
	if sn == nil || sn.wakes != f.wakes || sn.generation != generation || !now.Before(sn.until) || sn.rows.recent < recent {
		return sessionRows{}, false
	}
	return sn.rows, true
}

// keepSnapshot keeps rows read after ticket at generation, unless the
// session was woken since (the read may have missed a commit).
func (n *Notifier) keepSnapshot(f *feed, ticket uint64, generation int64, rows sessionRows, now time.Time) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if f.wakes == ticket {
		f.snapshot = &sessionSnapshot{rows: rows, wakes: ticket, generation: generation, until: now.Add(snapshotTTL)}
	}
}

// tableRows are the session's rows for the scope, from the snapshot when
// it still holds, else read (resume rows, the board without results and
// the running fight) and kept.
func (s *Service) tableRows(ctx context.Context, sc sessionScope, recent int) (sessionRows, error) {
	n := s.notifier
	f := n.enter(sc.session.ID)
	defer n.leave(sc.session.ID, f)
	ticket, generation := n.ticket(f), s.store.AuthorityGeneration()
	if rows, ok := n.snapshotOf(f, generation, recent, time.Now()); ok {
		return rows, nil
	}
	rows, err := readSessionRows(ctx, s.store, sc, recent)
	if err != nil {
		return sessionRows{}, err
	}
	if rows.board, err = readBoardRows(ctx, s.store, sc.session.ID, false); err != nil {
		return sessionRows{}, err
	}
	if rows.fight, err = findRunningEncounter(ctx, s.store, sc.session.ID); err != nil {
		return sessionRows{}, err
	}
	n.keepSnapshot(f, ticket, generation, rows, time.Now())
	return rows, nil
}
