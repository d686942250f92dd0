package imports

import (
	"regexp"
	"strconv"
	"strings"
)

var (
	charMacro = regexp.MustCompile(`(?i)\{\{char\}\}|<BOT>`)
	userMacro = regexp.MustCompile(`(?i)\{\{user\}\}|<USER>`)
	anyMacro  = regexp.MustCompile(`\{\{[^{}]{1,60}\}\}`)
)

// characterCard reads a Character Card V1, V2 or V3 (research §1) into a
// scenario: the character's description and personality become the
// premise, its scenario the plot essentials, the first message the opening
// and the embedded lorebook story cards.
func (b *builder) characterCard(doc map[string]any) error {
	data := doc
	switch str(doc, "spec") {
	case "chara_card_v2":
		b.format = FormatCharacterCardV2
	case "chara_card_v3":
		b.format = FormatCharacterCardV3
		if v, ok := number(doc, "spec_version"); ok && v > 3.0 {
			b.note(NoteVersionNewer, "", "version", show(doc["spec_version"]))
		} else if s := str(doc, "spec_version"); s != "" {
			if v, err := strconv.ParseFloat(s, 64); err == nil && v > 3.0 {
				b.note(NoteVersionNewer, "", "version", s)
			}
		}
	default:
		b.format = FormatCharacterCardV1
	}
	if b.format != FormatCharacterCardV1 {
		d, ok := doc["data"].(map[string]any)
		if !ok {
			return malformed(b.format, "data")
		}
		data = d
	}
	name := strings.TrimSpace(str(data, "name"))
	b.in.Title = cmpOr(name, defaultCharacterTitle)
	if name != "" {
		b.mapField("name", "title")
	}
	macros := func(s string) string {
		if name != "" {
			s = charMacro.ReplaceAllString(s, name)
		}
		return s
	}

	premise := macros(strings.TrimSpace(str(data, "description")))
	if p := macros(strings.TrimSpace(str(data, "personality"))); p != "" {
		if premise != "" {
			premise += "\n\n"
		}
		premise += p
		b.mapField("personality", "premise")
	}
	b.text(&b.in.Premise, premise, "description", "premise")
	b.text(&b.in.PlotEssentials, macros(str(data, "scenario")), "scenario", "plot_essentials")
	b.text(&b.in.Opening, macros(str(data, "first_mes")), "first_mes", "opening")

	if book, ok := data["character_book"].(map[string]any); ok {
		if err := b.characterBook(book, "entries"); err != nil {
			return err
		}
		for i := range b.in.Cards {
			b.in.Cards[i].Entry = macros(b.in.Cards[i].Entry)
		}
	} else if data["character_book"] != nil {
		return malformed(b.format, "character_book")
	}

	// What has no place in a scenario.
	for _, f := range []struct{ field, reason string }{
		{"mes_example", ReasonNoEquivalent},
		{"system_prompt", ReasonNarrator},
		{"post_history_instructions", ReasonNarrator},
		{"creator_notes", ReasonNotPrompted},
		{"nickname", ReasonNoEquivalent},
		{"creator", ReasonNotPrompted},
		{"character_version", ReasonNotPrompted},
	} {
		if strings.TrimSpace(str(data, f.field)) != "" {
			b.notMapped(f.field, f.reason)
		}
	}
	for _, f := range []string{"alternate_greetings", "group_only_greetings", "tags", "assets", "source"} {
		if list, ok := data[f].([]any); ok && len(list) > 0 {
			reason := ReasonNoEquivalent
			if f == "tags" || f == "source" {
				reason = ReasonNotPrompted
			}
			b.note(NoteFieldNotMapped, "", "field", f, "reason", reason, "count", strconv.Itoa(len(list)))
		}
	}
	if ext, ok := data["extensions"].(map[string]any); ok {
		if dp, ok := ext["depth_prompt"].(map[string]any); ok && strings.TrimSpace(str(dp, "prompt")) != "" {
			b.notMapped("extensions.depth_prompt", ReasonNarrator)
		}
	}
	b.keptMacros()
	return nil
}

// keptMacros notes the placeholders that stay as written ({{user}} and
// anything else in double braces), once each.
func (b *builder) keptMacros() {
	seen := map[string]bool{}
	texts := []string{b.in.Premise, b.in.PlotEssentials, b.in.Opening}
	for _, c := range b.in.Cards {
		texts = append(texts, c.Entry)
	}
	for _, t := range texts {
		for _, m := range anyMacro.FindAllString(t, -1) {
			if userMacro.MatchString(m) {
				m = "{{user}}"
			}
			if !seen[strings.ToLower(m)] {
				seen[strings.ToLower(m)] = true
				b.note(NoteMacroKept, "", "macro", m)
			}
		}
		if !seen["{{user}}"] && userMacro.MatchString(t) {
			seen["{{user}}"] = true
			b.note(NoteMacroKept, "", "macro", "{{user}}")
		}
	}
}
