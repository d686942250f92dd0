package dice

import "strings"

// D20 is the notation of a d20 test: 2d20kh1 with advantage, 2d20kl1 with
// disadvantage, 1d20 otherwise. Having both cancels them (SRD 5.1: any
// number of sources of each still make a normal roll), so it is 1d20.
func D20(advantage, disadvantage bool) string {
	switch {
	case advantage && !disadvantage:
		return "2d20kh1"
	case disadvantage && !advantage:
		return "2d20kl1"
	}
	return "1d20"
}

// Natural is the face of the d20 that counts in a d20 test rolled from
// D20's notation (plus modifiers): the kept die of the first dice group, or
// 0 when the roll has no dice. Natural 20s and 1s are read from it.
func Natural(r Result) int {
	if len(r.Groups) == 0 {
		return 0
	}
	for _, d := range r.Groups[0].Dice {
		if d.Kept {
			return d.Value
		}
	}
	return 0
}

// Critical returns the expression of a critical hit's damage: every dice
// term rolled twice, every constant once (SRD 5.1: "roll all of the
// attack's damage dice twice and add them together, then add any relevant
// modifiers as normal"). "1d8 + 3" becomes "d8 + d8 + 3"; a term under an
// operator is doubled in place, so "1d10 - 1d4" subtracts both d4s. It is
// parsed under lim, except that the doubled text may be longer than
// lim.MaxLength; a doubled pool beyond the dice limits is refused with the
// usual codes.
func (e *Expr) Critical(lim Limits) (*Expr, error) {
	var b strings.Builder
	e.root.writeCritical(&b)
	lim = lim.withDefaults()
	lim.MaxLength = max(lim.MaxLength, b.Len())
	return Parse(b.String(), lim)
}

// writeCritical prints n like write, with each dice term as "(T + T)",
// which binds like a single term, so no other parentheses are added.
func (n *node) writeCritical(b *strings.Builder) {
	child := func(c *node, paren bool) {
		if paren {
			b.WriteByte('(')
		}
		c.writeCritical(b)
		if paren {
			b.WriteByte(')')
		}
	}
	switch n.kind {
	case numNode:
		n.write(b)
	case diceNode:
		b.WriteString("(" + n.dice.notation + " + " + n.dice.notation + ")")
	case negNode:
		b.WriteByte('-')
		child(n.left, n.left.kind == binNode)
	case binNode:
		p := precedence(n)
		child(n.left, precedence(n.left) < p)
		b.WriteString(" " + string(n.op) + " ")
		child(n.right, precedence(n.right) <= p)
	}
}
