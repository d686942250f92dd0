package recall

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// prose generates varied story text from phrase pools and invented names,
// seeded, so a bank's vocabulary keeps growing with its size the way a long
// story's cast and places do, instead of repeating a few dozen words.
type prose struct {
	r     *rand.Rand
	names []string
}

var (
	verbs = []string{"follows", "betrays", "rescues", "bargains with", "hides from", "swears an oath to", "steals from", "heals",
		"duels", "shelters", "questions", "warns", "buries", "recognises", "hunts", "owes a debt to", "mocks", "guides",
		"carries", "searches for", "loses", "finds", "burns", "mends", "curses", "forgives"}
	adjectives = []string{"silver", "broken", "sealed", "ancient", "bloodied", "gilded", "rusted", "hollow", "crimson", "forgotten",
		"narrow", "drowned", "sleeping", "burning", "frozen", "cracked", "hidden", "carved", "faded", "sacred", "bitter", "quiet"}
	nouns = []string{"key", "map", "lantern", "altar", "letter", "stair", "wall", "hound", "crypt", "cloak", "ledger", "well",
		"cradle", "cart", "tower", "bone", "coin", "blade", "crown", "ring", "mask", "banner", "bell", "chalice", "compass",
		"dagger", "harp", "mirror", "oath", "relic", "scroll", "shield", "tome", "vial", "wagon", "idol", "locket", "seal"}
	places = []string{"inn", "harbour", "monastery", "marsh", "forest road", "mountain pass", "river crossing", "market square",
		"lighthouse", "mine", "abbey", "ferry", "barracks", "library", "orchard", "quarry", "shrine", "tavern", "watchtower",
		"catacombs", "vineyard", "bridge", "garrison", "bathhouse", "smithy", "chapel", "docks", "granary"}
	tails = []string{"as the rain thickens", "while the bells ring twice", "without a word", "before the first snow",
		"though nobody asked", "with a grim smile", "as if expecting a trap", "while smoke curls from the chimney",
		"just as the moon breaks through", "with trembling hands", "after the long winter", "during the festival of lamps",
		"under a false name", "for a handful of crowns", "against the captain's orders", "to settle an old score"}
)

func newProse(seed uint64) prose {
	p := prose{r: rand.New(rand.NewPCG(seed, 42))}
	syllables := []string{"ka", "ri", "mo", "bel", "tha", "dun", "vor", "is", "en", "gar", "li", "os", "wyn", "mar", "eth",
		"al", "ros", "quen", "tor", "ya", "bram", "sel", "ul", "fen", "dra", "cor", "ni", "hal"}
	for range 600 {
		name := p.pick(syllables) + p.pick(syllables)
		if p.r.IntN(3) == 0 {
			name += p.pick(syllables)
		}
		p.names = append(p.names, strings.ToUpper(name[:1])+name[1:])
	}
	return p
}

func (p prose) pick(list []string) string { return list[p.r.IntN(len(list))] }

func (p prose) sentence() string {
	return fmt.Sprintf("%s %s %s the %s %s near the %s of %s %s.", p.pick(p.names), p.pick(verbs), p.pick(p.names),
		p.pick(adjectives), p.pick(nouns), p.pick(places), p.pick(p.names), p.pick(tails))
}

// words returns sentences cut to exactly n words.
func (p prose) words(n int) string {
	var w []string
	for len(w) < n {
		w = append(w, strings.Fields(p.sentence())...)
	}
	return strings.Join(w[:n], " ") + "."
}

// lexicalBank is n memories of 40–50 words, a few of them pinned, and a
// query of about 300 words, the size of the last four turns.
func lexicalBank(n int) ([]Doc, Query) {
	p := newProse(uint64(n))
	docs := make([]Doc, n)
	for i := range docs {
		docs[i] = Doc{ID: int64(i + 1), Text: p.words(40 + p.r.IntN(11)), Pinned: i%(n/3) == 0}
	}
	return docs, Query{Text: p.words(300)}
}

func BenchmarkSelectLexical(b *testing.B) {
	for _, n := range []int{200, 10000} {
		docs, q := lexicalBank(n)
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			if got := Select(docs, q, Options{}); len(got) != DefaultK || got[len(got)-1].Scorer != ScorerLexical {
				b.Fatalf("Select = %+v, want pinned and relevant memories", got)
			}
			b.Run("cold", func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					Select(docs, q, Options{})
				}
			})
			b.Run("warm", func(b *testing.B) {
				ix := NewIndex(docs)
				ix.Select(q, Options{})
				b.ReportAllocs()
				for b.Loop() {
					ix.Select(q, Options{})
				}
			})
		})
	}
}

// BenchmarkSelectCosine scores 768-dim embeddings; one memory in fifty is
// near the query so some clear the minimum.
func BenchmarkSelectCosine(b *testing.B) {
	const dim = 768
	for _, n := range []int{200, 10000} {
		r := rand.New(rand.NewPCG(uint64(n), 7))
		random := func() []float32 {
			v := make([]float32, dim)
			for i := range v {
				v[i] = float32(r.NormFloat64())
			}
			return v
		}
		q := random()
		docs := make([]Doc, n)
		for i := range docs {
			docs[i] = Doc{ID: int64(i + 1), Vector: random(), Pinned: i%(n/3) == 0}
			if i%50 == 1 {
				for j, x := range q {
					docs[i].Vector[j] += x
				}
			}
		}
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			if got := Select(docs, Query{Vector: q}, Options{}); len(got) != DefaultK || got[len(got)-1].Scorer != ScorerEmbedding {
				b.Fatalf("Select = %+v, want pinned and similar memories", got)
			}
			b.ReportAllocs()
			for b.Loop() {
				Select(docs, Query{Vector: q}, Options{})
			}
		})
	}
}
