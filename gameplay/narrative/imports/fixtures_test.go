package imports_test

import (
	"archive/zip"
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/png"
	"testing"
)

// Fixtures written for these tests after the formats in
// shared/research/formats-and-combat.md §1–4 (no third-party files).

// stWorldInfo is a SillyTavern World Info file: an ordinary entry, one with
// secondary keys and NOT_ANY logic, a disabled one, a constant one placed
// at depth, one with a regex key, probability and a group, and one without
// a comment.
const stWorldInfo = `{
  "entries": {
    "0": {"uid": 0, "key": ["Mira", "the smith"], "keysecondary": [], "comment": "Mira", "content": "Mira is the village smith.",
          "constant": false, "selective": true, "selectiveLogic": 0, "order": 100, "position": 0, "disable": false,
          "excludeRecursion": false, "preventRecursion": false, "delayUntilRecursion": false, "probability": 100, "useProbability": true,
          "depth": 4, "group": "", "groupOverride": false, "groupWeight": 100, "scanDepth": null, "caseSensitive": null,
          "matchWholeWords": null, "useGroupScoring": null, "automationId": "", "role": null, "vectorized": false,
          "sticky": 0, "cooldown": 0, "delay": 0, "displayIndex": 0},
    "2": {"uid": 2, "key": ["forge"], "keysecondary": ["night", "storm"], "comment": "The Forge", "content": "The forge never cools.",
          "selective": true, "selectiveLogic": 2, "disable": false, "position": 0, "depth": 4},
    "3": {"uid": 3, "key": ["ghost"], "comment": "Hidden ghost", "content": "A ghost.", "disable": true},
    "10": {"uid": 10, "key": ["river"], "comment": "River", "content": "The river runs east.", "constant": true, "position": 4, "depth": 2,
           "role": 1, "disable": false},
    "11": {"uid": 11, "key": ["/drag(on|ons)/i", "wyrm"], "comment": "Dragons", "content": "Dragons sleep in the north.",
           "probability": 40, "useProbability": true, "group": "beasts", "excludeRecursion": true, "sticky": 3, "disable": false},
    "12": {"uid": 12, "key": ["lantern"], "comment": "", "content": "An old lantern.", "disable": false}
  }
}`

// cardV2 is a Character Card V2 with an embedded lorebook in SillyTavern's
// export shape (use_regex true, settings in extensions).
const cardV2 = `{
  "spec": "chara_card_v2", "spec_version": "2.0",
  "name": "Old top-level name",
  "data": {
    "name": "Captain Vell",
    "description": "{{char}} commands the airship Kestrel.",
    "personality": "Gruff, loyal, hates bureaucrats.",
    "scenario": "{{user}} has just signed on as a deckhand.",
    "first_mes": "\"Another stray,\" {{char}} growls. \"Can you haul rope?\"",
    "mes_example": "<START>\n{{user}}: Hello\n{{char}}: What.",
    "creator_notes": "Best with a slow burn.",
    "system_prompt": "You are {{char}}.",
    "post_history_instructions": "Stay in character.",
    "alternate_greetings": ["Vell looks up from the map.", "The deck tilts."],
    "tags": ["airship", "adventure"],
    "creator": "fixture",
    "character_version": "1.0",
    "extensions": {"talkativeness": "0.5", "depth_prompt": {"prompt": "Vell is tired.", "depth": 4, "role": "system"}},
    "character_book": {
      "name": "Kestrel lore",
      "entries": [
        {"keys": ["Kestrel", "airship"], "secondary_keys": [], "content": "The Kestrel is {{char}}'s ship.", "enabled": true,
         "insertion_order": 100, "use_regex": true, "comment": "The Kestrel", "constant": false, "selective": false,
         "extensions": {"position": 0, "depth": 4, "probability": 100, "useProbability": true, "group": "", "exclude_recursion": false,
                        "prevent_recursion": false, "delay_until_recursion": false, "scan_depth": null, "selectiveLogic": 0, "sticky": 0}},
        {"keys": ["mutiny"], "secondary_keys": ["crew"], "content": "Talk of mutiny.", "enabled": true, "insertion_order": 50,
         "use_regex": true, "comment": "Mutiny", "selective": true, "position": "after_char",
         "extensions": {"position": 1, "depth": 4, "selectiveLogic": 3, "prevent_recursion": true}},
        {"keys": ["secret"], "content": "Vell was a pirate.", "enabled": false, "insertion_order": 10, "comment": "Secret past", "extensions": {}}
      ]
    }
  }
}`

// cardV3 is a Character Card V3 with decorators and a newer spec version.
const cardV3 = `{
  "spec": "chara_card_v3", "spec_version": "3.1",
  "data": {
    "name": "Ash", "description": "A fox spirit.", "personality": "", "scenario": "", "first_mes": "Ash flicks her tail.",
    "mes_example": "", "creator_notes": "", "system_prompt": "", "post_history_instructions": "",
    "alternate_greetings": [], "group_only_greetings": ["Ash greets the group."], "tags": [], "creator": "", "character_version": "",
    "extensions": {}, "nickname": "Ashie",
    "assets": [{"type": "icon", "uri": "ccdefault:", "name": "main", "ext": "png"}],
    "character_book": {"extensions": {}, "entries": [
      {"keys": ["shrine"], "content": "@@depth 2\n@@role system\nThe shrine is hidden in the pines.", "extensions": {}, "enabled": true,
       "insertion_order": 1, "use_regex": false, "id": "s1", "name": "Shrine"}
    ]}
  }
}`

// cardV1 is a bare V1 card.
const cardV1 = `{"name": "Tam", "description": "A lighthouse keeper.", "personality": "Quiet.", "scenario": "A storm is coming.",
  "first_mes": "<BOT> lights the lamp.", "mes_example": ""}`

// aidScenario is the community exporter's AI Dungeon scenario with the
// four scripts, story cards (one deleted) and a child option.
const aidScenario = `{"data": {"scenario": {
  "id": "1", "shortId": "abc", "title": "The Drowned City", "description": "Dive into a sunken city.",
  "prompt": "You are ${character.name}, a diver. The water is cold.",
  "memory": "The city sank a hundred years ago.", "authorsNote": "Tone: eerie.",
  "details": {"instructions": "Write in second person.", "storyCardInstructions": "Make cards.", "storyCardStoryInformation": ""},
  "image": "https://example.invalid/x.png", "tags": ["underwater"], "thirdPerson": false, "type": "multipleChoice", "contentRating": "Everyone",
  "options": [{"id": "2", "title": "Diver", "prompt": "..."}],
  "gameCodeSharedLibrary": "function greet() { return 'hi'; }",
  "gameCodeOnInput": "const modifier = (text) => { return { text }; };\nmodifier(text);",
  "gameCodeOnModelContext": "const modifier = (text) => { return { text }; };\nmodifier(text);",
  "gameCodeOnOutput": "const modifier = (text) => { return { text: text + '!' }; };\nmodifier(text);",
  "storyCards": [
    {"id": "c1", "type": "location", "keys": "temple,drowned temple", "value": "A temple of green stone.", "title": "Temple",
     "useForCharacterCreation": false, "description": "", "deletedAt": null},
    {"id": "c2", "type": "character", "keys": "Nerea", "value": "Nerea guards the gate.", "title": "Nerea",
     "useForCharacterCreation": true, "description": "A guardian NPC", "deletedAt": null},
    {"id": "c3", "type": "item", "keys": "pearl", "value": "Gone.", "title": "Old pearl", "deletedAt": "2025-01-01T00:00:00Z"}
  ]
}}}`

// aidStoryCards is AI Dungeon's official story-card export: one array.
const aidStoryCards = `[
  {"keys": "Bram, the baker", "value": "Bram bakes at dawn.", "type": "character", "title": "Bram", "description": "", "useForCharacterCreation": false},
  {"keys": "mill", "value": "The mill creaks.", "type": "location", "title": "", "description": "", "useForCharacterCreation": false}
]`

// novelAI is a NovelAI .lorebook.
const novelAI = `{"lorebookVersion": 5, "entries": [
  {"text": "The moon has two faces.", "contextConfig": {"prefix": "", "suffix": "\n", "tokenBudget": 2048, "reservedTokens": 0,
   "budgetPriority": 400, "trimDirection": "trimBottom", "insertionType": "newline", "maximumTrimType": "sentence", "insertionPosition": -1},
   "lastUpdatedAt": 1, "displayName": "Moon", "keys": ["moon", "lunar"], "searchRange": 1000, "enabled": true,
   "forceActivation": false, "keyRelative": false, "nonStoryActivatable": false},
  {"text": "Always present.", "displayName": "World", "keys": ["world"], "enabled": true, "forceActivation": true,
   "contextConfig": {"insertionPosition": 0}},
  {"text": "Off.", "displayName": "Unused", "keys": ["x"], "enabled": false}
], "settings": {"orderByKeyLocations": false}, "categories": [{"name": "Places"}]}`

// pngWithText is a small real PNG (encoded by image/png) with tEXt chunks
// inserted before IEND, as SillyTavern writes them.
func pngWithText(t testing.TB, chunks ...[2]string) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 4, 4))
	img.Set(1, 1, color.RGBA{R: 200, A: 255})
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	iend := len(data) - 12 // the IEND chunk is the last 12 bytes
	out := append([]byte{}, data[:iend]...)
	for _, c := range chunks {
		out = append(out, chunk("tEXt", append([]byte(c[0]+"\x00"), c[1]...))...)
	}
	return append(out, data[iend:]...)
}

func chunk(typ string, body []byte) []byte {
	out := binary.BigEndian.AppendUint32(nil, uint32(len(body)))
	out = append(out, typ...)
	out = append(out, body...)
	crc := crc32.NewIEEE()
	crc.Write([]byte(typ))
	crc.Write(body)
	return binary.BigEndian.AppendUint32(out, crc.Sum32())
}

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

// charx is a CHARX file (a zip, deflated) holding files by name, in order.
func charx(t testing.TB, files ...[2]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range files {
		w, err := zw.Create(f[0])
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(f[1])); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
