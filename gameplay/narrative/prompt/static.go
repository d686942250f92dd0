package prompt

import "strings"

// narratorInstructions open every static block.
const narratorInstructions = `You are the narrator of an interactive-fiction adventure, told in the second person: the player is "you", the protagonist.

Each player message is what the protagonist does or says next. Continue the story from that action: describe what happens because of it and how the world and the other characters respond, then stop at a point where the player can act again.

Never act, speak, think or decide for the protagonist beyond what the player wrote. Other characters have their own minds and may surprise, resist or help; the protagonist's choices belong to the player.

Keep the world consistent with the premise, the plot essentials, the lore and everything that has already happened. Write vivid, concrete prose; do not summarise, recap or address the player outside the fiction.`

// emitRule is the full world-state rule, stated once in the static block; a
// one-line reminder repeats it in the last slot of the prompt.
const emitRule = "End every reply with a fenced ```state block holding one JSON object of the changes your reply caused. " +
	"Numbers are changes, positive or negative, to the current value, not new values; booleans and strings are set as given. " +
	"Use only the paths declared above. For example:\n" +
	"```state\n" +
	`{"player.hp": -15, "npc.gwen.trust": 5}` + "\n" +
	"```\n" +
	"If nothing changed, the block holds {}."

// staticBlock renders the system message. It holds only what a person edits
// by hand, never anything that changes during a story, so its bytes are the
// same every turn and the endpoint's prompt cache can reuse it. Empty inputs
// leave their heading out.
func staticBlock(in Input) string {
	blocks := []string{narratorInstructions}
	add := func(heading, body string) {
		if body = strings.TrimSpace(body); body != "" {
			blocks = append(blocks, "## "+heading+"\n"+body)
		}
	}
	add("Premise", in.Premise)
	if guide := strings.TrimSpace(in.StatGuide); guide != "" {
		add("World state", "The story tracks these stats (range and the words for each band):\n"+guide+"\n\n"+emitRule)
	}
	add("Player's instructions", in.AIInstructions)
	add("The protagonist", persona(in))
	add("Plot essentials", in.PlotEssentials)
	return strings.Join(blocks, "\n\n")
}

// persona describes the protagonist. It is there whenever the player gave a
// name, pronouns or a description, with or without an RPG layer.
func persona(in Input) string {
	name := strings.TrimSpace(in.PersonaName)
	pronouns := strings.TrimSpace(in.PersonaPronouns)
	desc := strings.TrimSpace(in.PersonaDesc)
	var lines []string
	switch {
	case name != "" && pronouns != "":
		lines = append(lines, "Name: "+name+" ("+pronouns+")")
	case name != "":
		lines = append(lines, "Name: "+name)
	case pronouns != "":
		lines = append(lines, "Pronouns: "+pronouns)
	}
	if desc != "" {
		lines = append(lines, desc)
	}
	return strings.Join(lines, "\n")
}
