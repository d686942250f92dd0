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
	key := normalise(s)
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

// normalise lower-cases a typed name and joins its words with "_".
func normalise(s string) string {
	return strings.ToLower(strings.Join(strings.Fields(strings.ReplaceAll(s, "-", " ")), "_"))
}

// SaveSuffix ends the key of a saving throw: "dex_save".
const SaveSuffix = "_save"

// ParseSave reads a typed saving throw ("dex save", "Dexterity saving
// throw", "wis_save"), case-insensitively and with any spacing, and returns
// its ability key. ok is false when it names none.
func ParseSave(s string) (ability string, ok bool) {
	key := normalise(s)
	for _, suffix := range []string{"_saving_throw", SaveSuffix} {
		if name, found := strings.CutSuffix(key, suffix); found {
			if c, ok := ParseCheck(name); ok && c.Skill == "" {
				return c.Ability, true
			}
		}
	}
	return "", false
}
