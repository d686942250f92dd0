package scripting_test

import (
	"strings"
	"testing"

	"github.com/adventure-table/adventure-table/gameplay/scripting"
)

// ErrorLines reads back the lines an Error's text names, whichever of the
// four shapes it has; a line named inside the message itself is not the
// error's.
func TestErrorLines(t *testing.T) {
	tests := []struct {
		name          string
		err           scripting.Error
		line, library int
	}{
		{"Script", scripting.Error{Message: "TypeError: x is null", Line: 2}, 2, 0},
		{"LibraryCalledFromScript", scripting.Error{Message: "Error: boom", Line: 3, LibraryLine: 40}, 3, 40},
		{"LibraryOnly", scripting.Error{Message: "SyntaxError: bad", LibraryLine: 7}, 0, 7},
		{"None", scripting.Error{Message: "timeout"}, 0, 0},
		{"LineInTheMessage", scripting.Error{Message: "Error: see (script line 9) first", Line: 4}, 4, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			line, lib := scripting.ErrorLines(tt.err.Error())
			if line != tt.line || lib != tt.library {
				t.Errorf("ErrorLines(%q) = %d, %d; want %d, %d", tt.err.Error(), line, lib, tt.line, tt.library)
			}
		})
	}
}

// FuzzErrorLines: any text is read without a panic, never as a negative
// line, and an Error that names a line always gives its lines back.
func FuzzErrorLines(f *testing.F) {
	f.Add("TypeError: x", 2, 0)
	f.Add("Error: boom (script line 9)", 3, 40)
	f.Add("", 0, 7)
	f.Add("(library line 1, called from script line 2)", 0, 0)
	f.Fuzz(func(t *testing.T, msg string, line, lib int) {
		if l, b := scripting.ErrorLines(msg); l < 0 || b < 0 {
			t.Fatalf("ErrorLines(%q) = %d, %d", msg, l, b)
		}
		if line < 0 || lib < 0 || line > 1<<30 || lib > 1<<30 || (line == 0 && lib == 0) || strings.ContainsAny(msg, "\x00") {
			return
		}
		text := (&scripting.Error{Message: msg, Line: line, LibraryLine: lib}).Error()
		if l, b := scripting.ErrorLines(text); l != line || b != lib {
			t.Fatalf("ErrorLines(%q) = %d, %d; want %d, %d", text, l, b, line, lib)
		}
	})
}
