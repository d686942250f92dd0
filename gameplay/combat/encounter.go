package combat

import (
	"slices"
	"strings"

	"github.com/adventure-table/adventure-table/gameplay/dice"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// Encounter is the state of one fight. Before Start, Combatants are in the
// order they joined; from Start on, in initiative order, with Round ≥ 1 and
// Turn the index of the current actor.
type Encounter struct {
	Combatants []Combatant `json:"combatants"`
	Round      int         `json:"round"`
	Turn       int         `json:"turn"`
}

// TurnChange reports an advance: whose turn it is now, the round, the
// conditions that ended on the way, and whether the new actor must roll a
// death save (it is dying) before anything else.
type TurnChange struct {
	Round        int       `json:"round"`
	ActorID      string    `json:"actor_id"`
	NewRound     bool      `json:"new_round,omitempty"`
	Expired      []Expired `json:"expired"`
	DeathSaveDue bool      `json:"death_save_due,omitempty"`
}

// Started reports whether the encounter has begun (Start was called).
func (e Encounter) Started() bool { return e.Round > 0 }

// Current is the combatant whose turn it is; !ok before Start.
func (e Encounter) Current() (Combatant, bool) {
	if !e.Started() || e.Turn < 0 || e.Turn >= len(e.Combatants) {
		return Combatant{}, false
	}
	return e.Combatants[e.Turn], true
}

// Combatant returns the combatant id.
func (e Encounter) Combatant(id string) (Combatant, bool) {
	if i := e.index(id); i >= 0 {
		return e.Combatants[i], true
	}
	return Combatant{}, false
}

// Order is the IDs in turn order.
func (e Encounter) Order() []string {
	out := make([]string, len(e.Combatants))
	for i, c := range e.Combatants {
		out[i] = c.ID
	}
	return out
}

func (e Encounter) index(id string) int {
	return slices.IndexFunc(e.Combatants, func(c Combatant) bool { return c.ID == id })
}

func (e Encounter) clone() Encounter {
	cs := make([]Combatant, len(e.Combatants))
	for i, c := range e.Combatants {
		cs[i] = c.clone()
	}
	e.Combatants = cs
	return e
}

// Add puts c into the encounter. Before Start it joins the list; after, it
// must have its Initiative and takes its place in the order (ties broken
// by the rules, rolling off with src), and the current actor stays the
// current actor. Returns invalid_request for an empty or duplicate ID, hit
// points or AC out of range (see validate) or a missing initiative after
// Start, and the dice engine's errors.
func (e Encounter) Add(c Combatant, src dice.Source) (Encounter, error) {
	c.ID, c.Name = strings.TrimSpace(c.ID), strings.TrimSpace(c.Name)
	if c.ID == "" || e.index(c.ID) >= 0 {
		return e, apperr.E(apperr.InvalidRequest, "Combatant id %q is empty or already in the encounter.", c.ID).WithField("id", "a new, non-empty id")
	}
	if err := c.validate(); err != nil {
		return e, err
	}
	if c.Conditions == nil {
		c.Conditions = []Condition{}
	}
	out := e.clone()
	out.Combatants = append(out.Combatants, c.clone())
	if !e.Started() {
		return out, nil
	}
	if c.Initiative == nil {
		return e, apperr.E(apperr.InvalidRequest, "A combatant joining a started encounter needs its initiative.").WithField("initiative", "rolled or entered")
	}
	current := e.Combatants[e.Turn].ID
	if err := breakTies(out.Combatants, src); err != nil {
		return e, err
	}
	out.Turn = out.index(current)
	return out, nil
}

// SetInitiative records id's rolled or entered initiative (from
// RollInitiative). After Start the order is fixed, so it returns conflict
// then; not_found for an unknown combatant.
func (e Encounter) SetInitiative(id string, in Initiative) (Encounter, error) {
	if e.Started() {
		return e, apperr.E(apperr.Conflict, "The initiative order is fixed once the encounter has started.")
	}
	i := e.index(id)
	if i < 0 {
		return e, notFound(id)
	}
	out := e.clone()
	in.RollOff = nil
	out.Combatants[i].Initiative = &in
	return out, nil
}

// Start orders the combatants by initiative (breaking ties with src),
// begins round 1 and gives the first turn to the first combatant that is
// not dead. Returns conflict when already started, invalid_request when
// someone has no initiative or nobody can act, and the dice engine's
// errors.
func (e Encounter) Start(src dice.Source) (Encounter, TurnChange, error) {
	if e.Started() {
		return e, TurnChange{}, apperr.E(apperr.Conflict, "The encounter has already started.")
	}
	var missing []string
	for _, c := range e.Combatants {
		if c.Initiative == nil {
			missing = append(missing, c.ID)
		}
	}
	if len(missing) > 0 || len(e.Combatants) == 0 {
		return e, TurnChange{}, apperr.E(apperr.InvalidRequest, "Every combatant needs an initiative before the encounter starts.").
			WithField("initiative", "missing for: "+strings.Join(missing, ", "))
	}
	out := e.clone()
	if err := breakTies(out.Combatants, src); err != nil {
		return e, TurnChange{}, err
	}
	out.Round, out.Turn = 1, -1
	return out.advance()
}

// Next ends the current actor's turn and begins the next living
// combatant's, starting a new round after the last. Conditions timed to
// the end of the ending turn and to the start of the beginning one expire.
// Returns conflict before Start, invalid_request when nobody can act.
func (e Encounter) Next() (Encounter, TurnChange, error) {
	cur, ok := e.Current()
	if !ok {
		return e, TurnChange{}, apperr.E(apperr.Conflict, "The encounter has not started.")
	}
	out := e.clone()
	expired := out.boundary(cur.ID, AtEndOfTurn)
	out, tc, err := out.advance()
	if err != nil {
		return e, TurnChange{}, err
	}
	tc.Expired = append(expired, tc.Expired...)
	return out, tc, nil
}

// advance moves from Turn to the next combatant that is not dead and
// starts its turn. e must already be a clone.
func (e Encounter) advance() (Encounter, TurnChange, error) {
	n := len(e.Combatants)
	tc := TurnChange{Expired: []Expired{}}
	for step := 1; step <= n; step++ {
		i := e.Turn + step
		if i >= n {
			i -= n
			if e.Turn >= 0 {
				tc.NewRound = true
			}
		}
		c := e.Combatants[i]
		if c.Dead {
			continue
		}
		if tc.NewRound {
			e.Round++
		}
		e.Turn = i
		tc.Round, tc.ActorID = e.Round, c.ID
		tc.Expired = append(tc.Expired, e.boundary(c.ID, AtStartOfTurn)...)
		tc.DeathSaveDue = c.Status() == StatusDying
		return e, tc, nil
	}
	return e, TurnChange{}, apperr.E(apperr.InvalidRequest, "No combatant in the encounter can act.")
}

// Remove takes id out of the encounter; conditions its turns timed end
// with it. Removing the current actor passes the turn to the next one as
// Next does (its end-of-turn conditions expire first). The report lists
// every condition that ended; ActorID is empty when the turn did not
// change. Returns not_found, and invalid_request when the last combatant
// able to act would leave a started encounter (end the encounter instead).
func (e Encounter) Remove(id string) (Encounter, TurnChange, error) {
	i := e.index(id)
	if i < 0 {
		return e, TurnChange{}, notFound(id)
	}
	out, tc := e, TurnChange{Expired: []Expired{}}
	if cur, ok := e.Current(); ok && cur.ID == id {
		var err error
		if out, tc, err = e.Next(); err != nil {
			return e, TurnChange{}, err
		}
		if tc.ActorID == id {
			return e, TurnChange{}, apperr.E(apperr.InvalidRequest, "The last combatant who can act cannot leave; end the encounter instead.")
		}
	} else {
		out = out.clone()
	}
	i = out.index(id)
	current := ""
	if c, ok := out.Current(); ok {
		current = c.ID
	}
	out.Combatants = slices.Delete(out.Combatants, i, i+1)
	tc.Expired = append(tc.Expired, out.dropTimer(id)...)
	if current != "" {
		out.Turn = out.index(current)
	}
	return out, tc, nil
}

// Update replaces the combatant with c's ID by c (after a damage, a heal or
// a death save). Returns not_found, and invalid_request for numbers out of
// range as Add does.
func (e Encounter) Update(c Combatant) (Encounter, error) {
	i := e.index(c.ID)
	if i < 0 {
		return e, notFound(c.ID)
	}
	if err := c.validate(); err != nil {
		return e, err
	}
	out := e.clone()
	out.Combatants[i] = c.clone()
	return out, nil
}

// validate checks the numbers a combatant joins with: hit points tracked
// for everyone (maximum 1–9999, current 0–maximum, temporary 0–9999; a
// maximum of 0 would read as dying), AC 0–100, bonus within ±100.
func (c Combatant) validate() error {
	bad := func(field, want string) error {
		return apperr.E(apperr.InvalidRequest, "Combatant %q: %s must be %s.", c.ID, field, want).WithField(field, want)
	}
	switch {
	case c.HP.Max < 1 || c.HP.Max > 9999:
		return bad("hp.max", "1 to 9999")
	case c.HP.Current < 0 || c.HP.Current > c.HP.Max:
		return bad("hp.current", "0 to the maximum")
	case c.HP.Temp < 0 || c.HP.Temp > 9999:
		return bad("hp.temp", "0 to 9999")
	case c.AC < 0 || c.AC > 100:
		return bad("ac", "0 to 100")
	case c.InitiativeBonus < -100 || c.InitiativeBonus > 100:
		return bad("initiative_bonus", "-100 to 100")
	}
	return nil
}
