package dice_test

import (
	"strings"
	"testing"

	"github.com/adventure-table/adventure-table/gameplay/dice"
)

// odometer is a Source that walks every sequence of faces a roll can ask
// for, depth first: each run replays a path, extends it with 1s, and next
// moves to the following path.
type odometer struct {
	t     *testing.T
	faces []int
	sides []int
	pos   int
}

func (o *odometer) Roll(sides int) (int, error) {
	if o.pos == len(o.faces) {
		o.faces, o.sides = append(o.faces, 1), append(o.sides, sides)
	} else if o.sides[o.pos] != sides {
		// The same faces must lead to the same questions.
		o.t.Fatalf("replay asked for a d%d at step %d, first run asked for a d%d", sides, o.pos, o.sides[o.pos])
	}
	o.pos++
	return o.faces[o.pos-1], nil
}

func (o *odometer) next() bool {
	o.faces, o.sides = o.faces[:o.pos], o.sides[:o.pos]
	o.pos = 0
	for i := len(o.faces) - 1; i >= 0; i-- {
		if o.faces[i] < o.sides[i] {
			o.faces[i]++
			o.faces, o.sides = o.faces[:i+1], o.sides[:i+1]
			return true
		}
	}
	return false
}

// TestRangeIsExact rolls every possible sequence of faces for small
// expressions and checks that Range reports exactly the lowest and highest
// totals seen, and that every result is consistent.
func TestRangeIsExact(t *testing.T) {
	lim := dice.Limits{MaxExplosionDepth: 2}
	for _, expr := range []string{
		"d6", "d%", "3d4", "3d4kh2", "3d4kl2", "3d4dh1", "3d4dl1", "3d4dl5", "2d4kh5",
		"2d3!", "2d3!kh1", "2d3!kl1", "2d3!kl3", "2d3!kh4", "2d3!dh1", "2d3!dl1", "2d3!dl2", "2d3!dh5",
		"d4r<2", "2d4r1", "d4r4", "d4r2", "d4r>3", "d4r>2", "d4ro<2", "d4ro>2", "2d4ro1!kh1", "d4!r1",
		"d4!ro4", "d3!r<1", "2d3r<1!kl2", "d3r2!", "2d4ro>4!dl1",
		"4dF", "2dFkh1", "3dFdl1", "3dFdh2",
		"(d4 - 2) * d3", "d6 / (d2 + 1)", "-d4 / 2", "(d3 - 2) * (d3 - 2)", "d4 * -d3", "10 / -d3",
		"(2d3 - 4) / (d2 + 1)", "dF * d3 - 2", "-(d3!) / 2", "(dF - 3) / (d2 * -1)",
	} {
		t.Run(expr, func(t *testing.T) {
			e, err := dice.Parse(expr, lim)
			if err != nil {
				t.Fatal(err)
			}
			lo, hi := e.Range()
			seenLo, seenHi, runs := int(^uint(0)>>1), -int(^uint(0)>>1)-1, 0
			o := &odometer{t: t}
			for {
				r, err := e.Roll(o)
				if err != nil {
					t.Fatal(err)
				}
				checkResult(t, r, e.DiceCount())
				seenLo, seenHi = min(seenLo, r.Total), max(seenHi, r.Total)
				if runs++; runs > 2_000_000 {
					t.Fatal("too many outcomes; shrink the expression")
				}
				if !o.next() {
					break
				}
			}
			if seenLo != lo || seenHi != hi {
				t.Errorf("Range() = %d, %d; all %d outcomes span %d, %d", lo, hi, runs, seenLo, seenHi)
			}
		})
	}
}

// checkResult checks the invariants of a result: marks are consistent, the
// subtotal is the sum of kept dice, the original dice are all there.
func checkResult(t *testing.T, r dice.Result, diceCount int) {
	t.Helper()
	if r.Total < r.Min || r.Total > r.Max {
		t.Fatalf("%s: total %d outside %d..%d", r.Normalized, r.Total, r.Min, r.Max)
	}
	settled := 0
	for _, g := range r.Groups {
		sum, exploded := 0, 0
		for _, d := range g.Dice {
			switch {
			case d.Rerolled && (d.Kept || d.Dropped || d.Exploded):
				t.Fatalf("%s: rerolled die %+v has other marks", g.Notation, d)
			case !d.Rerolled && d.Kept == d.Dropped:
				t.Fatalf("%s: die %+v must be either kept or dropped", g.Notation, d)
			case d.Exploded && d.Value != g.Sides:
				t.Fatalf("%s: die %+v exploded below the top face", g.Notation, d)
			case g.Fudge && (d.Value < -1 || d.Value > 1), !g.Fudge && (d.Value < 1 || d.Value > g.Sides):
				t.Fatalf("%s: die %+v off the die", g.Notation, d)
			}
			if d.Kept {
				sum += d.Value
			}
			if d.Exploded {
				exploded++
			}
			if !d.Rerolled {
				settled++
			}
		}
		if sum != g.Subtotal {
			t.Fatalf("%s: subtotal %d, kept dice sum to %d", g.Notation, g.Subtotal, sum)
		}
		settled -= exploded // each explosion added one settled die
	}
	if settled != diceCount {
		t.Fatalf("%s: %d original dice, DiceCount says %d", r.Normalized, settled, diceCount)
	}
}

// adversary answers every question with the worst face for the roller's
// work: a face to reroll for a full die, the top allowed face otherwise.
type adversary struct{ calls int }

func (a *adversary) Roll(sides int) (int, error) {
	a.calls++
	if sides == 1000 {
		return 1, nil
	}
	return sides, nil
}

// TestWorstCaseIsBounded: with every die rerolled to the bound and exploding
// to the depth, the work is at most 500 dice (explosions counted) × 21
// draws — here 23 dice × 21 chained × 21 — and the total is the maximum
// Range promised. One more exploding die is refused.
func TestWorstCaseIsBounded(t *testing.T) {
	if _, err := dice.Parse("24d1000r<998!", dice.DefaultLimits); err == nil || !strings.Contains(err.Error(), "dice_explosion_too_deep") {
		t.Fatalf("24 exploding dice: got %v, want dice_explosion_too_deep", err)
	}
	expr := "20d1000r<998!" + " + 3d1000r<998!"
	e, err := dice.Parse(expr, dice.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	a := &adversary{}
	r, err := e.Roll(a)
	if err != nil {
		t.Fatal(err)
	}
	if want := 23 * 21 * 21; a.calls != want {
		t.Errorf("got %d draws, want %d", a.calls, want)
	}
	if _, hi := e.Range(); r.Total != hi || hi != 23*21*1000 {
		t.Errorf("got total %d, Range max %d, want %d", r.Total, hi, 23*21*1000)
	}
}
