package narrative

import "strings"

// Outcome statuses.
const (
	StatusApplied  = "applied"
	StatusClamped  = "clamped"
	StatusRejected = "rejected"
)

// Outcome reasons, set for rejected and clamped paths.
const (
	ReasonUnknownPath  = "unknown_path"
	ReasonWrongType    = "wrong_type"
	ReasonCooldown     = "cooldown"
	ReasonClampedToMin = "clamped_to_min"
	ReasonClampedToMax = "clamped_to_max"
)

// Outcome reports what Referee did with one path of a delta. Every proposed
// path gets one, so a rejection is shown to the player and in Insights rather
// than silently swallowed.
type Outcome struct {
	Path   string `json:"path"`
	Status string `json:"status"`           // StatusApplied, StatusClamped or StatusRejected
	From   any    `json:"from,omitempty"`   // value before; for rejected paths the unchanged current value
	To     any    `json:"to,omitempty"`     // value after; nil for rejected paths
	Reason string `json:"reason,omitempty"` // one of the Reason constants, for rejected and clamped paths
}

// Referee applies a delta to state under schema at turn turn and returns the
// new state and one Outcome per delta path, sorted by path. The input state is
// not mutated. Referee never panics.
//
// Numbers in the delta are changes (+/-) to number stats, clamped to
// [Min, Max]: the model judges "a solid hit", the engine does the arithmetic.
// Bools and strings are set. A path is rejected as unknown_path when the schema
// does not declare it (and always for "_meta." paths, which are the referee's
// own bookkeeping), as wrong_type when the value does not match the stat's
// Kind, and as cooldown when it last changed fewer than Cooldown turns ago
// according to state["_meta.last_changed.<path>"].
//
// Only a real change records the turn: a zero change, or a clamp that leaves
// the value where it was, does not restart the cooldown, since nothing
// happened that the cooldown is meant to space out.
func Referee(schema Schema, state State, delta map[string]any, turn int) (State, []Outcome) {
	next := make(State, len(state)+len(delta))
	for k, v := range state {
		next[k] = v
	}
	outcomes := make([]Outcome, 0, len(delta))
	for _, path := range sortedKeys(delta) {
		outcomes = append(outcomes, referee(schema, next, path, delta[path], turn))
	}
	return next, outcomes
}

// referee decides one path, updating next in place.
func referee(schema Schema, next State, path string, proposed any, turn int) Outcome {
	spec, ok := schema[path]
	if !ok || strings.HasPrefix(path, "_meta.") {
		return Outcome{Path: path, Status: StatusRejected, Reason: ReasonUnknownPath}
	}
	current := currentValue(spec, next, path)
	reject := func(reason string) Outcome {
		return Outcome{Path: path, Status: StatusRejected, From: current, Reason: reason}
	}

	// Type before cooldown: a malformed value is reported as such even when
	// the path is also cooling down, because that is the mistake to fix.
	var to any
	status, reason := StatusApplied, ""
	switch spec.kind() {
	case KindNumber:
		change, ok := toFloat(proposed)
		if !ok {
			return reject(ReasonWrongType)
		}
		cur := current.(float64)
		v := cur + change
		switch {
		case v < spec.Min:
			v, status, reason = spec.Min, StatusClamped, ReasonClampedToMin
		case v > spec.Max:
			v, status, reason = spec.Max, StatusClamped, ReasonClampedToMax
		}
		to = v
	case KindBool:
		b, ok := proposed.(bool)
		if !ok {
			return reject(ReasonWrongType)
		}
		to = b
	case KindString:
		s, ok := proposed.(string)
		if !ok {
			return reject(ReasonWrongType)
		}
		to = s
	default:
		// The schema declares a kind this referee cannot check; refusing is
		// safer than storing a value nobody validated.
		return reject(ReasonWrongType)
	}

	if spec.Cooldown > 0 {
		if last, ok := toFloat(next[metaLastChanged+path]); ok && float64(turn)-last < float64(spec.Cooldown) {
			return reject(ReasonCooldown)
		}
	}

	next[path] = to
	if to != current {
		next[metaLastChanged+path] = turn
	}
	return Outcome{Path: path, Status: status, From: current, To: to, Reason: reason}
}

// currentValue returns the stat's value in st, falling back to its initial
// value when the state lacks it or holds the wrong type (a state written by an
// older schema). Number stats always come back as float64.
func currentValue(spec StatSpec, st State, path string) any {
	v := st[path]
	switch spec.kind() {
	case KindNumber:
		if f, ok := toFloat(v); ok {
			return f
		}
		return clamp(spec.Initial, spec.Min, spec.Max)
	case KindBool:
		if b, ok := v.(bool); ok {
			return b
		}
		return spec.Initial != 0
	case KindString:
		if s, ok := v.(string); ok {
			return s
		}
		return ""
	}
	return v
}
