package narrative

import (
	"fmt"
	"math"
	"regexp"
	"strings"

	"github.com/adventure-table/adventure-table/models"
)

// StatGuide renders the stat schema for the static block of the prompt: one
// line per stat with its range, its whole band ladder and its cooldown. It
// depends only on the schema, so its bytes are identical on every turn.
func StatGuide(schema Schema) string {
	if len(schema) == 0 {
		return ""
	}
	var sb strings.Builder
	for _, path := range sortedKeys(schema) {
		spec := schema[path]
		switch spec.kind() {
		case KindBool:
			fmt.Fprintf(&sb, "- %s: true or false", path)
		case KindString:
			fmt.Fprintf(&sb, "- %s: a short text", path)
		default:
			fmt.Fprintf(&sb, "- %s: %s to %s", path, formatNum(spec.Min), formatNum(spec.Max))
			if len(spec.Bands) > 0 {
				labels := make([]string, len(spec.Bands))
				for i, b := range spec.Bands {
					labels[i] = fmt.Sprintf("%s–%s %s", formatNum(b.Lo), formatNum(b.Hi), b.Label)
				}
				sb.WriteString("; " + strings.Join(labels, ", "))
			}
		}
		if spec.Cooldown > 0 {
			fmt.Fprintf(&sb, "; changes at most once every %d turns", spec.Cooldown)
		}
		sb.WriteString("\n")
	}
	return strings.TrimRight(sb.String(), "\n")
}

// Limits of a stat schema.
const (
	MaxStats      = 100
	MaxBands      = 20
	maxPathLength = 80
	maxBandLabel  = 60
)

var statPath = regexp.MustCompile(`^[a-z0-9_]+(\.[a-z0-9_]+)*$`)

// ValidateSchema checks a schema a person wrote and returns one problem per
// bad path ("" key for the schema as a whole); nil means valid.
func ValidateSchema(schema Schema) map[string]string {
	problems := map[string]string{}
	if len(schema) > MaxStats {
		problems[""] = fmt.Sprintf("at most %d stats", MaxStats)
	}
	for path, spec := range schema {
		if msg := validateStat(path, spec); msg != "" {
			problems[path] = msg
		}
	}
	if len(problems) == 0 {
		return nil
	}
	return problems
}

func validateStat(path string, spec StatSpec) string {
	finite := func(fs ...float64) bool {
		for _, f := range fs {
			if math.IsNaN(f) || math.IsInf(f, 0) {
				return false
			}
		}
		return true
	}
	switch {
	case len(path) > maxPathLength || !statPath.MatchString(path) || strings.HasPrefix(path, "_meta"):
		return "a path is lower-case words joined by dots, like player.hp (up to 80 characters)"
	case spec.Kind != "" && spec.Kind != KindNumber && spec.Kind != KindBool && spec.Kind != KindString:
		return "kind must be number, bool or string"
	case spec.Cooldown < 0 || spec.Cooldown > 1000:
		return "cooldown must be between 0 and 1000 turns"
	case !finite(spec.Min, spec.Max, spec.Initial):
		return "min, max and initial must be numbers"
	case spec.kind() == KindNumber && spec.Min > spec.Max:
		return "min must not be above max"
	case spec.kind() == KindNumber && (spec.Initial < spec.Min || spec.Initial > spec.Max):
		return "initial must lie between min and max"
	case len(spec.Bands) > MaxBands:
		return fmt.Sprintf("at most %d bands", MaxBands)
	}
	for _, b := range spec.Bands {
		if !models.StorableText(b.Label) {
			return models.UnstorableTextProblem
		}
		if !finite(b.Lo, b.Hi) || b.Lo >= b.Hi || b.Label == "" || len(b.Label) > maxBandLabel {
			return "each band needs lo < hi and a label of up to 60 characters"
		}
	}
	return ""
}
