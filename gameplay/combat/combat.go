// Package combat holds the 5e SRD 5.1 rules of an encounter: initiative and
// its order, turns and rounds, conditions that last until a turn boundary,
// attack rolls against armor class, damage with criticals, resistances and
// temporary hit points, and death saves. It is pure: no storage, no
// transport, no clock. Dice come from gameplay/dice (the one parser,
// roller, advantage rule and audit Result) with a dice.Source the caller
// passes: dice.Crypto at the table, dice.Faces for physical dice a player
// entered and for tests. Initiative bonuses of seats come from
// gameplay/sheet (Derive), like every other sheet number.
//
// # Model
//
// An Encounter is a value: the combatants in initiative order, the round
// (0 before Start) and the index of the current actor. Every change is a
// function or method that takes a value and returns a new one, leaving its
// input untouched, plus a small report of what happened (the roll, the
// conditions that expired, whether a death save is due). The service that
// stores encounters can record each report as an event and rebuild the
// value by replaying them.
//
// A Combatant is keyed by an ID the caller chooses ("seat:12", "npc:3"). It
// carries what the rules read: initiative bonus and advantage, AC, hit
// points, damage defenses, conditions and death saves. Who may see an NPC's
// AC or hit points is decided where events are shown, not here.
//
// Rules this package settles, and the choices it makes where the SRD
// leaves one to the DM:
//
//   - Ties in initiative go to the higher initiative bonus, then to a d20
//     roll-off among those still tied (repeated while they tie). SRD 5.1
//     leaves ties to the DM with the roll-off as its option; the bonus
//     first is the common Dexterity tiebreak of Foundry and Roll20.
//   - The order is fixed for the encounter. A combatant added mid-fight is
//     placed by its initiative; the current actor stays the current actor.
//     A removed one leaves the order; removing the current actor passes the
//     turn on.
//   - Dead combatants are skipped. A creature at 0 hit points keeps its
//     turn: a dying one must roll a death save at its start.
//   - A timed condition ends at the start or end of one combatant's turn
//     (its source's, or its own), after that boundary has come a given
//     number of times ("rounds"). "Until the end of your next turn" set
//     during your own turn does not end when the current turn ends.
package combat

import (
	"slices"
	"strconv"

	"github.com/adventure-table/adventure-table/gameplay/dice"
	"github.com/adventure-table/adventure-table/gameplay/sheet"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// HP are hit points. The fields are those of the table's character state,
// so the two convert into each other.
type HP struct {
	Max     int `json:"max"`
	Current int `json:"current"`
	Temp    int `json:"temp"`
}

// Defenses are the damage types a combatant takes no, half or double
// damage from ("fire", "slashing"; compared case-insensitively).
type Defenses struct {
	Immunities      []string `json:"immunities,omitempty"`
	Resistances     []string `json:"resistances,omitempty"`
	Vulnerabilities []string `json:"vulnerabilities,omitempty"`
}

// Combatant is one participant of an encounter: a seat's character or a
// named NPC or monster.
type Combatant struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	SeatID int64  `json:"seat_id,omitempty"` // 0 for an NPC
	// InitiativeBonus is added to the initiative d20; for a seat it is
	// sheet.Derive(...).Initiative (see SeatBonus).
	InitiativeBonus int  `json:"initiative_bonus"`
	Advantage       bool `json:"advantage,omitempty"`    // on initiative
	Disadvantage    bool `json:"disadvantage,omitempty"` // on initiative
	// Initiative is the rolled or entered initiative; nil until then.
	Initiative *Initiative `json:"initiative,omitempty"`
	AC         int         `json:"ac"`
	HP         HP          `json:"hp"`
	Defenses   Defenses    `json:"defenses"`
	// DiesAtZero: the creature dies when it drops to 0 hit points instead
	// of falling unconscious (SRD: most monsters; the DM's call).
	DiesAtZero bool        `json:"dies_at_zero,omitempty"`
	Conditions []Condition `json:"conditions"`
	DeathSaves DeathSaves  `json:"death_saves"`
	Dead       bool        `json:"dead,omitempty"`
}

// SeatBonus is the initiative bonus of a character sheet: the sheet rules'
// initiative (a Dexterity check), the same number the sheet shows.
func SeatBonus(in sheet.Input) int { return sheet.Derive(in).Initiative }

// Status is where a combatant stands: "active", "dying" (0 HP, rolling
// death saves), "stable" (0 HP, no saves) or "dead".
func (c Combatant) Status() string {
	switch {
	case c.Dead:
		return StatusDead
	case c.HP.Current > 0:
		return StatusActive
	case c.DeathSaves.Stable:
		return StatusStable
	}
	return StatusDying
}

// The statuses Status reports.
const (
	StatusActive = "active"
	StatusDying  = "dying"
	StatusStable = "stable"
	StatusDead   = "dead"
)

// clone copies the slices of c, so a change to the copy leaves c alone.
func (c Combatant) clone() Combatant {
	c.Conditions = slices.Clone(c.Conditions)
	c.Defenses.Immunities = slices.Clone(c.Defenses.Immunities)
	c.Defenses.Resistances = slices.Clone(c.Defenses.Resistances)
	c.Defenses.Vulnerabilities = slices.Clone(c.Defenses.Vulnerabilities)
	if c.Initiative != nil {
		in := *c.Initiative
		in.RollOff = slices.Clone(in.RollOff)
		c.Initiative = &in
	}
	return c
}

// d20 rolls a d20 test (with advantage, disadvantage, both or neither) plus
// mod through the dice engine and returns the audit Result and the natural
// face.
func d20(adv, dis bool, mod int, src dice.Source) (dice.Result, int, error) {
	expr := dice.D20(adv, dis)
	switch {
	case mod > 0:
		expr += " + " + strconv.Itoa(mod)
	case mod < 0:
		expr += " - " + strconv.Itoa(-mod)
	}
	r, err := dice.Roll(expr, src)
	if err != nil {
		return dice.Result{}, 0, err
	}
	return r, dice.Natural(r), nil
}

func notFound(id string) error {
	return apperr.E(apperr.NotFound, "No combatant %q in the encounter.", id).WithField("combatant_id", "a combatant of the encounter")
}
