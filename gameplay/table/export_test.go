package table

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/adventure-table/adventure-table/auth"
	"github.com/adventure-table/adventure-table/models"
)

// SetFailpoint lets tests inject a failure at a named point.
func (s *Service) SetFailpoint(f func(point string) error) { s.fail = f }

// SetClock moves the package's clock (for expiry tests); it returns a
// function that restores it.
func SetClock(now func() time.Time) func() {
	old := timeNow
	timeNow = now
	return func() { timeNow = old }
}

// GrantIDOfToken finds the grant a token names, whatever its state.
func (s *Service) GrantIDOfToken(ctx context.Context, token string) (int64, error) {
	publicID, _, _ := auth.ParseGrantToken(token)
	g, err := s.store.FindGrantByPublicID(ctx, publicID)
	if err != nil {
		return 0, err
	}
	return g.ID, nil
}

// CountHubQueries counts the statements of the live-event hub's shared
// reads from now on (set it before any wait starts).
func (s *Service) CountHubQueries() *atomic.Int64 {
	c, n := models.WithQueryCounter(context.Background())
	s.notifier.base = c
	return n
}

// SharedEncoding is the identity of a page's shared encoding (nil when the
// page is encoded on its own).
func SharedEncoding(p EventPage) any {
	if p.encoded == nil {
		return nil
	}
	return p.encoded
}

// ForgetRosters drops every seat list the hub holds, as their trust
// running out does.
func (n *Notifier) ForgetRosters() {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, f := range n.feeds {
		f.roster = roster{}
	}
}
