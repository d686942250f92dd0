package dice_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/adventure-table/adventure-table/gameplay/dice"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// mustAppErr returns the *apperr.Error inside err. Codes are compared on the
// error itself, not through apperr.CodeOf: the registry may not list them yet.
func mustAppErr(t *testing.T, err error) *apperr.Error {
	t.Helper()
	if err == nil {
		t.Fatal("got no error")
	}
	e, ok := apperr.As(err)
	if !ok {
		t.Fatalf("got %T %v, want *apperr.Error", err, err)
	}
	return e
}

func TestCodes(t *testing.T) {
	want := []apperr.Code{
		"dice_invalid_expression",
		"dice_expression_too_long",
		"dice_too_many_dice_in_term",
		"dice_too_many_dice",
		"dice_too_many_sides",
		"dice_explosion_too_deep",
		"dice_division_by_zero",
		"dice_face_invalid",
		"dice_faces_missing",
	}
	if diff := cmp.Diff(want, dice.Codes()); diff != "" {
		t.Errorf("Codes() (-want +got):\n%s", diff)
	}
}

func TestParseInvalid(t *testing.T) {
	tests := []struct {
		name string
		expr string
		pos  int
	}{
		{"Empty", "", 0},
		{"Blank", "   ", 3},
		{"UnknownCharacter", "1d6 + x", 6},
		{"PositionCountsLeadingSpace", "  2d6x", 5},
		{"NonASCII", "1d6 × 2", 4},
		{"TrailingOperator", "1d20 +", 6},
		{"MissingOperand", "1 + * 2", 4},
		{"AdjacentNumbers", "2 3", 2},
		{"SpaceInsideTerm", "3d6 kh1", 4},
		{"SpaceBeforeD", "2 d6", 2},
		{"ImplicitMultiplication", "2(3)", 1},
		{"UnclosedParen", "(1 + 2", 6},
		{"UnopenedParen", "1 + 2)", 5},
		{"EmptyParens", "()", 1},
		{"ZeroDice", "0d6", 0},
		{"ZeroSides", "d0", 1},
		{"NoSides", "2d", 2},
		{"NoSidesThenOperator", "2d+1", 2},
		{"BadSides", "2dX", 2},
		{"DropNeedsDirection", "4d6dx", 4},
		{"KeepZero", "2d20kh0", 6},
		{"TwoKeeps", "2d20kh1dl1", 7},
		{"TwoRerolls", "2d6r1r2", 5},
		{"TwoExplodes", "2d6!!", 4},
		{"RerollNeedsNumber", "d6r", 3},
		{"RerollNeedsNumberAfterCompare", "d6ro<", 5},
		{"RerollEveryFace", "d6r<6", 4},
		{"RerollEveryFaceHigh", "d6r>1", 4},
		{"RerollOnceEveryFace", "d1ro1", 4},
		{"RerollNoFace", "d6r7", 3},
		{"RerollNoFaceBelow", "d6r<0", 4},
		{"RerollFudge", "4dFr1", 3},
		{"ExplodeFudge", "4dF!", 3},
		{"ExplodeD1", "d1!", 2},
		{"ExplodeAlways", "d2!r1", 2},
		{"ExplodeAlwaysRecursive", "d6r<5!", 5},
		{"ExplodeNever", "d6!r6", 2},
		{"ExplodeNeverHigh", "d6r>4!", 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := dice.Parse(tt.expr, dice.DefaultLimits)
			e := mustAppErr(t, err)
			if e.Code != dice.CodeInvalidExpression {
				t.Fatalf("Parse(%q): got code %q (%v), want %q", tt.expr, e.Code, err, dice.CodeInvalidExpression)
			}
			if got := e.Details["position"]; got != tt.pos {
				t.Errorf("Parse(%q): got position %v, want %d (%v)", tt.expr, got, tt.pos, err)
			}
		})
	}
}

// Nesting has its own bound, so a caller raising MaxLength cannot make the
// parser recurse without end.
func TestParseTooDeeplyNested(t *testing.T) {
	lim := dice.Limits{MaxLength: 1 << 20}
	if _, err := dice.Parse(strings.Repeat("(", 100)+"1"+strings.Repeat(")", 100), lim); err != nil {
		t.Fatalf("100 levels: %v", err)
	}
	_, err := dice.Parse(strings.Repeat("(", 10000)+"1"+strings.Repeat(")", 10000), lim)
	if e := mustAppErr(t, err); e.Code != dice.CodeInvalidExpression || e.Details["position"] != 100 {
		t.Fatalf("got %v at %v, want %q at 100", e.Code, e.Details["position"], dice.CodeInvalidExpression)
	}
	// Signs loop instead of recursing: a long run of them costs no stack.
	if _, err := dice.Parse(strings.Repeat("-", 10000)+"1", lim); err != nil {
		t.Fatalf("10000 signs: %v", err)
	}
}

func TestParseDivisionByZero(t *testing.T) {
	tests := []struct {
		expr string
		pos  int
	}{
		{"10 / 0", 3},
		{"d20 / (d6 - 3)", 4},
		{"1 / (d3 - d3)", 2},
		{"1 / 4dF", 2},
		{"1 / (2d6dl2)", 2},
		{"1 / (2 - 2)", 2},
	}
	for _, tt := range tests {
		_, err := dice.Parse(tt.expr, dice.DefaultLimits)
		e := mustAppErr(t, err)
		if e.Code != dice.CodeDivisionByZero || e.Details["position"] != tt.pos {
			t.Errorf("Parse(%q): got %q at %v, want %q at %d", tt.expr, e.Code, e.Details["position"], dice.CodeDivisionByZero, tt.pos)
		}
	}
	// A divisor that stays away from zero is fine.
	for _, expr := range []string{"d20 / d6", "d20 / (d6 - 7)", "1 / -1"} {
		if _, err := dice.Parse(expr, dice.DefaultLimits); err != nil {
			t.Errorf("Parse(%q): %v", expr, err)
		}
	}
}

func TestLimits(t *testing.T) {
	small := dice.Limits{MaxLength: 20, MaxDicePerTerm: 4, MaxTotalDice: 6, MaxSides: 12, MaxExplosionDepth: 3}
	tests := []struct {
		name  string
		expr  string
		lim   dice.Limits
		code  apperr.Code
		limit int
	}{
		{"TooLong", strings.Repeat("1+", 100) + "1", dice.DefaultLimits, dice.CodeExpressionTooLong, 200},
		{"TooLongSmall", "1 + 2 + 3 + 4 + 5 + 6", small, dice.CodeExpressionTooLong, 20},
		{"TooManyDiceInTerm", "101d6", dice.DefaultLimits, dice.CodeTooManyDiceInTerm, 100},
		{"TooManyDiceInTermSmall", "5d6", small, dice.CodeTooManyDiceInTerm, 4},
		{"TooManyDice", strings.Repeat("100d6+", 5) + "d6", dice.DefaultLimits, dice.CodeTooManyDice, 500},
		{"TooManyDiceSmall", "4d6 + 3d6", small, dice.CodeTooManyDice, 6},
		{"TooManySides", "d1001", dice.DefaultLimits, dice.CodeTooManySides, 1000},
		{"TooManySidesSmall", "2d20", small, dice.CodeTooManySides, 12},
		{"NumberTooLarge", "1000000001", dice.DefaultLimits, dice.CodeInvalidExpression, 1_000_000_000},
		{"HugeNumber", "99999999999999999999999999", dice.DefaultLimits, dice.CodeInvalidExpression, 1_000_000_000},
		{"ProductTooLarge", "100000 * 100000", dice.DefaultLimits, dice.CodeInvalidExpression, 1_000_000_000},
		{"NegativeProductTooLarge", "-100000 * 100000", dice.DefaultLimits, dice.CodeInvalidExpression, 1_000_000_000},
		{"SumTooLarge", "1000000000 + 1", dice.DefaultLimits, dice.CodeInvalidExpression, 1_000_000_000},
		{"DiceTooLarge", "100d1000 * 100000", dice.DefaultLimits, dice.CodeInvalidExpression, 1_000_000_000},
		{"ExplosionTooDeep", "24d6!", dice.DefaultLimits, dice.CodeExplosionTooDeep, 500},
		{"ExplosionTooDeepAcrossTerms", "20d6! + 20d6!", dice.DefaultLimits, dice.CodeExplosionTooDeep, 500},
		{"HugeKeepCount", "2d6kh99999999999", dice.DefaultLimits, dice.CodeInvalidExpression, 1_000_000_000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := dice.Parse(tt.expr, tt.lim)
			e := mustAppErr(t, err)
			if e.Code != tt.code {
				t.Fatalf("Parse(%q): got code %q (%v), want %q", tt.expr, e.Code, err, tt.code)
			}
			if got := e.Details["limit"]; got != tt.limit {
				t.Errorf("Parse(%q): got limit %v, want %d", tt.expr, got, tt.limit)
			}
		})
	}
}

func TestLimitsAtTheEdgeAreAccepted(t *testing.T) {
	for _, expr := range []string{
		strings.Repeat("1+", 99) + "11", // 200 bytes
		"100d1000",
		strings.Repeat("100d6+", 4) + "100d6",
		"d1000",
		"1000000000",
		"-1000000000",
		"23d1000!kh1 * 1000", // 23 dice × 21 with explosions = 483 dice
		"20d6! + 20d6",
	} {
		if _, err := dice.Parse(expr, dice.DefaultLimits); err != nil {
			t.Errorf("Parse(%q): %v", expr, err)
		}
	}
	// Surrounding whitespace does not count toward MaxLength.
	if _, err := dice.Parse("  "+strings.Repeat("1+", 99)+"11\n", dice.DefaultLimits); err != nil {
		t.Errorf("padded: %v", err)
	}
}

// A zero field falls back to DefaultLimits, so callers set only what they change.
func TestZeroLimitsAreDefaults(t *testing.T) {
	e, err := dice.Parse("20d1000!", dice.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if _, hi := e.Range(); hi != 20*21*1000 {
		t.Errorf("got max %d, want %d", hi, 20*21*1000)
	}
	if _, err := dice.Parse("2d6", dice.Limits{MaxDicePerTerm: 1}); err == nil {
		t.Error("MaxDicePerTerm 1 accepted 2d6")
	}
}

func TestNormalizedRoundTrip(t *testing.T) {
	for _, expr := range []string{
		"2D20K+5", "4d6!kh3", "d%+d100", "-(-(3))", "1-(2-3)", "8/(4/2)", "(8/4)/2", "2*(3*4)",
		"(1d6+2)*-3", "3dF-(d4r<2)/2", "2d6ro>5!dl1", "--d4", "(((d6)))",
	} {
		e, err := dice.Parse(expr, dice.DefaultLimits)
		if err != nil {
			t.Fatalf("Parse(%q): %v", expr, err)
		}
		again, err := dice.Parse(e.Normalized(), dice.DefaultLimits)
		if err != nil {
			t.Fatalf("Parse(%q) (normalized from %q): %v", e.Normalized(), expr, err)
		}
		if again.Normalized() != e.Normalized() {
			t.Errorf("%q normalizes to %q, which normalizes to %q", expr, e.Normalized(), again.Normalized())
		}
		lo, hi := e.Range()
		lo2, hi2 := again.Range()
		if lo != lo2 || hi != hi2 {
			t.Errorf("%q has range %d..%d, its normalized form %d..%d", expr, lo, hi, lo2, hi2)
		}
	}
}

func TestRange(t *testing.T) {
	tests := []struct {
		expr     string
		min, max int
	}{
		{"d20", 1, 20},
		{"2d20kh1 + 5", 6, 25},
		{"4d6kh3", 3, 18},
		{"4d6dl1", 3, 18},
		{"4d6dh3", 1, 6},
		{"d%", 1, 100},
		{"4dF", -4, 4},
		{"4dFkh2", -2, 2},
		{"d6!", 1, 126},
		{"3d6!kh1", 1, 6},
		{"3d6!kl5", 3, 30},
		{"3d6!dl1", 2, 62 * 6},
		{"d6r<2", 3, 6},
		{"d6ro<2", 1, 6},
		{"d6r1", 2, 6},
		{"d6r6", 1, 5},
		{"d6r3", 1, 6},
		{"d6r>5", 1, 4},
		{"d6r<2!", 3, 126},
		{"d6 - d6", -5, 5},
		{"d6 * -d6", -36, -1},
		{"(d6 - 3) * (d6 - 3)", -6, 9},
		{"-7 / 2", -4, -4},
		{"7 / 2", 3, 3},
		{"(d6 - 4) / 2", -2, 1},
		{"d20 / (d6 - 7)", -20, -1},
		{"-(2d4 + 1)", -9, -3},
	}
	for _, tt := range tests {
		e, err := dice.Parse(tt.expr, dice.DefaultLimits)
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.expr, err)
			continue
		}
		if lo, hi := e.Range(); lo != tt.min || hi != tt.max {
			t.Errorf("Range(%q) = %d, %d; want %d, %d", tt.expr, lo, hi, tt.min, tt.max)
		}
	}
}
