// Package clocktest is the hand-driven clock of service tests: time moves
// when a test says so, never by sleeping.
package clocktest

import (
	"sync"
	"time"
)

// Clock is a settable time source, safe for concurrent use. Pass its Now
// as a service's clock.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// At returns a clock standing at t.
func At(t time.Time) *Clock { return &Clock{t: t} }

// Now is the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Add moves the clock forward by d.
func (c *Clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// Set puts the clock at t.
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}
