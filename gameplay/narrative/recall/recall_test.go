package recall

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// bank is ten memories of a solo adventure; the promise to Bram is ID 4.
var bank = []Doc{
	{ID: 1, Text: "A hooded stranger sold Mara a silver key near the harbour wall for three crowns."},
	{ID: 2, Text: "The priestess of the broken altar warned that the crypt door must never be opened at night."},
	{ID: 3, Text: "Mara lost her grandfather's sword in the river crossing below the north tower."},
	{ID: 4, Text: "Mara promised the innkeeper Bram she would return to the Gilded Goose inn before the first snow."},
	{ID: 5, Text: "Captain Mora owes Mara a favour after the fight on the docks."},
	{ID: 6, Text: "The smith in Ashford forged a new blade from the ferryman's coin and a carved bone."},
	{ID: 7, Text: "Wolves stalk the forest road between Ashford and the mountain pass."},
	{ID: 8, Text: "Lady Ashcombe hired Mara to find her missing son in the marsh villages."},
	{ID: 9, Text: "A raven carried a sealed letter bearing the mark of the drowned king."},
	{ID: 10, Text: "Mara shared a meal with travelling players who spoke of a haunted well."},
}

func ids(got []Scored) []int64 {
	out := make([]int64, len(got))
	for i, s := range got {
		out[i] = s.ID
	}
	return out
}

func terms(text string) []string {
	var out []string
	var tk tokenizer
	tk.reset(text)
	for tk.word() {
		if term, ok := contentTerm(tk.buf); ok {
			out = append(out, string(term))
		}
	}
	return out
}

func TestTerms(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		{"Innkeeper's", []string{"innkeeper"}},
		{"innkeepers' ale", []string{"innkeeper", "ale"}},
		{"Bram’s inn", []string{"bram", "inn"}}, // typographic apostrophe
		{"promised promise promises promising", []string{"promis", "promis", "promis", "promis"}},
		{"walked walking walks walk", []string{"walk", "walk", "walk", "walk"}},
		{"agreed agree agreeing", []string{"agre", "agre", "agre"}},
		{"stopped running falling missed", []string{"stop", "run", "fall", "miss"}},
		{"stories tried boxes churches glasses", []string{"story", "try", "box", "church", "glass"}},
		{"seeing sees see", []string{"see", "see", "see"}},
		{"need king string bonus iris", []string{"need", "king", "string", "bonus", "iris"}},
		{"The and of it was to you", nil},
		{"ÉCOLE Ærøskøbing ΟΔΥΣΣΕΥΣ", []string{"écol", "ærøskøbing", "οδυσσευσ"}}, // the English stemmer applies to any script
		{"room 42, floor 3-b", []string{"room", "42", "floor", "3", "b"}},
		{"snow\xffdrift\u00a0cloak", []string{"snow", "drift", "cloak"}},
		{"", nil},
	}
	for _, tt := range tests {
		if got := terms(tt.text); !slices.Equal(got, tt.want) {
			t.Errorf("terms(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

func TestSelectInnkeeper(t *testing.T) {
	q := Query{Text: `You push open the door and walk back into the inn, shaking the snow from your cloak.
The common room smells of smoke and spilled ale. Behind the bar, Bram looks up from the mug he is
wiping and his face breaks into a grin. "I wondered whether you would keep your word," he says.`}
	got := Select(bank, q, Options{})
	if len(got) == 0 || got[0].ID != 4 {
		t.Fatalf("Select = %+v, want the promise to Bram (ID 4) first", got)
	}
	if got[0].Scorer != ScorerLexical || got[0].Score < DefaultMinLexical {
		t.Errorf("first = %+v, want a bm25 score of at least %v", got[0], DefaultMinLexical)
	}
	// The stemmer lets another inflection find the same memory.
	if got := Select(bank, Query{Text: "Bram reminds you of your promises."}, Options{}); len(got) == 0 || got[0].ID != 4 {
		t.Errorf("Select(promises) = %+v, want ID 4 first", got)
	}
}

func TestSelectNothingRelevant(t *testing.T) {
	docs := append(slices.Clone(bank), Doc{ID: 20, Text: "Mara fears deep water.", Pinned: true}, Doc{ID: 21, Text: "Mara is a paladin.", Pinned: true})
	tests := []struct {
		name  string
		query string
	}{
		{"no shared word", "Quantum spreadsheets calibrate the turbine manifold."},
		{"only the hero's name, in most memories", "Mara sighs, Mara shrugs, and Mara waits."},
		{"only stopwords", "and then it was as if they were there"},
		{"empty", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Select(docs, Query{Text: tt.query}, Options{})
			if want := []int64{21, 20}; !slices.Equal(ids(got), want) {
				t.Errorf("Select = %+v, want only the pinned %v", got, want)
			}
			for _, s := range got {
				if s.Scorer != ScorerPinned {
					t.Errorf("%+v: Scorer = %q, want %q", s, s.Scorer, ScorerPinned)
				}
			}
		})
	}
}

// TestSelectCommonWord: a word in nine of ten memories never clears the
// default floor alone, however often a memory repeats it.
func TestSelectCommonWord(t *testing.T) {
	var docs []Doc
	for i := range 10 {
		text := fmt.Sprintf("Memory %d tells of a lantern number %d.", i, i*7)
		if i < 9 {
			text += strings.Repeat(" The goblin laughs.", 1+i)
		}
		docs = append(docs, Doc{ID: int64(i + 1), Text: text})
	}
	if got := Select(docs, Query{Text: "A goblin, another goblin, goblins everywhere."}, Options{}); len(got) != 0 {
		t.Errorf("Select = %+v, want nothing", got)
	}
	// With the floor lowered they do score, so the default is what held them back.
	if got := Select(docs, Query{Text: "goblin"}, Options{MinLexical: 1e-9}); len(got) != 5 {
		t.Errorf("Select with a tiny floor = %+v, want 5", got)
	}
}

// TestSelectSmallBank pins down what DefaultMinLexical's comment promises
// for tiny banks: up to three memories, one shared word is not enough.
func TestSelectSmallBank(t *testing.T) {
	docs := []Doc{{ID: 1, Text: "Bram keeps the inn."}, {ID: 2, Text: "Wolves stalk the road."}, {ID: 3, Text: "Rain floods the marsh."}}
	tests := []struct {
		docs  []Doc
		query string
		want  []int64
	}{
		{docs, "Bram", nil},
		{docs, "Bram at the inn", []int64{1}},
		{append(slices.Clone(docs), Doc{ID: 4, Text: "Snow buries the pass."}), "Bram", []int64{1}},
	}
	for _, tt := range tests {
		if got := Select(tt.docs, Query{Text: tt.query}, Options{}); !slices.Equal(ids(got), tt.want) {
			t.Errorf("%d memories, %q: Select = %+v, want %v", len(tt.docs), tt.query, got, tt.want)
		}
	}
}

func TestSelectPinned(t *testing.T) {
	var docs []Doc
	for i := range 6 {
		docs = append(docs, Doc{ID: int64(100 + i), Text: fmt.Sprintf("Pinned fact %d about the weather.", i), Pinned: true})
	}
	docs = append(docs, bank...)
	inn := Query{Text: "Bram waits at the Gilded Goose inn."}

	t.Run("count toward K", func(t *testing.T) {
		got := Select(docs, inn, Options{K: 5})
		if len(got) != 5 {
			t.Fatalf("Select = %+v, want exactly 5", got)
		}
		for _, s := range got {
			if s.Scorer != ScorerPinned || s.ID < 100 {
				t.Errorf("%+v: want a pinned doc", s)
			}
		}
	})
	t.Run("more than K picks the best, ties newest", func(t *testing.T) {
		docs := slices.Clone(docs)
		docs[2].Text = "Bram the innkeeper keeps a room at the inn for Mara." // ID 102
		docs[4].Text = "The Gilded Goose inn burned once."                    // ID 104
		got := Select(docs, inn, Options{K: 3})
		if want := []int64{104, 102, 105}; !slices.Equal(ids(got), want) {
			t.Errorf("Select = %+v, want %v", got, want)
		}
		if got[0].Score <= got[1].Score || got[1].Score <= 0 || got[2].Score != 0 {
			t.Errorf("scores = %+v, want pinned docs to carry their bm25 scores, best first", got)
		}
	})
	t.Run("pinned first, then relevant", func(t *testing.T) {
		got := Select(docs[4:], inn, Options{K: 4}) // two pinned
		if want := []int64{105, 104, 4}; !slices.Equal(ids(got), want) {
			t.Errorf("Select = %+v, want %v", got, want)
		}
		if got[2].Scorer != ScorerLexical {
			t.Errorf("%+v: want scorer %q", got[2], ScorerLexical)
		}
	})
}

func TestSelectDefaultK(t *testing.T) {
	var docs []Doc
	for i := range 8 {
		docs = append(docs, Doc{ID: int64(i), Text: fmt.Sprintf("The dragon Vexra burned village %d.", i)})
	}
	docs = append(docs, Doc{ID: 99, Text: "Bread rises in the oven."})
	for _, k := range []int{0, -3} {
		if got := Select(docs, Query{Text: "Vexra the dragon returns"}, Options{K: k, MinLexical: 1e-9}); len(got) != DefaultK {
			t.Errorf("K=%d: Select = %+v, want %d", k, got, DefaultK)
		}
	}
}

func TestSelectMinScoreBoundary(t *testing.T) {
	t.Run("lexical", func(t *testing.T) {
		q := Query{Text: "Bram at the inn, by the river, with the wolves"}
		all := Select(bank, q, Options{K: 10, MinLexical: 1e-12})
		if len(all) < 3 {
			t.Fatalf("Select = %+v, want at least 3 matches", all)
		}
		edge := all[1].Score
		for _, min := range []float64{edge, math.Nextafter(edge, math.Inf(1))} {
			var want []int64
			for _, s := range all {
				if s.Score >= min {
					want = append(want, s.ID)
				}
			}
			if got := Select(bank, q, Options{K: 10, MinLexical: min}); !slices.Equal(ids(got), want) {
				t.Errorf("min %v: Select = %v, want %v", min, ids(got), want)
			}
			if reached := slices.Contains(want, all[1].ID); reached != (min == edge) {
				t.Errorf("min %v: doc %d scoring %v chosen = %v", min, all[1].ID, edge, reached)
			}
		}
	})
	t.Run("cosine", func(t *testing.T) {
		q := []float32{1, 0, 0}
		docs := []Doc{{ID: 1, Vector: []float32{1, 3, 0}}, {ID: 2, Vector: []float32{1, 1, 1}}, {ID: 3, Vector: []float32{1, 5, 0}}}
		edge := Cosine(q, docs[0].Vector) // ≈0.316, above the default 0.25
		if got := Select(docs, Query{Vector: q}, Options{}); !slices.Equal(ids(got), []int64{2, 1}) {
			t.Errorf("default floor: Select = %+v, want [2 1]", got)
		}
		if got := Select(docs, Query{Vector: q}, Options{MinCosine: edge}); !slices.Equal(ids(got), []int64{2, 1}) {
			t.Errorf("min = %v: Select = %+v, want [2 1]", edge, got)
		}
		if got := Select(docs, Query{Vector: q}, Options{MinCosine: math.Nextafter(edge, 2)}); !slices.Equal(ids(got), []int64{2}) {
			t.Errorf("min just above %v: Select = %+v, want [2]", edge, got)
		}
	})
}

func TestCosine(t *testing.T) {
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	big := float32(math.MaxFloat32)
	tests := []struct {
		name string
		a, b []float32
		want float64
	}{
		{"identical", []float32{0.3, -1.2, 4}, []float32{0.3, -1.2, 4}, 1},
		{"scaled", []float32{1, 2, 3, 4, 5}, []float32{2, 4, 6, 8, 10}, 1},
		{"orthogonal", []float32{1, 0}, []float32{0, 1}, 0},
		{"opposite", []float32{1, 2}, []float32{-1, -2}, -1},
		{"dimension mismatch", make768(), make([]float32, 1536), 0},
		{"mismatch, prefix equal", []float32{1, 2}, []float32{1, 2, 3}, 0},
		{"zero vector", []float32{0, 0, 0}, []float32{1, 2, 3}, 0},
		{"empty", []float32{}, []float32{}, 0},
		{"nil", nil, nil, 0},
		{"NaN", []float32{1, nan}, []float32{1, 1}, 0},
		{"Inf", []float32{inf, 1}, []float32{1, 1}, 0},
		{"Inf meets zero", []float32{inf, 1}, []float32{0, 1}, 0},
		{"huge but finite", []float32{big, big}, []float32{big, big}, 1},
	}
	for _, tt := range tests {
		for _, swap := range []bool{false, true} {
			a, b := tt.a, tt.b
			if swap {
				a, b = b, a
			}
			if got := Cosine(a, b); math.Abs(got-tt.want) > 1e-9 {
				t.Errorf("%s (swapped %v): Cosine = %v, want %v", tt.name, swap, got, tt.want)
			}
		}
	}
}

func make768() []float32 {
	v := make([]float32, 768)
	for i := range v {
		v[i] = float32(i%7) - 3
	}
	return v
}

func TestSelectVector(t *testing.T) {
	q := Query{Text: "Bram at the Gilded Goose inn", Vector: []float32{1, 0, 0, 0}}
	docs := []Doc{
		{ID: 1, Text: "Bram at the Gilded Goose inn", Vector: []float32{0, 1, 0, 0}}, // same text, orthogonal
		{ID: 2, Text: "Bread rises in the oven.", Vector: []float32{0.9, 0.1, 0, 0}},
		{ID: 3, Text: "Bram at the Gilded Goose inn"},                                        // never embedded
		{ID: 4, Text: "Bram at the Gilded Goose inn", Vector: append(make768()[:1:1], 0, 0)}, // another model's size
		{ID: 5, Text: "Bram at the Gilded Goose inn", Vector: make768()},
		{ID: 6, Text: "A pinned fact.", Pinned: true},
	}
	for _, min := range []float64{0, 1e-9, -1} {
		got := Select(docs, q, Options{MinCosine: min})
		want := []Scored{{ID: 6, Scorer: ScorerPinned}, {ID: 2, Score: Cosine(q.Vector, docs[1].Vector), Scorer: ScorerEmbedding}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("MinCosine %v: Select (-want +got):\n%s", min, diff)
		}
	}
}

func TestSelectTiesNewestFirst(t *testing.T) {
	var docs []Doc
	for _, id := range []int64{7, 3, 12, 5, 9, 1} {
		docs = append(docs, Doc{ID: id, Text: "The lighthouse keeper lit the lamp."})
	}
	docs = append(docs, Doc{ID: 2, Text: "The lighthouse keeper lit the lamp twice, lamp after lamp."})
	want := []int64{2, 12, 9, 7}
	for i := range len(docs) {
		rotated := append(slices.Clone(docs[i:]), docs[:i]...)
		got := Select(rotated, Query{Text: "lamp"}, Options{K: 4, MinLexical: 1e-9})
		if !slices.Equal(ids(got), want) {
			t.Errorf("rotation %d: Select = %v, want %v", i, ids(got), want)
		}
	}
}

func TestSelectEmpty(t *testing.T) {
	if got := Select(nil, Query{Text: "anything"}, Options{}); len(got) != 0 {
		t.Errorf("Select(nil) = %+v", got)
	}
	if got := Select(nil, Query{Vector: []float32{1}}, Options{}); len(got) != 0 {
		t.Errorf("Select(nil, vector) = %+v", got)
	}
	docs := []Doc{{ID: 1}, {ID: 2, Text: "   ...  "}, {ID: 3, Pinned: true}}
	for _, q := range []Query{{}, {Text: "inn"}, {Vector: []float32{}}, {Vector: []float32{1, 2}}} {
		if got := Select(docs, q, Options{}); !slices.Equal(ids(got), []int64{3}) {
			t.Errorf("Select(%+v) = %+v, want only the pinned doc", q, got)
		}
	}
}

func TestSelectDuplicateIDs(t *testing.T) {
	docs := []Doc{
		{ID: 1, Text: "Bram keeps the inn."},
		{ID: 1, Text: "Bram keeps the inn.", Pinned: true},
		{ID: 2, Text: "Bram keeps the inn at the crossroads."},
		{ID: 2, Text: "Bram keeps the inn at the crossroads."},
	}
	got := Select(docs, Query{Text: "Bram inn crossroads"}, Options{MinLexical: 1e-9})
	if want := []int64{1, 2}; !slices.Equal(ids(got), want) || got[0].Scorer != ScorerPinned {
		t.Errorf("Select = %+v, want %v once each, 1 pinned", got, want)
	}
}

// TestIndexConcurrent: one index serves several turns at once and agrees
// with building afresh.
func TestIndexConcurrent(t *testing.T) {
	ix := NewIndex(bank)
	queries := []Query{
		{Text: "Bram and the inn"}, {Text: "the ferryman's coin and the smith"}, {Text: "wolves on the mountain road"},
		{Text: "a raven with a letter"}, {Vector: []float32{1, 2}}, {Text: "Ashford"},
	}
	var wg sync.WaitGroup
	for _, q := range queries {
		wg.Go(func() {
			for range 20 {
				if got, want := ix.Select(q, Options{}), Select(bank, q, Options{}); !slices.Equal(got, want) {
					t.Errorf("%+v: Index.Select = %+v, Select = %+v", q, got, want)
					return
				}
			}
		})
	}
	wg.Wait()
}

// FuzzSelect checks what holds for any bank and query: no panic, at most K,
// no unpinned doc under the minimum or at zero, no duplicate, pinned first
// and each part best first, and the same answer from a reused Index.
//
// texts is split on "\n" into docs; pins marks doc i pinned by bit i%64;
// vecs is read as float32s (so NaN and Inf occur) into vectors of dim
// components, every third doc one longer; dupIDs gives pairs of docs one ID.
func FuzzSelect(f *testing.F) {
	f.Add("Mara promised Bram she would return to the inn\nWolves stalk the road\nThe smith forged a blade", "Bram at the inn",
		uint64(0b100), []byte{}, uint8(0), false, false, 0, 0.0, 0.0)
	f.Add("a\nb\nc\nd\ne\nf\ng", "a b c d e f g", uint64(0b1111111), []byte{}, uint8(0), true, false, 5, 0.0, 0.0)
	f.Add("same text\nsame text\nsame text", "same", uint64(0), []byte{}, uint8(0), true, false, 2, 0.0, 1e-9)
	f.Add("x\ny\nz", "", uint64(1), []byte{0, 0, 128, 63, 0, 0, 0, 0, 0, 0, 192, 127, 0, 0, 128, 127}, uint8(2), false, true, 3, -1.0, 0.0)
	f.Add("\xff\xfe\n’s\nÆ", "\xc3", uint64(0), []byte{1, 2, 3, 4, 5, 6, 7, 8}, uint8(1), false, true, -1, math.NaN(), math.Inf(1))
	f.Add(strings.Repeat("goblin ", 200)+"\ngoblin", "goblin goblins", uint64(0), []byte{}, uint8(0), false, false, 1<<40, 0.0, -5.0)
	f.Fuzz(func(t *testing.T, texts, query string, pins uint64, vecs []byte, dim uint8, dupIDs, useVector bool, k int, minCos, minLex float64) {
		floats := make([]float32, len(vecs)/4)
		for i := range floats {
			floats[i] = math.Float32frombits(uint32(vecs[4*i]) | uint32(vecs[4*i+1])<<8 | uint32(vecs[4*i+2])<<16 | uint32(vecs[4*i+3])<<24)
		}
		d := int(dim % 9)
		vector := func(i, n int) []float32 {
			if len(floats) == 0 {
				return nil
			}
			v := make([]float32, n)
			for j := range v {
				v[j] = floats[(i+j)%len(floats)]
			}
			return v
		}
		var docs []Doc
		for i, text := range strings.Split(texts, "\n") {
			if i == 64 {
				break
			}
			doc := Doc{ID: int64(i), Text: text, Pinned: pins>>(i%64)&1 == 1, Vector: vector(i, d+btoi(i%3 == 0))}
			if dupIDs {
				doc.ID = int64(i / 2)
			}
			docs = append(docs, doc)
		}
		q := Query{Text: query}
		if useVector {
			q.Vector = vector(0, d)
			if q.Vector == nil {
				q.Vector = []float32{}
			}
		}
		opt := Options{K: k, MinCosine: minCos, MinLexical: minLex}

		got := Select(docs, q, opt)

		wantK, floor := opt.k(), orDefault(minLex, DefaultMinLexical)
		if useVector {
			floor = orDefault(minCos, DefaultMinCosine)
		}
		if len(got) > wantK {
			t.Fatalf("%d results, K is %d", len(got), wantK)
		}
		seen := map[int64]bool{}
		pinnedPart := true
		for i, s := range got {
			if seen[s.ID] {
				t.Fatalf("ID %d twice in %+v", s.ID, got)
			}
			seen[s.ID] = true
			if math.IsNaN(s.Score) || math.IsInf(s.Score, 0) {
				t.Fatalf("%+v: score not finite", s)
			}
			pinned := s.Scorer == ScorerPinned
			if pinned && !pinnedPart {
				t.Fatalf("pinned %+v after unpinned in %+v", s, got)
			}
			pinnedPart = pinned
			if !pinned && (s.Score <= 0 || s.Score < floor) {
				t.Fatalf("unpinned %+v under the minimum %v", s, floor)
			}
			if want := map[bool]string{false: ScorerLexical, true: ScorerEmbedding}[useVector]; !pinned && s.Scorer != want {
				t.Fatalf("%+v: scorer, want %q", s, want)
			}
			if !slices.ContainsFunc(docs, func(d Doc) bool { return d.ID == s.ID && d.Pinned == pinned }) {
				t.Fatalf("%+v matches no doc of that pinning", s)
			}
			if i > 0 && got[i-1].Scorer == s.Scorer && (got[i-1].Score < s.Score || got[i-1].Score == s.Score && got[i-1].ID < s.ID) {
				t.Fatalf("%+v after %+v, want best first, ties newest", s, got[i-1])
			}
		}
		if again := NewIndex(docs).Select(q, opt); !slices.Equal(again, got) {
			t.Fatalf("Index.Select = %+v, Select = %+v", again, got)
		}
		scores, scorer := cosineScores(docs, q.Vector), ScorerEmbedding
		if !useVector {
			scores, scorer = buildLexicon(docs).scores(query), ScorerLexical
		}
		if want := naivePick(docs, scores, wantK, floor, scorer); !slices.Equal(got, want) {
			t.Fatalf("Select = %+v, sorting everything gives %+v", got, want)
		}
	})
}

// naivePick is the selection rule written the obvious way: sort everything
// (pinned first, best score, newest), skip what does not qualify or repeats
// an ID, stop at k.
func naivePick(docs []Doc, scores []float64, k int, floor float64, scorer string) []Scored {
	order := make([]int, len(docs))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		switch {
		case docs[a].Pinned != docs[b].Pinned:
			return btoi(docs[b].Pinned) - btoi(docs[a].Pinned)
		case scores[a] != scores[b]:
			return cmpFloat(scores[b], scores[a])
		}
		return int(max(-1, min(1, docs[b].ID-docs[a].ID)))
	})
	var out []Scored
	seen := map[int64]bool{}
	for _, i := range order {
		d := docs[i]
		if len(out) == k {
			break
		}
		if seen[d.ID] || !d.Pinned && !(scores[i] > 0 && scores[i] >= floor) {
			continue
		}
		seen[d.ID] = true
		s := Scored{ID: d.ID, Score: scores[i], Scorer: scorer}
		if d.Pinned {
			s.Scorer = ScorerPinned
		}
		out = append(out, s)
	}
	return out
}

func cmpFloat(a, b float64) int {
	if a < b {
		return -1
	}
	return 1
}

// TestSelectLargeBank checks the bounded top-K path (many candidates, small
// K) against sorting everything, with tied scores and repeated IDs.
func TestSelectLargeBank(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	words := strings.Fields("inn bram road wolf goose river tower key crypt altar smith coin raven letter marsh well")
	var docs []Doc
	for i := range 3000 {
		var text []string
		for range 3 + r.IntN(6) {
			text = append(text, words[r.IntN(len(words))])
		}
		docs = append(docs, Doc{ID: int64(r.IntN(2500)), Text: strings.Join(text, " "), Pinned: i%1000 == 7,
			Vector: []float32{float32(r.IntN(4)), float32(r.IntN(4)), float32(i % 2)}})
	}
	ix := NewIndex(docs)
	for _, k := range []int{1, 3, 4, 5, 20, 150, 400} {
		for _, q := range []Query{{Text: "the wolf on the road to the inn"}, {Text: "raven"}, {Vector: []float32{1, 2, 0}}} {
			opt := Options{K: k, MinLexical: 0.5}
			got := ix.Select(q, opt)
			scores, scorer, floor := cosineScores(docs, q.Vector), ScorerEmbedding, DefaultMinCosine
			if q.Vector == nil {
				scores, scorer, floor = ix.lexicon().scores(q.Text), ScorerLexical, opt.MinLexical
			}
			if want := naivePick(docs, scores, k, floor, scorer); !slices.Equal(got, want) {
				t.Errorf("K=%d %+v: Select differs from sorting everything:\n got %+v\nwant %+v", k, q, got, want)
			}
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
