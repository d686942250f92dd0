package tabletest

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/adventure-table/adventure-table/models"
)

// Herd makes `calls` calls of call arrive together while the first read
// at a failpoint is held: every call is under way before that read goes
// on, as when one wake answers many waiters of one client and they all
// call again. setFailpoint installs the service's failpoint function (nil
// removes it). It returns how many reads reached the failpoint and how
// many statements the calls ran in all; calls that share one read report
// one read.
func Herd(setFailpoint func(func(point string) error), point string, calls int, call func(ctx context.Context, i int)) (reads, statements int64) {
	var held, entered, done, ran atomic.Int64
	release := make(chan struct{})
	setFailpoint(func(p string) error {
		if p == point {
			held.Add(1)
			<-release
		}
		return nil
	})
	defer setFailpoint(nil)
	var wg sync.WaitGroup
	for i := range calls {
		wg.Go(func() {
			defer done.Add(1)
			qctx, n := models.WithQueryCounter(context.Background())
			entered.Add(1)
			call(qctx, i)
			ran.Add(n.Load())
		})
	}
	// Until the first read is held (or every call is over without one)
	// and every call is under way.
	for (held.Load() == 0 && done.Load() < int64(calls)) || entered.Load() < int64(calls) {
		runtime.Gosched()
	}
	close(release)
	wg.Wait()
	return held.Load(), ran.Load()
}
