package table

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/adventure-table/adventure-table/gameplay/analytics"
	"github.com/adventure-table/adventure-table/gameplay/combat"
	"github.com/adventure-table/adventure-table/gameplay/dice"
	"github.com/adventure-table/adventure-table/gameplay/sheet"
	"github.com/adventure-table/adventure-table/models"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// Conditions are the conditions of the 5e SRD.
var Conditions = []string{
	"blinded", "charmed", "deafened", "exhaustion", "frightened", "grappled", "incapacitated", "invisible",
	"paralyzed", "petrified", "poisoned", "prone", "restrained", "stunned", "unconscious",
}

// Abilities are the six ability scores.
type Abilities struct {
	Str int `json:"str"`
	Dex int `json:"dex"`
	Con int `json:"con"`
	Int int `json:"int"`
	Wis int `json:"wis"`
	Cha int `json:"cha"`
}

// HP is a character's hit points.
type HP struct {
	Max     int `json:"max"`
	Current int `json:"current"`
	Temp    int `json:"temp"`
}

// ResourceView is a named resource with current and max.
type ResourceView struct {
	Name    string `json:"name"`
	Current int    `json:"current"`
	Max     int    `json:"max"`
}

// ArmorView is what a sheet says about its armor; the sheet rules turn it
// into the armor class.
type ArmorView struct {
	Body      string `json:"body" jsonschema:"body armor: empty for none, or padded, leather, studded_leather, hide, chain_shirt, scale_mail, breastplate, half_plate, ring_mail, chain_mail, splint, plate"`
	Shield    bool   `json:"shield"`
	Unarmored string `json:"unarmored" jsonschema:"AC formula without body armor: empty for 10 + Dex, or barbarian (10 + Dex + Con), monk (10 + Dex + Wis, no shield) or mage_armor (13 + Dex)"`
	Bonus     int    `json:"bonus" jsonschema:"flat AC bonus of magic armor or items, -5 to 10"`
}

// AttackView is an attack on a sheet; the sheet rules derive its to-hit
// and damage (CharacterDerived.Attacks).
type AttackView struct {
	Name        string `json:"name" jsonschema:"1 to 80 characters"`
	Ability     string `json:"ability" jsonschema:"ability key (str, dex, con, int, wis, cha) whose modifier the attack adds, or empty"`
	Proficient  bool   `json:"proficient" jsonschema:"adds the proficiency bonus to hit"`
	Bonus       int    `json:"bonus" jsonschema:"extra to-hit bonus, -20 to 20"`
	Damage      string `json:"damage" jsonschema:"damage dice notation without the ability modifier (1d8), at most 40 characters"`
	DamageType  string `json:"damage_type" jsonschema:"5e SRD damage type (slashing, fire...)"`
	AddModifier bool   `json:"add_modifier" jsonschema:"adds the ability modifier to the damage"`
}

// DefensesView are a character's damage defenses: it takes half damage of
// the types it resists, none of those it is immune to, double of those it
// is vulnerable to (applied by the character state and the encounter).
type DefensesView struct {
	Resistances     []string `json:"resistances" jsonschema:"5e SRD damage types"`
	Immunities      []string `json:"immunities" jsonschema:"5e SRD damage types"`
	Vulnerabilities []string `json:"vulnerabilities" jsonschema:"5e SRD damage types"`
}

// combat is the defenses as the encounter rules read them.
func (d DefensesView) combat() combat.Defenses {
	return combat.Defenses{Resistances: d.Resistances, Immunities: d.Immunities, Vulnerabilities: d.Vulnerabilities}
}

func defensesView(d models.DamageDefenses) DefensesView {
	return DefensesView{Resistances: nonNil(d.Resistances), Immunities: nonNil(d.Immunities), Vulnerabilities: nonNil(d.Vulnerabilities)}
}

// SpellView is a spell on a sheet; spell slots are resources.
type SpellView struct {
	Name     string `json:"name" jsonschema:"1 to 80 characters"`
	Level    int    `json:"level" jsonschema:"0 (cantrip) to 9"`
	Prepared bool   `json:"prepared"`
	Notes    string `json:"notes" jsonschema:"at most 200 characters"`
}

// ItemView is an inventory entry.
type ItemView struct {
	Name     string `json:"name" jsonschema:"1 to 80 characters"`
	Quantity int    `json:"quantity" jsonschema:"0 to 9999"`
	Notes    string `json:"notes" jsonschema:"at most 200 characters"`
}

// Caps on a sheet's lists and notes.
const (
	maxAttacks     = 50
	maxSpells      = 200
	maxItems       = 200
	maxNotesLength = 10000
	maxEntryNotes  = 200
)

// Unarmored AC formulas a sheet may name (empty is 10 + Dex).
var unarmoredFormulas = []string{"", sheet.UnarmoredBarbarian, sheet.UnarmoredMonk, sheet.MageArmor}

// Hit die sizes a sheet may name (0 is not given).
var hitDice = []int{0, 6, 8, 10, 12}

// CharacterInput is what a player writes: everything but derived fields.
type CharacterInput struct {
	Name               string         `json:"name" jsonschema:"1 to 80 characters"`
	Level              int            `json:"level" jsonschema:"1 to 20"`
	Abilities          Abilities      `json:"abilities" jsonschema:"each score 1 to 30"`
	SkillProficiencies []string       `json:"skill_proficiencies"`
	SkillExpertise     []string       `json:"skill_expertise" jsonschema:"a subset of skill_proficiencies"`
	HP                 HP             `json:"hp"`
	Conditions         []string       `json:"conditions" jsonschema:"5e SRD condition names"`
	Resources          []ResourceView `json:"resources"`
	Biography          string         `json:"biography"`
	RoleplayGuidance   string         `json:"roleplay_guidance"`
	Class              string         `json:"class" jsonschema:"class as text, at most 80 characters"`
	Species            string         `json:"species" jsonschema:"species as text, at most 80 characters"`
	Background         string         `json:"background" jsonschema:"background as text, at most 80 characters"`
	SaveProficiencies  []string       `json:"save_proficiencies" jsonschema:"ability keys (str, dex, con, int, wis, cha) of proficient saving throws"`
	Armor              ArmorView      `json:"armor"`
	Speed              int            `json:"speed" jsonschema:"walking speed in feet, 0 to 200; 0 when not given"`
	HitDie             int            `json:"hit_die" jsonschema:"hit die size: 6, 8, 10 or 12; 0 when not given"`
	// InitiativeAdvantage is a feature of the sheet (a class or feat).
	InitiativeAdvantage bool         `json:"initiative_advantage,omitempty" jsonschema:"initiative is rolled with advantage"`
	Defenses            DefensesView `json:"defenses,omitempty" jsonschema:"damage types (5e SRD) the character resists, is immune or vulnerable to"`
	Attacks             []AttackView `json:"attacks,omitempty" jsonschema:"at most 50"`
	Spells              []SpellView  `json:"spells,omitempty" jsonschema:"at most 200"`
	Inventory           []ItemView   `json:"inventory,omitempty" jsonschema:"at most 200"`
	Notes               string       `json:"notes,omitempty" jsonschema:"free notes, at most 10000 characters"`
}

// CharacterView is a character as its owner sees it.
type CharacterView struct {
	ID                  int64            `json:"id"`
	Name                string           `json:"name"`
	Level               int              `json:"level"`
	ProficiencyBonus    int              `json:"proficiency_bonus"`
	Abilities           Abilities        `json:"abilities"`
	SkillProficiencies  []string         `json:"skill_proficiencies"`
	SkillExpertise      []string         `json:"skill_expertise"`
	HP                  HP               `json:"hp"`
	Conditions          []string         `json:"conditions"`
	Resources           []ResourceView   `json:"resources"`
	Biography           string           `json:"biography"`
	RoleplayGuidance    string           `json:"roleplay_guidance"`
	Class               string           `json:"class"`
	Species             string           `json:"species"`
	Background          string           `json:"background"`
	SaveProficiencies   []string         `json:"save_proficiencies"`
	Armor               ArmorView        `json:"armor"`
	Speed               int              `json:"speed"`
	HitDie              int              `json:"hit_die"`
	InitiativeAdvantage bool             `json:"initiative_advantage"`
	Defenses            DefensesView     `json:"defenses"`
	Attacks             []AttackView     `json:"attacks"`
	Spells              []SpellView      `json:"spells"`
	Inventory           []ItemView       `json:"inventory"`
	Notes               string           `json:"notes"`
	Derived             CharacterDerived `json:"derived"`
	UpdatedAt           time.Time        `json:"updated_at"`
}

// CharacterDerived is what the server derives from the stored sheet by the
// sheet rules, the same numbers every roll uses.
type CharacterDerived struct {
	Modifiers           map[string]int `json:"modifiers" jsonschema:"ability modifier by ability key (str…cha)"`
	Saves               map[string]int `json:"saves" jsonschema:"saving throw modifier by ability key: ability modifier + proficiency bonus if proficient"`
	Skills              map[string]int `json:"skills" jsonschema:"check modifier of each of the 18 skills: ability modifier + proficiency bonus if proficient, twice with expertise"`
	PassivePerception   int            `json:"passive_perception" jsonschema:"10 + the Perception modifier"`
	Initiative          int            `json:"initiative" jsonschema:"initiative bonus (a Dexterity check)"`
	InitiativeAdvantage bool           `json:"initiative_advantage" jsonschema:"initiative is rolled with advantage (from the sheet)"`
	AC                  int            `json:"ac" jsonschema:"armor class from the armor, shield, unarmored formula and bonus"`
	StealthDisadvantage bool           `json:"stealth_disadvantage" jsonschema:"the armor imposes disadvantage on Stealth checks"`
	Speed               int            `json:"speed" jsonschema:"walking speed in feet after heavy armor without its Strength; 0 when not given"`
	HitDice             string         `json:"hit_dice" jsonschema:"hit dice pool as dice notation (5d8); empty without a hit die"`
	// Attacks follow the sheet's attacks, in order.
	Attacks []sheet.AttackDerived `json:"attacks" jsonschema:"each attack's to_hit (ability modifier + proficiency bonus if proficient + bonus), damage notation with the modifier (1d8+3) and damage_type, in sheet order"`
}

func characterDerived(c *models.Character) CharacterDerived {
	d := sheet.Derive(sheetInput(c))
	return CharacterDerived{Modifiers: d.Modifiers, Saves: d.Saves, Skills: d.Skills, PassivePerception: d.PassivePerception,
		Initiative: d.Initiative, InitiativeAdvantage: d.InitiativeAdvantage, AC: d.AC, StealthDisadvantage: d.StealthDisadvantage, Speed: d.Speed, HitDice: d.HitDice, Attacks: d.Attacks}
}

// CharacterList is the caller's characters.
type CharacterList struct {
	Characters []CharacterView `json:"characters"`
}

const maxTextLength = 20000

// validate checks every rule and reports all problems at once as
// character_invalid with one entry per JSON field.
func (in *CharacterInput) validate() error {
	e := apperr.E(apperr.CharacterInvalid, "The character has invalid fields.")
	in.Name = strings.TrimSpace(in.Name)
	if n := utf8.RuneCountInString(in.Name); n < 1 || n > 80 {
		e.WithField("name", "1 to 80 characters")
	}
	if in.Level < 1 || in.Level > 20 {
		e.WithField("level", "1 to 20")
	}
	for name, v := range map[string]int{"str": in.Abilities.Str, "dex": in.Abilities.Dex, "con": in.Abilities.Con,
		"int": in.Abilities.Int, "wis": in.Abilities.Wis, "cha": in.Abilities.Cha} {
		if v < 1 || v > 30 {
			e.WithField("abilities."+name, "1 to 30")
		}
	}
	in.SkillProficiencies = dedupe(in.SkillProficiencies)
	in.SkillExpertise = dedupe(in.SkillExpertise)
	for _, s := range in.SkillProficiencies {
		if _, ok := sheet.Skills[s]; !ok {
			e.WithField("skill_proficiencies", fmt.Sprintf("unknown skill %q", s))
		}
	}
	for _, s := range in.SkillExpertise {
		if !slices.Contains(in.SkillProficiencies, s) {
			e.WithField("skill_expertise", fmt.Sprintf("%q needs proficiency first", s))
		}
	}
	switch {
	case in.HP.Max < 0 || in.HP.Max > 9999:
		e.WithField("hp.max", "0 to 9999")
	case in.HP.Current < 0 || in.HP.Current > in.HP.Max:
		e.WithField("hp.current", "0 to hp.max")
	}
	if in.HP.Temp < 0 || in.HP.Temp > 9999 {
		e.WithField("hp.temp", "0 to 9999")
	}
	in.Conditions = dedupe(in.Conditions)
	for _, c := range in.Conditions {
		if !slices.Contains(Conditions, c) {
			e.WithField("conditions", fmt.Sprintf("unknown condition %q", c))
		}
	}
	if len(in.Resources) > 50 {
		e.WithField("resources", "at most 50")
	}
	for i, r := range in.Resources {
		if n := utf8.RuneCountInString(strings.TrimSpace(r.Name)); n < 1 || n > 80 {
			e.WithField(fmt.Sprintf("resources.%d.name", i), "1 to 80 characters")
		}
		if r.Max < 0 || r.Current < 0 || r.Current > r.Max {
			e.WithField(fmt.Sprintf("resources.%d.current", i), "0 to max")
		}
	}
	if utf8.RuneCountInString(in.Biography) > maxTextLength {
		e.WithField("biography", fmt.Sprintf("at most %d characters", maxTextLength))
	}
	if utf8.RuneCountInString(in.RoleplayGuidance) > maxTextLength {
		e.WithField("roleplay_guidance", fmt.Sprintf("at most %d characters", maxTextLength))
	}
	in.Class, in.Species, in.Background = strings.TrimSpace(in.Class), strings.TrimSpace(in.Species), strings.TrimSpace(in.Background)
	for field, v := range map[string]string{"class": in.Class, "species": in.Species, "background": in.Background} {
		if utf8.RuneCountInString(v) > 80 {
			e.WithField(field, "at most 80 characters")
		}
	}
	in.SaveProficiencies = dedupe(in.SaveProficiencies)
	for _, a := range in.SaveProficiencies {
		if !slices.Contains(sheet.Abilities, a) {
			e.WithField("save_proficiencies", fmt.Sprintf("unknown ability %q", a))
		}
	}
	if _, ok := sheet.Armors[in.Armor.Body]; in.Armor.Body != "" && !ok {
		e.WithField("armor.body", fmt.Sprintf("unknown armor %q", in.Armor.Body))
	}
	if !slices.Contains(unarmoredFormulas, in.Armor.Unarmored) {
		e.WithField("armor.unarmored", "empty, barbarian, monk or mage_armor")
	}
	if in.Armor.Bonus < -5 || in.Armor.Bonus > 10 {
		e.WithField("armor.bonus", "-5 to 10")
	}
	if in.Speed < 0 || in.Speed > 200 {
		e.WithField("speed", "0 to 200")
	}
	if !slices.Contains(hitDice, in.HitDie) {
		e.WithField("hit_die", "0, 6, 8, 10 or 12")
	}
	in.validateLists(e)
	for field, list := range map[string]*[]string{"defenses.resistances": &in.Defenses.Resistances,
		"defenses.immunities": &in.Defenses.Immunities, "defenses.vulnerabilities": &in.Defenses.Vulnerabilities} {
		for i, typ := range *list {
			(*list)[i] = strings.ToLower(strings.TrimSpace(typ))
			if !slices.Contains(sheet.DamageTypes, (*list)[i]) {
				e.WithField(field, fmt.Sprintf("unknown damage type %q", truncate(typ, 40)))
			}
		}
		*list = dedupe(*list)
	}
	if utf8.RuneCountInString(in.Notes) > maxNotesLength {
		e.WithField("notes", fmt.Sprintf("at most %d characters", maxNotesLength))
	}
	for field, v := range map[string]string{"name": in.Name, "biography": in.Biography, "roleplay_guidance": in.RoleplayGuidance,
		"class": in.Class, "species": in.Species, "background": in.Background, "notes": in.Notes} {
		if !models.StorableText(v) {
			e.WithField(field, models.UnstorableTextProblem)
		}
	}
	for i, r := range in.Resources {
		if !models.StorableText(r.Name) {
			e.WithField(fmt.Sprintf("resources.%d.name", i), models.UnstorableTextProblem)
		}
	}
	if len(e.Fields) > 0 {
		return e
	}
	return nil
}

// validateLists checks the attacks, spells and inventory, trimming names.
func (in *CharacterInput) validateLists(e *apperr.Error) {
	// entry checks a list entry's name (1–80 characters) and notes.
	entry := func(field string, i int, name *string, notes string) {
		*name = strings.TrimSpace(*name)
		if n := utf8.RuneCountInString(*name); n < 1 || n > 80 {
			e.WithField(fmt.Sprintf("%s.%d.name", field, i), "1 to 80 characters")
		} else if !models.StorableText(*name) {
			e.WithField(fmt.Sprintf("%s.%d.name", field, i), models.UnstorableTextProblem)
		}
		if utf8.RuneCountInString(notes) > maxEntryNotes {
			e.WithField(fmt.Sprintf("%s.%d.notes", field, i), fmt.Sprintf("at most %d characters", maxEntryNotes))
		} else if !models.StorableText(notes) {
			e.WithField(fmt.Sprintf("%s.%d.notes", field, i), models.UnstorableTextProblem)
		}
	}
	// most checks a list's length; between a number of entry i (lo to hi).
	most := func(field string, n, limit int) {
		if n > limit {
			e.WithField(field, fmt.Sprintf("at most %d", limit))
		}
	}
	between := func(field string, i int, key string, v, lo, hi int) {
		if v < lo || v > hi {
			e.WithField(fmt.Sprintf("%s.%d.%s", field, i, key), fmt.Sprintf("%d to %d", lo, hi))
		}
	}
	most("attacks", len(in.Attacks), maxAttacks)
	for i := range in.Attacks {
		a := &in.Attacks[i]
		entry("attacks", i, &a.Name, "")
		if a.Ability != "" && !slices.Contains(sheet.Abilities, a.Ability) {
			e.WithField(fmt.Sprintf("attacks.%d.ability", i), "empty or str, dex, con, int, wis, cha")
		}
		between("attacks", i, "bonus", a.Bonus, -20, 20)
		a.Damage = strings.TrimSpace(a.Damage)
		if len(a.Damage) > sheet.MaxDamageLength {
			e.WithField(fmt.Sprintf("attacks.%d.damage", i), fmt.Sprintf("dice notation of at most %d characters", sheet.MaxDamageLength))
		} else if _, err := dice.Parse(a.Damage, dice.DefaultLimits); err != nil {
			e.WithField(fmt.Sprintf("attacks.%d.damage", i), "dice notation (1d8)")
		}
		a.DamageType = strings.ToLower(strings.TrimSpace(a.DamageType))
		if !slices.Contains(sheet.DamageTypes, a.DamageType) {
			e.WithField(fmt.Sprintf("attacks.%d.damage_type", i), "a 5e SRD damage type")
		}
	}
	most("spells", len(in.Spells), maxSpells)
	for i := range in.Spells {
		sp := &in.Spells[i]
		entry("spells", i, &sp.Name, sp.Notes)
		between("spells", i, "level", sp.Level, 0, 9)
	}
	most("inventory", len(in.Inventory), maxItems)
	for i := range in.Inventory {
		it := &in.Inventory[i]
		entry("inventory", i, &it.Name, it.Notes)
		between("inventory", i, "quantity", it.Quantity, 0, 9999)
	}
}

func dedupe(in []string) []string {
	out := []string{}
	for _, s := range in {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

func (in CharacterInput) apply(c *models.Character) {
	c.Name, c.Level = in.Name, in.Level
	c.Str, c.Dex, c.Con, c.Int, c.Wis, c.Cha = in.Abilities.Str, in.Abilities.Dex, in.Abilities.Con, in.Abilities.Int, in.Abilities.Wis, in.Abilities.Cha
	c.SkillProficiencies, c.SkillExpertise, c.Conditions = in.SkillProficiencies, in.SkillExpertise, in.Conditions
	c.HPMax, c.HPCurrent, c.HPTemp = in.HP.Max, in.HP.Current, in.HP.Temp
	c.Resources = make([]models.Resource, len(in.Resources))
	for i, r := range in.Resources {
		c.Resources[i] = models.Resource{Name: strings.TrimSpace(r.Name), Current: r.Current, Max: r.Max}
	}
	c.Biography, c.RoleplayGuidance = in.Biography, in.RoleplayGuidance
	c.Class, c.Species, c.Background, c.SaveProficiencies = in.Class, in.Species, in.Background, nonNil(in.SaveProficiencies)
	c.Armor, c.Shield, c.Unarmored, c.ArmorBonus = in.Armor.Body, in.Armor.Shield, in.Armor.Unarmored, in.Armor.Bonus
	c.Speed, c.HitDie, c.InitiativeAdvantage = in.Speed, in.HitDie, in.InitiativeAdvantage
	c.Attacks = make([]models.Attack, len(in.Attacks))
	for i, a := range in.Attacks {
		c.Attacks[i] = models.Attack(a)
	}
	c.Spells = make([]models.Spell, len(in.Spells))
	for i, sp := range in.Spells {
		c.Spells[i] = models.Spell(sp)
	}
	c.Inventory = make([]models.InventoryItem, len(in.Inventory))
	for i, it := range in.Inventory {
		c.Inventory[i] = models.InventoryItem(it)
	}
	c.Notes = in.Notes
	c.Defenses = models.DamageDefenses{Resistances: nonNil(in.Defenses.Resistances), Immunities: nonNil(in.Defenses.Immunities),
		Vulnerabilities: nonNil(in.Defenses.Vulnerabilities)}
}

func characterView(c models.Character) CharacterView {
	v := CharacterView{ID: c.ID, Name: c.Name, Level: c.Level, ProficiencyBonus: sheet.ProficiencyBonus(c.Level),
		Abilities:          Abilities{Str: c.Str, Dex: c.Dex, Con: c.Con, Int: c.Int, Wis: c.Wis, Cha: c.Cha},
		SkillProficiencies: nonNil(c.SkillProficiencies), SkillExpertise: nonNil(c.SkillExpertise),
		HP: HP{Max: c.HPMax, Current: c.HPCurrent, Temp: c.HPTemp}, Conditions: nonNil(c.Conditions),
		Resources: []ResourceView{}, Biography: c.Biography, RoleplayGuidance: c.RoleplayGuidance,
		Class: c.Class, Species: c.Species, Background: c.Background, SaveProficiencies: nonNil(c.SaveProficiencies),
		Armor: ArmorView{Body: c.Armor, Shield: c.Shield, Unarmored: c.Unarmored, Bonus: c.ArmorBonus}, Speed: c.Speed, HitDie: c.HitDie,
		InitiativeAdvantage: c.InitiativeAdvantage, Defenses: defensesView(c.Defenses), Attacks: []AttackView{}, Spells: []SpellView{}, Inventory: []ItemView{}, Notes: c.Notes,
		Derived: characterDerived(&c), UpdatedAt: c.UpdatedAt}
	for _, r := range c.Resources {
		v.Resources = append(v.Resources, ResourceView(r))
	}
	for _, a := range c.Attacks {
		v.Attacks = append(v.Attacks, AttackView(a))
	}
	for _, sp := range c.Spells {
		v.Spells = append(v.Spells, SpellView(sp))
	}
	for _, it := range c.Inventory {
		v.Inventory = append(v.Inventory, ItemView(it))
	}
	return v
}

// sheetInput is what the stored character gives the sheet rules.
func sheetInput(c *models.Character) sheet.Input {
	return sheet.Input{Level: c.Level, Scores: sheet.Scores{Str: c.Str, Dex: c.Dex, Con: c.Con, Int: c.Int, Wis: c.Wis, Cha: c.Cha},
		SaveProficiencies: c.SaveProficiencies, SkillProficiencies: c.SkillProficiencies, SkillExpertise: c.SkillExpertise,
		Armor: sheet.ArmorInput{Armor: c.Armor, Shield: c.Shield, Unarmored: c.Unarmored, Bonus: c.ArmorBonus},
		Speed: c.Speed, HitDie: c.HitDie, InitiativeAdvantage: c.InitiativeAdvantage, Attacks: sheetAttacks(c.Attacks)}
}

// sheetAttacks are the stored attacks as the sheet rules read them.
func sheetAttacks(attacks []models.Attack) []sheet.Attack {
	out := make([]sheet.Attack, len(attacks))
	for i, a := range attacks {
		out[i] = sheet.Attack(a)
	}
	return out
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// CreateCharacter creates a character owned by the caller. Returns
// character_invalid with per-field problems; nothing is written then.
func (s *Service) CreateCharacter(ctx context.Context, c Caller, in CharacterInput) (CharacterView, error) {
	ch, err := s.createCharacter(ctx, s.store, c, in)
	if err != nil {
		return CharacterView{}, err
	}
	s.analytics.Reach(c.UserID, analytics.Made)
	return characterView(*ch), nil
}

// PreviewCharacter is what the sheet rules derive from a character being
// edited, before it is saved: the editor's totals follow the typing through
// the very rules the saved sheet uses, not a copy of them in the browser.
// Nothing is read or written. Returns character_invalid.
func (s *Service) PreviewCharacter(_ context.Context, _ Caller, in CharacterInput) (CharacterDerived, error) {
	if err := in.validate(); err != nil {
		return CharacterDerived{}, err
	}
	var ch models.Character
	in.apply(&ch)
	return characterDerived(&ch), nil
}

// createCharacter checks and writes a character of the caller. Returns
// character_invalid.
func (s *Service) createCharacter(ctx context.Context, tx *models.Store, c Caller, in CharacterInput) (*models.Character, error) {
	if err := in.validate(); err != nil {
		return nil, err
	}
	ch := &models.Character{OwnerUserID: c.UserID, CreatedAt: s.now(), UpdatedAt: s.now()}
	in.apply(ch)
	return ch, tx.CreateCharacter(ctx, ch)
}

// ownCharacter loads a character of the caller; anyone else's is not_found.
func ownCharacter(ctx context.Context, tx *models.Store, c Caller, id int64) (*models.Character, error) {
	ch, err := tx.FindCharacterByID(ctx, id)
	if err != nil || ch.OwnerUserID != c.UserID {
		if err != nil && apperr.CodeOf(err) != apperr.NotFound {
			return nil, err
		}
		return nil, notFound("character")
	}
	return ch, nil
}

// GetCharacter returns one of the caller's characters. Returns not_found.
func (s *Service) GetCharacter(ctx context.Context, c Caller, id int64) (CharacterView, error) {
	ch, err := ownCharacter(ctx, s.store, c, id)
	if err != nil {
		return CharacterView{}, err
	}
	return characterView(*ch), nil
}

// ListCharacters returns the caller's characters.
func (s *Service) ListCharacters(ctx context.Context, c Caller) (CharacterList, error) {
	chars, err := s.store.FindCharactersOfUser(ctx, c.UserID)
	if err != nil {
		return CharacterList{}, err
	}
	out := CharacterList{Characters: []CharacterView{}}
	for _, ch := range chars {
		out.Characters = append(out.Characters, characterView(ch))
	}
	return out, nil
}

// UpdateCharacter replaces a character's fields. Returns not_found,
// character_invalid, character_in_session.
func (s *Service) UpdateCharacter(ctx context.Context, c Caller, id int64, in CharacterInput) (CharacterView, error) {
	if err := in.validate(); err != nil {
		return CharacterView{}, err
	}
	var v CharacterView
	err := s.store.Tx(ctx, func(tx *models.Store) error {
		ch, err := ownCharacter(ctx, tx, c, id)
		if err != nil {
			return err
		}
		// While the character plays, its live state belongs to the table
		// (ChangeCharacterState); a whole-sheet save would overwrite it.
		if _, err := tx.FindLease(ctx, id); err == nil {
			return apperr.E(apperr.CharacterInSession, "%s is playing in an active session; edit the sheet after it ends.", ch.Name)
		} else if apperr.CodeOf(err) != apperr.NotFound {
			return err
		}
		in.apply(ch)
		ch.UpdatedAt = s.now()
		if err := tx.SaveCharacter(ctx, ch); err != nil {
			return err
		}
		v = characterView(*ch)
		return nil
	})
	return v, err
}
