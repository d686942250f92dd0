package prompt_test

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/adventure-table/adventure-table/gameplay/narrative/prompt"
)

func TestLengthHint(t *testing.T) {
	// The engine-room notes' example band: ceiling 506 words, floor 177.
	const seedExample = "Length: your reply must not exceed 506 words, and it should not stop short of about 177. " +
		"Prefer the lower end of that range unless the scene genuinely needs more."
	tests := []struct {
		name      string
		maxTokens int
		stats     bool
		want      string
	}{
		{"SeedExample", 675, false, seedExample},                                             // 675*3/4 = 506; 35% = 177
		{"SeedExampleWithStateBlock", 775, true, seedExample},                                // 581 - 75 for the state block
		{"FloorDroppedUnder60", 228, false, "Length: your reply must not exceed 171 words."}, // floor would be 59
		{"FloorKeptAt60", 230, false, "Length: your reply must not exceed 172 words, and it should not stop short of about 60. " +
			"Prefer the lower end of that range unless the scene genuinely needs more."},
		{"FloorCappedAt300", 4096, false, "Length: your reply must not exceed 3072 words, and it should not stop short of about 300. " +
			"Prefer the lower end of that range unless the scene genuinely needs more."},
		{"TinyCapWithStats", 50, true, "Length: your reply must not exceed 25 words."},
		{"NoCap", 0, true, ""},
		{"NegativeCap", -100, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := prompt.LengthHint(tt.maxTokens, tt.stats); got != tt.want {
				t.Errorf("LengthHint(%d, %v) = %q, want %q", tt.maxTokens, tt.stats, got, tt.want)
			}
		})
	}
}

// TestLengthHintTightCapIdentical: below the floor threshold only the number
// differs, whatever the dropped floor would have been.
func TestLengthHintTightCapIdentical(t *testing.T) {
	number := regexp.MustCompile(`[0-9]+`)
	a, b := prompt.LengthHint(100, false), prompt.LengthHint(160, false) // dropped floors 26 and 42
	if a == b {
		t.Fatalf("test setup: both caps gave %q", a)
	}
	if na, nb := number.ReplaceAllString(a, "N"), number.ReplaceAllString(b, "N"); na != nb {
		t.Errorf("tight-cap strings differ beyond the number:\n%q\n%q", a, b)
	}
	if strings.Contains(a, "stop short") {
		t.Errorf("tight-cap string %q mentions a floor", a)
	}
}

func TestBuildLengthHintSection(t *testing.T) {
	in := storyInput()
	in.MaxOutputTokens = 0
	if names := sectionNames(prompt.Build(in)); slices.Contains(names, "length_hint") {
		t.Errorf("MaxOutputTokens 0 gave a length hint: %v", names)
	}
	in.MaxOutputTokens = 775
	r := prompt.Build(in)
	if s := section(t, r, "length_hint"); !s.Fixed || s.Tokens != prompt.Count(prompt.LengthHint(775, true)) {
		t.Errorf("length hint section = %+v", s)
	}
	if !strings.Contains(lastContent(r), "must not exceed 506 words") {
		t.Errorf("last message lacks the hint:\n%s", lastContent(r))
	}
}
