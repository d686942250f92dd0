package prompt

import (
	"fmt"
	"strings"
)

// refusalNote keeps the narrator inside the fiction: free-tier models tend to
// break character to refuse or moralise, which ends the game for the player.
const refusalNote = "Stay in the story: if an action is dark, risky or unwise, let the world answer it with consequences; steer the story rather than refuse or lecture."

// emitReminder takes the very last slot. The full emit rule is hundreds of
// tokens up in the static block; this line sits where the model starts writing.
const emitReminder = "Reminder: end your reply with the ```state block of changes (declared paths only; {} if nothing changed)."

// Length hint tuning (§2.5 of the engine-room notes). A bare budget reads as
// a target to fill, so the hint is a band with asymmetric bounds: a hard
// ceiling and a soft floor well below it.
const (
	// stateBlockWords is taken off the ceiling when the reply must end with a
	// state block: a fence and a handful of changes is 30–80 tokens, and
	// 75 words ≈ 100 tokens leaves room for a busy turn. Truncation eats the
	// end of the reply first, which is exactly where the block is.
	stateBlockWords = 75
	// minCeilingWords keeps the ceiling meaningful when the output cap is so
	// small that the state allowance would eat it all.
	minCeilingWords        = 25
	lengthFloorPercent     = 35  // LENGTH_FLOOR_SHARE = 0.35 of the ceiling
	minLengthFloorWords    = 60  // below this the floor is dropped
	maxLengthFloorWords    = 300 // a long cap should not push long replies
	lengthHintCeiling      = "Length: your reply must not exceed %d words."
	lengthHintCeilingFloor = "Length: your reply must not exceed %d words, and it should not stop short of about %d. " +
		"Prefer the lower end of that range unless the scene genuinely needs more."
)

// lengthHint renders the length band for a reply of at most maxOutputTokens
// tokens, or "" when there is no cap. Without a floor the string depends on
// the ceiling alone, so tight caps share one phrasing.
func lengthHint(maxOutputTokens int, stats bool) string {
	if maxOutputTokens <= 0 {
		return ""
	}
	ceiling, floor := lengthBand(maxOutputTokens, stats)
	if floor == 0 {
		return fmt.Sprintf(lengthHintCeiling, ceiling)
	}
	return fmt.Sprintf(lengthHintCeilingFloor, ceiling, floor)
}

// lengthBand returns the ceiling and floor in words; floor is 0 when dropped.
// English prose runs about 3/4 of a word per o200k token.
func lengthBand(maxOutputTokens int, stats bool) (ceiling, floor int) {
	ceiling = maxOutputTokens/4*3 + maxOutputTokens%4*3/4 // no overflow
	if stats {
		ceiling -= stateBlockWords
	}
	ceiling = max(ceiling, minCeilingWords)
	floor = ceiling/100*lengthFloorPercent + ceiling%100*lengthFloorPercent/100
	if floor < minLengthFloorWords {
		return ceiling, 0
	}
	return ceiling, min(floor, maxLengthFloorWords)
}

// authorsNote wraps the note so the model reads it as a stage direction, not
// as the player's action.
func authorsNote(note string) string {
	if note = strings.TrimSpace(note); note == "" {
		return ""
	}
	return "[Author's note: " + note + "]"
}

// liveParts renders the fixed live sections; empty inputs give empty parts.
func liveParts(in Input) (summary, memories, stats part) {
	if s := strings.TrimSpace(in.Summary); s != "" {
		summary = newPart("summary", "Story so far:\n"+s, true)
	}
	var lines []string
	for _, m := range in.Memories {
		if m = strings.TrimSpace(m); m != "" {
			lines = append(lines, "- "+m)
		}
	}
	if len(lines) > 0 {
		memories = newPart("memories", "Memories:\n"+strings.Join(lines, "\n"), true)
	}
	if s := strings.TrimSpace(in.StateLine); s != "" {
		stats = newPart("stats", "Current state: "+s, true)
	}
	return summary, memories, stats
}

// tailParts renders the sections that keep the last slots, in order: front
// memory, length hint, refusal note, emit reminder. The model responds most
// strongly to what it reads last, and these are short, so a cache miss on
// them costs little.
func tailParts(in Input) []part {
	var parts []part
	if s := strings.TrimSpace(in.FrontMemory); s != "" {
		parts = append(parts, newPart("front_memory", "Keep in mind: "+s, true))
	}
	stats := strings.TrimSpace(in.StatGuide) != ""
	if hint := lengthHint(in.MaxOutputTokens, stats); hint != "" {
		parts = append(parts, newPart("length_hint", hint, true))
	}
	parts = append(parts, newPart("refusal_note", refusalNote, true))
	if stats {
		parts = append(parts, newPart("emit_reminder", emitReminder, true))
	}
	return parts
}
