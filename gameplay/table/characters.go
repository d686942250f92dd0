package table

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

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
}

// CharacterView is a character as its owner sees it.
type CharacterView struct {
	ID                 int64            `json:"id"`
	Name               string           `json:"name"`
	Level              int              `json:"level"`
	ProficiencyBonus   int              `json:"proficiency_bonus"`
	Abilities          Abilities        `json:"abilities"`
	SkillProficiencies []string         `json:"skill_proficiencies"`
	SkillExpertise     []string         `json:"skill_expertise"`
	HP                 HP               `json:"hp"`
	Conditions         []string         `json:"conditions"`
	Resources          []ResourceView   `json:"resources"`
	Biography          string           `json:"biography"`
	RoleplayGuidance   string           `json:"roleplay_guidance"`
	Derived            CharacterDerived `json:"derived"`
	UpdatedAt          time.Time        `json:"updated_at"`
}

// CharacterDerived is what the server derives from the stored sheet by the
// sheet rules, the same numbers every roll uses. Saves, AC, speed and hit
// dice join it once the sheet stores their inputs.
type CharacterDerived struct {
	Modifiers         map[string]int `json:"modifiers" jsonschema:"ability modifier by ability key (str…cha)"`
	Skills            map[string]int `json:"skills" jsonschema:"check modifier of each of the 18 skills: ability modifier + proficiency bonus if proficient, twice with expertise"`
	PassivePerception int            `json:"passive_perception" jsonschema:"10 + the Perception modifier"`
	Initiative        int            `json:"initiative" jsonschema:"initiative bonus (a Dexterity check)"`
}

func characterDerived(c *models.Character) CharacterDerived {
	d := sheet.Derive(sheetInput(c))
	return CharacterDerived{Modifiers: d.Modifiers, Skills: d.Skills, PassivePerception: d.PassivePerception, Initiative: d.Initiative}
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
	for field, v := range map[string]string{"name": in.Name, "biography": in.Biography, "roleplay_guidance": in.RoleplayGuidance} {
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
}

func characterView(c models.Character) CharacterView {
	v := CharacterView{ID: c.ID, Name: c.Name, Level: c.Level, ProficiencyBonus: sheet.ProficiencyBonus(c.Level),
		Abilities:          Abilities{Str: c.Str, Dex: c.Dex, Con: c.Con, Int: c.Int, Wis: c.Wis, Cha: c.Cha},
		SkillProficiencies: nonNil(c.SkillProficiencies), SkillExpertise: nonNil(c.SkillExpertise),
		HP: HP{Max: c.HPMax, Current: c.HPCurrent, Temp: c.HPTemp}, Conditions: nonNil(c.Conditions),
		Resources: []ResourceView{}, Biography: c.Biography, RoleplayGuidance: c.RoleplayGuidance,
		Derived: characterDerived(&c), UpdatedAt: c.UpdatedAt}
	for _, r := range c.Resources {
		v.Resources = append(v.Resources, ResourceView(r))
	}
	return v
}

// sheetInput is what the stored character gives the sheet rules. Save
// proficiencies, armor, speed and hit die are not stored yet, so saves are
// plain ability modifiers, AC is 10 + Dex, and speed and hit dice are
// unknown (0, "").
func sheetInput(c *models.Character) sheet.Input {
	return sheet.Input{Level: c.Level, Scores: sheet.Scores{Str: c.Str, Dex: c.Dex, Con: c.Con, Int: c.Int, Wis: c.Wis, Cha: c.Cha},
		SkillProficiencies: c.SkillProficiencies, SkillExpertise: c.SkillExpertise}
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
	if err := in.validate(); err != nil {
		return CharacterView{}, err
	}
	ch := &models.Character{OwnerUserID: c.UserID, CreatedAt: s.now(), UpdatedAt: s.now()}
	in.apply(ch)
	if err := s.store.CreateCharacter(ctx, ch); err != nil {
		return CharacterView{}, err
	}
	return characterView(*ch), nil
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
