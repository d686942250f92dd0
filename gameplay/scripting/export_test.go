package scripting

import "time"

// WaitForSpares blocks until the spare and primed runtimes are prepared again, so a
// benchmark can measure a hook on an otherwise idle sandbox (as in play,
// where hooks are seconds apart) instead of one competing with its own
// refill. Polling is fine here: it is never part of an assertion.
func WaitForSpares(s *Sandbox) {
	for len(s.spares) < cap(s.spares) || !s.primed.ready() {
		time.Sleep(100 * time.Microsecond)
	}
}

// EngineStart is how this process got its compiled QuickJS engine.
type EngineStart = engineStart

// LastEngineStart reports the first New of this process's engine start.
func LastEngineStart() EngineStart { return warmStart }
