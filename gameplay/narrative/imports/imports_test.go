package imports_test

import (
	"bytes"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/adventure-table/adventure-table/gameplay/narrative"
	"github.com/adventure-table/adventure-table/gameplay/narrative/imports"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// lines writes notes as "code entry k=v k=v" for comparison.
func lines(notes []imports.Note) []string {
	out := make([]string, len(notes))
	for i, n := range notes {
		var ps []string
		for k, v := range n.Params {
			ps = append(ps, k+"="+v)
		}
		sort.Strings(ps)
		out[i] = strings.TrimSpace(fmt.Sprintf("%s %s %s", n.Code, n.Entry, strings.Join(ps, " ")))
		out[i] = strings.Join(strings.Fields(out[i]), " ")
	}
	return out
}

func parse(t *testing.T, data string) imports.Preview {
	t.Helper()
	p, err := imports.Parse([]byte(data))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return p
}

func wantNotes(t *testing.T, what string, got []imports.Note, want []string) {
	t.Helper()
	g := lines(got)
	if !slices.Equal(g, want) {
		t.Errorf("%s notes:\n got %q\nwant %q", what, g, want)
	}
}

func wantCards(t *testing.T, got []narrative.CardInput, want []narrative.CardInput) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("cards: got %d %+v, want %d", len(got), got, len(want))
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.Title != w.Title || g.Entry != w.Entry || g.Type != w.Type || !slices.Equal(g.Keys, w.Keys) || !slices.Equal(g.SecondaryKeys, w.SecondaryKeys) ||
			g.Logic != w.Logic || g.Constant != w.Constant || g.Priority != w.Priority {
			t.Errorf("card %d:\n got %+v\nwant %+v", i, g, w)
		}
	}
}

func TestSillyTavernWorldInfo(t *testing.T) {
	p := parse(t, stWorldInfo)
	if p.Format != imports.FormatSillyTavern || p.Title != "Imported lorebook" {
		t.Errorf("format %q title %q", p.Format, p.Title)
	}
	wantCards(t, p.Scenario.Cards, []narrative.CardInput{
		{Title: "Mira", Keys: []string{"Mira", "the smith"}, Entry: "Mira is the village smith.", Priority: 100},
		// Secondary keys keep their logic.
		{Title: "The Forge", Keys: []string{"forge"}, SecondaryKeys: []string{"night", "storm"}, Logic: "not_any", Entry: "The forge never cools."},
		{Title: "River", Keys: []string{"river"}, Constant: true, Entry: "The river runs east."},
		// The regex key is a regex key.
		{Title: "Dragons", Keys: []string{"/drag(on|ons)/i", "wyrm"}, Entry: "Dragons sleep in the north."},
		// No comment: the first key is the title.
		{Title: "lantern", Keys: []string{"lantern"}, Entry: "An old lantern."},
	})
	wantNotes(t, "mapped", p.Mapped, []string{"cards count=5 from=entries"})
	wantNotes(t, "unmapped", p.Unmapped, []string{
		"entry_disabled Hidden ghost",
		"entry_option River option=position value=4",
		"entry_option River option=depth value=2",
		"entry_option River option=role value=1",
		"entry_option Dragons option=group value=beasts",
		"entry_option Dragons option=excludeRecursion value=true",
		"entry_option Dragons option=sticky value=3",
		"entry_option Dragons option=probability value=40",
	})
}

func TestCharacterCardV2(t *testing.T) {
	p := parse(t, cardV2)
	if p.Format != imports.FormatCharacterCardV2 || p.Title != "Captain Vell" {
		t.Errorf("format %q title %q", p.Format, p.Title)
	}
	sc := p.Scenario
	// data wins over the V1 fields repeated at the top; {{char}} is the name.
	if sc.Premise != "Captain Vell commands the airship Kestrel.\n\nGruff, loyal, hates bureaucrats." {
		t.Errorf("premise %q", sc.Premise)
	}
	if sc.PlotEssentials != "{{user}} has just signed on as a deckhand." {
		t.Errorf("plot essentials %q", sc.PlotEssentials)
	}
	if sc.Opening != `"Another stray," Captain Vell growls. "Can you haul rope?"` {
		t.Errorf("opening %q", sc.Opening)
	}
	if sc.AIInstructions != "" {
		t.Errorf("the system prompt must not become AI instructions: %q", sc.AIInstructions)
	}
	wantCards(t, sc.Cards, []narrative.CardInput{
		{Title: "The Kestrel", Keys: []string{"Kestrel", "airship"}, Entry: "The Kestrel is Captain Vell's ship.", Priority: 100},
		{Title: "Mutiny", Keys: []string{"mutiny"}, SecondaryKeys: []string{"crew"}, Logic: "and_all", Entry: "Talk of mutiny.", Priority: 50},
	})
	wantNotes(t, "mapped", p.Mapped, []string{
		"field from=name to=title",
		"field from=personality to=premise",
		"field from=description to=premise",
		"field from=scenario to=plot_essentials",
		"field from=first_mes to=opening",
		"cards count=2 from=character_book",
	})
	wantNotes(t, "unmapped", p.Unmapped, []string{
		"entry_option Mutiny option=position value=after_char",
		"entry_option Mutiny option=position value=1",
		"entry_option Mutiny option=prevent_recursion value=true",
		"entry_disabled Secret past",
		"field_not_mapped field=mes_example reason=no_equivalent",
		"field_not_mapped field=system_prompt reason=narrator_instructions",
		"field_not_mapped field=post_history_instructions reason=narrator_instructions",
		"field_not_mapped field=creator_notes reason=not_prompted",
		"field_not_mapped field=creator reason=not_prompted",
		"field_not_mapped field=character_version reason=not_prompted",
		"field_not_mapped count=2 field=alternate_greetings reason=no_equivalent",
		"field_not_mapped count=2 field=tags reason=not_prompted",
		"field_not_mapped field=extensions.depth_prompt reason=narrator_instructions",
		"macro_kept macro={{user}}",
	})
}

func TestCharacterCardV3(t *testing.T) {
	p := parse(t, cardV3)
	if p.Format != imports.FormatCharacterCardV3 || p.Title != "Ash" || p.Scenario.Opening != "Ash flicks her tail." {
		t.Errorf("format %q title %q opening %q", p.Format, p.Title, p.Scenario.Opening)
	}
	// Decorators are stripped from the content and reported.
	wantCards(t, p.Scenario.Cards, []narrative.CardInput{{Title: "Shrine", Keys: []string{"shrine"}, Entry: "The shrine is hidden in the pines.", Priority: 1}})
	wantNotes(t, "unmapped", p.Unmapped, []string{
		"version_newer version=3.1",
		"entry_option Shrine option=@@depth value=2",
		"entry_option Shrine option=@@role value=system",
		"field_not_mapped field=nickname reason=no_equivalent",
		"field_not_mapped count=1 field=group_only_greetings reason=no_equivalent",
		"field_not_mapped count=1 field=assets reason=no_equivalent",
	})
}

func TestCharacterCardV1(t *testing.T) {
	p := parse(t, cardV1)
	if p.Format != imports.FormatCharacterCardV1 || p.Title != "Tam" || p.Scenario.Opening != "Tam lights the lamp." ||
		p.Scenario.Premise != "A lighthouse keeper.\n\nQuiet." || p.Scenario.PlotEssentials != "A storm is coming." {
		t.Errorf("got %+v", p)
	}
}

func TestCharacterCardPNG(t *testing.T) {
	v3 := strings.Replace(cardV3, `"name": "Ash"`, `"name": "Ash (v3)"`, 1)
	for _, tt := range []struct {
		name   string
		chunks [][2]string
		format string
		title  string
	}{
		{"V2Chara", [][2]string{{"chara", b64(cardV2)}}, imports.FormatCharacterCardV2, "Captain Vell"},
		// Both chunks: ccv3 wins, as in SillyTavern; keywords are case-insensitive.
		{"BothPreferCCV3", [][2]string{{"chara", b64(cardV2)}, {"CCv3", b64(v3)}}, imports.FormatCharacterCardV3, "Ash (v3)"},
		{"NovelAILorebook", [][2]string{{"naidata", b64(novelAI)}}, imports.FormatNovelAILorebook, "Imported lorebook"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p, err := imports.Parse(pngWithText(t, tt.chunks...))
			if err != nil {
				t.Fatal(err)
			}
			if p.Format != tt.format || p.Title != tt.title {
				t.Errorf("format %q title %q", p.Format, p.Title)
			}
		})
	}
}

// A CHARX file is a zip holding the V3 card as card.json beside its
// assets; the card is read as the JSON card it is, the assets are not.
func TestCharacterCardCHARX(t *testing.T) {
	p, err := imports.Parse(charx(t, [2]string{"assets/icon/main.png", "not read"}, [2]string{"card.json", cardV3},
		[2]string{"module.risum", "not read"}))
	if err != nil {
		t.Fatal(err)
	}
	want := parse(t, cardV3)
	if p.Format != imports.FormatCharacterCardV3 || p.Title != "Ash" || !reflect.DeepEqual(p, want) {
		t.Errorf("CHARX preview %+v\nwant the JSON card's %+v", p, want)
	}
}

func TestAIDungeonScenario(t *testing.T) {
	p := parse(t, aidScenario)
	sc := p.Scenario
	if p.Format != imports.FormatAIDungeon || p.Title != "The Drowned City" {
		t.Errorf("format %q title %q", p.Format, p.Title)
	}
	if sc.Opening != "You are ${character.name}, a diver. The water is cold." || sc.PlotEssentials != "The city sank a hundred years ago." ||
		sc.AuthorsNote != "Tone: eerie." || sc.AIInstructions != "Write in second person." || sc.Premise != "" {
		t.Errorf("fields %+v", sc)
	}
	if sc.Scripts.Library != "function greet() { return 'hi'; }" || !strings.Contains(sc.Scripts.Output, "text + '!'") ||
		!strings.HasPrefix(sc.Scripts.Input, "const modifier") || !strings.HasPrefix(sc.Scripts.Context, "const modifier") {
		t.Errorf("scripts %+v", sc.Scripts)
	}
	wantCards(t, sc.Cards, []narrative.CardInput{
		{Title: "Temple", Keys: []string{"temple", "drowned temple"}, Entry: "A temple of green stone.", Type: "location"},
		{Title: "Nerea", Keys: []string{"Nerea"}, Entry: "Nerea guards the gate.", Type: "character"},
	})
	wantNotes(t, "mapped", p.Mapped, []string{
		"field from=title to=title",
		"field from=prompt to=opening",
		"field from=memory to=plot_essentials",
		"field from=authorsNote to=authors_note",
		"field from=details.instructions to=ai_instructions",
		"script from=gameCodeSharedLibrary to=library",
		"script from=gameCodeOnInput to=input",
		"script from=gameCodeOnModelContext to=context",
		"script from=gameCodeOnOutput to=output",
		"cards count=2 from=storyCards",
	})
	wantNotes(t, "unmapped", p.Unmapped, []string{
		"field_not_mapped field=details.storyCardInstructions reason=no_equivalent",
		"entry_option Nerea option=description value=A guardian NPC",
		"entry_option Nerea option=useForCharacterCreation value=true",
		"entry_deleted Old pearl",
		"field_not_mapped field=description reason=not_prompted",
		"field_not_mapped field=image reason=not_prompted",
		"field_not_mapped field=contentRating reason=not_prompted",
		"field_not_mapped count=1 field=tags reason=not_prompted",
		"field_not_mapped count=1 field=options reason=no_equivalent",
		"macro_kept macro=${character.name}",
	})
}

func TestAIDungeonNewerScriptsAndAdventure(t *testing.T) {
	doc := `{"data":{"adventure":{"title":"Run","prompt":"Go.","state":{"scripts":{"sharedLibrary":"var a = 1;","onOutput":"x"}},
	  "actionWindow":[{"id":"1","text":"Go.","type":"story"}]}}}`
	p := parse(t, doc)
	if p.Format != imports.FormatAIDungeonAdv || p.Scenario.Scripts.Library != "var a = 1;" || p.Scenario.Scripts.Output != "x" {
		t.Errorf("got %+v", p)
	}
	wantNotes(t, "unmapped", p.Unmapped, []string{"field_not_mapped count=1 field=actionWindow reason=story_not_imported"})
}

func TestAIDungeonStoryCards(t *testing.T) {
	p := parse(t, aidStoryCards)
	if p.Format != imports.FormatAIDungeonCards {
		t.Errorf("format %q", p.Format)
	}
	wantCards(t, p.Scenario.Cards, []narrative.CardInput{
		{Title: "Bram", Keys: []string{"Bram", "the baker"}, Entry: "Bram bakes at dawn.", Type: "character"},
		{Title: "mill", Keys: []string{"mill"}, Entry: "The mill creaks.", Type: "location"},
	})
}

func TestNovelAILorebook(t *testing.T) {
	p := parse(t, novelAI)
	if p.Format != imports.FormatNovelAILorebook {
		t.Errorf("format %q", p.Format)
	}
	wantCards(t, p.Scenario.Cards, []narrative.CardInput{
		{Title: "Moon", Keys: []string{"moon", "lunar"}, Entry: "The moon has two faces.", Priority: 400},
		{Title: "World", Keys: []string{"world"}, Entry: "Always present.", Constant: true},
	})
	wantNotes(t, "unmapped", p.Unmapped, []string{
		"entry_option World option=insertionPosition value=0",
		"entry_disabled Unused",
		"field_not_mapped count=1 field=categories reason=no_equivalent",
	})
}

// Text beyond a scenario's limits is cut and said so; the result always
// passes the scenario's validation (checked on a database in
// TestImportCreatesScenario).
func TestLimitsAreFittedAndReported(t *testing.T) {
	keys := make([]string, 25)
	for i := range keys {
		keys[i] = fmt.Sprintf("%q", fmt.Sprintf("k%d", i))
	}
	long := strings.Repeat("a", narrative.ScenarioLimits.CardEntry+10)
	doc := fmt.Sprintf(`{"entries":{"0":{"key":[%s],"comment":"Many","content":%q},"1":{"key":["a"],"comment":"Many","content":"dup"}}}`,
		strings.Join(keys, ","), long)
	p := parse(t, doc)
	c := p.Scenario.Cards
	if len(c) != 2 || len(c[0].Keys) != narrative.ScenarioLimits.CardKeys || len([]rune(c[0].Entry)) != narrative.ScenarioLimits.CardEntry ||
		c[1].Title != "Many (2)" {
		t.Fatalf("cards %d %d %d %q", len(c), len(c[0].Keys), len([]rune(c[0].Entry)), c[1].Title)
	}
	wantNotes(t, "unmapped", p.Unmapped, []string{
		"keys_over_limit Many count=5 limit=20",
		"text_clipped Many field=entry limit=4000",
		// "a" is too short to match anything.
		"never_fires Many (2)",
	})
}

func TestTooManyCards(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"entries":{`)
	for i := range narrative.MaxCards + 3 {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `"%d":{"key":["k%d"],"content":"c"}`, i, i)
	}
	b.WriteString("}}")
	p := parse(t, b.String())
	if len(p.Scenario.Cards) != narrative.MaxCards {
		t.Fatalf("%d cards", len(p.Scenario.Cards))
	}
	wantNotes(t, "unmapped", p.Unmapped, []string{"cards_over_limit count=3 limit=500"})
}

func TestMalformedInput(t *testing.T) {
	for _, tt := range []struct {
		name string
		data []byte
		code apperr.Code
	}{
		{"Empty", nil, apperr.ImportFormatUnsupported},
		{"Text", []byte("hello"), apperr.ImportFormatUnsupported},
		{"OtherJSON", []byte(`{"hello":"world"}`), apperr.ImportFormatUnsupported},
		{"OtherArray", []byte(`[1,2]`), apperr.ImportFormatUnsupported},
		{"UnknownSpec", []byte(`{"spec":"chara_card_v9","data":{}}`), apperr.ImportFormatUnsupported},
		{"BrokenJSON", []byte(`{"entries":{`), apperr.InvalidRequest},
		{"TrailingData", []byte(`{"entries":{}} {}`), apperr.InvalidRequest},
		{"EntryNotObject", []byte(`{"entries":{"0":"x"}}`), apperr.InvalidRequest},
		{"CardDataNotObject", []byte(`{"spec":"chara_card_v2","data":"x"}`), apperr.InvalidRequest},
		{"BookNotList", []byte(`{"spec":"chara_card_v2","data":{"name":"A","character_book":{"entries":3}}}`), apperr.InvalidRequest},
		{"PNGWithoutCard", pngWithText(t, [2]string{"Software", "paint"}), apperr.ImportPNGWithoutCard},
		{"PNGBadBase64", pngWithText(t, [2]string{"chara", "%%%"}), apperr.InvalidRequest},
		{"PNGChunkNotJSON", pngWithText(t, [2]string{"chara", b64("not json")}), apperr.ImportFormatUnsupported},
		{"TruncatedPNG", pngWithText(t, [2]string{"chara", b64(cardV1)})[:40], apperr.ImportPNGWithoutCard},
		{"TooLarge", append([]byte(`{"entries":{}}`), make([]byte, imports.MaxFileBytes)...), apperr.InvalidRequest},
		{"ZipWithoutCard", charx(t, [2]string{"assets/icon.png", "x"}), apperr.ImportFormatUnsupported},
		{"CHARXCardNotJSON", charx(t, [2]string{"card.json", "not json"}), apperr.ImportFormatUnsupported},
		// 9 MiB of spaces deflate to a few KiB: refused once 8 MiB are inflated
		{"CHARXBomb", charx(t, [2]string{"card.json", `{"entries":{}}` + strings.Repeat(" ", 9<<20)}), apperr.InvalidRequest},
		{"TruncatedZip", charx(t, [2]string{"card.json", cardV3})[:60], apperr.InvalidRequest},
		{"DamagedCHARX", damaged(charx(t, [2]string{"card.json", cardV3})), apperr.InvalidRequest},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := imports.Parse(tt.data)
			if got := apperr.CodeOf(err); got != tt.code {
				t.Errorf("code %q, want %q (%v)", got, tt.code, err)
			}
		})
	}
}

// damaged flips bytes in the middle of a zip's first deflated file, so its
// checksum (or its deflate stream) no longer holds.
func damaged(zipped []byte) []byte {
	out := bytes.Clone(zipped)
	for i := 40; i < 60 && i < len(out); i++ {
		out[i] ^= 0x5a
	}
	return out
}

// Two entries with the same title at the limit stay two cards with
// distinct titles within the limit.
func TestDuplicateLongTitles(t *testing.T) {
	long := strings.Repeat("é", narrative.ScenarioLimits.CardTitle)
	p := parse(t, fmt.Sprintf(`{"entries":{"0":{"key":["a"],"comment":%q},"1":{"key":["b"],"comment":%q}}}`, long, long))
	c := p.Scenario.Cards
	if len(c) != 2 || c[0].Title != long || !strings.HasSuffix(c[1].Title, "é (2)") || len([]rune(c[1].Title)) != narrative.ScenarioLimits.CardTitle {
		t.Fatalf("titles %q", []string{c[0].Title, c[1].Title})
	}
}
