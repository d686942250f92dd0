package table

import (
	"sync"
	"time"

	"github.com/adventure-table/adventure-table/gameplay/oneread"
	"github.com/adventure-table/adventure-table/models"
)

// verifiedGrants keeps the grant rows AuthenticateGrant read, so an agent's
// next call does not read its grant again only to check its bearer token:
// at 2,000 agents re-polling after one wake, that read was the one query
// every call still made.
//
// A kept row is used only while nothing that changes authority has been
// committed since it was read, in this process or, on PostgreSQL, in any
// other (models' AuthorityGeneration; revoking, binding and rotating a
// grant all count), and for at most verifiedGrantTTL (a notification lost
// while reconnecting). Apart from those changes a grant row changes only
// its last-seen time, which is kept up to date here. The token's secret is
// checked against the row every time; the secret itself is never kept.
type verifiedGrants struct {
	mu      sync.Mutex
	entries map[string]verifiedGrant
	// loading shares one read of a grant among the calls that miss it
	// together.
	loading oneread.Group
}

type verifiedGrant struct {
	// row is never changed once kept: callers share it.
	row        *models.AIControllerGrant
	generation int64
	until      time.Time
}

// verifiedGrantTTL bounds how long a kept grant row is trusted.
const verifiedGrantTTL = 10 * time.Second

// verifiedGrantsMax bounds the memory: past it, expired rows are dropped,
// and if none were, everything is.
const verifiedGrantsMax = 20_000

// get returns the row kept for publicID, read at generation and still in
// date.
func (v *verifiedGrants) get(publicID string, generation int64, now time.Time) (*models.AIControllerGrant, bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	e, ok := v.entries[publicID]
	if !ok || e.generation != generation || !now.Before(e.until) {
		return nil, false
	}
	return e.row, true
}

// claimSeen reports whether this call is the one to write the grant's
// last-seen time now (grantSeenDue of the newest time kept for it), and
// keeps now as that time, so the calls of the same moment do not write it
// too.
func (v *verifiedGrants) claimSeen(publicID string, g *models.AIControllerGrant, generation int64, now time.Time) bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	e, ok := v.entries[publicID]
	if ok && e.row.ID == g.ID {
		g = e.row
	} else {
		e = verifiedGrant{generation: generation, until: time.Now().Add(verifiedGrantTTL)}
	}
	if !grantSeenDue(g.LastSeenAt, now) {
		return false
	}
	seen := *g // a kept row is shared: the new time goes in a copy
	seen.LastSeenAt = &now
	e.row = &seen
	v.putLocked(publicID, e)
	return true
}

// put keeps g, read at generation, until `until`.
func (v *verifiedGrants) put(publicID string, g *models.AIControllerGrant, generation int64, until time.Time) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.putLocked(publicID, verifiedGrant{row: g, generation: generation, until: until})
}

func (v *verifiedGrants) putLocked(publicID string, e verifiedGrant) {
	if v.entries == nil {
		v.entries = map[string]verifiedGrant{}
	}
	if len(v.entries) >= verifiedGrantsMax {
		now := time.Now()
		for id, e := range v.entries {
			if !now.Before(e.until) {
				delete(v.entries, id)
			}
		}
		if len(v.entries) >= verifiedGrantsMax {
			clear(v.entries)
		}
	}
	v.entries[publicID] = e
}
