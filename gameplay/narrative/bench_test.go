package narrative_test

import (
	"bytes"
	"compress/zlib"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/adventure-table/adventure-table/gameplay/narrative"
	"github.com/adventure-table/adventure-table/models"
)

// prose generates varied narration from phrase pools, seeded, so prompts
// look like stories (names, places, repeated cast) without repeating whole
// paragraphs, which would flatter the compression ratio.
type prose struct{ r *rand.Rand }

var (
	subjects = []string{"You", "Gwen", "The old guard", "A hooded stranger", "The innkeeper", "Captain Mora", "Your companion", "The boy from the docks",
		"A raven", "The priestess", "Someone behind you", "The wind", "The crowd", "Old Tobin", "The mercenary", "Lady Ashcombe", "The smith", "A child"}
	verbs = []string{"steps toward", "glances at", "reaches for", "whispers about", "points at", "circles", "studies", "pushes past", "laughs at",
		"kneels beside", "turns away from", "searches", "guards", "remembers", "curses", "follows", "watches", "drags"}
	objects = []string{"the iron gate", "a faded map", "the lantern", "the broken altar", "a sealed letter", "the narrow stair", "the harbour wall",
		"a silver key", "the sleeping hound", "the crypt door", "a bloodied cloak", "the ledger", "the well", "an empty cradle", "the burning cart",
		"the north tower", "a carved bone", "the ferryman's coin"}
	tails = []string{"as the rain thickens", "while the bells ring twice", "without a word", "and the torchlight gutters", "before anyone can stop it",
		"though nobody asked", "with a grim smile", "and the floor groans", "as if expecting a trap", "while smoke curls from the chimney",
		"and somewhere a door slams", "just as the moon breaks through", "with trembling hands", "and the silence grows heavy"}
	speech = []string{"\"We should not be here,\" %s mutters.", "\"Keep moving,\" %s says.", "\"Did you hear that?\" %s asks.",
		"\"The tide turns at midnight,\" %s warns.", "\"Trust me,\" %s insists.", "\"I have seen this mark before,\" %s admits."}
)

func (p prose) pick(list []string) string { return list[p.r.IntN(len(list))] }

func (p prose) sentence() string {
	if p.r.IntN(5) == 0 {
		return fmt.Sprintf(p.pick(speech), strings.ToLower(p.pick(subjects[1:])))
	}
	return fmt.Sprintf("%s %s %s %s.", p.pick(subjects), p.pick(verbs), p.pick(objects), p.pick(tails))
}

func (p prose) paragraph(min, max int) string {
	n := min + p.r.IntN(max-min+1)
	s := make([]string, n)
	for i := range s {
		s[i] = p.sentence()
	}
	return strings.Join(s, " ")
}

// longAdventure is an adventure with 200 story cards (a few named in the
// story) and the given number of turns.
func longAdventure(b testing.TB, turns int) (*solo, int64) {
	f := newSolo(b)
	ctx := context.Background()
	p := prose{rand.New(rand.NewPCG(7, uint64(turns)))}
	cards := make([]narrative.CardInput, 200)
	for i := range cards {
		key := fmt.Sprintf("relic%03d", i)
		if i < len(objects) {
			key = strings.TrimPrefix(objects[i], "the ")
		}
		cards[i] = narrative.CardInput{Title: fmt.Sprintf("Card %d", i), Keys: []string{key}, Entry: p.paragraph(2, 4), Type: "lore"}
	}
	sc, err := f.svc.CreateScenario(ctx, f.user, narrative.ScenarioInput{Title: "Long", Premise: p.paragraph(4, 6), PlotEssentials: p.paragraph(2, 3),
		AIInstructions: "Write vividly.", AuthorsNote: "Keep the dread rising.", Opening: p.paragraph(3, 5), StatSchema: hpSchema, Cards: cards})
	must(b, err)
	page, err := f.svc.Play(ctx, f.user, sc.ID, narrative.Persona{PersonaName: "Ash", PersonaDesc: "A tired sellsword."})
	must(b, err)
	adv := page.Adventure.ID
	for done := 0; done < turns; done += 1000 {
		must(b, f.svc.AppendTurns(ctx, f.user, adv, min(1000, turns-done), func(int) (string, string) {
			return p.sentence(), p.paragraph(3, 7)
		}))
	}
	_, err = f.svc.PutSettings(ctx, f.user, narrative.ProviderSettingsInput{BaseURL: f.fake.URL(), Model: "fake", ContextBudget: 8000, MaxOutputTokens: 600, Temperature: 0.8, TopP: 0.95})
	must(b, err)
	return f, adv
}

// BenchmarkContextBuild measures one turn's context build (history window,
// cards, prompt) as the story grows: rows and bytes read per build should
// not grow with the story (seed §2.2: the predecessor read 129 KB per turn,
// flat from about turn 50).
func BenchmarkContextBuild(b *testing.B) {
	for _, turns := range []int{100, 1000, 10000} {
		b.Run(fmt.Sprintf("turns=%d", turns), func(b *testing.B) {
			f, adv := longAdventure(b, turns)
			ctx := context.Background()
			var rows, bytes int64
			var raw, packed int
			b.ResetTimer()
			for range b.N {
				mctx, meter := models.WithReadMeter(ctx)
				_, r, p, err := f.svc.BuildAtTip(mctx, f.user, adv)
				must(b, err)
				rows, bytes, raw, packed = meter.Rows.Load(), meter.Bytes.Load(), r, p
			}
			b.ReportMetric(float64(rows), "rows/build")
			b.ReportMetric(float64(bytes), "bytesread/build")
			b.ReportMetric(float64(raw)/float64(packed), "snapshot-ratio")
			b.ReportMetric(float64(packed), "snapshot-bytes")
		})
	}
}

// BenchmarkForkedPageLoad compares the play screen's page load of a 40-turn
// story forked 20 times along its line with the same story flat (seed:
// 1.007×). Bytes are what the database returned and the JSON answer.
func BenchmarkForkedPageLoad(b *testing.B) {
	measure := func(b *testing.B, forks int) (read, answer int64) {
		f := newSolo(b)
		ctx := context.Background()
		adv := f.adventure().Adventure.ID
		p := prose{rand.New(rand.NewPCG(1, 2))}
		for i := range 40 {
			if forks > 0 && i%2 == 1 && i/2 < forks {
				pg := f.page(adv)
				_, err := f.svc.Fork(ctx, f.user, adv, last(pg).ID)
				must(b, err)
			}
			f.play(adv, p.sentence(), p.paragraph(3, 6), "")
		}
		for range b.N {
			mctx, meter := models.WithReadMeter(ctx)
			pg, err := f.svc.GetAdventure(mctx, f.user, adv)
			must(b, err)
			js, _ := json.Marshal(pg)
			read, answer = meter.Bytes.Load(), int64(len(js))
		}
		return read, answer
	}
	var flatRead, flatJSON int64
	b.Run("flat", func(b *testing.B) {
		flatRead, flatJSON = measure(b, 0)
		b.ReportMetric(float64(flatRead), "bytesread/load")
		b.ReportMetric(float64(flatJSON), "json-bytes/load")
	})
	b.Run("forked20", func(b *testing.B) {
		read, answer := measure(b, 20)
		b.ReportMetric(float64(read), "bytesread/load")
		b.ReportMetric(float64(answer), "json-bytes/load")
		if flatRead > 0 {
			b.ReportMetric(float64(read)/float64(flatRead), "read-ratio")
			b.ReportMetric(float64(answer)/float64(flatJSON), "json-ratio")
		}
	})
}

// BenchmarkSnapshotCompression compares zlib levels on a real built prompt
// snapshot (seed §3.5: level 6 gets most of the gain, 9 costs more CPU).
func BenchmarkSnapshotCompression(b *testing.B) {
	f, adv := longAdventure(b, 1000)
	raw := f.svc.SnapshotAtTip(b, adv, f.user)
	for _, level := range []int{zlib.DefaultCompression, zlib.BestCompression} {
		b.Run(fmt.Sprintf("level=%d", level), func(b *testing.B) {
			var packed int
			for range b.N {
				var buf bytes.Buffer
				w, _ := zlib.NewWriterLevel(&buf, level)
				_, _ = w.Write(raw)
				_ = w.Close()
				packed = buf.Len()
			}
			b.ReportMetric(float64(len(raw)), "raw-bytes")
			b.ReportMetric(float64(len(raw))/float64(packed), "ratio")
		})
	}
}

// BenchmarkTurnBuildWithMemoryBank is what the memory bank adds to a turn's
// path: one context build (history, cards, recall) of a 1,000-turn story
// with no memories, with 200 (the default capacity) and with 10,000 (a bank
// with its capacity raised). Summarization never runs on this path.
func BenchmarkTurnBuildWithMemoryBank(b *testing.B) {
	for _, n := range []int{0, 200, 10000} {
		b.Run(fmt.Sprintf("memories=%d", n), func(b *testing.B) {
			f, adv := longAdventure(b, 1000)
			ctx := context.Background()
			p := prose{rand.New(rand.NewPCG(3, 4))}
			page := f.page(adv)
			head := page.Adventure.HeadBranchID
			must(b, f.store.Tx(ctx, func(tx *models.Store) error {
				for i := range n {
					depth := 1 + i*2000/max(n, 1)
					m := &models.Memory{AdventureID: adv, BranchID: head, Depth: depth, FromDepth: depth, Kind: models.MemoryBlock,
						Text: p.paragraph(2, 3), Pinned: i%97 == 0, CreatedAt: timeNow(), UpdatedAt: timeNow()}
					if err := tx.CreateMemory(ctx, m); err != nil {
						return err
					}
				}
				return nil
			}))
			b.ResetTimer()
			for range b.N {
				_, _, _, err := f.svc.BuildAtTip(ctx, f.user, adv)
				must(b, err)
			}
		})
	}
}
