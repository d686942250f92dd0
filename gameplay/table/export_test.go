package table

import (
	"context"
	"time"

	"github.com/adventure-table/adventure-table/auth"
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
