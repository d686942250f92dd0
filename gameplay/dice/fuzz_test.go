package dice_test

import (
	"slices"
	"testing"

	"github.com/adventure-table/adventure-table/gameplay/dice"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// FuzzParseRoll checks that any input either fails with one of the package's
// codes or rolls within its Range, and that the normalized spelling parses
// back to the same expression. The limits keep every input bounded in time.
func FuzzParseRoll(f *testing.F) {
	for _, s := range []string{
		"d20", "1d20 + 5", "2d20kh1 + 5", "2d20kl1 - 1", "4d6k3", "4d6dl1", "4d6dh", "8d6d3", "d%", "2d%kh1",
		"4dF", "4dF + 2", "3dFkl2", "3d6!", "5d10!kh2", "2d6!kl1", "d6r1", "2d6ro<2", "d20r<3", "d6r>5", "2d6ro>5!dl1",
		"(1d6 + 2) * 3", "d6 / 2", "-d6 / 2", "7 / -d2", "10 / (d6 - 7)", "1 - (2 - 3)", "--3", " 1D20+\t3 ",
		"100d1000!kh1 * 1000", "3d6 kh1", "d0", "d6r<6", "10 / (d6 - 3)", "((((d4))))", "1000000000", "2d20kh0",
	} {
		f.Add(s)
	}
	relaxed := dice.Limits{MaxLength: 1 << 20}
	f.Fuzz(func(t *testing.T, expr string) {
		e, err := dice.Parse(expr, dice.DefaultLimits)
		if err != nil {
			ae, ok := apperr.As(err)
			if !ok {
				t.Fatalf("Parse(%q): %T %v is not an *apperr.Error", expr, err, err)
			}
			if !slices.Contains(dice.Codes(), ae.Code) {
				t.Fatalf("Parse(%q): code %q is not in Codes()", expr, ae.Code)
			}
			if pos, ok := ae.Details["position"]; ok {
				if p, ok := pos.(int); !ok || p < 0 || p > len(expr) {
					t.Fatalf("Parse(%q): position %v outside the expression", expr, pos)
				}
			}
			return
		}
		lo, hi := e.Range()
		if lo > hi {
			t.Fatalf("Parse(%q): Range %d > %d", expr, lo, hi)
		}
		r, err := e.Roll(dice.Crypto)
		if err != nil {
			t.Fatalf("Roll(%q): %v", expr, err)
		}
		if r.Min != lo || r.Max != hi {
			t.Fatalf("Roll(%q): Min, Max = %d, %d; Range = %d, %d", expr, r.Min, r.Max, lo, hi)
		}
		checkResult(t, r, e.DiceCount())

		// A critical hit doubles the dice and nothing else, or is refused
		// with one of the package's codes when the doubled pool is too big.
		if c, err := e.Critical(dice.DefaultLimits); err != nil {
			if !slices.Contains(dice.Codes(), apperr.CodeOf(err)) {
				t.Fatalf("Critical(%q): %v", expr, err)
			}
		} else if c.DiceCount() != 2*e.DiceCount() {
			t.Fatalf("Critical(%q) = %q rolls %d dice, want %d", expr, c.Normalized(), c.DiceCount(), 2*e.DiceCount())
		}

		// Normalizing may lengthen the text ("1+1" → "1 + 1"), so the
		// round trip ignores MaxLength; all other limits still hold.
		again, err := dice.Parse(e.Normalized(), relaxed)
		if err != nil {
			t.Fatalf("Parse(%q) (normalized from %q): %v", e.Normalized(), expr, err)
		}
		lo2, hi2 := again.Range()
		if again.Normalized() != e.Normalized() || lo2 != lo || hi2 != hi || again.DiceCount() != e.DiceCount() {
			t.Fatalf("%q → %q (%d..%d, %d dice) → %q (%d..%d, %d dice)", expr,
				e.Normalized(), lo, hi, e.DiceCount(), again.Normalized(), lo2, hi2, again.DiceCount())
		}
	})
}
