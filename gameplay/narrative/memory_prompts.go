package narrative

import (
	"fmt"
	"strings"

	"github.com/adventure-table/adventure-table/gameplay/llm"
	"github.com/adventure-table/adventure-table/gameplay/narrative/prompt"
	"github.com/adventure-table/adventure-table/models"
)

// The memory bank's own prompts (seed §2.6). A memory is injected forty
// turns later on its own, with no story around it, so both prompts carry
// who the protagonist is and who else is in the story, and the framing rule
// gives that reason along with the rule: models follow a rule better when
// they know what it is for.

// Bank tuning (seed §2.6).
const (
	// blockSize is how many actions one memory summarizes.
	blockSize = 6
	// settleSlack is how many actions past its end a block waits before it
	// is summarized: retry and take-switching replace only the newest
	// action, so a memory ending on the tip could be paid for twice.
	settleSlack = 1
	// summaryEvery is how many actions the running summary waits for
	// between rewrites.
	summaryEvery = 15
	// maxMemoryWords caps a memory: measured, "1-2 sentences" alone gave 34
	// words for one block and 105 for the next, and retrieval injects
	// memory_top_k of them every turn.
	maxMemoryWords = 50
	// maxSummaryWords caps the running summary.
	maxSummaryWords = 250
	// Cast brief ceilings.
	maxCastMembers   = 8
	maxCastRunes     = 240
	maxSettingTokens = 300
)

// framingRule is more than half of the memory prompt on purpose.
const framingRule = `Each memory is read later on its own, many turns from now, with none of the surrounding story, when a scene calls for it. A memory that says "you" or "she" then means nothing: the reader cannot tell who was there.
So:
- Write in the third person. Never write "you" or "I".
- Name the protagonist by name, and name every other character instead of using a bare pronoun ("Bram the innkeeper", not "he").
- Keep what could matter later: promises, debts, threats, discoveries, names, places, injuries, changed relationships.
- At most 50 words, one or two plain sentences. No preamble, no list, no quotation marks around the memory.`

// castBrief names the protagonist, then the stat schema's NPCs, topped up by
// the cards the passage names (a block can centre on someone who never
// triggers a keyword, so the roster is filled from both sides), then the
// setting from the plot essentials.
func castBrief(adv *models.Adventure, cards []prompt.Card, passage []prompt.Turn) string {
	var members []string
	add := func(line string) {
		if len(members) < maxCastMembers && strings.TrimSpace(line) != "" {
			members = append(members, prompt.ClipMarked(line, maxCastRunes))
		}
	}
	protagonist := cmpOr(adv.PersonaName, "the protagonist")
	if adv.PersonaPronouns != "" {
		protagonist += " (" + adv.PersonaPronouns + ")"
	}
	if adv.PersonaDesc != "" {
		protagonist += ": " + prompt.OneLine(adv.PersonaDesc)
	}
	add("Protagonist: " + protagonist)
	named := map[string]bool{}
	named[strings.ToLower(adv.PersonaName)] = true
	for _, name := range characterNames(adv) {
		if !named[strings.ToLower(name)] {
			named[strings.ToLower(name)] = true
			add(name)
		}
	}
	for _, c := range prompt.Matching(cards, passage) {
		if named[strings.ToLower(c.Title)] {
			continue
		}
		named[strings.ToLower(c.Title)] = true
		add(c.Title + ": " + prompt.OneLine(c.Entry))
	}
	var b strings.Builder
	b.WriteString("Cast:\n")
	for _, m := range members {
		b.WriteString("- " + m + "\n")
	}
	if s := strings.TrimSpace(adv.PlotEssentials); s != "" {
		b.WriteString("Setting: " + prompt.ClipTokens(prompt.OneLine(s), maxSettingTokens) + "\n")
	}
	return b.String()
}

// passageText renders a block the way the narrator saw it.
func passageText(turns []prompt.Turn) string {
	parts := make([]string, len(turns))
	for i, t := range turns {
		parts[i] = t.Text
	}
	return strings.Join(parts, "\n\n")
}

// memoryMessages is the prompt that turns one block into one memory.
func memoryMessages(adv *models.Adventure, cards []prompt.Card, block []prompt.Turn, framing string) []llm.Message {
	system := "You keep the memory bank of an interactive story and write one memory of a passage.\n\n" + framing
	user := castBrief(adv, cards, block) + "\nPassage (lines starting with > are the protagonist's actions):\n" +
		passageText(block) + "\n\nWrite the memory of this passage."
	return []llm.Message{{Role: llm.RoleSystem, Content: system}, {Role: llm.RoleUser, Content: user}}
}

// summaryMessages is the prompt that folds new memories into the running
// summary. It follows the same framing: the summary is read without the
// story in front of it too.
func summaryMessages(adv *models.Adventure, previous string, bullets []string) []llm.Message {
	system := fmt.Sprintf(`You keep the running summary of an interactive story: the "story so far" a narrator reads before each turn, when the early story is no longer in front of them.
It is read without the story around it, so write in the third person, name the protagonist and every character instead of using bare pronouns, and keep what could matter later (promises, debts, threats, discoveries, where things stand).
At most %d words of plain prose, oldest events first. No preamble.`, maxSummaryWords)
	var b strings.Builder
	b.WriteString(castBrief(adv, nil, nil))
	if previous != "" {
		b.WriteString("\nThe summary so far:\n" + previous + "\n")
	}
	b.WriteString("\nWhat happened since, as memories:\n")
	for _, m := range bullets {
		b.WriteString("- " + m + "\n")
	}
	b.WriteString("\nWrite the new summary of the whole story so far.")
	return []llm.Message{{Role: llm.RoleSystem, Content: system}, {Role: llm.RoleUser, Content: b.String()}}
}

// cleanMemory keeps the reply's prose (without a state block the model
// may have added): see prompt.CleanMemory.
func cleanMemory(reply string, maxWords int) string {
	prose, _ := ExtractDelta(models.CleanText(reply))
	return prompt.CleanMemory(prose, maxWords)
}

func cmpOr(a, b string) string {
	if strings.TrimSpace(a) != "" {
		return a
	}
	return b
}
