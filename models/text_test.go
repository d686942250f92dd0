package models_test

import (
	"testing"

	"github.com/adventure-table/adventure-table/models"
)

func TestStorableText(t *testing.T) {
	tests := []struct {
		in, clean string
		ok        bool
	}{
		{"plain", "plain", true},
		{"", "", true},
		{"ünïcødé 龍 🐉", "ünïcødé 龍 🐉", true},
		{"a\x00b", "ab", false},
		{"\x00\x00", "", false},
		{"a\xffb", "a\uFFFDb", false},
		{"\xed\xa0\x80", "\uFFFD", false}, // a UTF-16 surrogate written as UTF-8
		{"a\x00\xffb", "a\uFFFDb", false},
	}
	for _, tt := range tests {
		if got := models.StorableText(tt.in); got != tt.ok {
			t.Errorf("StorableText(%q) = %v, want %v", tt.in, got, tt.ok)
		}
		if got := models.CleanText(tt.in); got != tt.clean || !models.StorableText(got) {
			t.Errorf("CleanText(%q) = %q, want %q", tt.in, got, tt.clean)
		}
	}
}
