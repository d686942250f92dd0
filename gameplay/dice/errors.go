package dice

import "github.com/adventure-table/adventure-table/models/apperr"

// The error codes of this package. They are wire contract like every apperr
// code: never rename one. Each error carries machine-readable details: a
// parse error its "position" (a byte offset into the expression as passed),
// a limit error its "limit", a face error the "sides" and "value".
const (
	// CodeInvalidExpression: the expression does not follow the notation,
	// asks for something impossible (d0, kh0, d6r<6, d1!), or holds a number
	// or could reach a total beyond one billion in magnitude. Details:
	// position; also limit (1000000000) for a number or total too large. The
	// magnitude bound keeps every total exact in an int, even where int has
	// 32 bits.
	CodeInvalidExpression apperr.Code = "dice_invalid_expression"
	// CodeExpressionTooLong: longer than Limits.MaxLength bytes after
	// trimming. Details: limit.
	CodeExpressionTooLong apperr.Code = "dice_expression_too_long"
	// CodeTooManyDiceInTerm: one term rolls more than Limits.MaxDicePerTerm
	// dice. Details: limit, position.
	CodeTooManyDiceInTerm apperr.Code = "dice_too_many_dice_in_term"
	// CodeTooManyDice: all terms together roll more than
	// Limits.MaxTotalDice dice. Details: limit, position.
	CodeTooManyDice apperr.Code = "dice_too_many_dice"
	// CodeTooManySides: a die has more than Limits.MaxSides sides. Details:
	// limit, position.
	CodeTooManySides apperr.Code = "dice_too_many_sides"
	// CodeExplosionTooDeep: counting every die explosions could add (up to
	// Limits.MaxExplosionDepth per die), the expression could roll more than
	// Limits.MaxTotalDice dice. Details: limit, depth, position.
	CodeExplosionTooDeep apperr.Code = "dice_explosion_too_deep"
	// CodeDivisionByZero: a divisor can be zero for some roll. Details:
	// position (of the '/').
	CodeDivisionByZero apperr.Code = "dice_division_by_zero"
	// CodeFaceInvalid: a given face is outside 1..sides. Details: sides,
	// value, index (0-based position in the given faces).
	CodeFaceInvalid apperr.Code = "dice_face_invalid"
	// CodeFacesMissing: the given faces ran out before the roll finished.
	// Details: used (how many were consumed).
	CodeFacesMissing apperr.Code = "dice_faces_missing"
)

// Codes returns every error code this package returns, for the apperr
// registry and the edges' message maps.
func Codes() []apperr.Code {
	return []apperr.Code{
		CodeInvalidExpression,
		CodeExpressionTooLong,
		CodeTooManyDiceInTerm,
		CodeTooManyDice,
		CodeTooManySides,
		CodeExplosionTooDeep,
		CodeDivisionByZero,
		CodeFaceInvalid,
		CodeFacesMissing,
	}
}
