package table

import (
	"context"

	"github.com/adventure-table/adventure-table/models"
)

// Quick characters: ready-to-play level-1 sheets a friend picks when they
// join by link with no character of their own. The numbers follow the 5e
// SRD (standard array, class hit die, saves, armour and weapons); the
// names and text are our own.

// QuickTemplate is one quick character: a key the web app names in the
// reader's language, and the sheet it creates.
type QuickTemplate struct {
	Key       string           `json:"key" jsonschema:"fighter, rogue, wizard or cleric"`
	Character CharacterInput   `json:"character"`
	Derived   CharacterDerived `json:"derived" jsonschema:"the sheet's totals (AC, initiative, attacks) as the character will show them"`
}

// QuickTemplates lists the quick characters.
type QuickTemplates struct {
	Templates []QuickTemplate `json:"templates"`
}

var quickTemplates = []struct {
	key string
	in  func() CharacterInput
}{
	{"fighter", func() CharacterInput {
		return CharacterInput{Name: "Brenna Stoutshield", Level: 1, Class: "Fighter", Species: "Human", Background: "Soldier",
			Abilities:          Abilities{Str: 15, Dex: 13, Con: 14, Int: 8, Wis: 12, Cha: 10},
			SkillProficiencies: []string{"athletics", "perception", "intimidation"},
			SaveProficiencies:  []string{"str", "con"},
			HP:                 HP{Max: 12, Current: 12}, HitDie: 10, Speed: 30,
			Armor:     ArmorView{Body: "chain_mail", Shield: true},
			Resources: []ResourceView{{Name: "Second Wind", Current: 1, Max: 1}},
			Attacks: []AttackView{
				{Name: "Longsword", Ability: "str", Proficient: true, Damage: "1d8", DamageType: "slashing", AddModifier: true},
				{Name: "Javelin", Ability: "str", Proficient: true, Damage: "1d6", DamageType: "piercing", AddModifier: true},
			},
			Inventory:        []ItemView{{Name: "Javelin", Quantity: 4}, {Name: "Explorer's pack", Quantity: 1}},
			Biography:        "A caravan guard who has walked every road between the river towns and kept most of her charges alive.",
			RoleplayGuidance: "Steady, blunt, protective of the weakest in the party.",
		}
	}},
	{"rogue", func() CharacterInput {
		return CharacterInput{Name: "Pip Larkwhistle", Level: 1, Class: "Rogue", Species: "Halfling", Background: "Urchin",
			Abilities:          Abilities{Str: 8, Dex: 15, Con: 14, Int: 12, Wis: 13, Cha: 10},
			SkillProficiencies: []string{"stealth", "sleight_of_hand", "acrobatics", "perception", "investigation"},
			SkillExpertise:     []string{"stealth", "perception"},
			SaveProficiencies:  []string{"dex", "int"},
			HP:                 HP{Max: 10, Current: 10}, HitDie: 8, Speed: 25,
			Armor: ArmorView{Body: "leather"},
			Attacks: []AttackView{
				{Name: "Shortsword", Ability: "dex", Proficient: true, Damage: "1d6", DamageType: "piercing", AddModifier: true},
				{Name: "Shortbow", Ability: "dex", Proficient: true, Damage: "1d6", DamageType: "piercing", AddModifier: true},
			},
			Inventory:        []ItemView{{Name: "Thieves' tools", Quantity: 1}, {Name: "Arrows", Quantity: 20}},
			Notes:            "Sneak Attack: once a turn, +1d6 damage when you have advantage or an ally is next to the target.",
			Biography:        "Grew up on the rooftops of a port city, trading secrets for bread.",
			RoleplayGuidance: "Curious, quick to joke, slow to trust.",
		}
	}},
	{"wizard", func() CharacterInput {
		return CharacterInput{Name: "Ilsa Ashgrove", Level: 1, Class: "Wizard", Species: "Elf", Background: "Sage",
			Abilities:          Abilities{Str: 8, Dex: 14, Con: 13, Int: 15, Wis: 12, Cha: 10},
			SkillProficiencies: []string{"arcana", "history", "investigation"},
			SaveProficiencies:  []string{"int", "wis"},
			HP:                 HP{Max: 7, Current: 7}, HitDie: 6, Speed: 30,
			Resources: []ResourceView{{Name: "Spell slots (1st level)", Current: 2, Max: 2}},
			Attacks: []AttackView{
				{Name: "Fire Bolt", Ability: "int", Proficient: true, Damage: "1d10", DamageType: "fire"},
				{Name: "Quarterstaff", Ability: "str", Proficient: true, Damage: "1d6", DamageType: "bludgeoning", AddModifier: true},
			},
			Spells: []SpellView{
				{Name: "Fire Bolt", Level: 0, Prepared: true}, {Name: "Mage Hand", Level: 0, Prepared: true}, {Name: "Light", Level: 0, Prepared: true},
				{Name: "Magic Missile", Level: 1, Prepared: true}, {Name: "Shield", Level: 1, Prepared: true}, {Name: "Sleep", Level: 1, Prepared: true},
			},
			Inventory:        []ItemView{{Name: "Spellbook", Quantity: 1}, {Name: "Arcane focus (crystal)", Quantity: 1}},
			Biography:        "Left a quiet library tower to find the pages missing from its oldest book.",
			RoleplayGuidance: "Precise, a little proud, delighted by anything she has never seen.",
		}
	}},
	{"cleric", func() CharacterInput {
		return CharacterInput{Name: "Oren Vale", Level: 1, Class: "Cleric", Species: "Dwarf", Background: "Acolyte",
			Abilities:          Abilities{Str: 14, Dex: 10, Con: 13, Int: 8, Wis: 15, Cha: 12},
			SkillProficiencies: []string{"insight", "medicine", "religion"},
			SaveProficiencies:  []string{"wis", "cha"},
			HP:                 HP{Max: 9, Current: 9}, HitDie: 8, Speed: 25,
			Armor:     ArmorView{Body: "scale_mail", Shield: true},
			Resources: []ResourceView{{Name: "Spell slots (1st level)", Current: 2, Max: 2}},
			Attacks: []AttackView{
				{Name: "Mace", Ability: "str", Proficient: true, Damage: "1d6", DamageType: "bludgeoning", AddModifier: true},
				{Name: "Sacred Flame", Ability: "wis", Proficient: true, Damage: "1d8", DamageType: "radiant"},
			},
			Spells: []SpellView{
				{Name: "Sacred Flame", Level: 0, Prepared: true}, {Name: "Guidance", Level: 0, Prepared: true}, {Name: "Spare the Dying", Level: 0, Prepared: true},
				{Name: "Cure Wounds", Level: 1, Prepared: true}, {Name: "Bless", Level: 1, Prepared: true}, {Name: "Healing Word", Level: 1, Prepared: true},
			},
			Inventory:        []ItemView{{Name: "Holy symbol", Quantity: 1}, {Name: "Priest's pack", Quantity: 1}},
			Biography:        "Keeper of a mountain shrine, sent down to the valleys when the bells began to ring on their own.",
			RoleplayGuidance: "Warm, patient, stubborn about doing right.",
		}
	}},
}

// quickTemplate returns a fresh copy of a quick character's sheet.
func quickTemplate(key string) (CharacterInput, bool) {
	for _, t := range quickTemplates {
		if t.key == key {
			return t.in(), true
		}
	}
	return CharacterInput{}, false
}

// ListQuickTemplates returns the quick characters with their totals.
func (s *Service) ListQuickTemplates(_ context.Context) QuickTemplates {
	out := QuickTemplates{Templates: []QuickTemplate{}}
	for _, t := range quickTemplates {
		in := t.in()
		var ch models.Character
		in.apply(&ch)
		v := characterView(ch)
		out.Templates = append(out.Templates, QuickTemplate{Key: t.key, Character: inputOf(v), Derived: v.Derived})
	}
	return out
}
