package dice

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/adventure-table/adventure-table/models/apperr"
)

// Limits bound what one expression may ask for, so that a player or an AI
// agent cannot make the server roll without end. A field that is zero (or
// negative) takes its value from DefaultLimits.
type Limits struct {
	MaxLength         int // bytes of the trimmed expression
	MaxDicePerTerm    int // N in one NdM term
	MaxTotalDice      int // sum of N over all terms, before explosions and rerolls
	MaxSides          int // M in NdM
	MaxExplosionDepth int // extra dice one die may explode into; also the reroll bound per die
}

// DefaultLimits are the limits of Roll. The anchors allow 999–1000 sides and
// dice; an expression at these limits still rolls in well under a second.
var DefaultLimits = Limits{MaxLength: 200, MaxDicePerTerm: 100, MaxTotalDice: 500, MaxSides: 1000, MaxExplosionDepth: 20}

func (l Limits) withDefaults() Limits {
	if l.MaxLength <= 0 {
		l.MaxLength = DefaultLimits.MaxLength
	}
	if l.MaxDicePerTerm <= 0 {
		l.MaxDicePerTerm = DefaultLimits.MaxDicePerTerm
	}
	if l.MaxTotalDice <= 0 {
		l.MaxTotalDice = DefaultLimits.MaxTotalDice
	}
	if l.MaxSides <= 0 {
		l.MaxSides = DefaultLimits.MaxSides
	}
	if l.MaxExplosionDepth <= 0 {
		l.MaxExplosionDepth = DefaultLimits.MaxExplosionDepth
	}
	return l
}

const (
	// maxMagnitude bounds every number and every total an expression can
	// reach, so products of two bounded values fit in an int64 and results
	// fit in an int even where int has 32 bits.
	maxMagnitude = 1_000_000_000
	// maxNesting bounds parentheses depth, so that a caller raising
	// MaxLength cannot make the recursive parser dig arbitrarily deep.
	maxNesting = 100
)

// Parse parses expr under lim. Returns dice_expression_too_long,
// dice_invalid_expression, dice_too_many_dice_in_term, dice_too_many_dice,
// dice_too_many_sides or dice_division_by_zero, each
// an *apperr.Error whose "position" detail is a byte offset into expr.
func Parse(expr string, lim Limits) (*Expr, error) {
	lim = lim.withDefaults()
	lead := len(expr) - len(strings.TrimLeftFunc(expr, unicode.IsSpace))
	s := strings.TrimSpace(expr)
	if len(s) > lim.MaxLength {
		return nil, apperr.E(CodeExpressionTooLong, "Dice expression is too long: %d characters, the limit is %d.", len(s), lim.MaxLength).
			WithDetail("limit", lim.MaxLength)
	}
	p := &parser{s: s, off: lead, lim: lim}
	if s == "" {
		return nil, p.invalid(0, "it is empty")
	}
	root, err := p.parseSum()
	if err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.pos < len(p.s) {
		return nil, p.unexpected()
	}
	var b strings.Builder
	root.write(&b)
	return &Expr{formula: s, root: root, normalized: b.String(), dice: p.dice}, nil
}

type parser struct {
	s    string // the trimmed expression
	off  int    // offset of s in the expression as passed
	pos  int
	lim  Limits
	dice int // dice so far, for MaxTotalDice
	// exploding counts the extra dice explosions could add, so that
	// dice+exploding stays within MaxTotalDice.
	exploding int
	depth     int // open parentheses
}

func (p *parser) invalid(pos int, format string, args ...any) *apperr.Error {
	return apperr.E(CodeInvalidExpression, "Dice expression %q is not valid at position %d: %s.", p.s, p.off+pos, fmt.Sprintf(format, args...)).
		WithDetail("position", p.off+pos)
}

func (p *parser) limit(code apperr.Code, pos, limit int, format string, args ...any) *apperr.Error {
	return apperr.E(code, format, args...).WithDetail("limit", limit).WithDetail("position", p.off+pos)
}

func (p *parser) unexpected() *apperr.Error {
	if p.pos >= len(p.s) {
		return p.invalid(p.pos, "it ends too early")
	}
	r, _ := utf8.DecodeRuneInString(p.s[p.pos:])
	return p.invalid(p.pos, "unexpected %q", r)
}

func (p *parser) skipSpace() {
	for p.pos < len(p.s) {
		switch p.s[p.pos] {
		case ' ', '\t', '\n', '\r', '\v', '\f':
			p.pos++
		default:
			return
		}
	}
}

// peek returns the next byte, lower-cased, or 0 at the end.
func (p *parser) peek() byte {
	if p.pos >= len(p.s) {
		return 0
	}
	c := p.s[p.pos]
	if 'A' <= c && c <= 'Z' {
		c += 'a' - 'A'
	}
	return c
}

// parseSum parses term { (+|-) term }.
func (p *parser) parseSum() (*node, error) {
	left, err := p.parseProduct()
	if err != nil {
		return nil, err
	}
	for {
		p.skipSpace()
		op := p.peek()
		if op != '+' && op != '-' {
			return left, nil
		}
		opPos := p.pos
		p.pos++
		right, err := p.parseProduct()
		if err != nil {
			return nil, err
		}
		if left, err = p.binary(op, opPos, left, right); err != nil {
			return nil, err
		}
	}
}

// parseProduct parses unary { (*|/) unary }.
func (p *parser) parseProduct() (*node, error) {
	left, err := p.parseUnary()
	if err != nil {
		return nil, err
	}
	for {
		p.skipSpace()
		op := p.peek()
		if op != '*' && op != '/' {
			return left, nil
		}
		opPos := p.pos
		p.pos++
		right, err := p.parseUnary()
		if err != nil {
			return nil, err
		}
		if left, err = p.binary(op, opPos, left, right); err != nil {
			return nil, err
		}
	}
}

// parseUnary parses { - | + } primary. It loops rather than recurses, so a
// run of signs costs no stack.
func (p *parser) parseUnary() (*node, error) {
	minus := 0
	for {
		p.skipSpace()
		c := p.peek()
		if c == '-' {
			minus++
		} else if c != '+' {
			break
		}
		p.pos++
	}
	n, err := p.parsePrimary()
	if err != nil {
		return nil, err
	}
	for range minus {
		n = &node{kind: negNode, left: n, min: -n.max, max: -n.min}
	}
	return n, nil
}

func (p *parser) parsePrimary() (*node, error) {
	p.skipSpace()
	switch c := p.peek(); {
	case c == '(':
		if p.depth++; p.depth > maxNesting {
			return nil, p.invalid(p.pos, "parentheses nest deeper than %d", maxNesting)
		}
		p.pos++
		n, err := p.parseSum()
		if err != nil {
			return nil, err
		}
		p.skipSpace()
		if p.peek() != ')' {
			if p.pos >= len(p.s) {
				return nil, p.invalid(p.pos, "a ')' is missing")
			}
			return nil, p.unexpected()
		}
		p.pos++
		p.depth--
		return n, nil
	case isDigit(c) || c == 'd':
		start := p.pos
		v, has, err := p.number()
		if err != nil {
			return nil, err
		}
		if p.peek() == 'd' {
			return p.parseDice(start, v, has)
		}
		return &node{kind: numNode, value: v, min: v, max: v}, nil
	default:
		return nil, p.unexpected()
	}
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// number reads an optional unsigned decimal number.
func (p *parser) number() (v int, has bool, err error) {
	start := p.pos
	for p.pos < len(p.s) && isDigit(p.s[p.pos]) {
		if v <= maxMagnitude { // stop growing once too large: no overflow
			v = v*10 + int(p.s[p.pos]-'0')
		}
		p.pos++
	}
	if v > maxMagnitude {
		return 0, true, p.limit(CodeInvalidExpression, start, maxMagnitude, "The number %s in a dice expression is too large; the limit is %d.", p.s[start:p.pos], maxMagnitude)
	}
	return v, p.pos > start, nil
}

// parseDice parses the rest of a dice term; p.pos is at the 'd'.
func (p *parser) parseDice(start, count int, hasCount bool) (*node, error) {
	if !hasCount {
		count = 1
	}
	if count < 1 {
		return nil, p.invalid(start, "a dice term needs at least one die")
	}
	if count > p.lim.MaxDicePerTerm {
		return nil, p.limit(CodeTooManyDiceInTerm, start, p.lim.MaxDicePerTerm, "A dice term may roll at most %d dice; %d were asked.", p.lim.MaxDicePerTerm, count)
	}
	if p.dice += count; p.dice > p.lim.MaxTotalDice {
		return nil, p.limit(CodeTooManyDice, start, p.lim.MaxTotalDice, "A dice expression may roll at most %d dice in all.", p.lim.MaxTotalDice)
	}
	t := &term{count: count, depth: p.lim.MaxExplosionDepth}
	p.pos++ // the 'd'
	switch c := p.peek(); {
	case c == '%':
		t.sides, t.percent = 100, true
		p.pos++
	case c == 'f':
		t.sides, t.fudge = 3, true
		p.pos++
	case isDigit(c):
		sidesPos := p.pos
		v, _, err := p.number()
		if err != nil {
			return nil, err
		}
		if v < 1 {
			return nil, p.invalid(sidesPos, "a die needs at least one side")
		}
		if v > p.lim.MaxSides {
			return nil, p.limit(CodeTooManySides, sidesPos, p.lim.MaxSides, "A die may have at most %d sides; %d were asked.", p.lim.MaxSides, v)
		}
		t.sides = v
	default:
		return nil, p.invalid(p.pos, "the number of sides, %% or F must follow 'd'")
	}
	if err := p.parseModifiers(t); err != nil {
		return nil, err
	}
	// Explosions are the one way an expression rolls more dice than it
	// names. Counting every die the chains could add, the expression must
	// still fit in MaxTotalDice; past that the explosion depth is the limit
	// that was exceeded.
	if t.explode {
		p.exploding += count * t.depth
	}
	if p.dice+p.exploding > p.lim.MaxTotalDice {
		return nil, p.limit(CodeExplosionTooDeep, start, p.lim.MaxTotalDice,
			"With every explosion (up to %d per die) this expression could roll %d dice; at most %d are allowed.",
			t.depth, p.dice+p.exploding, p.lim.MaxTotalDice).WithDetail("depth", t.depth)
	}
	t.notation = t.String()
	n := &node{kind: diceNode, dice: t}
	lo, hi, ok := t.bounds()
	if !ok || lo < -maxMagnitude || hi > maxMagnitude {
		return nil, p.limit(CodeInvalidExpression, start, maxMagnitude, "The dice term %s could total more than %d.", t.notation, maxMagnitude)
	}
	n.min, n.max = int(lo), int(hi)
	return n, nil
}

// parseModifiers reads keep/drop, reroll and explode modifiers in any order
// and rejects combinations that cannot roll sensibly.
func (p *parser) parseModifiers(t *term) error {
	keepPos, rerollPos, explodePos := -1, -1, -1
	for {
		pos := p.pos
		switch p.peek() {
		case 'k', 'd':
			drop := p.peek() == 'd'
			high := !drop // k keeps the highest, d drops the lowest
			p.pos++
			switch p.peek() {
			case 'h':
				high = true
				p.pos++
			case 'l':
				high = false
				p.pos++
			default:
				if drop && !isDigit(p.peek()) {
					return p.invalid(p.pos, "h, l or a number must follow 'd' after a die")
				}
			}
			if keepPos >= 0 {
				return p.invalid(pos, "a dice term takes one keep or drop modifier")
			}
			numPos := p.pos
			n, has, err := p.number()
			if err != nil {
				return err
			}
			if !has {
				n = 1
			}
			if n < 1 {
				return p.invalid(numPos, "keep or drop at least one die")
			}
			keepPos, t.keep = pos, keepRule{drop: drop, high: high, n: n}
		case 'r':
			p.pos++
			once := p.peek() == 'o'
			if once {
				p.pos++
			}
			cmp := cmpEq
			switch p.peek() {
			case '<':
				cmp = cmpLE
				p.pos++
			case '>':
				cmp = cmpGE
				p.pos++
			}
			if rerollPos >= 0 {
				return p.invalid(pos, "a dice term takes one reroll modifier")
			}
			numPos := p.pos
			n, has, err := p.number()
			if err != nil {
				return err
			}
			if !has {
				return p.invalid(p.pos, "a number must follow the reroll modifier")
			}
			t.reroll = reroll{cmp: cmp, n: n, once: once}
			if t.fudge {
				return p.invalid(pos, "Fudge dice cannot be rerolled")
			}
			switch allowed := t.reroll.allowedCount(t.sides); {
			case allowed == t.sides:
				return p.invalid(numPos, "the reroll condition matches no face of a d%d", t.sides)
			case allowed == 0:
				return p.invalid(numPos, "the reroll condition matches every face of a d%d", t.sides)
			}
			rerollPos = pos
		case '!':
			if explodePos >= 0 {
				return p.invalid(pos, "a dice term takes one '!'")
			}
			if t.fudge {
				return p.invalid(pos, "Fudge dice cannot explode")
			}
			p.pos++
			explodePos, t.explode = pos, true
		default:
			if t.explode {
				lo, hi := t.settledRange()
				switch {
				case hi < t.sides:
					return p.invalid(explodePos, "the die never shows %d, so it cannot explode", t.sides)
				case lo == t.sides:
					return p.invalid(explodePos, "the die always shows %d, so it would explode every time", t.sides)
				}
			}
			return nil
		}
	}
}

// binary builds a binary node and its exact range; see Range.
func (p *parser) binary(op byte, opPos int, l, r *node) (*node, error) {
	n := &node{kind: binNode, op: op, left: l, right: r}
	var lo, hi int64
	switch op {
	case '+':
		lo, hi = int64(l.min)+int64(r.min), int64(l.max)+int64(r.max)
	case '-':
		lo, hi = int64(l.min)-int64(r.max), int64(l.max)-int64(r.min)
	case '*', '/':
		if op == '/' && r.min <= 0 && r.max >= 0 {
			return nil, apperr.E(CodeDivisionByZero, "Dice expression %q can divide by zero at position %d.", p.s, p.off+opPos).
				WithDetail("position", p.off+opPos)
		}
		// Both operations are monotone in each operand over a divisor range
		// of one sign, and the operands roll independently, so the extremes
		// are at the corners. Operands are within ±1e9: no int64 overflow.
		lo, hi = 1<<62, -1<<62
		for _, a := range [2]int64{int64(l.min), int64(l.max)} {
			for _, b := range [2]int64{int64(r.min), int64(r.max)} {
				v := a * b
				if op == '/' {
					v = floorDiv(a, b)
				}
				lo, hi = min(lo, v), max(hi, v)
			}
		}
	}
	if lo < -maxMagnitude || hi > maxMagnitude {
		return nil, p.limit(CodeInvalidExpression, opPos, maxMagnitude, "Dice expression %q could reach a total beyond %d in magnitude.", p.s, maxMagnitude)
	}
	n.min, n.max = int(lo), int(hi)
	return n, nil
}

// floorDiv divides rounding toward negative infinity; Go's / truncates.
func floorDiv[T int | int64](a, b T) T {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}
