package models

import "sync/atomic"

// authorityClock counts the commits of this process that changed who may
// do what at a table: seat controllers, grants, room access, a session's
// status or DM, users. Whoever caches a resolved actor (the live-event
// fan-out) compares the count it resolved at with AuthorityGeneration and
// resolves again when it moved. Changes made by another process are not
// counted here; those caches also expire on a timer.
type authorityClock struct {
	n atomic.Int64
}

// AuthorityGeneration is the number of authority-changing commits this
// process has made. Read it before resolving, so a change committed while
// resolving is never mistaken for one already seen.
func (s *Store) AuthorityGeneration() int64 { return s.authority.clock.n.Load() }

// authorityChanged is called by every write that changes authority. Outside
// a transaction it counts at once; inside one it counts when Tx commits
// (counting earlier would let a cache resolve the old state as new).
func (s *Store) authorityChanged() {
	if s.authority.pending != nil {
		*s.authority.pending = true
		return
	}
	s.authority.clock.n.Add(1)
}

// authorityState is a Store's view of the clock: the shared clock and, in
// a transaction, the flag that the transaction changed authority.
type authorityState struct {
	clock   *authorityClock
	pending *bool
}
