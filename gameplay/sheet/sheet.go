// Package sheet holds the 5e SRD 5.1 rules that turn what a player writes on
// a character sheet (level, ability scores, proficiencies, armor, attacks)
// into the numbers the table uses: proficiency bonus, ability modifiers,
// saving throw and skill totals, passive Perception, initiative, armor
// class, speed, hit dice and each attack's to-hit and damage. It is pure
// (no storage, no randomness): every caller that needs one of these
// numbers — a chat roll, a check request, a sheet view, later an
// encounter — derives it here, so they are the same everywhere.
package sheet

import (
	"fmt"
	"slices"
)

// Abilities are the six ability keys, in sheet order.
var Abilities = []string{"str", "dex", "con", "int", "wis", "cha"}

// Skills are the 18 skills of the 5e SRD, with the ability each uses.
var Skills = map[string]string{
	"acrobatics": "dex", "animal_handling": "wis", "arcana": "int", "athletics": "str",
	"deception": "cha", "history": "int", "insight": "wis", "intimidation": "cha",
	"investigation": "int", "medicine": "wis", "nature": "int", "perception": "wis",
	"performance": "cha", "persuasion": "cha", "religion": "int", "sleight_of_hand": "dex",
	"stealth": "dex", "survival": "wis",
}

// ProficiencyBonus is the 5e SRD proficiency bonus for a level (1–20):
// +2 at 1–4, rising by one every four levels to +6 at 17–20.
func ProficiencyBonus(level int) int { return 2 + (level-1)/4 }

// AbilityModifier is the 5e SRD modifier of an ability score,
// floor((score−10)/2). score/2 − 5 is the same for every score ≥ 0 and
// avoids Go's truncating division of a negative number.
func AbilityModifier(score int) int { return score/2 - 5 }

// Scores are the six ability scores (1–30 on a valid sheet).
type Scores struct {
	Str int `json:"str"`
	Dex int `json:"dex"`
	Con int `json:"con"`
	Int int `json:"int"`
	Wis int `json:"wis"`
	Cha int `json:"cha"`
}

// Of is the score of an ability key; 0 (modifier −5) for an unknown key.
func (s Scores) Of(ability string) int {
	switch ability {
	case "str":
		return s.Str
	case "dex":
		return s.Dex
	case "con":
		return s.Con
	case "int":
		return s.Int
	case "wis":
		return s.Wis
	case "cha":
		return s.Cha
	}
	return 0
}

// Input is everything a sheet's derived values depend on. Lists hold
// ability keys (SaveProficiencies) and skill keys (SkillProficiencies,
// SkillExpertise); expertise counts only for a proficient skill.
type Input struct {
	Level              int
	Scores             Scores
	SaveProficiencies  []string
	SkillProficiencies []string
	SkillExpertise     []string
	Armor              ArmorInput
	// Speed is the walking speed in feet before armor (30 for most SRD
	// species); 0 means not given, and Derive reports 0.
	Speed int
	// InitiativeAdvantage: initiative is rolled with advantage (a class or
	// feat feature the table cannot derive).
	InitiativeAdvantage bool
	// HitDie is the class's hit die size (6, 8, 10 or 12); 0 means not
	// given, and Derive reports no hit dice.
	HitDie int
	// Attacks are the sheet's attacks, in sheet order.
	Attacks []Attack
}

// Derived is the computed part of a sheet. Maps are keyed by ability or
// skill key and always hold all six abilities and all 18 skills.
type Derived struct {
	ProficiencyBonus  int            `json:"proficiency_bonus"`
	Modifiers         map[string]int `json:"modifiers"`
	Saves             map[string]int `json:"saves"`
	Skills            map[string]int `json:"skills"`
	PassivePerception int            `json:"passive_perception"`
	Initiative        int            `json:"initiative"`
	// InitiativeAdvantage: initiative rolls two d20s and keeps the higher.
	InitiativeAdvantage bool `json:"initiative_advantage"`
	AC                  int  `json:"ac"`
	// StealthDisadvantage is set by armor that imposes disadvantage on
	// Stealth checks.
	StealthDisadvantage bool `json:"stealth_disadvantage"`
	Speed               int  `json:"speed"`
	// HitDice is the pool as dice notation ("5d8"), empty without a hit die.
	HitDice string `json:"hit_dice"`
	// Attacks are the to-hit and damage of each attack, in sheet order.
	Attacks []AttackDerived `json:"attacks"`
}

// CheckModifier is the modifier of an ability check: the ability's
// modifier, plus the proficiency bonus when skill is one the sheet is
// proficient in, twice with expertise. skill may be empty (a plain ability
// check) and ability need not be the skill's usual one (the SRD's "skills
// with different abilities").
func CheckModifier(in Input, ability, skill string) int {
	mod := AbilityModifier(in.Scores.Of(ability))
	if skill != "" && slices.Contains(in.SkillProficiencies, skill) {
		mod += ProficiencyBonus(in.Level)
		if slices.Contains(in.SkillExpertise, skill) {
			mod += ProficiencyBonus(in.Level)
		}
	}
	return mod
}

// SaveModifier is the modifier of a saving throw: the ability's modifier,
// plus the proficiency bonus when the sheet is proficient in that save.
func SaveModifier(in Input, ability string) int {
	mod := AbilityModifier(in.Scores.Of(ability))
	if slices.Contains(in.SaveProficiencies, ability) {
		mod += ProficiencyBonus(in.Level)
	}
	return mod
}

// Derive computes every derived value of a sheet. It does not validate:
// callers check the input (level 1–20, scores 1–30, known keys) first.
func Derive(in Input) Derived {
	d := Derived{ProficiencyBonus: ProficiencyBonus(in.Level), Modifiers: map[string]int{}, Saves: map[string]int{}, Skills: map[string]int{}}
	for _, a := range Abilities {
		d.Modifiers[a] = AbilityModifier(in.Scores.Of(a))
		d.Saves[a] = SaveModifier(in, a)
	}
	for skill, a := range Skills {
		d.Skills[skill] = CheckModifier(in, a, skill)
	}
	// A passive check is 10 + the check's normal modifiers.
	d.PassivePerception = 10 + d.Skills["perception"]
	// Initiative is a Dexterity check.
	d.Initiative = CheckModifier(in, "dex", "")
	d.AC, d.StealthDisadvantage = ArmorClass(in.Scores, in.Armor)
	d.Speed = in.Speed
	d.InitiativeAdvantage = in.InitiativeAdvantage
	if a, ok := Armors[in.Armor.Armor]; ok && d.Speed > 0 && a.Strength > 0 && in.Scores.Str < a.Strength {
		d.Speed = max(0, d.Speed-10)
	}
	if in.HitDie > 0 && in.Level > 0 {
		d.HitDice = fmt.Sprintf("%dd%d", in.Level, in.HitDie)
	}
	d.Attacks = []AttackDerived{}
	for _, a := range in.Attacks {
		d.Attacks = append(d.Attacks, DeriveAttack(in, a))
	}
	return d
}
