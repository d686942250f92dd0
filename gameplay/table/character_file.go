package table

import (
	"context"

	"github.com/adventure-table/adventure-table/gameplay/appfile"
)

// CharacterFormat names the app's own character file format.
const CharacterFormat = "adventure-table.character"

// CharacterFormatVersion is the version of CharacterFormat this build writes
// and the only one it reads. Version 1 grew the sheet fields (class,
// species, background, save_proficiencies, armor, speed, hit_die, then
// attacks, spells, inventory, notes) backward-compatibly: they are
// optional when read, so a file written before them still imports, with
// none of them given.
const CharacterFormatVersion = 1

// MaxCharacterFileBytes bounds an imported character file. The largest
// valid character (two 20,000-character texts and the 10,000-character
// notes escaped as \uXXXX, 50 resources and attacks, 200 spells and items
// with their notes: about 1.1 MB) stays well below it.
const MaxCharacterFileBytes = 2 << 20

// CharacterFile is a character as a file: the format, its version and the
// character's own fields. It never carries ids, the owner or timestamps, so
// an import can only ever create a new character of the importer.
type CharacterFile struct {
	Format    string         `json:"format" jsonschema:"always adventure-table.character"`
	Version   int            `json:"version" jsonschema:"format version; 1"`
	Character CharacterInput `json:"character"`
}

// ExportCharacter returns one of the caller's characters as a file.
// Returns not_found for a character that is not the caller's.
func (s *Service) ExportCharacter(ctx context.Context, c Caller, id int64) (CharacterFile, error) {
	ch, err := ownCharacter(ctx, s.store, c, id)
	if err != nil {
		return CharacterFile{}, err
	}
	return CharacterFile{Format: CharacterFormat, Version: CharacterFormatVersion, Character: inputOf(characterView(*ch))}, nil
}

// inputOf is a character's own fields, as a player writes them.
func inputOf(v CharacterView) CharacterInput {
	return CharacterInput{
		Name: v.Name, Level: v.Level, Abilities: v.Abilities, SkillProficiencies: v.SkillProficiencies,
		SkillExpertise: v.SkillExpertise, HP: v.HP, Conditions: v.Conditions, Resources: v.Resources,
		Biography: v.Biography, RoleplayGuidance: v.RoleplayGuidance, Class: v.Class, Species: v.Species,
		Background: v.Background, SaveProficiencies: v.SaveProficiencies, Armor: v.Armor, Speed: v.Speed, HitDie: v.HitDie,
		InitiativeAdvantage: v.InitiativeAdvantage, Defenses: v.Defenses, Attacks: v.Attacks, Spells: v.Spells, Inventory: v.Inventory, Notes: v.Notes,
	}
}

// ImportCharacter creates a new character of the caller from a character
// file, under the same rules as CreateCharacter. Returns invalid_request for
// a file that is too big, not JSON, has duplicate keys or unknown fields;
// import_format_unsupported for another format or version; character_invalid
// with per-field problems. Nothing is written on any error.
func (s *Service) ImportCharacter(ctx context.Context, c Caller, data []byte) (CharacterView, error) {
	in, err := DecodeCharacterFile(data)
	if err != nil {
		return CharacterView{}, err
	}
	return s.CreateCharacter(ctx, c, in)
}

// DecodeCharacterFile reads a character file strictly: one JSON object of
// at most MaxCharacterFileBytes, no duplicate keys, no unknown fields, no
// trailing data, CharacterFormat at CharacterFormatVersion. It does not
// check the character's rules (CreateCharacter does). Returns
// invalid_request or import_format_unsupported.
func DecodeCharacterFile(data []byte) (CharacterInput, error) {
	var f CharacterFile
	if err := characterFileSpec.Decode(data, &f); err != nil {
		return CharacterInput{}, err
	}
	return f.Character, nil
}

var characterFileSpec = appfile.Spec{Format: CharacterFormat, Version: CharacterFormatVersion, MaxBytes: MaxCharacterFileBytes, Noun: "character file"}

// CharacterFileName is the name a character's file is saved under:
// "<name>.character.json", the name's path separators and control
// characters replaced.
func CharacterFileName(name string) string {
	return appfile.FileName(name, "character", ".character.json")
}
