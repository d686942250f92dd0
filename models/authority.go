package models

import (
	"context"
	"math/rand/v2"
	"sync/atomic"
)

// authorityClock counts the commits that changed who may do what at a
// table: seat controllers, grants, room access, a session's status or DM,
// users. Whoever caches a resolved actor (the live-event fan-out) compares
// the count it resolved at with AuthorityGeneration and resolves again
// when it moved. This process's commits count as they commit; on
// PostgreSQL each such commit also sends a NOTIFY (authorityChannel), and
// the other processes count it when it arrives (ListenSessionEvents). Those
// caches also expire on a timer, which bounds what a lost notification
// costs.
type authorityClock struct {
	n atomic.Int64
	// origin names this process in its notifications, so it does not count
	// its own changes twice.
	origin int64
}

func newAuthorityClock() *authorityClock {
	return &authorityClock{origin: rand.Int64N(1<<62) + 1}
}

// authorityChannel is the PostgreSQL NOTIFY channel of authority changes;
// the payload is the origin of the process that committed one.
const authorityChannel = "at_authority"

// AuthorityGeneration is the number of authority-changing commits this
// process has made or heard of from the others. Read it before resolving,
// so a change committed while resolving is never mistaken for one already
// seen.
func (s *Store) AuthorityGeneration() int64 { return s.authority.clock.n.Load() }

// authorityChanged is called by every write that changes authority. Outside
// a transaction it counts at once; inside one it counts when Tx commits
// (counting earlier would let a cache resolve the old state as new), and
// Tx sends the notification inside the transaction, so PostgreSQL
// delivers it at commit and drops it on rollback.
func (s *Store) authorityChanged(ctx context.Context) {
	if s.authority.pending != nil {
		*s.authority.pending = true
		return
	}
	s.authority.clock.n.Add(1)
	// The write has committed; a notification that fails to go out leaves
	// the other processes to their caches' timer.
	_ = s.notifyAuthority(ctx)
}

// notifyAuthority tells the other processes that authority changed
// (PostgreSQL only).
func (s *Store) notifyAuthority(ctx context.Context) error {
	return s.notify(ctx, authorityChannel, s.authority.clock.origin)
}

// authorityState is a Store's view of the clock: the shared clock and, in
// a transaction, the flag that the transaction changed authority.
type authorityState struct {
	clock   *authorityClock
	pending *bool
}
