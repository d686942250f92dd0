package table

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/adventure-table/adventure-table/gameplay/llm"
	"github.com/adventure-table/adventure-table/gameplay/narrative/prompt"
	"github.com/adventure-table/adventure-table/models"
)

// What the campaign memory reads of the events, and what it writes.

// memoryAudience is the reader set of an event as the memory keeps it.
type memoryAudience struct {
	kind  string  // models.AudienceTable, AudienceSeats or AudienceDM
	seats []int64 // AudienceSeats: sorted, without the DM's seat
	key   string  // "table", "dm" or "seats:3,7"
}

// eventAudience is who saw an event, from the same fields the viewer
// reads (viewer.sees): a public event the table; a whisper its parties; an
// event for an actor and the DM the actor's and subject's seats; a DM-only
// event the DM. The DM sees everything, so the DM's seat is never one of
// the parties: what only the DM's seat was told is the DM's.
func eventAudience(e models.SessionEvent, dmSeatID int64) memoryAudience {
	var seats []int64
	switch e.Visibility {
	case models.VisibilityPublic:
		return memoryAudience{kind: models.AudienceTable, key: models.AudienceTable}
	case models.VisibilityActorAndDM:
		for _, id := range []*int64{e.ActingSeatID, e.SubjectSeatID} {
			if id != nil {
				seats = append(seats, *id)
			}
		}
	case models.VisibilitySeatPrivate:
		seats = append(seats, e.RecipientSeatIDs...)
	}
	seats = slices.DeleteFunc(seats, func(id int64) bool { return id == dmSeatID })
	slices.Sort(seats)
	seats = slices.Compact(seats)
	if len(seats) == 0 {
		return memoryAudience{kind: models.AudienceDM, key: models.AudienceDM}
	}
	ids := make([]string, len(seats))
	for i, id := range seats {
		ids[i] = strconv.FormatInt(id, 10)
	}
	return memoryAudience{kind: models.AudienceSeats, seats: seats, key: models.AudienceSeats + ":" + strings.Join(ids, ",")}
}

// seatNames names seats in memory text: a seat by its character, else by
// its label; the DM's seat is "the DM".
type seatNames map[int64]string

func (n seatNames) of(id *int64) string {
	if id == nil {
		return "someone"
	}
	if name, ok := n[*id]; ok {
		return name
	}
	return fmt.Sprintf("seat %d", *id)
}

// namesOfSeats names a campaign's seats from its rows and characters.
func namesOfSeats(seats []models.CampaignSeat, chars map[int64]models.Character) seatNames {
	out := seatNames{}
	for _, s := range seats {
		switch {
		case s.Role == models.SeatDM:
			out[s.ID] = "the DM"
		case s.CharacterID != nil && chars[*s.CharacterID].Name != "":
			out[s.ID] = chars[*s.CharacterID].Name
		default:
			out[s.ID] = s.Label
		}
	}
	return out
}

// namesOfViews names seats from the seat views of a resume.
func namesOfViews(seats []SeatView) seatNames {
	out := seatNames{}
	for _, s := range seats {
		switch {
		case s.Role == models.SeatDM:
			out[s.ID] = "the DM"
		case s.Character != nil:
			out[s.ID] = s.Character.Name
		default:
			out[s.ID] = s.Label
		}
	}
	return out
}

// eventLine renders one event as a line of the story, or "" for an event
// that tells nothing worth remembering (joins, turns, bookkeeping,
// out-of-character talk). It renders what the payload holds, and every
// payload holds only what the event's audience may read, so a line is
// never more secret than its event.
func eventLine(kind string, acting, subject *int64, payload []byte, names seatNames) string {
	var p map[string]any
	if json.Unmarshal(payload, &p) != nil {
		return ""
	}
	str := func(m map[string]any, k string) string { s, _ := m[k].(string); return strings.TrimSpace(s) }
	num := func(m map[string]any, k string) (int, bool) { f, ok := m[k].(float64); return int(f), ok }
	who := names.of(subject)
	if subject == nil {
		who = names.of(acting)
	}
	switch kind {
	case EventMessagePosted:
		text := prompt.OneLine(str(p, "text"))
		if text == "" {
			return ""
		}
		switch str(p, "kind") {
		case models.MessageNarration:
			if speaker := str(p, "speaker"); speaker != "" {
				return fmt.Sprintf("%s says: %q", speaker, text)
			}
			return text
		case models.MessageDialogue:
			return fmt.Sprintf("%s says: %q", who, text)
		case models.MessageAction:
			return who + ": " + text
		case models.MessageWhisperDM:
			if ids, _ := p["recipient_seat_ids"].([]any); len(ids) > 0 {
				if id, ok := ids[0].(float64); ok {
					to := int64(id)
					return fmt.Sprintf("The DM whispers to %s: %s", names.of(&to), text)
				}
			}
			return fmt.Sprintf("%s whispers to the DM: %s", names.of(acting), text)
		}
		return "" // out-of-character talk is not the story
	case EventStageUpdated:
		if text := prompt.OneLine(str(p, "text")); text != "" {
			return "Scene: " + text
		}
	case EventActionDeclared:
		if a, ok := p["action"].(map[string]any); ok {
			if text := prompt.OneLine(str(a, "text")); text != "" {
				return who + " declares: " + text
			}
		}
	case EventWindowOpened:
		if w, ok := p["window"].(map[string]any); ok {
			if text := prompt.OneLine(str(w, "prompt")); text != "" {
				return "The DM asks: " + text
			}
		}
	case EventRollRequested:
		return fmt.Sprintf("The DM asks %s for a %s check.", who, str(p, "label"))
	case EventRollQuick, EventRollResolved:
		r, _ := p["result"].(map[string]any)
		total, ok := num(r, "total")
		if !ok {
			return ""
		}
		what := str(p, "check")
		if what == "" {
			what = str(r, "formula")
		}
		if name := str(p, "attack_name"); name != "" {
			what = name
		}
		line := fmt.Sprintf("%s rolls %s: %d", who, what, total)
		if s, ok := r["success"].(bool); ok {
			line += map[bool]string{true: " (success)", false: " (failure)"}[s]
		}
		return line + "."
	case EventRollOutcome:
		dc, _ := num(p, "dc")
		s, _ := p["success"].(bool)
		return fmt.Sprintf("%s's check against DC %d: %s.", who, dc, map[bool]string{true: "success", false: "failure"}[s])
	case EventRollRevealed:
		dc, _ := num(p, "dc")
		return fmt.Sprintf("The DC of %s's check was %d.", who, dc)
	case EventEncounterStarted, EventEncounterEnded:
		enc, _ := p["encounter"].(map[string]any)
		if kind == EventEncounterStarted {
			return fmt.Sprintf("A fight begins: %s.", str(enc, "name"))
		}
		return fmt.Sprintf("The fight %s ends.", str(enc, "name"))
	case EventEncounterAttack:
		return attackLine(p)
	case EventEncounterSecret:
		return hiddenLine(p)
	case EventSessionEnded, EventSessionAbandoned:
		// Always a line: the session's last table block ends on it, which
		// is how the bank knows a session is done (campaign_memory.go).
		return "The session ends."
	}
	return ""
}

// combatantNames maps an encounter payload's combatant ids to names.
func combatantNames(enc map[string]any) map[string]string {
	out := map[string]string{}
	list, _ := enc["combatants"].([]any)
	for _, c := range list {
		if m, ok := c.(map[string]any); ok {
			id, _ := m["id"].(string)
			name, _ := m["name"].(string)
			out[id] = name
		}
	}
	return out
}

// attackLine renders an encounter.attack event: who hit whom, for how much
// when the event says (a hidden target's damage is the DM's event's).
func attackLine(p map[string]any) string {
	a, _ := p["attack"].(map[string]any)
	enc, _ := p["encounter"].(map[string]any)
	names := combatantNames(enc)
	attacker, _ := a["attacker_id"].(string)
	target, _ := a["target_id"].(string)
	line := fmt.Sprintf("%s attacks %s: ", names[attacker], names[target])
	if hit, _ := a["hit"].(bool); !hit {
		return line + "miss."
	}
	line += "hit"
	if d, ok := a["damage"].(map[string]any); ok {
		if amount, ok := d["amount"].(float64); ok {
			line += fmt.Sprintf(", %d damage", int(amount))
		}
	}
	if st, _ := a["target_status"].(string); st != "" && st != "active" {
		line += ", " + st
	}
	return line + "."
}

// hiddenLine renders the DM's encounter.secret: the hidden NPCs' numbers
// as they stand after the change.
func hiddenLine(p map[string]any) string {
	hidden, _ := p["hidden"].([]any)
	var parts []string
	for _, h := range hidden {
		c, ok := h.(map[string]any)
		if !ok {
			continue
		}
		part, _ := c["name"].(string)
		if hp, ok := c["hp"].(map[string]any); ok {
			cur, _ := hp["current"].(float64)
			mx, _ := hp["max"].(float64)
			part += fmt.Sprintf(" HP %d/%d", int(cur), int(mx))
		}
		if ac, ok := c["ac"].(float64); ok {
			part += fmt.Sprintf(" AC %d", int(ac))
		}
		parts = append(parts, part)
	}
	if len(parts) == 0 {
		return ""
	}
	return "Hidden from the players: " + strings.Join(parts, "; ") + "."
}

// Campaign memory tuning, as the solo bank's (narrative/memory_prompts.go).
const (
	// campaignBlockSize is how many lines of one audience a memory covers.
	campaignBlockSize = 6
	// maxCampaignMemoryWords caps a memory (the model's and the extract).
	maxCampaignMemoryWords = 50
	// Cast brief ceilings.
	maxCampaignCast   = 8
	maxSettingTokens  = 300
	extractLineFloor  = 8
	extractWordBudget = 60
)

// campaignFraming is the table's framing rule: a memory is read sessions
// later on its own, by someone who may not remember who was there.
const campaignFraming = `Each memory is read later on its own, sessions from now, with none of the surrounding play, when a scene calls for it. A memory that says "you" or "he" then means nothing: the reader cannot tell who was there.
So:
- Write in the third person. Never write "you" or "I".
- Name every player character and every other character instead of using a bare pronoun ("Bram the innkeeper", not "he").
- Keep what could matter later: names, places, promises, debts, threats, discoveries, secrets, injuries, changed relationships.
- At most 50 words, one or two plain sentences. No preamble, no list, no quotation marks around the memory.`

// audienceNote says who saw a passage, so a private memory says so.
func audienceNote(a memoryAudience, names seatNames) string {
	switch a.kind {
	case models.AudienceTable:
		return "The whole table saw this passage."
	case models.AudienceDM:
		return "Only the DM knows this passage (secret rolls, hidden numbers, DM notes): the memory is the DM's."
	}
	var who []string
	for _, id := range a.seats {
		who = append(who, names.of(&id))
	}
	return "Only " + strings.Join(who, ", ") + " and the DM saw this passage: it was private."
}

// campaignMemoryMessages is the prompt that turns one block into one
// memory. The cast brief holds only what the whole table knows (the player
// characters and the world's premise), so no audience's memory is written
// from another audience's secrets.
func campaignMemoryMessages(names seatNames, premise string, a memoryAudience, lines []string) []llm.Message {
	var cast []string
	for _, name := range sortedNames(names) {
		if len(cast) < maxCampaignCast {
			cast = append(cast, name)
		}
	}
	var b strings.Builder
	b.WriteString("Player characters: " + strings.Join(cast, ", ") + "\n")
	if s := prompt.OneLine(premise); s != "" {
		b.WriteString("Setting: " + prompt.ClipTokens(s, maxSettingTokens) + "\n")
	}
	b.WriteString("\n" + audienceNote(a, names) + "\nPassage:\n" + strings.Join(lines, "\n") + "\n\nWrite the memory of this passage.")
	system := "You keep the memory bank of a tabletop role-playing campaign and write one memory of a passage of play.\n\n" + campaignFraming
	return []llm.Message{{Role: llm.RoleSystem, Content: system}, {Role: llm.RoleUser, Content: b.String()}}
}

// sortedNames are the player characters' names, sorted, once each.
func sortedNames(names seatNames) []string {
	var out []string
	for _, n := range names {
		if n != "the DM" {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// extractMemory is the memory of a block without a model: each line's
// first sentence, cut to its share of a few dozen words. It is what a
// block gets when no model is configured or the model fails, so a campaign
// remembers without one.
func extractMemory(lines []string) string {
	per := max(extractLineFloor, extractWordBudget/max(len(lines), 1))
	var parts []string
	for _, l := range lines {
		s := firstSentence(l)
		if strings.Count(s, "\"")%2 == 1 { // a quotation cut short
			s += "\""
		}
		words := strings.Fields(s)
		if len(words) > per {
			s = strings.Join(words[:per], " ") + "…"
		} else if !strings.HasSuffix(s, ".") && !strings.HasSuffix(s, "!") && !strings.HasSuffix(s, "?") && !strings.HasSuffix(s, "\"") {
			s += "."
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " ")
}

// firstSentence is a line up to its first sentence end, or all of it.
func firstSentence(line string) string {
	for i, r := range line {
		if (r == '.' || r == '!' || r == '?') && i > 0 && i+1 < len(line) && line[i+1] == ' ' {
			return line[:i+1]
		}
	}
	return line
}
