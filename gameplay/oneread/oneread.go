// Package oneread shares one read among the callers that need the same rows
// at the same moment. A wake answers thousands of waiters at once and they
// all call again at once; when a cache's trust has just run out, each
// would read the same row. With a Group, one reads and the others wait
// for its answer.
package oneread

import (
	"context"
	"time"

	"golang.org/x/sync/singleflight"
)

// Timeout bounds a shared read. It runs in a context that no single
// caller's leaving ends, since the others wait on it too.
const Timeout = 10 * time.Second

// Group is a set of reads in flight, by key. The zero value is ready.
type Group struct{ flights singleflight.Group }

// Do runs read once for every caller asking for key while it runs, with
// ctx's values (query counters, request ids) but not its cancellation.
// The key must name everything the answer depends on, the authority
// generation included, so that no caller gets an answer from before a
// change it must see.
func Do[T any](g *Group, ctx context.Context, key string, read func(context.Context) (T, error)) (T, error) {
	v, err, _ := g.flights.Do(key, func() (any, error) {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), Timeout)
		defer cancel()
		return read(rctx)
	})
	if err != nil {
		var zero T
		return zero, err
	}
	return v.(T), nil
}
