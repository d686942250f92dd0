//go:build !race

package scripting_test

// raceEnabled reports whether the race detector is on; it makes wazero's
// compiler about ten times slower.
const raceEnabled = false
