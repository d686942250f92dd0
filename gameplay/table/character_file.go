package table

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/adventure-table/adventure-table/models/apperr"
)

// CharacterFormat names the app's own character file format.
const CharacterFormat = "adventure-table.character"

// CharacterFormatVersion is the version of CharacterFormat this build writes
// and the only one it reads.
const CharacterFormatVersion = 1

// MaxCharacterFileBytes bounds an imported character file. The largest
// valid character (two 20,000-character texts escaped as \uXXXX, 50
// resources) stays well below it.
const MaxCharacterFileBytes = 1 << 20

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
	v := characterView(*ch)
	return CharacterFile{Format: CharacterFormat, Version: CharacterFormatVersion, Character: CharacterInput{
		Name: v.Name, Level: v.Level, Abilities: v.Abilities, SkillProficiencies: v.SkillProficiencies,
		SkillExpertise: v.SkillExpertise, HP: v.HP, Conditions: v.Conditions, Resources: v.Resources,
		Biography: v.Biography, RoleplayGuidance: v.RoleplayGuidance,
	}}, nil
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
	if len(data) > MaxCharacterFileBytes {
		return CharacterInput{}, apperr.E(apperr.InvalidRequest, "The character file is larger than %d bytes.", MaxCharacterFileBytes).
			WithDetail("limit_bytes", MaxCharacterFileBytes)
	}
	if err := checkJSONKeys(data); err != nil {
		return CharacterInput{}, apperr.Wrap(err, apperr.InvalidRequest, "The character file is not valid JSON: %v", err)
	}
	// The header is read loosely first so that a file of another format or a
	// later version is reported as such, not as its first unknown field.
	var head struct {
		Format  any `json:"format"`
		Version any `json:"version"`
	}
	_ = json.Unmarshal(data, &head)
	if head.Format != CharacterFormat || head.Version != float64(CharacterFormatVersion) {
		e := apperr.E(apperr.ImportFormatUnsupported, "This is not an Adventure Table character file of version %d.", CharacterFormatVersion)
		// Echo what the file claimed only when it is short and plain.
		if f, ok := head.Format.(string); ok && len(f) <= 100 {
			e.WithDetail("format", f)
		}
		if v, ok := head.Version.(float64); ok {
			e.WithDetail("version", v)
		}
		return CharacterInput{}, e
	}
	var f CharacterFile
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return CharacterInput{}, apperr.Wrap(err, apperr.InvalidRequest, "The character file does not fit the format: %v", err)
	}
	return f.Character, nil
}

// checkJSONKeys reports whether data is exactly one JSON value in which no
// object repeats a key. encoding/json keeps the last of two equal keys
// silently, and matches field names without regard to case, so keys are
// compared case-folded: a file that says two things must not import as one
// of them.
func checkJSONKeys(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	// One frame per open container: its keys when it is an object (nil for
	// an array), and whether the next string token in it is a key.
	type frame struct {
		keys      map[string]bool
		expectKey bool
	}
	var stack []frame
	for seen := false; ; seen = true {
		tok, err := dec.Token()
		if seen && len(stack) == 0 {
			// The one value is complete: only the end may follow.
			if err == io.EOF {
				return nil
			}
			return errors.New("trailing data after the JSON value")
		}
		if err == io.EOF {
			return io.ErrUnexpectedEOF
		}
		if err != nil {
			return err
		}
		top := len(stack) - 1
		if top >= 0 && stack[top].keys != nil && stack[top].expectKey {
			if d, ok := tok.(json.Delim); ok && d == '}' {
				stack = stack[:top]
				continue
			}
			key := tok.(string) // the decoder only yields a string here
			folded := strings.ToLower(strings.ToUpper(key))
			if stack[top].keys[folded] {
				return fmt.Errorf("duplicate key %q", key)
			}
			stack[top].keys[folded] = true
			stack[top].expectKey = false
			continue
		}
		// A value (or an array's close) comes next.
		if top >= 0 && stack[top].keys != nil {
			stack[top].expectKey = true
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, frame{keys: map[string]bool{}, expectKey: true})
		case json.Delim('['):
			stack = append(stack, frame{})
		case json.Delim(']'):
			stack = stack[:top]
		}
	}
}

// CharacterFileName is the name a character's file is saved under:
// "<name>.character.json", the name's path separators and control
// characters replaced.
func CharacterFileName(name string) string {
	clean := strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || strings.ContainsRune(`/\:*?"<>|`, r) {
			return '_'
		}
		return r
	}, strings.TrimSpace(name))
	if clean == "" || strings.Trim(clean, ".") == "" {
		clean = "character"
	}
	return clean + ".character.json"
}
