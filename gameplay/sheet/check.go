package sheet

import "strings"

// abilityNames maps the full ability names to their keys.
var abilityNames = map[string]string{"strength": "str", "dexterity": "dex", "constitution": "con",
	"intelligence": "int", "wisdom": "wis", "charisma": "cha"}

// Check names what a roll checks: a skill (with the ability it uses) or a
// plain ability.
type Check struct {
	Ability string
	Skill   string // empty for an ability check
}

// Key is the skill key, or the ability key of an ability check.
func (c Check) Key() string {
	if c.Skill != "" {
		return c.Skill
	}
	return c.Ability
}

// ParseCheck reads a typed skill or ability ("Perception", "Sleight of
// Hand", "sleight-of-hand", "wisdom", "DEX"), case-insensitively and with
// any spacing. ok is false when it names neither.
func ParseCheck(s string) (c Check, ok bool) {
	key := strings.ToLower(strings.Join(strings.Fields(strings.ReplaceAll(s, "-", " ")), "_"))
	if a, ok := abilityNames[key]; ok {
		key = a
	}
	if a, ok := Skills[key]; ok {
		return Check{Ability: a, Skill: key}, true
	}
	for _, a := range Abilities {
		if a == key {
			return Check{Ability: a}, true
		}
	}
	return Check{}, false
}
