package narrative

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/adventure-table/adventure-table/models/apperr"
)

// Turn claims and shutdown.
//
// A turn claim is the adventure's turn_token: "<process id>.<nonce>". The
// holder renews its heartbeat (turn_started_at) every turnHeartbeat while
// the turn runs; a claim whose heartbeat is older than staleTurn belongs to
// a process that died or hangs, and any process may take it. So a crash
// locks an adventure for a few seconds, never for long.
//
// A restart must not wait even that long. The process id is stable across
// restarts of one server (the binary keeps it in its data directory, under
// a lock only a live process can hold, so no two live processes share it):
// at start-up RecoverTurns frees every claim that carries this process's
// own id, which can only be left by its dead previous run, and every stale
// claim. Live claims of other processes sharing the database keep their
// fresh heartbeats and are never touched. Heartbeats compare the clocks of
// the processes, which must agree within a few seconds.

const (
	defaultTurnHeartbeat = 2 * time.Second
	defaultStaleTurn     = 10 * time.Second
	// maxProcessIDLength keeps "<process id>.<nonce>" within turn_token's 40.
	maxProcessIDLength = 20
)

// errShuttingDown is the cause of a turn's context when the server stops.
var errShuttingDown = errors.New("the server is shutting down")

// errStoppedByPlayer is the cause of a turn's context when its player
// pressed Stop (StopTurn).
var errStoppedByPlayer = errors.New("the player stopped the narration")

// newProcessID returns a random process id, for a process with no stable one.
func newProcessID() string {
	var raw [8]byte
	_, _ = rand.Read(raw[:])
	return hex.EncodeToString(raw[:])
}

// validProcessID accepts ids that fit a token and are safe in a LIKE prefix.
func validProcessID(id string) bool {
	return id != "" && len(id) <= maxProcessIDLength && !strings.ContainsAny(id, "%_.\\")
}

// claimToken is a fresh claim holder of this process, "<process id>.<nonce>":
// turn claims and memory job claims carry it, so a restart can free what
// its dead previous run held.
func (s *Service) claimToken() string { return s.processID + "." + newProcessID() }

// ProcessID is the name this process's turn claims carry.
func (s *Service) ProcessID() string { return s.processID }

// RecoverTurns frees, at start-up, the turn claims left by this process's
// previous run (they carry its process id) and every claim whose heartbeat
// went stale, and returns how many it freed.
func (s *Service) RecoverTurns(ctx context.Context) (int64, error) {
	return s.store.ReleaseDeadTurns(ctx, s.processID+".", s.now().UTC().Add(-s.staleTurn))
}

// Shutdown tells the service the server is stopping: every running turn is
// cancelled and ends with a turn_interrupted error event (the player's
// action stays stored, as after any failed turn) and frees its claim. It
// returns at once; each turn finishes on its own goroutine.
func (s *Service) Shutdown() { s.stop() }

// turnClaim is a held claim and its heartbeat.
type turnClaim struct {
	s           *Service
	adventureID int64
	token       string
	quit        chan struct{}
	quitOnce    sync.Once
	beating     chan struct{} // closed when the heartbeat goroutine ends
	once        sync.Once
	// stop is closed once a Stop was asked for the claim (renew); the
	// running turn cancels its model call.
	stop     chan struct{}
	stopOnce sync.Once
}

// claim takes the adventure's turn slot after checking ownership, and
// starts renewing it. The caller must release it.
func (s *Service) claim(ctx context.Context, userID, adventureID int64) (*turnClaim, error) {
	if _, err := ownAdventure(ctx, s.store, userID, adventureID, false); err != nil {
		return nil, err
	}
	token := s.claimToken()
	now := s.now().UTC()
	ok, err := s.store.ClaimTurn(ctx, adventureID, token, now, now.Add(-s.staleTurn))
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, apperr.E(apperr.TurnInProgress, "A turn is already being written for this adventure; wait for it to finish.")
	}
	c := &turnClaim{s: s, adventureID: adventureID, token: token, quit: make(chan struct{}), beating: make(chan struct{}),
		stop: make(chan struct{})}
	s.claimsMu.Lock()
	if s.claims == nil {
		s.claims = map[int64]*turnClaim{}
	}
	s.claims[adventureID] = c
	s.claimsMu.Unlock()
	go c.heartbeat()
	return c, nil
}

// StopTurn asks the adventure's running narration to stop, in whichever
// server process it streams. The request goes through the database (the
// claim's token is stored as the adventure's turn_stop): the process
// holding the claim reads it with its next heartbeat, at once when it is
// this process or, on PostgreSQL, when the NOTIFY reaches it (FollowStops).
// The turn ends on its own goroutine: the text streamed so far is saved as
// a take marked stopped (in the turn's one save transaction, under its
// claim, so exactly once), or, when no story text had arrived, nothing more
// is stored. A stop when no live turn holds the adventure, or a second
// stop, changes nothing and answers Stopped false. Returns not_found if the
// adventure is not the user's.
func (s *Service) StopTurn(ctx context.Context, userID, adventureID int64) (StopResult, error) {
	if _, err := ownAdventure(ctx, s.store, userID, adventureID, false); err != nil {
		return StopResult{}, err
	}
	asked, err := s.store.RequestTurnStop(ctx, adventureID, s.now().UTC().Add(-s.staleTurn))
	if err != nil || !asked {
		return StopResult{}, err
	}
	s.checkStop(adventureID)
	return StopResult{Stopped: true}, nil
}

// FollowStops lets a Stop asked in another server process reach the turns
// of this one at once: on PostgreSQL it listens for the NOTIFY that
// RequestTurnStop sends (without it a turn still hears of the stop at its
// next heartbeat). It returns once listening; on SQLite (one process) it
// does nothing.
func (s *Service) FollowStops(ctx context.Context, onError func(error)) error {
	return s.store.ListenTurnStops(ctx, s.checkStop, onError)
}

// checkStop has this process's turn on the adventure, if any, read whether
// its stop was asked for, as its heartbeat does.
func (s *Service) checkStop(adventureID int64) {
	s.claimsMu.Lock()
	c := s.claims[adventureID]
	s.claimsMu.Unlock()
	if c != nil {
		c.renew()
	}
}

func (c *turnClaim) heartbeat() {
	defer close(c.beating)
	tick := time.NewTicker(c.s.turnHeartbeat)
	defer tick.Stop()
	for {
		select {
		case <-c.quit:
			return
		case <-tick.C:
			c.renew()
		}
	}
}

// renew records a heartbeat of the claim and stops the turn when its stop
// was asked for (StopTurn, from any process). A failed renewal is retried
// at the next tick; a claim lost meanwhile makes the save refuse
// (turn_in_progress).
func (c *turnClaim) renew() {
	// (at least a few seconds: a short test heartbeat must not cut the read)
	ctx, cancel := context.WithTimeout(context.Background(), max(c.s.turnHeartbeat, 5*time.Second))
	defer cancel()
	if _, stop, err := c.s.store.RenewTurn(ctx, c.adventureID, c.token, c.s.now().UTC()); err == nil && stop {
		c.stopOnce.Do(func() { close(c.stop) })
	}
}

// stopHeartbeat ends the renewals without freeing the claim.
func (c *turnClaim) stopHeartbeat() {
	c.quitOnce.Do(func() { close(c.quit) })
	<-c.beating
}

// release stops the heartbeat and frees the claim; it may be called more
// than once.
func (c *turnClaim) release() {
	c.once.Do(func() {
		c.s.claimsMu.Lock()
		if c.s.claims[c.adventureID] == c {
			delete(c.s.claims, c.adventureID)
		}
		c.s.claimsMu.Unlock()
		c.stopHeartbeat()
		// The request's context may be gone (the browser hung up); the
		// claim must still be freed.
		_ = c.s.store.ReleaseTurn(context.Background(), c.adventureID, c.token)
	})
}
