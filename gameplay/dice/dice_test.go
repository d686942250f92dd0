package dice_test

import (
	"encoding/json"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/adventure-table/adventure-table/gameplay/dice"
)

// Shorthands for expected dice.
func kept(v int) dice.Die     { return dice.Die{Value: v, Kept: true} }
func dropped(v int) dice.Die  { return dice.Die{Value: v, Dropped: true} }
func exploded(v int) dice.Die { return dice.Die{Value: v, Kept: true, Exploded: true} }
func rerolled(v int) dice.Die { return dice.Die{Value: v, Rerolled: true} }
func droppedExploded(v int) dice.Die {
	return dice.Die{Value: v, Dropped: true, Exploded: true}
}

func TestRoll(t *testing.T) {
	tests := []struct {
		name       string
		expr       string
		lim        dice.Limits // zero: defaults
		faces      []int
		normalized string
		total      int
		min, max   int
		groups     []dice.Group
	}{
		{
			name: "Advantage", expr: "2d20kh1 + 5", faces: []int{8, 17},
			normalized: "2d20kh1 + 5", total: 22, min: 6, max: 25,
			groups: []dice.Group{{Notation: "2d20kh1", Sides: 20, Dice: []dice.Die{dropped(8), kept(17)}, Subtotal: 17}},
		},
		{
			name: "Disadvantage", expr: "2d20kl1+5", faces: []int{8, 17},
			normalized: "2d20kl1 + 5", total: 13, min: 6, max: 25,
			groups: []dice.Group{{Notation: "2d20kl1", Sides: 20, Dice: []dice.Die{kept(8), dropped(17)}, Subtotal: 8}},
		},
		{
			name: "KeepTieKeepsEarlierDie", expr: "2d20k", faces: []int{12, 12},
			normalized: "2d20kh1", total: 12, min: 1, max: 20,
			groups: []dice.Group{{Notation: "2d20kh1", Sides: 20, Dice: []dice.Die{kept(12), dropped(12)}, Subtotal: 12}},
		},
		{
			name: "AbilityScore", expr: "4d6k3", faces: []int{1, 5, 3, 6},
			normalized: "4d6kh3", total: 14, min: 3, max: 18,
			groups: []dice.Group{{Notation: "4d6kh3", Sides: 6, Dice: []dice.Die{dropped(1), kept(5), kept(3), kept(6)}, Subtotal: 14}},
		},
		{
			name: "DropLowestBare", expr: "4d6d1", faces: []int{1, 5, 3, 6},
			normalized: "4d6dl1", total: 14, min: 3, max: 18,
			groups: []dice.Group{{Notation: "4d6dl1", Sides: 6, Dice: []dice.Die{dropped(1), kept(5), kept(3), kept(6)}, Subtotal: 14}},
		},
		{
			name: "DropHighest", expr: "4D6DH", faces: []int{1, 5, 3, 6},
			normalized: "4d6dh1", total: 9, min: 3, max: 18,
			groups: []dice.Group{{Notation: "4d6dh1", Sides: 6, Dice: []dice.Die{kept(1), kept(5), kept(3), dropped(6)}, Subtotal: 9}},
		},
		{
			name: "KeepMoreThanRolledKeepsAll", expr: "2d6kh3", faces: []int{2, 3},
			normalized: "2d6kh3", total: 5, min: 2, max: 12,
			groups: []dice.Group{{Notation: "2d6kh3", Sides: 6, Dice: []dice.Die{kept(2), kept(3)}, Subtotal: 5}},
		},
		{
			name: "DropMoreThanRolledDropsAll", expr: "2d6dl2", faces: []int{2, 3},
			normalized: "2d6dl2", total: 0, min: 0, max: 0,
			groups: []dice.Group{{Notation: "2d6dl2", Sides: 6, Dice: []dice.Die{dropped(2), dropped(3)}, Subtotal: 0}},
		},
		{
			name: "Percentile", expr: "d%", faces: []int{100},
			normalized: "d%", total: 100, min: 1, max: 100,
			groups: []dice.Group{{Notation: "d%", Sides: 100, Dice: []dice.Die{kept(100)}, Subtotal: 100}},
		},
		{
			name: "D100StaysD100", expr: "1d100", faces: []int{7},
			normalized: "d100", total: 7, min: 1, max: 100,
			groups: []dice.Group{{Notation: "d100", Sides: 100, Dice: []dice.Die{kept(7)}, Subtotal: 7}},
		},
		{
			name: "Fudge", expr: "4df", faces: []int{1, 2, 3, 3},
			normalized: "4dF", total: 1, min: -4, max: 4,
			groups: []dice.Group{{Notation: "4dF", Sides: 3, Fudge: true, Dice: []dice.Die{kept(-1), kept(0), kept(1), kept(1)}, Subtotal: 1}},
		},
		{
			name: "FudgeKeep", expr: "3dFkl1", faces: []int{3, 1, 2},
			normalized: "3dFkl1", total: -1, min: -1, max: 1,
			groups: []dice.Group{{Notation: "3dFkl1", Sides: 3, Fudge: true, Dice: []dice.Die{dropped(1), kept(-1), dropped(0)}, Subtotal: -1}},
		},
		{
			name: "Explode", expr: "3d6!", faces: []int{6, 6, 2, 3, 4},
			normalized: "3d6!", total: 21, min: 3, max: 3 * 21 * 6,
			groups: []dice.Group{{Notation: "3d6!", Sides: 6, Dice: []dice.Die{exploded(6), exploded(6), kept(2), kept(3), kept(4)}, Subtotal: 21}},
		},
		{
			name: "ExplodeStopsAtDepth", expr: "d6!", lim: dice.Limits{MaxExplosionDepth: 2}, faces: []int{6, 6, 6},
			normalized: "d6!", total: 18, min: 1, max: 18,
			groups: []dice.Group{{Notation: "d6!", Sides: 6, Dice: []dice.Die{exploded(6), exploded(6), kept(6)}, Subtotal: 18}},
		},
		{
			name: "ExplodeThenKeep", expr: "3d6!kh2", faces: []int{6, 2, 3, 1},
			normalized: "3d6!kh2", total: 9, min: 2, max: 12,
			groups: []dice.Group{{Notation: "3d6!kh2", Sides: 6, Dice: []dice.Die{exploded(6), dropped(2), kept(3), dropped(1)}, Subtotal: 9}},
		},
		{
			name: "ExplodeKeepLowestGrowsWithPool", expr: "2d6!kl3", lim: dice.Limits{MaxExplosionDepth: 2}, faces: []int{6, 6, 6, 6, 6, 6},
			normalized: "2d6!kl3", total: 18, min: 2, max: 18,
			groups: []dice.Group{{Notation: "2d6!kl3", Sides: 6, Dice: []dice.Die{exploded(6), exploded(6), kept(6), droppedExploded(6), droppedExploded(6), dropped(6)}, Subtotal: 18}},
		},
		{
			name: "RerollOnce", expr: "2d6ro<2", faces: []int{1, 1, 4},
			normalized: "2d6ro<2", total: 5, min: 2, max: 12,
			groups: []dice.Group{{Notation: "2d6ro<2", Sides: 6, Dice: []dice.Die{rerolled(1), kept(1), kept(4)}, Subtotal: 5}},
		},
		{
			name: "RerollRecursive", expr: "d6r<2", faces: []int{1, 2, 5},
			normalized: "d6r<2", total: 5, min: 3, max: 6,
			groups: []dice.Group{{Notation: "d6r<2", Sides: 6, Dice: []dice.Die{rerolled(1), rerolled(2), kept(5)}, Subtotal: 5}},
		},
		{
			// At the bound the last reroll is a d4 over the faces 3..6:
			// its 3rd face is 5.
			name: "RerollRecursiveBoundDrawsAllowedFace", expr: "d6r<2", lim: dice.Limits{MaxExplosionDepth: 2}, faces: []int{1, 2, 3},
			normalized: "d6r<2", total: 5, min: 3, max: 6,
			groups: []dice.Group{{Notation: "d6r<2", Sides: 6, Dice: []dice.Die{rerolled(1), rerolled(2), kept(5)}, Subtotal: 5}},
		},
		{
			name: "RerollEqual", expr: "1d20r1", faces: []int{1, 1, 20},
			normalized: "d20r1", total: 20, min: 2, max: 20,
			groups: []dice.Group{{Notation: "d20r1", Sides: 20, Dice: []dice.Die{rerolled(1), rerolled(1), kept(20)}, Subtotal: 20}},
		},
		{
			name: "RerollEqualLeavesOtherFaces", expr: "d6r2", faces: []int{1},
			normalized: "d6r2", total: 1, min: 1, max: 6,
			groups: []dice.Group{{Notation: "d6r2", Sides: 6, Dice: []dice.Die{kept(1)}, Subtotal: 1}},
		},
		{
			name: "RerollHigh", expr: "d6R>5", faces: []int{6, 5, 3},
			normalized: "d6r>5", total: 3, min: 1, max: 4,
			groups: []dice.Group{{Notation: "d6r>5", Sides: 6, Dice: []dice.Die{rerolled(6), rerolled(5), kept(3)}, Subtotal: 3}},
		},
		{
			name: "RerollExplodeKeepCanonicalOrder", expr: "2d6kl1!ro1", lim: dice.Limits{MaxExplosionDepth: 3}, faces: []int{1, 6, 2, 5},
			normalized: "2d6ro1!kl1", total: 2, min: 1, max: 6,
			groups: []dice.Group{{Notation: "2d6ro1!kl1", Sides: 6, Dice: []dice.Die{rerolled(1), droppedExploded(6), kept(2), dropped(5)}, Subtotal: 2}},
		},
		{
			name: "Precedence", expr: "10 - 2 * 3", normalized: "10 - 2 * 3", total: 4, min: 4, max: 4, groups: []dice.Group{},
		},
		{
			name: "RightAssociativeParensKept", expr: "1-(2-3)", normalized: "1 - (2 - 3)", total: 2, min: 2, max: 2, groups: []dice.Group{},
		},
		{
			name: "RedundantParensDropped", expr: "((1+2))+(3*4)", normalized: "1 + 2 + 3 * 4", total: 15, min: 15, max: 15, groups: []dice.Group{},
		},
		{
			name: "Multiply", expr: "(1d6 + 2) * 3", faces: []int{4},
			normalized: "(d6 + 2) * 3", total: 18, min: 9, max: 24,
			groups: []dice.Group{{Notation: "d6", Sides: 6, Dice: []dice.Die{kept(4)}, Subtotal: 4}},
		},
		{
			name: "DivideFloors", expr: "d6/2", faces: []int{5},
			normalized: "d6 / 2", total: 2, min: 0, max: 3,
			groups: []dice.Group{{Notation: "d6", Sides: 6, Dice: []dice.Die{kept(5)}, Subtotal: 5}},
		},
		{
			name: "DivideFloorsNegative", expr: "-d6/2", faces: []int{5},
			normalized: "-d6 / 2", total: -3, min: -3, max: -1,
			groups: []dice.Group{{Notation: "d6", Sides: 6, Dice: []dice.Die{kept(5)}, Subtotal: 5}},
		},
		{
			name: "DivideByNegative", expr: "7 / -d2", faces: []int{2},
			normalized: "7 / -d2", total: -4, min: -7, max: -4,
			groups: []dice.Group{{Notation: "d2", Sides: 2, Dice: []dice.Die{kept(2)}, Subtotal: 2}},
		},
		{
			name: "UnaryMinusOfSum", expr: "-(d4+1)", faces: []int{2},
			normalized: "-(d4 + 1)", total: -3, min: -5, max: -2,
			groups: []dice.Group{{Notation: "d4", Sides: 4, Dice: []dice.Die{kept(2)}, Subtotal: 2}},
		},
		{
			name: "UnarySigns", expr: "2--+3", normalized: "2 - -3", total: 5, min: 5, max: 5, groups: []dice.Group{},
		},
		{
			name: "GroupsInOrderOfAppearance", expr: "d4 + d6 * d8", faces: []int{1, 2, 3},
			normalized: "d4 + d6 * d8", total: 7, min: 2, max: 52,
			groups: []dice.Group{
				{Notation: "d4", Sides: 4, Dice: []dice.Die{kept(1)}, Subtotal: 1},
				{Notation: "d6", Sides: 6, Dice: []dice.Die{kept(2)}, Subtotal: 2},
				{Notation: "d8", Sides: 8, Dice: []dice.Die{kept(3)}, Subtotal: 3},
			},
		},
		{
			name: "WhitespaceAndCase", expr: " \t1D20 +\n3 ", faces: []int{11},
			normalized: "d20 + 3", total: 14, min: 4, max: 23,
			groups: []dice.Group{{Notation: "d20", Sides: 20, Dice: []dice.Die{kept(11)}, Subtotal: 11}},
		},
		{
			name: "D1", expr: "d1", faces: []int{1},
			normalized: "d1", total: 1, min: 1, max: 1,
			groups: []dice.Group{{Notation: "d1", Sides: 1, Dice: []dice.Die{kept(1)}, Subtotal: 1}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := dice.Parse(tt.expr, tt.lim)
			if err != nil {
				t.Fatalf("Parse(%q): %v", tt.expr, err)
			}
			src := dice.Faces(tt.faces...)
			got, err := e.Roll(src)
			if err != nil {
				t.Fatalf("Roll(%q): %v", tt.expr, err)
			}
			want := dice.Result{
				Formula: trimmed(tt.expr), Normalized: tt.normalized, Groups: tt.groups,
				Total: tt.total, Min: tt.min, Max: tt.max,
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Roll(%q) (-want +got):\n%s", tt.expr, diff)
			}
			if src.Remaining() != 0 {
				t.Errorf("Roll(%q) left %d faces unused", tt.expr, src.Remaining())
			}
			if lo, hi := e.Range(); lo != tt.min || hi != tt.max {
				t.Errorf("Range(%q) = %d, %d; want %d, %d", tt.expr, lo, hi, tt.min, tt.max)
			}
			if e.Normalized() != tt.normalized {
				t.Errorf("Normalized(%q) = %q, want %q", tt.expr, e.Normalized(), tt.normalized)
			}
		})
	}
}

func trimmed(s string) string {
	// Mirrors strings.TrimSpace for the ASCII whitespace used above.
	for len(s) > 0 && (s[0] == ' ' || s[0] == '\t' || s[0] == '\n') {
		s = s[1:]
	}
	for len(s) > 0 && (s[len(s)-1] == ' ' || s[len(s)-1] == '\t' || s[len(s)-1] == '\n') {
		s = s[:len(s)-1]
	}
	return s
}

func TestDiceCount(t *testing.T) {
	tests := []struct {
		expr string
		want int
	}{
		{"5", 0},
		{"d20", 1},
		{"2d20kh1 + 5", 2},
		{"4d6! + 3dF - d%", 8},
		{"(2d6ro<2 + 1) * 2d4r1", 4},
	}
	for _, tt := range tests {
		e, err := dice.Parse(tt.expr, dice.DefaultLimits)
		if err != nil {
			t.Fatalf("Parse(%q): %v", tt.expr, err)
		}
		if got := e.DiceCount(); got != tt.want {
			t.Errorf("DiceCount(%q) = %d, want %d", tt.expr, got, tt.want)
		}
	}
}

func TestRollConvenience(t *testing.T) {
	r, err := dice.Roll("2d20kh1 + 5", dice.Faces(3, 9))
	if err != nil {
		t.Fatal(err)
	}
	if r.Total != 14 || r.Formula != "2d20kh1 + 5" || r.Min != 6 || r.Max != 25 {
		t.Fatalf("got %+v", r)
	}
}

func TestRollNilSourceIsCrypto(t *testing.T) {
	e, err := dice.Parse("10d6", dice.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	r, err := e.Roll(nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Total < 10 || r.Total > 60 {
		t.Fatalf("got total %d, want 10..60", r.Total)
	}
}

// The JSON field names are wire contract for the web app and MCP tools.
func TestResultJSON(t *testing.T) {
	r, err := dice.Roll("2d6ro1!kh1 + 1", dice.Faces(1, 6, 2, 3))
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"formula":"2d6ro1!kh1 + 1","normalized":"2d6ro1!kh1 + 1","groups":[{"notation":"2d6ro1!kh1","sides":6,"dice":[` +
		`{"value":1,"kept":false,"rerolled":true},{"value":6,"kept":true,"exploded":true},{"value":2,"kept":false,"dropped":true},` +
		`{"value":3,"kept":false,"dropped":true}],"subtotal":6}],"total":7,"min":2,"max":7}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
	b, err = json.Marshal(dice.Group{Notation: "dF", Sides: 3, Fudge: true, Dice: []dice.Die{kept(0)}})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"notation":"dF","sides":3,"fudge":true,"dice":[{"value":0,"kept":true}],"subtotal":0}`; string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
}

// An Expr is shared by concurrent requests; only its Source is per call.
func TestExprConcurrentRoll(t *testing.T) {
	e, err := dice.Parse("4d6!kh3 + 2d20kl1 - d4", dice.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	lo, hi := e.Range()
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 50 {
				r, err := e.Roll(dice.Crypto)
				if err != nil {
					t.Error(err)
					return
				}
				if r.Total < lo || r.Total > hi {
					t.Errorf("total %d outside %d..%d", r.Total, lo, hi)
				}
			}
		})
	}
	wg.Wait()
}
