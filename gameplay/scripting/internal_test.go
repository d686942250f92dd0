package scripting

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestEndsWithModifierCall(t *testing.T) {
	tests := []struct {
		name, script string
		want         bool
	}{
		{"Plain", "const modifier = (text) => ({ text });\nmodifier(text)", true},
		{"Semicolon", "modifier(text);", true},
		{"TrailingComment", "modifier(text); // keep this line last", true},
		{"TrailingBlankLinesAndBlockComment", "modifier(text);\n\n/* end */\n\n", true},
		{"VoidZero", "hook(() => ({ text }));\n/* Don't modify this part */\nvoid 0;", false},
		{"CommentedOut", "// modifier(text)", false},
		{"OtherCall", "InnerSelf(\"input\");", false},
		{"MethodNamedModifier", "obj.modifier(text)", false},
		{"Empty", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := endsWithModifierCall(tt.script); got != tt.want {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestErrorFromException(t *testing.T) {
	const lib = 10 // Library lines
	tests := []struct {
		name, text string
		want       Error
	}{
		{"InScript", "TypeError: x is null\n    at <eval> (aidscript.js:12:3)\n", Error{Kind: KindThrow, Message: "TypeError: x is null", Line: 2}},
		{"LibraryCalledFromScript", "Error: boom\n    at f (aidscript.js:4:9)\n    at g (aidscript.js:7:1)\n    at <eval> (aidscript.js:13:1)\n", Error{Kind: KindThrow, Message: "Error: boom", Line: 3, LibraryLine: 4}},
		{"PreludeFrameSkipped", "Error: Story card not found\n    at removeStoryCard (prelude.js:120:13)\n    at <eval> (aidscript.js:15:1)\n", Error{Kind: KindThrow, Message: "Error: Story card not found", Line: 5}},
		{"PastTheEnd", "SyntaxError: unexpected token\n    at aidscript.js:40:1\n", Error{Kind: KindThrow, Message: "SyntaxError: unexpected token", Line: 6}},
		{"NoStack", "plain", Error{Kind: KindThrow, Message: "plain"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(&tt.want, errorFromException(tt.text, lib, 6)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestWazeroRuntimeIsClosed(t *testing.T) {
	// qjs's Close leaves the wazero runtime (and its compiled host
	// modules) alive forever; closeRuntime must reach and close it.
	if !wrtFound {
		t.Fatal("qjs.Runtime has no wrt field of type wazero.Runtime: the leak fix is inactive")
	}
	s, err := New(Options{Spares: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	v, err := s.freshVM()
	if err != nil {
		t.Fatal(err)
	}
	w := wazeroRuntimeOf(v.rt)
	if w == nil {
		t.Fatal("no wazero runtime")
	}
	v.close(true)
	emptyModule := []byte("\x00asm\x01\x00\x00\x00")
	if _, err := w.CompileModule(context.Background(), emptyModule); err == nil {
		t.Error("the wazero runtime is still open after close")
	}
}

func TestCacheEvictsLeastRecentlyUsed(t *testing.T) {
	c := newBytecodeCache(10)
	add := func(name string, size int) *cacheEntry {
		e, owner := c.get(name, "")
		if !owner {
			t.Fatalf("%s: already cached", name)
		}
		e.bytecode = make([]byte, size)
		c.finish(e, true)
		return e
	}
	add("a", 4)
	add("b", 4)
	if _, owner := c.get("a", ""); owner { // touch a
		t.Fatal("a missing")
	}
	add("c", 4) // over the limit: b is the least recently used
	for name, want := range map[string]bool{"a": true, "b": false, "c": true} {
		c.mu.Lock()
		_, ok := c.entries[cacheKey(name, "")]
		c.mu.Unlock()
		if ok != want {
			t.Errorf("%s cached = %v, want %v", name, ok, want)
		}
	}
	// A transient failure is not kept.
	e, _ := c.get("d", "")
	c.finish(e, false)
	if _, owner := c.get("d", ""); !owner {
		t.Error("a failed compile was kept")
	}
	if cacheKey("ab", "c") == cacheKey("a", "bc") {
		t.Error("cache keys collide across the Library/script boundary")
	}
}

// Two sources under one key (a hash collision, forced here) never share
// bytecode: the second replaces the first.
func TestCacheKeyCollisionIsAMiss(t *testing.T) {
	c := newBytecodeCache(1 << 20)
	a, owner := c.get("library A", "hook")
	if !owner {
		t.Fatal("a fresh cache had an entry")
	}
	a.bytecode = []byte("bytecode of A")
	c.finish(a, true)
	c.mu.Lock()
	delete(c.entries, a.key)
	a.key = cacheKey("library B", "hook") // pretend A hashed like B
	c.entries[a.key] = a
	c.mu.Unlock()
	b, owner := c.get("library B", "hook")
	if !owner || b == a {
		t.Fatal("library B was served library A's bytecode")
	}
	b.bytecode = []byte("bytecode of B")
	c.finish(b, true)
	if got, owner := c.get("library B", "hook"); owner || string(got.bytecode) != "bytecode of B" {
		t.Errorf("library B: owner %v, bytecode %q", owner, got.bytecode)
	}
	if c.lru.Len() != 1 || c.size != b.size() {
		t.Errorf("after the replacement: %d entries of %d bytes, want 1 of %d", c.lru.Len(), c.size, b.size())
	}
}
