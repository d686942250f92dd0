// Package appfile reads and names the app's own file formats (a character
// file, an adventure or scenario bundle): one strict JSON object that
// carries its format name and version.
package appfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/adventure-table/adventure-table/models/apperr"
)

// Spec describes one file format of the app.
type Spec struct {
	// Format is the value of the file's "format" field.
	Format string
	// Version is the only value of "version" this build reads.
	Version int
	// MaxBytes bounds a file.
	MaxBytes int
	// Noun names the file in messages ("character file").
	Noun string
}

// Decode reads a file of the format into v (a struct with the format and
// version fields) strictly: one JSON object of at most MaxBytes, no
// duplicate keys, no unknown fields, no trailing data, Format at Version.
// It checks nothing of what the file describes. Returns invalid_request or
// import_format_unsupported.
func (sp Spec) Decode(data []byte, v any) error {
	if len(data) > sp.MaxBytes {
		return apperr.E(apperr.InvalidRequest, "The %s is larger than %d bytes.", sp.Noun, sp.MaxBytes).
			WithDetail("limit_bytes", sp.MaxBytes)
	}
	if err := CheckKeys(data); err != nil {
		return apperr.Wrap(err, apperr.InvalidRequest, "The %s is not valid JSON: %v", sp.Noun, err)
	}
	// The header is read loosely first so that a file of another format or a
	// later version is reported as such, not as its first unknown field.
	var head struct {
		Format  any `json:"format"`
		Version any `json:"version"`
	}
	_ = json.Unmarshal(data, &head)
	if head.Format != sp.Format || head.Version != float64(sp.Version) {
		e := apperr.E(apperr.ImportFormatUnsupported, "This is not an Adventure Table %s of version %d.", sp.Noun, sp.Version)
		// Echo what the file claimed only when it is short and plain.
		if f, ok := head.Format.(string); ok && len(f) <= 100 {
			e.WithDetail("format", f)
		}
		if v, ok := head.Version.(float64); ok {
			e.WithDetail("version", v)
		}
		return e
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return apperr.Wrap(err, apperr.InvalidRequest, "The %s does not fit the format: %v", sp.Noun, err)
	}
	return nil
}

// CheckKeys reports whether data is exactly one JSON value in which no
// object repeats a key. encoding/json keeps the last of two equal keys
// silently, and matches field names without regard to case, so keys are
// compared case-folded: a file that says two things must not import as one
// of them.
func CheckKeys(data []byte) error {
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

// FileName is the name a file is saved under: name with its path
// separators and control characters replaced, or fallback when nothing is
// left, followed by suffix (".character.json").
func FileName(name, fallback, suffix string) string {
	clean := strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || strings.ContainsRune(`/\:*?"<>|`, r) {
			return '_'
		}
		return r
	}, strings.TrimSpace(name))
	if clean == "" || strings.Trim(clean, ".") == "" {
		clean = fallback
	}
	return clean + suffix
}
