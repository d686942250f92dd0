package narrative

import "time"

// SetFailpoint lets tests inject a failure at a named point.
func (s *Service) SetFailpoint(f func(point string) error) { s.fail = f }

// SetStaleTurn shortens how long a turn claim survives a crashed process.
func (s *Service) SetStaleTurn(d time.Duration) { s.staleTurn = d }

// Compress and Decompress expose the snapshot codec to the benchmarks.
var (
	Compress   = compress
	Decompress = decompress
)
