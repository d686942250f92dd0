package combat

import (
	"github.com/adventure-table/adventure-table/gameplay/dice"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// Attack is an attack roll: the attacker's to-hit bonus and whether the
// roll has advantage or disadvantage (both cancel, as in dice.D20).
type Attack struct {
	Bonus        int  `json:"bonus"`
	Advantage    bool `json:"advantage,omitempty"`
	Disadvantage bool `json:"disadvantage,omitempty"`
	// AutoCritical: any hit is a critical hit (a paralyzed or unconscious
	// target within 5 feet; see AttackModes).
	AutoCritical bool `json:"auto_critical,omitempty"`
}

// AttackResult is an attack roll against an armor class. Who may see AC
// (and so Hit) is the event layer's business.
type AttackResult struct {
	Roll     dice.Result `json:"roll"`
	Natural  int         `json:"natural"`
	Total    int         `json:"total"`
	AC       int         `json:"ac"`
	Hit      bool        `json:"hit"`
	Critical bool        `json:"critical,omitempty"`
}

// Hits is the SRD 5.1 rule of an attack: a natural 20 hits whatever the AC
// and is a critical hit, a natural 1 misses whatever the total, otherwise
// the attack hits when the total equals or exceeds the AC.
func Hits(natural, total, ac int) (hit, critical bool) {
	switch natural {
	case 20:
		return true, true
	case 1:
		return false, false
	}
	return total >= ac, false
}

// RollAttack rolls a (d20 + a.Bonus, two d20s with advantage or
// disadvantage) against ac and says whether it hits. Physical dice come in
// as dice.Faces. Returns invalid_request for an AC outside 0..100 and the
// dice engine's errors.
func RollAttack(a Attack, ac int, src dice.Source) (AttackResult, error) {
	if ac < 0 || ac > 100 {
		return AttackResult{}, apperr.E(apperr.InvalidRequest, "Armor class must be 0 to 100.").WithField("ac", "0 to 100")
	}
	r, nat, err := d20(a.Advantage, a.Disadvantage, a.Bonus, src)
	if err != nil {
		return AttackResult{}, err
	}
	hit, crit := Hits(nat, r.Total, ac)
	crit = crit || (hit && a.AutoCritical)
	return AttackResult{Roll: r, Natural: nat, Total: r.Total, AC: ac, Hit: hit, Critical: crit}, nil
}
