package combat

import "slices"

// Has reports whether c has the named condition. A creature at 0 hit
// points that is alive is unconscious (SRD 5.1) whether or not the
// condition was written down.
func (c Combatant) Has(name string) bool {
	if name == "unconscious" && (c.Status() == StatusDying || c.Status() == StatusStable) {
		return true
	}
	return slices.ContainsFunc(c.Conditions, func(cond Condition) bool { return cond.Name == name })
}

// CanAct reports whether c can take actions on its turn: alive and not
// incapacitated, paralyzed, petrified, stunned or unconscious. Its turn
// still comes (a dying creature rolls its death save then).
func (c Combatant) CanAct() bool {
	if c.Dead {
		return false
	}
	for _, name := range []string{"incapacitated", "paralyzed", "petrified", "stunned", "unconscious"} {
		if c.Has(name) {
			return false
		}
	}
	return true
}

// AttackModes reads the SRD 5.1 conditions table for an attack by attacker
// on target (within5ft: the attacker is within 5 feet of the target):
//
//   - the attacker is blinded, frightened, poisoned, prone or restrained:
//     disadvantage; invisible: advantage;
//   - the target is blinded, paralyzed, petrified, restrained, stunned or
//     unconscious: advantage; invisible: disadvantage; prone: advantage
//     within 5 feet, disadvantage beyond;
//   - a hit on a paralyzed or unconscious target within 5 feet is a
//     critical hit (autoCritical).
//
// The caller passes adv and dis on in Attack, together with any other
// source; dice.D20 cancels them as the SRD says. What the table cannot
// know stays with the DM: whether a frightened attacker sees the source of
// its fear, the charmer a charmed creature cannot attack, exhaustion
// levels, cover and range.
func AttackModes(attacker, target Combatant, within5ft bool) (adv, dis, autoCritical bool) {
	for _, name := range []string{"blinded", "frightened", "poisoned", "prone", "restrained"} {
		dis = dis || attacker.Has(name)
	}
	adv = attacker.Has("invisible")
	for _, name := range []string{"blinded", "paralyzed", "petrified", "restrained", "stunned", "unconscious"} {
		adv = adv || target.Has(name)
	}
	dis = dis || target.Has("invisible")
	if target.Has("prone") {
		adv, dis = adv || within5ft, dis || !within5ft
	}
	autoCritical = within5ft && (target.Has("paralyzed") || target.Has("unconscious"))
	return adv, dis, autoCritical
}
