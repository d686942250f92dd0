package models

import (
	"strings"
	"unicode/utf8"

	"github.com/adventure-table/adventure-table/models/apperr"
)

// UnstorableTextProblem is the field message for text StorableText refuses.
const UnstorableTextProblem = "must be valid UTF-8 without NUL characters"

// StorableText reports whether s is stored alike on both databases: valid
// UTF-8 without NUL (U+0000). PostgreSQL refuses either in a text value or
// a query parameter (SQLSTATE 22021) where SQLite keeps them, so gameplay
// refuses such user input with UnstorableText and cleans what a model or a
// script wrote with CleanText.
func StorableText(s string) bool {
	return utf8.ValidString(s) && strings.IndexByte(s, 0) < 0
}

// CleanText makes text storable: NUL characters are dropped and invalid
// UTF-8 becomes U+FFFD.
func CleanText(s string) string {
	if StorableText(s) {
		return s
	}
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "")
}

// UnstorableText is the error for a field whose text StorableText refuses,
// under the code of that field's own validator.
func UnstorableText(code apperr.Code, field string) *apperr.Error {
	return apperr.E(code, "Text cannot contain NUL characters or invalid UTF-8 (%s).", field).WithField(field, UnstorableTextProblem)
}
