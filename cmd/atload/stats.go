package main

import (
	"math"
	"slices"
	"time"
)

// dist summarises a set of latencies.
type dist struct {
	N   int     `json:"n"`
	P50 float64 `json:"p50_ms"`
	P90 float64 `json:"p90_ms"`
	P99 float64 `json:"p99_ms"`
	Max float64 `json:"max_ms"`
}

// percentile is the nearest-rank percentile p (0..1) of sorted latencies;
// zero for none.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(p*float64(len(sorted)))) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// summarize sorts lat in place and returns its distribution.
func summarize(lat []time.Duration) dist {
	slices.Sort(lat)
	ms := func(d time.Duration) float64 { return math.Round(float64(d)/1e3) / 1e3 }
	return dist{N: len(lat), P50: ms(percentile(lat, 0.5)), P90: ms(percentile(lat, 0.9)),
		P99: ms(percentile(lat, 0.99)), Max: ms(percentile(lat, 1))}
}
