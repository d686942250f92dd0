package sheet

// Armor categories.
const (
	Light  = "light"
	Medium = "medium"
	Heavy  = "heavy"
)

// Armor is one row of the SRD 5.1 armor table.
type Armor struct {
	Category string
	Base     int
	// Strength is the score below which heavy armor slows its wearer by
	// 10 feet; 0 when the armor has no requirement.
	Strength            int
	StealthDisadvantage bool
}

// Armors are the SRD 5.1 body armors by key. Light armor adds the Dex
// modifier, medium at most +2, heavy none.
var Armors = map[string]Armor{
	"padded":          {Category: Light, Base: 11, StealthDisadvantage: true},
	"leather":         {Category: Light, Base: 11},
	"studded_leather": {Category: Light, Base: 12},
	"hide":            {Category: Medium, Base: 12},
	"chain_shirt":     {Category: Medium, Base: 13},
	"scale_mail":      {Category: Medium, Base: 14, StealthDisadvantage: true},
	"breastplate":     {Category: Medium, Base: 14},
	"half_plate":      {Category: Medium, Base: 15, StealthDisadvantage: true},
	"ring_mail":       {Category: Heavy, Base: 14, StealthDisadvantage: true},
	"chain_mail":      {Category: Heavy, Base: 16, Strength: 13, StealthDisadvantage: true},
	"splint":          {Category: Heavy, Base: 17, Strength: 15, StealthDisadvantage: true},
	"plate":           {Category: Heavy, Base: 18, Strength: 15, StealthDisadvantage: true},
}

// Unarmored AC formulas of the SRD (used only without body armor).
const (
	UnarmoredBarbarian = "barbarian"  // 10 + Dex + Con; a shield still counts
	UnarmoredMonk      = "monk"       // 10 + Dex + Wis; not with a shield
	MageArmor          = "mage_armor" // 13 + Dex
)

// ArmorInput is what a sheet says about its armor.
type ArmorInput struct {
	// Armor is a key of Armors, or empty for none (an unknown key counts
	// as none; validation refuses it before).
	Armor  string
	Shield bool
	// Unarmored is the formula without body armor: empty for 10 + Dex, or
	// UnarmoredBarbarian, UnarmoredMonk, MageArmor.
	Unarmored string
	// Bonus is a flat bonus from magic armor, a magic shield or an item.
	Bonus int
}

// ShieldBonus is the AC a shield adds.
const ShieldBonus = 2

// ArmorClass is the AC of a sheet and whether its armor imposes
// disadvantage on Stealth checks.
func ArmorClass(s Scores, in ArmorInput) (ac int, stealthDisadvantage bool) {
	dex := AbilityModifier(s.Dex)
	if a, ok := Armors[in.Armor]; ok {
		switch a.Category {
		case Light:
			ac = a.Base + dex
		case Medium:
			ac = a.Base + min(dex, 2)
		default:
			ac = a.Base
		}
		stealthDisadvantage = a.StealthDisadvantage
	} else {
		switch in.Unarmored {
		case UnarmoredBarbarian:
			ac = 10 + dex + AbilityModifier(s.Con)
		case UnarmoredMonk:
			ac = 10 + dex
			if !in.Shield {
				ac += AbilityModifier(s.Wis)
			}
		case MageArmor:
			ac = 13 + dex
		default:
			ac = 10 + dex
		}
	}
	if in.Shield {
		ac += ShieldBonus
	}
	return ac + in.Bonus, stealthDisadvantage
}
