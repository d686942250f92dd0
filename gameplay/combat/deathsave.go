package combat

import (
	"github.com/adventure-table/adventure-table/gameplay/dice"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// DeathSaves are a dying creature's death saving throws. Successes and
// failures need not be consecutive; both reset when it is healed, becomes
// stable or drops to 0 hit points anew.
type DeathSaves struct {
	Successes int  `json:"successes"`
	Failures  int  `json:"failures"`
	Stable    bool `json:"stable,omitempty"`
}

// DeathSave is the outcome of one death saving throw.
type DeathSave struct {
	Roll    dice.Result `json:"roll"`
	Natural int         `json:"natural"`
	Success bool        `json:"success"`
	// Regained: a natural 20, the creature regains 1 hit point.
	Regained bool       `json:"regained,omitempty"`
	Stable   bool       `json:"stable,omitempty"` // the third success
	Died     bool       `json:"died,omitempty"`   // the third failure
	After    DeathSaves `json:"after"`
}

// ApplyDeathSave is the SRD 5.1 death save rule for a d20 face: 10 or
// higher succeeds, lower fails; a 1 counts as two failures; a 20 regains 1
// hit point (conscious again, saves reset). Three successes make the
// creature stable (saves reset), three failures kill it. Returns
// invalid_request when c is not dying (see Status) or natural is not a d20
// face.
func ApplyDeathSave(c Combatant, natural int) (Combatant, DeathSave, error) {
	if c.Status() != StatusDying {
		return c, DeathSave{}, apperr.E(apperr.InvalidRequest, "Only a dying creature (0 hit points, not stable, alive) rolls death saves.").WithField("combatant_id", "a dying combatant")
	}
	if natural < 1 || natural > 20 {
		return c, DeathSave{}, apperr.E(apperr.InvalidRequest, "A death save is a d20: 1 to 20.").WithField("natural", "1 to 20")
	}
	c = c.clone()
	out := DeathSave{Natural: natural, Success: natural >= 10}
	switch {
	case natural == 20:
		c.HP.Current = 1
		c.DeathSaves = DeathSaves{}
		out.Regained = true
	case natural == 1:
		c.DeathSaves.Failures += 2
	case out.Success:
		c.DeathSaves.Successes++
	default:
		c.DeathSaves.Failures++
	}
	switch {
	case c.DeathSaves.Failures >= 3:
		c.DeathSaves.Failures = 3
		c.Dead, out.Died = true, true
	case c.DeathSaves.Successes >= 3:
		c.DeathSaves = DeathSaves{Stable: true}
		out.Stable = true
	}
	out.After = c.DeathSaves
	return c, out, nil
}

// RollDeathSave rolls a death save (a plain d20, through the dice engine;
// dice.Faces for a physical die) and applies it. Returns ApplyDeathSave's
// errors and the dice engine's.
func RollDeathSave(c Combatant, src dice.Source) (Combatant, DeathSave, error) {
	if c.Status() != StatusDying {
		return ApplyDeathSave(c, 0)
	}
	r, nat, err := d20(false, false, 0, src)
	if err != nil {
		return c, DeathSave{}, err
	}
	c, out, err := ApplyDeathSave(c, nat)
	out.Roll = r
	return c, out, err
}
