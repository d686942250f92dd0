package sheet

import (
	"fmt"
	"strings"
)

// DamageTypes are the damage types of the 5e SRD.
var DamageTypes = []string{"acid", "bludgeoning", "cold", "fire", "force", "lightning", "necrotic",
	"piercing", "poison", "psychic", "radiant", "slashing", "thunder"}

// MaxDamageLength bounds an attack's damage notation, so that with the
// modifier it stays well within the dice engine's limit.
const MaxDamageLength = 40

// Attack is an attack as a sheet states it: a weapon or a spell attack.
type Attack struct {
	Name string
	// Ability is the ability key whose modifier the attack adds (str for
	// most melee weapons, dex for ranged and finesse, the spellcasting
	// ability for a spell attack), or empty for none.
	Ability    string
	Proficient bool
	// Bonus is an extra to-hit bonus (a +1 weapon, an item).
	Bonus int
	// Damage is dice notation without the ability modifier ("1d8").
	Damage     string
	DamageType string
	// AddModifier adds the ability modifier to the damage, as weapon
	// attacks do and most cantrips do not.
	AddModifier bool
}

// AttackDerived is an attack's numbers as the table uses them.
type AttackDerived struct {
	Name string `json:"name"`
	// ToHit is what the attack roll adds to the d20.
	ToHit int `json:"to_hit"`
	// Damage is the damage notation with the modifier ("1d8+3").
	Damage string `json:"damage"`
	// DamageModifier is what the damage roll adds to Attack.Damage.
	DamageModifier int    `json:"damage_modifier"`
	DamageType     string `json:"damage_type"`
}

// AttackBonus is an attack roll's bonus: the ability's modifier, the
// proficiency bonus when proficient, and the attack's own bonus.
func AttackBonus(in Input, a Attack) int {
	n := a.Bonus
	if a.Ability != "" {
		n += AbilityModifier(in.Scores.Of(a.Ability))
	}
	if a.Proficient {
		n += ProficiencyBonus(in.Level)
	}
	return n
}

// DamageModifier is what a damage roll adds to the attack's dice: the
// ability's modifier when the attack adds it (it may be negative).
func DamageModifier(in Input, a Attack) int {
	if a.AddModifier && a.Ability != "" {
		return AbilityModifier(in.Scores.Of(a.Ability))
	}
	return 0
}

// DeriveAttack computes an attack's to-hit and damage.
func DeriveAttack(in Input, a Attack) AttackDerived {
	mod := DamageModifier(in, a)
	return AttackDerived{Name: a.Name, ToHit: AttackBonus(in, a), Damage: DamageNotation(a.Damage, mod), DamageModifier: mod, DamageType: a.DamageType}
}

// DamageNotation writes damage dice with a modifier: "1d8+3", "1d4-1",
// the dice alone for 0.
func DamageNotation(dice string, mod int) string {
	dice = strings.TrimSpace(dice)
	switch {
	case mod == 0:
		return dice
	case dice == "":
		return fmt.Sprint(mod)
	case mod < 0:
		return fmt.Sprintf("%s%d", dice, mod)
	}
	return fmt.Sprintf("%s+%d", dice, mod)
}

// FindAttack picks an attack by what a roll names: its 1-based number on
// the sheet ("2") or its name, case-insensitively and with any spacing.
// ok is false when it names none.
func FindAttack(attacks []Attack, key string) (i int, ok bool) {
	want := normalise(key)
	if want == "" {
		return 0, false
	}
	for i, a := range attacks {
		if normalise(a.Name) == want {
			return i, true
		}
	}
	var n int
	if _, err := fmt.Sscanf(want, "%d", &n); err == nil && fmt.Sprint(n) == want && n >= 1 && n <= len(attacks) {
		return n - 1, true
	}
	return 0, false
}
