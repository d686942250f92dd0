package dice

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Expr is a parsed dice expression. It is immutable and safe for concurrent
// use; only the Source passed to Roll may not be.
type Expr struct {
	formula    string
	normalized string
	root       *node
	dice       int
}

// Normalized returns the canonical spelling: lower-case modifiers in a fixed
// order (reroll, explode, keep/drop) with explicit counts, a count of 1
// omitted, single spaces around binary operators and only the parentheses
// the meaning needs, e.g. "2d20kh1 + 5" for "2D20K+5". Parsing it gives the
// same expression.
func (e *Expr) Normalized() string { return e.normalized }

// Range returns the smallest and largest totals a roll can produce. Both
// are exact: some roll reaches each of them.
func (e *Expr) Range() (min, max int) { return e.root.min, e.root.max }

// DiceCount returns how many dice the expression rolls before explosions
// and rerolls: the faces to ask for when a player enters physical dice.
func (e *Expr) DiceCount() int { return e.dice }

// Roll rolls the expression with src (Crypto when src is nil). Groups follow
// the dice terms from left to right; the source is asked for their faces in
// that order, die by die, each reroll and explosion right after its die.
// For dF the source is asked for a d3 whose faces 1, 2, 3 show -1, 0, +1.
// Errors from src are returned unchanged (dice_faces_missing and
// dice_face_invalid from a FacesSource); a face outside 1..sides from any
// other source is an internal error.
func (e *Expr) Roll(src Source) (Result, error) {
	if src == nil {
		src = Crypto
	}
	r := Result{Formula: e.formula, Normalized: e.normalized, Groups: []Group{}, Min: e.root.min, Max: e.root.max}
	total, err := e.root.eval(src, &r.Groups)
	if err != nil {
		return Result{}, err
	}
	r.Total = total
	return r, nil
}

type nodeKind uint8

const (
	numNode nodeKind = iota
	diceNode
	negNode // unary minus of left
	binNode // left op right
)

type node struct {
	kind        nodeKind
	op          byte // + - * / for binNode
	value       int  // numNode
	dice        *term
	left, right *node
	min, max    int // exact range, computed by the parser
}

func (n *node) eval(src Source, groups *[]Group) (int, error) {
	switch n.kind {
	case numNode:
		return n.value, nil
	case diceNode:
		g, err := n.dice.roll(src)
		if err != nil {
			return 0, err
		}
		*groups = append(*groups, g)
		return g.Subtotal, nil
	case negNode:
		v, err := n.left.eval(src, groups)
		return -v, err
	}
	// Left before right, so groups come out in order of appearance.
	l, err := n.left.eval(src, groups)
	if err != nil {
		return 0, err
	}
	r, err := n.right.eval(src, groups)
	if err != nil {
		return 0, err
	}
	// No overflow: the parser bounded every intermediate range to ±1e9.
	switch n.op {
	case '+':
		return l + r, nil
	case '-':
		return l - r, nil
	case '*':
		return l * r, nil
	default:
		return floorDiv(l, r), nil // the parser proved r != 0
	}
}

func precedence(n *node) int {
	if n.kind != binNode {
		return 3
	}
	if n.op == '+' || n.op == '-' {
		return 1
	}
	return 2
}

// write prints n canonically. A right operand of equal precedence keeps its
// parentheses: 1 - (2 - 3) and 8 / (4 / 2) mean something else without them.
func (n *node) write(b *strings.Builder) {
	switch n.kind {
	case numNode:
		b.WriteString(strconv.Itoa(n.value))
	case diceNode:
		b.WriteString(n.dice.notation)
	case negNode:
		b.WriteByte('-')
		writeChild(b, n.left, n.left.kind == binNode)
	case binNode:
		p := precedence(n)
		writeChild(b, n.left, precedence(n.left) < p)
		b.WriteByte(' ')
		b.WriteByte(n.op)
		b.WriteByte(' ')
		writeChild(b, n.right, precedence(n.right) <= p)
	}
}

func writeChild(b *strings.Builder, n *node, paren bool) {
	if paren {
		b.WriteByte('(')
	}
	n.write(b)
	if paren {
		b.WriteByte(')')
	}
}

// term is one NdM dice term with its modifiers.
type term struct {
	count, sides   int
	percent, fudge bool
	reroll         reroll
	explode        bool
	keep           keepRule
	depth          int // Limits.MaxExplosionDepth: the explosion chain and reroll bound
	notation       string
}

type comparison uint8

const (
	cmpNone comparison = iota
	cmpEq              // rN
	cmpLE              // r<N
	cmpGE              // r>N
)

// reroll is a reroll modifier; the zero value rerolls nothing.
type reroll struct {
	cmp  comparison
	n    int
	once bool
}

func (r reroll) matches(face int) bool {
	switch r.cmp {
	case cmpEq:
		return face == r.n
	case cmpLE:
		return face <= r.n
	case cmpGE:
		return face >= r.n
	}
	return false
}

// allowedCount returns how many faces of a d(sides) the condition leaves alone.
func (r reroll) allowedCount(sides int) int {
	matched := 0
	switch r.cmp {
	case cmpEq:
		if 1 <= r.n && r.n <= sides {
			matched = 1
		}
	case cmpLE:
		matched = min(max(r.n, 0), sides)
	case cmpGE:
		matched = sides - min(max(r.n, 1), sides+1) + 1
	}
	return sides - matched
}

// allowedFace returns the k-th (from 1) face the condition leaves alone. The
// parser guarantees the condition matches some face but not all of them.
func (r reroll) allowedFace(k int) int {
	switch r.cmp {
	case cmpEq:
		if k >= r.n {
			return k + 1
		}
	case cmpLE:
		return r.n + k
	}
	return k
}

// keepRule is a keep or drop modifier; n == 0 keeps every die.
type keepRule struct {
	drop bool // dh/dl rather than kh/kl
	high bool // the highest dice are kept (kh) or dropped (dh)
	n    int
}

// kept returns how many dice are kept from a pool of p.
func (k keepRule) kept(p int64) int64 {
	switch {
	case k.n == 0:
		return p
	case k.drop:
		return max(p-int64(k.n), 0)
	default:
		return min(int64(k.n), p)
	}
}

// settledRange returns the lowest and highest face a die can show once its
// rerolls are done. A recursive reroll always ends on an allowed face; a
// single reroll may land anywhere.
func (t *term) settledRange() (lo, hi int) {
	switch {
	case t.fudge:
		return -1, 1
	case t.reroll.cmp == cmpNone || t.reroll.once:
		return 1, t.sides
	}
	return t.reroll.allowedFace(1), t.reroll.allowedFace(t.reroll.allowedCount(t.sides))
}

// bounds returns the exact range of the term's subtotal, or !ok if it
// overflows int64 (only with absurd caller limits).
//
// Every non-Fudge face is positive, so a bigger pool never lowers what is
// kept: the minimum rolls no explosion and every die at its lowest face.
// The maximum lets every die explode to the full depth with every die on its
// highest face, which also bounds any smaller pool from above. Fudge dice
// never explode, so their pool is fixed.
func (t *term) bounds() (lo, hi int64, ok bool) {
	flo, fhi := t.settledRange()
	pool, top := int64(t.count), int64(fhi)
	if t.explode {
		if pool, ok = mulInt64(pool, int64(t.depth)+1); !ok {
			return 0, 0, false
		}
		top = int64(t.sides)
	}
	if lo, ok = mulInt64(t.keep.kept(int64(t.count)), int64(flo)); !ok {
		return 0, 0, false
	}
	hi, ok = mulInt64(t.keep.kept(pool), top)
	return lo, hi, ok
}

func mulInt64(a, b int64) (int64, bool) {
	if a == 0 || b == 0 {
		return 0, true
	}
	c := a * b
	return c, c/b == a && !(a == -1 && b == -1<<63) && !(b == -1 && a == -1<<63)
}

// String returns the canonical notation of the term.
func (t *term) String() string {
	var b strings.Builder
	if t.count != 1 {
		b.WriteString(strconv.Itoa(t.count))
	}
	b.WriteByte('d')
	switch {
	case t.percent:
		b.WriteByte('%')
	case t.fudge:
		b.WriteByte('F')
	default:
		b.WriteString(strconv.Itoa(t.sides))
	}
	if r := t.reroll; r.cmp != cmpNone {
		b.WriteByte('r')
		if r.once {
			b.WriteByte('o')
		}
		switch r.cmp {
		case cmpLE:
			b.WriteByte('<')
		case cmpGE:
			b.WriteByte('>')
		}
		b.WriteString(strconv.Itoa(r.n))
	}
	if t.explode {
		b.WriteByte('!')
	}
	if k := t.keep; k.n > 0 {
		kind := []byte("kl")
		if k.drop {
			kind[0] = 'd'
		}
		if k.high {
			kind[1] = 'h'
		}
		b.Write(kind)
		b.WriteString(strconv.Itoa(k.n))
	}
	return b.String()
}

func (t *term) roll(src Source) (Group, error) {
	g := Group{Notation: t.notation, Sides: t.sides, Fudge: t.fudge, Dice: make([]Die, 0, t.count)}
	for range t.count {
		for chain := 0; ; chain++ {
			v, err := t.settle(src, &g.Dice)
			if err != nil {
				return Group{}, err
			}
			d := Die{Value: v, Kept: true}
			if t.fudge {
				d.Value = v - 2
			}
			// At the depth limit the chain just stops; the die keeps its
			// face and is not marked, since it caused nothing.
			d.Exploded = t.explode && v == t.sides && chain < t.depth
			g.Dice = append(g.Dice, d)
			if !d.Exploded {
				break
			}
		}
	}
	t.keep.apply(g.Dice)
	for _, d := range g.Dice {
		if d.Kept {
			g.Subtotal += d.Value
		}
	}
	return g, nil
}

// settle rolls one die and its rerolls, appending the rerolled faces to dice,
// and returns the face that stands.
func (t *term) settle(src Source, dice *[]Die) (int, error) {
	v, err := face(src, t.sides)
	if err != nil || t.reroll.cmp == cmpNone {
		return v, err
	}
	bound := t.depth
	if t.reroll.once {
		bound = 1
	}
	for i := 1; i <= bound && t.reroll.matches(v); i++ {
		*dice = append(*dice, Die{Value: v, Rerolled: true})
		if t.reroll.once || i < bound {
			if v, err = face(src, t.sides); err != nil {
				return 0, err
			}
			continue
		}
		// The last allowed reroll of a recursive reroll: draw from the
		// faces the condition leaves alone, which is the distribution of
		// rerolling forever, so the bound neither biases the die nor lets a
		// matching face stand. One such face needs no draw at all.
		k, n := 1, t.reroll.allowedCount(t.sides)
		if n > 1 {
			if k, err = face(src, n); err != nil {
				return 0, err
			}
		}
		v = t.reroll.allowedFace(k)
	}
	return v, nil
}

// face asks src for a face and refuses one outside 1..sides, so that a
// broken Source cannot push a total outside Range.
func face(src Source, sides int) (int, error) {
	v, err := src.Roll(sides)
	if err != nil {
		return 0, err
	}
	if v < 1 || v > sides {
		return 0, fmt.Errorf("dice: source returned face %d for a %d-sided die", v, sides)
	}
	return v, nil
}

// apply marks the dice a keep or drop modifier leaves out. Rerolled faces
// are not candidates. Among equal faces the earlier die is kept.
func (k keepRule) apply(dice []Die) {
	if k.n == 0 {
		return
	}
	idx := make([]int, 0, len(dice))
	for i, d := range dice {
		if !d.Rerolled {
			idx = append(idx, i)
		}
	}
	keepHighest := k.high != k.drop // kh and dl keep the highest
	slices.SortStableFunc(idx, func(a, b int) int {
		if keepHighest {
			return cmp.Compare(dice[b].Value, dice[a].Value)
		}
		return cmp.Compare(dice[a].Value, dice[b].Value)
	})
	for _, i := range idx[k.kept(int64(len(idx))):] {
		dice[i].Kept, dice[i].Dropped = false, true
	}
}
