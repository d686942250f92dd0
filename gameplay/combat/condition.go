package combat

import (
	"strings"

	"github.com/adventure-table/adventure-table/models/apperr"
)

// The turn boundaries a timed condition can end at.
const (
	AtStartOfTurn = "start_of_turn"
	AtEndOfTurn   = "end_of_turn"
)

// Condition is a condition on a combatant. Without Ends it lasts until it
// is removed. With Ends it is timed: it ends at the Ends boundary
// (AtStartOfTurn or AtEndOfTurn) of the turn of TimerID (the combatant
// whose turn times it: the source of the effect or the bearer itself),
// when that boundary has come Rounds times. Rounds 1 is "until the start
// (end) of its next turn"; a one-minute effect is Rounds 10.
//
// The condition name is not checked here: the table's list of SRD
// conditions is the edge's to enforce, and an effect such as "dodging"
// times the same way.
type Condition struct {
	Name    string `json:"name"`
	Ends    string `json:"ends,omitempty"`
	TimerID string `json:"timer_id,omitempty"`
	Rounds  int    `json:"rounds,omitempty"` // boundaries still to come
	// SkipCurrent is set when an end-of-turn condition is applied during
	// TimerID's own turn; the end of that turn is not its "next" turn.
	SkipCurrent bool `json:"skip_current,omitempty"`
}

// Expired is a condition that ended, and on whom.
type Expired struct {
	CombatantID string    `json:"combatant_id"`
	Condition   Condition `json:"condition"`
}

// AddCondition puts cond on the combatant id. A timed condition needs a
// TimerID in the encounter and Rounds ≥ 1. Adding a condition the
// combatant already has replaces it (the newer duration counts). Returns
// not_found for an unknown combatant or timer, invalid_request for a bad
// duration.
func (e Encounter) AddCondition(id string, cond Condition) (Encounter, error) {
	cond.Name = strings.ToLower(strings.TrimSpace(cond.Name))
	if cond.Name == "" || len(cond.Name) > 40 {
		return e, apperr.E(apperr.InvalidRequest, "A condition needs a name of at most 40 characters.").WithField("name", "1 to 40 characters")
	}
	switch cond.Ends {
	case "":
		cond.TimerID, cond.Rounds, cond.SkipCurrent = "", 0, false
	case AtStartOfTurn, AtEndOfTurn:
		if cond.Rounds < 1 || cond.Rounds > 1000 {
			return e, apperr.E(apperr.InvalidRequest, "A timed condition lasts 1 to 1000 rounds.").WithField("rounds", "1 to 1000")
		}
		if e.index(cond.TimerID) < 0 {
			return e, notFound(cond.TimerID)
		}
		cur, ok := e.Current()
		cond.SkipCurrent = cond.Ends == AtEndOfTurn && ok && cur.ID == cond.TimerID
	default:
		return e, apperr.E(apperr.InvalidRequest, "A condition ends at %q or %q.", AtStartOfTurn, AtEndOfTurn).WithField("ends", "start_of_turn or end_of_turn")
	}
	i := e.index(id)
	if i < 0 {
		return e, notFound(id)
	}
	e = e.clone()
	c := &e.Combatants[i]
	c.Conditions = append(removeNamed(c.Conditions, cond.Name), cond)
	return e, nil
}

// RemoveCondition takes the named condition off the combatant id; removing
// one it does not have changes nothing. Returns not_found.
func (e Encounter) RemoveCondition(id, name string) (Encounter, error) {
	i := e.index(id)
	if i < 0 {
		return e, notFound(id)
	}
	e = e.clone()
	e.Combatants[i].Conditions = removeNamed(e.Combatants[i].Conditions, strings.ToLower(strings.TrimSpace(name)))
	return e, nil
}

func removeNamed(cs []Condition, name string) []Condition {
	out := []Condition{}
	for _, c := range cs {
		if c.Name != name {
			out = append(out, c)
		}
	}
	return out
}

// boundary counts one turn boundary of timerID on every timed condition
// and removes those whose count runs out. e must already be a clone.
func (e *Encounter) boundary(timerID, ends string) []Expired {
	var out []Expired
	for i := range e.Combatants {
		c := &e.Combatants[i]
		kept := []Condition{}
		for _, cond := range c.Conditions {
			if cond.Ends == ends && cond.TimerID == timerID {
				if cond.SkipCurrent {
					cond.SkipCurrent = false
				} else {
					cond.Rounds--
				}
				if cond.Rounds <= 0 {
					out = append(out, Expired{CombatantID: c.ID, Condition: cond})
					continue
				}
			}
			kept = append(kept, cond)
		}
		c.Conditions = kept
	}
	return out
}

// dropTimer ends every condition timed by a combatant that left the
// encounter: its turn boundaries will never come. e must already be a clone.
func (e *Encounter) dropTimer(timerID string) []Expired {
	var out []Expired
	for i := range e.Combatants {
		c := &e.Combatants[i]
		kept := []Condition{}
		for _, cond := range c.Conditions {
			if cond.Ends != "" && cond.TimerID == timerID {
				out = append(out, Expired{CombatantID: c.ID, Condition: cond})
				continue
			}
			kept = append(kept, cond)
		}
		c.Conditions = kept
	}
	return out
}
