// Package dice parses and rolls dice notation as players know it from
// Roll20, Foundry VTT and Avrae. It is pure: the only input besides the
// expression is the Source of faces, so rolls are deterministic in tests and
// physical dice can be entered face by face.
//
// # Notation
//
// An expression combines integer constants and dice terms with + - * /,
// unary minus (and plus), and parentheses; whitespace may stand between any
// of these, but a dice term is written without spaces. Letters are
// case-insensitive.
//
//	NdM      N dice with M sides; N defaults to 1 (d20 = 1d20). N is 1..MaxDicePerTerm,
//	         M is 1..MaxSides (a d1 is allowed; it always shows 1).
//	Nd%      percentile dice, 1..100 (not Avrae's tens die).
//	NdF      Fudge/Fate dice showing -1, 0 or +1.
//
// Modifiers follow the sides, in any order, each kind at most once:
//
//	khN klN  keep the N highest / lowest dice (kN = khN; N defaults to 1).
//	dhN dlN  drop the N highest / lowest dice (dN = dlN; N defaults to 1).
//	rN r<N r>N   reroll a die showing exactly N / N or less / N or more, until it
//	             does not (the comparisons are inclusive, as in Roll20).
//	roN ro<N ro>N  reroll such a die once; the second face stands.
//	!        explode: a die showing its highest face adds another die.
//
// 2d20kh1 is advantage, 2d20kl1 disadvantage, 4d6kh3 an ability score,
// 2d6ro<2 great weapon fighting, 3d6! an exploding pool.
//
// # Semantics
//
// Each die is settled first: rerolls replace it (the replaced faces stay in
// the result, marked Rerolled). A settled die showing the highest face
// explodes when the term has !; the new die is settled the same way and may
// explode again, at most Limits.MaxExplosionDepth extra dice per original
// die. At that depth the chain stops: the last die keeps its face and is not
// marked Exploded. Keep and drop then choose among all settled dice,
// exploded ones included; among equal faces the earlier die is kept. Keeping
// more dice than the pool holds keeps all, dropping more drops all.
//
// A recursive reroll (r) makes at most Limits.MaxExplosionDepth rerolls of a
// die. Ordinary rerolls stop as soon as a face falls outside the condition;
// should the last allowed reroll be reached, its face is drawn uniformly
// from the faces outside the condition (the Source is asked for a die with
// that many sides). Rerolling forever gives exactly that distribution, so
// the bound costs nothing in fairness and the minimum of d6r<2 really is 3.
//
// Division is integer division rounding down (toward negative infinity), the
// D&D convention for halving: 7/2 = 3 and -7/2 = -4. A divisor that can be
// zero for some roll is rejected at parse time.
//
// Modifiers that could not end or would do nothing are rejected at parse
// time: rerolling every face (d6r<6), a condition that matches no face
// (d6r7), exploding a die that always (d1!, d6r<5!) or never (d6!r6) shows
// its highest face, rerolling or exploding Fudge dice, keeping or dropping
// zero dice. So are numbers and totals beyond one billion in magnitude.
//
// # Range
//
// Expr.Range is exact: both bounds are totals some roll produces. For dice
// the bounds come from the settled faces and the largest possible pool
// (count × (1 + MaxExplosionDepth) when exploding); for * and / from the
// corners of the operand ranges, since operands roll independently.
package dice

// Roll parses expr with DefaultLimits and rolls it with src.
func Roll(expr string, src Source) (Result, error) {
	e, err := Parse(expr, DefaultLimits)
	if err != nil {
		return Result{}, err
	}
	return e.Roll(src)
}

// Result is one roll of an expression: every die, and the total.
type Result struct {
	Formula    string  `json:"formula"` // as written (trimmed)
	Normalized string  `json:"normalized"`
	Groups     []Group `json:"groups"` // one per dice term, in order of appearance
	Total      int     `json:"total"`
	Min        int     `json:"min"`
	Max        int     `json:"max"`
}

// Group is the roll of one dice term.
type Group struct {
	Notation string `json:"notation"` // canonical, e.g. "2d20kh1", "4dF", "d%"
	Sides    int    `json:"sides"`    // 100 for d%, 3 for dF
	Fudge    bool   `json:"fudge,omitempty"`
	Dice     []Die  `json:"dice"`     // in the order rolled; a reroll or an explosion follows its die
	Subtotal int    `json:"subtotal"` // sum of kept dice values
}

// Die is one face rolled.
type Die struct {
	Value    int  `json:"value"` // face as shown (-1/0/+1 for dF)
	Kept     bool `json:"kept"`
	Dropped  bool `json:"dropped,omitempty"`  // dropped by keep/drop
	Exploded bool `json:"exploded,omitempty"` // showed its highest face and caused the next die
	Rerolled bool `json:"rerolled,omitempty"` // replaced by the die that follows; never kept
}
