// Package narrative referees the world state of a solo narrated adventure.
//
// The model narrates and appends a JSON delta; this package disposes. It never
// lets the model own a number: ExtractDelta pulls the proposed delta out of the
// narration, Referee validates it against the scenario's Schema (clamping,
// rejecting unknown paths, wrong types and changes that come too soon), and
// StateLine renders the result as words the model reasons over well ("hp 55/100
// (minor damage)") instead of bare arithmetic.
//
// Nothing here returns an error or panics on model output. A free-tier model
// that emits a broken block must cost the turn its state change, never the turn.
package narrative

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Stat kinds accepted in StatSpec.Kind. The empty string means KindNumber.
const (
	KindNumber = "number"
	KindBool   = "bool"
	KindString = "string"
)

// metaLastChanged prefixes the state key that records the turn a path last
// changed. It lives in State itself so that cooldowns survive a round trip
// through storage without a second structure to keep in step.
const metaLastChanged = "_meta.last_changed."

// StatSpec declares one stat of a scenario's world state.
type StatSpec struct {
	// Min and Max bound a number stat; changes are clamped to [Min, Max].
	Min float64 `json:"min"`
	Max float64 `json:"max"`
	// Initial is the starting value of a number stat; for a bool stat any
	// non-zero value means true. String stats start empty.
	Initial float64 `json:"initial"`
	// Bands label value ranges, ascending, e.g. [[0,20,"very weak"], ...].
	Bands []Band `json:"bands,omitempty"`
	// Cooldown is the minimum number of turns between two changes of this
	// path (0 = none).
	Cooldown int `json:"cooldown,omitempty"`
	// Kind is KindNumber (the default when empty), KindBool or KindString.
	Kind string `json:"kind,omitempty"`
}

// Band is one labelled range of a number stat. Its JSON form is the compact
// array [lo, hi, "label"] that scenario authors write by hand.
type Band struct {
	Lo, Hi float64
	Label  string
}

// MarshalJSON encodes b as [lo, hi, "label"].
func (b Band) MarshalJSON() ([]byte, error) {
	return json.Marshal([]any{b.Lo, b.Hi, b.Label})
}

// UnmarshalJSON decodes b from [lo, hi, "label"].
func (b *Band) UnmarshalJSON(data []byte) error {
	var raw []json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return fmt.Errorf("band: want [lo, hi, \"label\"]: %w", err)
	}
	if len(raw) != 3 {
		return fmt.Errorf("band: want 3 elements [lo, hi, \"label\"], got %d", len(raw))
	}
	var v Band
	if err := json.Unmarshal(raw[0], &v.Lo); err != nil {
		return fmt.Errorf("band lo: %w", err)
	}
	if err := json.Unmarshal(raw[1], &v.Hi); err != nil {
		return fmt.Errorf("band hi: %w", err)
	}
	if err := json.Unmarshal(raw[2], &v.Label); err != nil {
		return fmt.Errorf("band label: %w", err)
	}
	*b = v
	return nil
}

// Schema declares a scenario's stats, keyed by dotted path, e.g. "player.hp",
// "npc.gwen.trust", "milestones.escaped".
type Schema map[string]StatSpec

// State holds current values by path, plus "_meta.last_changed.<path>": the
// turn number at which that path last changed.
type State map[string]any

// kind returns the normalised kind of s.
func (s StatSpec) kind() string {
	if s.Kind == "" {
		return KindNumber
	}
	return s.Kind
}

// BandLabel returns the label of the band containing v ("" if none).
//
// A band contains [Lo, Hi): adjoining bands such as [20,40] and [40,60] share
// their edge, and the edge belongs to the upper band. So that the top of the
// scale still has a word (hp 100 in [90,100,"full health"]), a value equal to
// a band's Hi that no band contains half-open falls into that band.
func (s StatSpec) BandLabel(v float64) string {
	if math.IsNaN(v) {
		return ""
	}
	for _, b := range s.Bands {
		if b.Lo <= v && v < b.Hi {
			return b.Label
		}
	}
	for i := len(s.Bands) - 1; i >= 0; i-- {
		if v == s.Bands[i].Hi {
			return s.Bands[i].Label
		}
	}
	return ""
}

// InitialState builds the starting state from the schema: number stats at
// Initial (clamped to [Min, Max]), bool stats true when Initial is non-zero,
// string stats empty. Stats of an unknown Kind are left out, as Referee will
// never set them either.
func InitialState(schema Schema) State {
	st := make(State, len(schema))
	for path, spec := range schema {
		switch spec.kind() {
		case KindNumber:
			st[path] = clamp(spec.Initial, spec.Min, spec.Max)
		case KindBool:
			st[path] = spec.Initial != 0
		case KindString:
			st[path] = ""
		}
	}
	return st
}

// StateLine renders the live state line, e.g.
// "hp 55/100 (minor damage), trust 12/100 (wary), escaped yes".
//
// Paths are sorted and named by their last segment. When two paths share a
// last segment (npc.gwen.trust, npc.bob.trust) more segments are kept until
// the names differ ("gwen.trust", "bob.trust"): an ambiguous line would let the
// model attribute one character's trust to another. A path missing from state
// shows its initial value.
func StateLine(schema Schema, state State) string {
	paths := sortedKeys(schema)
	names := shortNames(paths)
	initial := InitialState(schema)
	parts := make([]string, 0, len(paths))
	for _, path := range paths {
		spec := schema[path]
		v, ok := state[path]
		if !ok {
			v = initial[path]
		}
		name := names[path]
		switch spec.kind() {
		case KindNumber:
			f, ok := toFloat(v)
			if !ok {
				f, _ = toFloat(initial[path])
			}
			part := name + " " + formatNum(f) + "/" + formatNum(spec.Max)
			if label := spec.BandLabel(f); label != "" {
				part += " (" + label + ")"
			}
			parts = append(parts, part)
		case KindBool:
			b, _ := v.(bool)
			word := "no"
			if b {
				word = "yes"
			}
			parts = append(parts, name+" "+word)
		case KindString:
			s, _ := v.(string)
			if s == "" {
				s = "-"
			}
			parts = append(parts, name+" "+s)
		}
	}
	return strings.Join(parts, ", ")
}

// shortNames maps each path to its shortest unambiguous suffix of segments.
func shortNames(paths []string) map[string]string {
	names := make(map[string]string, len(paths))
	segs := make(map[string][]string, len(paths))
	for _, p := range paths {
		segs[p] = strings.Split(p, ".")
	}
	suffix := func(p string, k int) string {
		s := segs[p]
		if k > len(s) {
			k = len(s)
		}
		return strings.Join(s[len(s)-k:], ".")
	}
	for _, p := range paths {
		for k := 1; ; k++ {
			name := suffix(p, k)
			unique := true
			for _, q := range paths {
				if q != p && suffix(q, k) == name {
					unique = false
					break
				}
			}
			if unique || k >= len(segs[p]) {
				names[p] = name
				break
			}
		}
	}
	return names
}

// formatNum prints a number without a trailing ".0" so the line reads as
// "55/100", not "55.000000/100.000000".
func formatNum(f float64) string {
	return strconv.FormatFloat(f, 'f', -1, 64)
}

func clamp(v, lo, hi float64) float64 {
	if v < lo {
		v = lo
	}
	if v > hi {
		v = hi
	}
	return v
}

// toFloat accepts the number types a State may hold: float64 from JSON, ints
// from Go callers, json.Number from a UseNumber decoder. NaN and infinities
// are refused so they can never enter the state.
func toFloat(v any) (float64, bool) {
	var f float64
	// Deltas come from JSON (float64 or json.Number) and the state keeps
	// float64; ints appear only when Go code builds a state by hand.
	switch n := v.(type) {
	case float64:
		f = n
	case int:
		f = float64(n)
	case int64:
		f = float64(n)
	case json.Number:
		var err error
		if f, err = n.Float64(); err != nil {
			return 0, false
		}
	default:
		return 0, false
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
