package scripting

import (
	"regexp"
	"strconv"
	"strings"
)

// scriptFile names the compiled Library + hook source in stack traces.
const scriptFile = "aidscript.js"

// wrapSource joins Library and hook script the way AI Dungeon does (the
// Library is prepended, same scope) inside a try/catch.
//
// The try/catch is not a security boundary. It began because qjs v0.0.6
// frees the function object twice when an exception escapes its Eval of
// bytecode, which corrupts the runtime (measured: the next call traps);
// hooks now run through JS_EvalFunction directly (vm.evalFunction), which
// does not, and the catch remains the one place a script's exception is
// handed over, to the prelude's __aidFail.
//
// Consequences, all checked by tests: var and function declarations still
// become globals (sloppy-mode Annex B hoisting); top-level let/const/class
// become block-scoped, which the Library and hook share since they are in
// the same block; the completion value of the try statement is the script's
// (a var statement does not change it), so `modifier(text)` as the last line
// still produces the result. The trailing var captures a modifier function
// declared with const/let, which would otherwise be invisible to the host
// when the hook ends in `void 0`. A "use strict" at the top of the Library is
// no longer a directive inside the block, so such a Library runs sloppy too
// (more permissive, never less).
//
// "try {" shares line 1 with the Library's first line so that line numbers
// in traces equal Library lines, and hook lines follow after
// libraryLines(library) lines.
func wrapSource(library, script string) string {
	var b strings.Builder
	b.Grow(len(library) + len(script) + 160)
	b.WriteString("try {")
	b.WriteString(library)
	b.WriteString("\n")
	b.WriteString(script)
	b.WriteString("\n;var __aidModifier = typeof modifier === \"function\" ? modifier : void 0;\n} catch (__aidError) { __aidFail(__aidError) }")
	return b.String()
}

// libraryLines is how many lines of the wrapped source precede the hook
// script.
func libraryLines(library string) int {
	return strings.Count(library, "\n") + 1
}

// modifierCallTail matches a last line that calls modifier, e.g.
// "modifier(text);" or "modifier(text) // keep this".
var modifierCallTail = regexp.MustCompile(`(?:^|[\s;{}(])modifier\s*\([^()]*\)\s*;?\s*(?://.*)?$`)

// endsWithModifierCall reports whether the hook script's last statement
// visibly calls modifier. The host calls modifier itself only when the
// completion value is undefined and this is false, so a modifier that returns
// nothing is not run twice.
func endsWithModifierCall(script string) bool {
	s := script
	for {
		s = strings.TrimRight(s, " \t\r\n;")
		switch {
		case strings.HasSuffix(s, "*/"):
			i := strings.LastIndex(s, "/*")
			if i < 0 {
				return false
			}
			s = s[:i]
		default:
			line := s
			if i := strings.LastIndexByte(s, '\n'); i >= 0 {
				line = s[i+1:]
			}
			if strings.HasPrefix(strings.TrimSpace(line), "//") {
				s = s[:len(s)-len(line)]
				continue
			}
			return modifierCallTail.MatchString(line)
		}
	}
}

var frameLine = regexp.MustCompile(regexp.QuoteMeta(scriptFile) + `:(\d+)`)

// errorFromException builds a throw or compile Error from a QuickJS
// exception rendered as "Name: message\n    at f (file:line:col)\n…".
// The first frame in the hook script gives Line; if the innermost frame is
// in the Library it also gives LibraryLine. A line past the end of the
// script (a syntax error noticed only at the host's trailer, e.g. an
// unclosed call on the last line) is reported as the script's last line.
func errorFromException(text string, libLines, scriptLines int) *Error {
	text = strings.TrimRight(text, "\n")
	msg, stack, _ := strings.Cut(text, "\n")
	e := &Error{Kind: KindThrow, Message: msg}
	first := true
	for _, m := range frameLine.FindAllStringSubmatch(stack, -1) {
		n, err := strconv.Atoi(m[1])
		if err != nil {
			continue
		}
		if n <= libLines {
			if first {
				e.LibraryLine = n
			}
		} else {
			e.Line = min(n-libLines, scriptLines)
			break
		}
		first = false
	}
	return e
}
