package combat

import (
	"slices"
	"strings"

	"github.com/adventure-table/adventure-table/gameplay/dice"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// DamageRoll is one part of an attack's damage: its dice notation, its
// damage type, and the roll (with every die twice on a critical hit).
type DamageRoll struct {
	Type     string      `json:"type"`
	Critical bool        `json:"critical,omitempty"`
	Roll     dice.Result `json:"roll"`
	Amount   int         `json:"amount"` // the roll's total, never below 0
}

// RollDamage rolls notation as damage of type typ; on a critical hit every
// damage die is rolled twice and modifiers are added once
// (dice.Expr.Critical). A total below 0 deals 0. Returns the dice engine's
// parse and face errors.
func RollDamage(notation, typ string, critical bool, src dice.Source) (DamageRoll, error) {
	e, err := dice.Parse(notation, dice.DefaultLimits)
	if err != nil {
		return DamageRoll{}, err
	}
	if critical {
		if e, err = e.Critical(dice.DefaultLimits); err != nil {
			return DamageRoll{}, err
		}
	}
	r, err := e.Roll(src)
	if err != nil {
		return DamageRoll{}, err
	}
	return DamageRoll{Type: strings.ToLower(strings.TrimSpace(typ)), Critical: critical, Roll: r, Amount: max(0, r.Total)}, nil
}

// Modified is amount of damage of type typ after d: 0 with immunity, half
// rounded down with resistance, then doubled with vulnerability (SRD 5.1
// order; each applies once however many sources grant it). Never negative.
func (d Defenses) Modified(amount int, typ string) int {
	has := func(list []string) bool {
		return slices.ContainsFunc(list, func(s string) bool { return strings.EqualFold(strings.TrimSpace(s), strings.TrimSpace(typ)) })
	}
	amount = max(0, amount)
	if typ == "" {
		return amount
	}
	if has(d.Immunities) {
		return 0
	}
	if has(d.Resistances) {
		amount /= 2
	}
	if has(d.Vulnerabilities) {
		amount *= 2
	}
	return amount
}

// ApplyDamage takes amount of damage off hp: temporary hit points absorb
// it first, the rest comes off current hit points, never below 0. Overflow
// is the damage left once current hit points reached 0 (what the massive
// damage rule compares with the maximum).
func ApplyDamage(hp HP, amount int) (after HP, overflow int) {
	amount = max(0, amount)
	absorbed := min(hp.Temp, amount)
	hp.Temp -= absorbed
	rest := amount - absorbed
	overflow = max(0, rest-hp.Current)
	hp.Current = max(0, hp.Current-rest)
	return hp, overflow
}

// Damage is the outcome of damage dealt to a combatant.
type Damage struct {
	Before HP `json:"before"`
	After  HP `json:"after"`
	// Taken is the damage after defenses, summed over the parts.
	Taken        int `json:"taken"`
	TempAbsorbed int `json:"temp_absorbed"`
	// DeathSaveFailures counts the failures the damage added to a
	// creature already at 0 hit points (2 for a critical hit).
	DeathSaveFailures int  `json:"death_save_failures,omitempty"`
	Unconscious       bool `json:"unconscious,omitempty"` // dropped to 0 and lives
	InstantDeath      bool `json:"instant_death,omitempty"`
	Died              bool `json:"died,omitempty"`
}

// TakeDamage deals the damage parts (each modified by c's defenses) to c
// with the SRD 5.1 rules: temporary hit points first; at 0 hit points the
// creature falls unconscious and starts dying (death saves reset), unless
// the damage left over equals or exceeds its hit point maximum (instant
// death) or it dies at 0 (DiesAtZero). Damage to a creature already at 0
// hit points is a failed death save (two on a critical hit), or death when
// it equals or exceeds the maximum, and ends its stability; damage its
// temporary hit points absorb entirely never reaches it and is not. A dead
// combatant takes no damage. Returns the new combatant and what happened.
func TakeDamage(c Combatant, parts []DamageRoll, critical bool) (Combatant, Damage) {
	c = c.clone()
	out := Damage{Before: c.HP, After: c.HP}
	for _, p := range parts {
		out.Taken += c.Defenses.Modified(p.Amount, p.Type)
	}
	if c.Dead {
		out.Taken = 0
	}
	if out.Taken == 0 {
		return c, out
	}
	wasDown := c.HP.Current == 0
	hp, overflow := ApplyDamage(c.HP, out.Taken)
	out.TempAbsorbed = c.HP.Temp - hp.Temp
	c.HP = hp
	switch {
	case hp.Current > 0:
	case overflow > 0 && overflow >= hp.Max:
		c.Dead, out.InstantDeath = true, true
	case wasDown:
		if overflow == 0 {
			break // the temporary hit points took it all
		}
		out.DeathSaveFailures = 1
		if critical {
			out.DeathSaveFailures = 2
		}
		c.DeathSaves.Stable = false
		c.DeathSaves.Failures = min(3, c.DeathSaves.Failures+out.DeathSaveFailures)
		c.Dead = c.DeathSaves.Failures >= 3
	case c.DiesAtZero:
		c.Dead = true
	default:
		c.DeathSaves = DeathSaves{}
		out.Unconscious = true
	}
	out.Died = c.Dead
	out.After = c.HP
	return c, out
}

// Heal restores amount hit points to c, up to its maximum. A creature at 0
// hit points regains consciousness and its death saves reset. The dead are
// not healed. Returns invalid_request for an amount below 1.
func Heal(c Combatant, amount int) (Combatant, error) {
	if amount < 1 {
		return c, apperr.E(apperr.InvalidRequest, "Healing is at least 1 hit point.").WithField("amount", "at least 1")
	}
	if c.Dead {
		return c, nil
	}
	c = c.clone()
	c.HP.Current = min(c.HP.Max, c.HP.Current+amount)
	c.DeathSaves = DeathSaves{}
	return c, nil
}

// GrantTempHP gives amount temporary hit points. They do not stack: the
// higher of what the creature has and what it is given counts (SRD 5.1).
func GrantTempHP(hp HP, amount int) HP {
	hp.Temp = max(hp.Temp, amount)
	return hp
}
