package table_test

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"testing"
	"time"

	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// maxUploadHeap bounds the heap while stage images upload together: two
// decode slots of at most 64 MiB each, the pixels of a finished decode
// that the collector has not reclaimed yet when the next one allocates
// (a third 64 MiB), the test's own heap and a margin. Without the budget,
// 8 of the 16-bit images below decode at once into 8 × 128 MB (~1 GiB),
// and 6 of the 8-bit ones into 6 × 64 MB (366 MiB).
const maxUploadHeap = 256 << 20

// TestStageImageMemory uploads images together, over the real service, and
// samples the heap throughout: first 8 copies of the pixel bomb of issue 13
// (a 4000×4000 16-bit RGBA PNG, 0.8 MB on the wire and under the pixel
// cap, 128 MB decoded), which is now refused from its header; then 6 of
// the same at 8 bits (64 MB decoded, just under the budget), which the
// decode slots take two at a time. (6, not 8: each decode takes seconds
// under the race detector.)
func TestStageImageMemory(t *testing.T) {
	lt, _ := newLiveTable(t)
	// Collect at 10% growth so the peak is what the decodes hold, not
	// garbage waiting for a collection.
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	tests := []struct {
		name    string
		data    []byte
		uploads int
		want    apperr.Code
	}{
		{"ErrBomb16Bit", table.ZeroPNG(4000, 4000, 16, 6, false, false), 8, apperr.StageImageInvalid},
		{"WorstAccepted", table.ZeroPNG(4000, 4000, 8, 6, false, false), 6, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			runtime.GC()
			stop := sampleHeap()
			errs := make([]error, tt.uploads)
			var wg sync.WaitGroup
			for i := range errs {
				wg.Go(func() { _, errs[i] = lt.svc.UploadStageImage(ctx, lt.Owner, lt.LobbyID, tt.data) })
			}
			wg.Wait()
			peak := stop()
			t.Logf("peak heap %d MiB during %d uploads (bound %d MiB)", peak>>20, tt.uploads, maxUploadHeap>>20)
			for _, err := range errs {
				wantCode(t, err, tt.want)
			}
			if peak > maxUploadHeap {
				t.Fatalf("peak heap %d MiB, want at most %d MiB", peak>>20, maxUploadHeap>>20)
			}
		})
	}
}

// sampleHeap samples the bytes in heap objects every millisecond until the
// returned function is called, which returns the largest sample.
func sampleHeap() (stop func() uint64) {
	done, out := make(chan struct{}), make(chan uint64)
	go func() {
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		var peak uint64
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			metrics.Read(s)
			peak = max(peak, s[0].Value.Uint64())
			select {
			case <-done:
				out <- peak
				return
			case <-tick.C:
			}
		}
	}()
	return func() uint64 { close(done); return <-out }
}
