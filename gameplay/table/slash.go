package table

import (
	"sort"
	"strings"

	"github.com/adventure-table/adventure-table/models"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// KindSay is the input kind of plain text: the speaker's natural voice —
// narration for the DM, dialogue for a player or for a seat the DM acts as.
const KindSay = "say"

// KindRoll is the input kind of a dice roll typed at the table (/r, /roll,
// /gmroll): it goes to QuickRoll, not to PostMessage.
const KindRoll = "roll"

// Message intents.
const (
	IntentSearch = "search"
	IntentCheck  = "check"
)

// Command is a parsed line of table input.
type Command struct {
	Kind   string // KindSay or a message kind
	Intent string
	Check  string // skill, ability or saving throw key of IntentCheck or of a KindRoll check roll
	Text   string
	// Formula is the dice of a KindRoll (empty when Check names a skill or
	// ability); Private is /gmroll: only the roller and the DM see it.
	Formula string
	Private bool
	// Attack names a sheet attack a KindRoll rolls ("/r attack longsword"),
	// Damage its damage instead ("/r damage longsword").
	Attack string
	Damage bool
	// Speaker is the NPC a /npc line voices (the DM's narration).
	Speaker string
}

// slashCommands maps each command to what it posts.
var slashCommands = map[string]Command{
	"/action":  {Kind: models.MessageAction},
	"/search":  {Kind: models.MessageAction, Intent: IntentSearch},
	"/whisper": {Kind: models.MessageWhisperDM},
	"/w":       {Kind: models.MessageWhisperDM}, // Roll20's and Foundry's short form
	"/ooc":     {Kind: models.MessageOOC},
	"/check":   {Kind: models.MessageAction, Intent: IntentCheck},
	"/r":       {Kind: KindRoll},
	"/roll":    {Kind: KindRoll},
	"/gmroll":  {Kind: KindRoll, Private: true},
	"/npc":     {Kind: models.MessageNarration},
}

// KnownCommands lists the slash commands, sorted.
func KnownCommands() []string {
	out := make([]string, 0, len(slashCommands))
	for k := range slashCommands {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// ParseInput turns a line typed at the table into a command. It is only a
// parser in front of PostMessage, never a second way to post. Returns
// unknown_command (with the known commands in details) and
// message_text_invalid.
func ParseInput(line string) (Command, error) {
	line = strings.TrimSpace(line)
	if !strings.HasPrefix(line, "/") {
		return Command{Kind: KindSay, Text: line}, nil
	}
	name, rest, _ := strings.Cut(line, " ")
	name = strings.ToLower(name)
	cmd, ok := slashCommands[name]
	if !ok {
		return Command{}, apperr.E(apperr.UnknownCommand, "Unknown command %q.", truncate(name, 40)).WithDetail("known", KnownCommands())
	}
	cmd.Text = strings.TrimSpace(rest)
	if cmd.Kind == KindRoll {
		if cmd.Text == "" {
			return Command{}, apperr.E(apperr.MessageTextInvalid, "Give the dice or a skill to roll, e.g. %s 1d20+5 or %s perception.", name, name).WithField("text", "dice notation, a skill or an ability")
		}
		word, attack, _ := strings.Cut(cmd.Text, " ")
		word, attack = strings.ToLower(word), strings.TrimSpace(attack)
		if (word == "attack" || word == "damage") && attack != "" {
			cmd.Attack, cmd.Damage = attack, word == "damage"
		} else if check := rollKey(cmd.Text); check != "" {
			cmd.Check = check
		} else {
			cmd.Formula = cmd.Text
		}
		return cmd, nil
	}
	if name == "/npc" {
		// "/npc Guard captain: Halt!": the name runs to the first colon.
		speaker, said, _ := strings.Cut(cmd.Text, ":")
		cmd.Speaker, cmd.Text = strings.TrimSpace(speaker), strings.TrimSpace(said)
		if cmd.Speaker == "" || cmd.Text == "" {
			return Command{}, apperr.E(apperr.MessageTextInvalid, "Name the NPC, then what they say, e.g. /npc Guard captain: Halt!").WithField("text", "an NPC's name, a colon, then what they say")
		}
		return cmd, nil
	}
	if cmd.Intent == IntentCheck {
		what, note := leadingCheck(cmd.Text)
		if what == "" {
			return Command{}, apperr.E(apperr.MessageTextInvalid, "Name a skill, ability or saving throw to check, e.g. /check perception or /check dex save.").WithField("text", "a skill, an ability or a saving throw")
		}
		cmd.Check, cmd.Text = what, note
		if cmd.Text == "" {
			cmd.Text = what
		}
	}
	return cmd, nil
}

// maxCheckWords is the most words a typed check takes ("dexterity saving
// throw", "sleight of hand").
const maxCheckWords = 3

// leadingCheck splits "/check" text into the check its first words name
// (the longest run of at most maxCheckWords that rollKey reads: "dex save
// 15" gives "dex_save") and the rest; what is "" when they name none.
func leadingCheck(text string) (what, rest string) {
	words := strings.Fields(text)
	for n := min(len(words), maxCheckWords); n > 0; n-- {
		if key := rollKey(strings.Join(words[:n], " ")); key != "" {
			return key, strings.Join(words[n:], " ")
		}
	}
	return "", ""
}

// isCheckable says whether what is exactly the key of a skill, an ability
// or a saving throw ("perception", "dex", "dex_save").
func isCheckable(what string) bool { return what != "" && rollKey(what) == what }

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) > n {
		return string(r[:n])
	}
	return s
}
