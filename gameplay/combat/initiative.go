package combat

import (
	"cmp"
	"slices"

	"github.com/adventure-table/adventure-table/gameplay/dice"
)

// Initiative is a combatant's initiative: the total that orders the
// encounter, the roll behind it, and roll-off d20s that broke a tie.
type Initiative struct {
	Total   int         `json:"total"`
	Natural int         `json:"natural"` // the d20 face that counted
	Roll    dice.Result `json:"roll"`    // the audit: formula, every die
	// RollOff holds the d20s of tie roll-offs, in order; compared face by
	// face, higher first.
	RollOff []int `json:"roll_off,omitempty"`
}

// RollInitiative rolls c's initiative: a d20 (two with advantage or
// disadvantage) plus c.InitiativeBonus. Physical dice are entered by
// passing dice.Faces(the faces rolled), one face, or two for advantage or
// disadvantage. Returns the dice engine's errors (dice_faces_missing,
// dice_face_invalid for entered faces).
func RollInitiative(c Combatant, src dice.Source) (Initiative, error) {
	r, nat, err := d20(c.Advantage, c.Disadvantage, c.InitiativeBonus, src)
	if err != nil {
		return Initiative{}, err
	}
	return Initiative{Total: r.Total, Natural: nat, Roll: r}, nil
}

// compareOrder orders a before b (negative) when a acts first: higher
// total, then higher bonus, then higher roll-off faces. Roll-offs of
// different length compare on their common part; undecided pairs are
// ranked by ID so the order is a function of the values.
func compareOrder(a, b Combatant) int {
	if c := tieOrder(a, b); c != 0 {
		return c
	}
	return cmp.Compare(a.ID, b.ID)
}

// tieOrder is compareOrder without the ID: 0 means the rules have not
// decided between a and b yet.
func tieOrder(a, b Combatant) int {
	ai, bi := a.Initiative, b.Initiative
	switch {
	case ai == nil && bi == nil:
		return 0
	case ai == nil:
		return 1 // not rolled yet: last
	case bi == nil:
		return -1
	}
	if c := cmp.Compare(bi.Total, ai.Total); c != 0 {
		return c
	}
	if c := cmp.Compare(b.InitiativeBonus, a.InitiativeBonus); c != 0 {
		return c
	}
	for i := range min(len(ai.RollOff), len(bi.RollOff)) {
		if c := cmp.Compare(bi.RollOff[i], ai.RollOff[i]); c != 0 {
			return c
		}
	}
	return 0
}

// maxRollOffs bounds roll-off rounds; with a fair d20 ties vanish long
// before, and a source that repeats one face forever still terminates
// (the remaining tie is then ordered by ID).
const maxRollOffs = 50

// breakTies sorts cs into initiative order, rolling off d20s (through the
// dice engine) among combatants the total and bonus leave tied, and again
// among those the roll-off leaves tied. A combatant joining a decided group
// rolls until it is placed; the others roll only when they tie with it on
// every face so far. cs is sorted in place; its initiatives must be clones.
func breakTies(cs []Combatant, src dice.Source) error {
	for range maxRollOffs {
		slices.SortStableFunc(cs, compareOrder)
		roll := make([]bool, len(cs))
		any := false
		for i := 1; i < len(cs); i++ {
			a, b := cs[i-1], cs[i]
			if a.Initiative == nil || b.Initiative == nil || tieOrder(a, b) != 0 {
				continue
			}
			la, lb := len(a.Initiative.RollOff), len(b.Initiative.RollOff)
			roll[i-1] = roll[i-1] || la <= lb
			roll[i] = roll[i] || lb <= la
			any = true
		}
		if !any {
			return nil
		}
		for i, c := range cs {
			if !roll[i] {
				continue
			}
			r, err := dice.Roll("1d20", src)
			if err != nil {
				return err
			}
			c.Initiative.RollOff = append(c.Initiative.RollOff, r.Total)
		}
	}
	slices.SortStableFunc(cs, compareOrder)
	return nil
}
