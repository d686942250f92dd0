package dice

import (
	"crypto/rand"
	"fmt"
	"math/big"

	"github.com/adventure-table/adventure-table/models/apperr"
)

// Source yields die faces. Roll returns a face in 1..sides, each face equally
// likely. Rollers never trust a Source: a face outside 1..sides fails the roll.
type Source interface {
	Roll(sides int) (int, error)
}

// Crypto is the production source: faces come from crypto/rand and are
// exactly uniform. It is safe for concurrent use.
var Crypto Source = cryptoSource{}

type cryptoSource struct{}

// Roll returns a uniform face in 1..sides. crypto/rand.Int draws by
// rejection sampling, so there is no modulo bias, whatever sides is.
func (cryptoSource) Roll(sides int) (int, error) {
	if sides < 1 {
		return 0, fmt.Errorf("dice: cannot roll a die with %d sides", sides)
	}
	n, err := rand.Int(rand.Reader, big.NewInt(int64(sides)))
	if err != nil {
		return 0, fmt.Errorf("dice: read crypto/rand: %w", err)
	}
	return int(n.Int64()) + 1, nil
}

// FacesSource hands out given faces in order: the faces of physical dice a
// player rolled at the table, or a script in tests. It is not safe for
// concurrent use.
type FacesSource struct {
	values []int
	next   int
}

// Faces returns a source that hands out values in order. The slice is copied.
func Faces(values ...int) *FacesSource {
	return &FacesSource{values: append([]int(nil), values...)}
}

// Roll returns the next given face. Returns dice_face_invalid when it is
// outside 1..sides (the face is not consumed, so Used tells which one was
// wrong) and dice_faces_missing when none is left.
func (f *FacesSource) Roll(sides int) (int, error) {
	if f.next >= len(f.values) {
		return 0, apperr.E(CodeFacesMissing, "More dice are needed: %d faces were given and all are used.", len(f.values)).
			WithDetail("used", f.next)
	}
	v := f.values[f.next]
	if v < 1 || v > sides {
		return 0, apperr.E(CodeFaceInvalid, "Face %d is not on a %d-sided die.", v, sides).
			WithDetail("sides", sides).WithDetail("value", v).WithDetail("index", f.next)
	}
	f.next++
	return v, nil
}

// Used reports how many faces were consumed.
func (f *FacesSource) Used() int { return f.next }

// Remaining reports how many faces are left.
func (f *FacesSource) Remaining() int { return len(f.values) - f.next }
