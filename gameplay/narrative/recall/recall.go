// Package recall picks which memories of a solo adventure's memory bank go
// into the narrator's prompt. It runs on the turn path, so it is pure and in
// memory: no database, no model call, milliseconds for ten thousand memories.
//
// A query with an embedding is scored by cosine similarity; one without is
// scored by Okapi BM25 over the memory texts. Pinned memories always come
// first; the rest must clear a minimum score, so a bank with nothing relevant
// injects nothing rather than the least irrelevant five.
package recall

import (
	"cmp"
	"math"
	"slices"
	"sync"
)

// Scorer values say why a memory was chosen.
const (
	ScorerPinned    = "pinned"
	ScorerLexical   = "bm25"
	ScorerEmbedding = "embedding"
)

// Defaults for Options fields left at zero.
const (
	DefaultK         = 5
	DefaultMinCosine = 0.25

	// DefaultMinLexical is an absolute floor on the raw BM25 score, not a
	// fraction of the query's best attainable score: the query is the last
	// few turns of story (hundreds of words), so its attainable score grows
	// with its length and a fraction of it would reject a memory that shares
	// a name and a place with a long query but accept it with a short one.
	// On the absolute scale a term's weight is its IDF, ln(1+(N−n+½)/(n+½))
	// for a term in n of N memories, times a saturating term-frequency factor
	// that is 1 for one mention in a memory of average length and never
	// exceeds k1+1 = 2.2. So the floor of 1 means:
	//   - one plain mention of a word found in fewer than about 37% of the
	//     memories (IDF > 1), such as a name or a place, is enough;
	//   - a word found in more than about 64% of them (IDF < 1/2.2), such as
	//     the hero's name, can never clear it alone, however often repeated;
	//   - several middling words together can, which is what relevance
	//     without a distinctive word looks like.
	// In a bank of one to three memories IDF cannot tell a name from filler,
	// so a single shared word is not enough there; those events are still in
	// the story window the narrator sees, which is why that is acceptable.
	DefaultMinLexical = 1.0
)

// Doc is one memory of the bank.
type Doc struct {
	ID     int64
	Text   string
	Vector []float32 // nil when not embedded
	Pinned bool
}

// Query is what the memories are matched against, usually the last turns of
// story.
type Query struct {
	Text   string
	Vector []float32 // nil → lexical scoring of Text
}

// Scored is a chosen memory.
type Scored struct {
	ID     int64
	Score  float64
	Scorer string
}

// Options tunes Select; the zero value gives the defaults.
type Options struct {
	K          int     // at most this many memories, pinned ones included; <=0 means DefaultK
	MinCosine  float64 // 0 means DefaultMinCosine
	MinLexical float64 // 0 means DefaultMinLexical
}

func (o Options) k() int {
	if o.K <= 0 {
		return DefaultK
	}
	return o.K
}

// orDefault treats NaN like zero, since no score compares with NaN and the
// floor would otherwise silently reject everything.
func orDefault(v, def float64) float64 {
	if v == 0 || math.IsNaN(v) {
		return def
	}
	return v
}

// Select returns at most K docs: pinned docs first (they count toward K; if
// more than K are pinned, the K best-scoring pinned, ties newest ID first),
// then the best-scoring unpinned docs whose score reaches the minimum, best
// first, ties newer (higher ID) first. A score of zero (nothing shared, no
// vector, a vector of another model) never qualifies, whatever the minimum.
// Scorer says why each was chosen; pinned docs say ScorerPinned and still
// carry their score. A doc ID given twice is returned at most once.
func Select(docs []Doc, q Query, opt Options) []Scored {
	return NewIndex(docs).Select(q, opt)
}

// Index is a memory bank prepared for repeated queries: the lexical index is
// built on the first lexical Select and reused. It is safe for concurrent
// use. It keeps docs, so the caller must not change them afterwards.
type Index struct {
	docs []Doc
	once sync.Once
	lex  *lexicon
}

// NewIndex prepares docs for Select. It is cheap: the lexical side is built
// lazily, so a bank only ever queried by vector never tokenizes its texts.
func NewIndex(docs []Doc) *Index {
	return &Index{docs: docs}
}

func (ix *Index) lexicon() *lexicon {
	ix.once.Do(func() { ix.lex = buildLexicon(ix.docs) })
	return ix.lex
}

// Select is the package-level Select over the indexed docs.
func (ix *Index) Select(q Query, opt Options) []Scored {
	if len(ix.docs) == 0 {
		return nil
	}
	if q.Vector != nil {
		return pick(ix.docs, cosineScores(ix.docs, q.Vector), opt.k(), orDefault(opt.MinCosine, DefaultMinCosine), ScorerEmbedding)
	}
	return pick(ix.docs, ix.lexicon().scores(q.Text), opt.k(), orDefault(opt.MinLexical, DefaultMinLexical), ScorerLexical)
}

// pick applies the selection rule to scores (one per doc).
func pick(docs []Doc, scores []float64, k int, floor float64, scorer string) []Scored {
	var pinned, rest []int // indexes into docs
	for i, d := range docs {
		if d.Pinned {
			pinned = append(pinned, i)
		} else if s := scores[i]; s > 0 && s >= floor {
			rest = append(rest, i)
		}
	}
	// Scores are never NaN (cosine and BM25 both guard), so plain
	// comparisons order them.
	bestFirst := func(a, b int) int {
		switch sa, sb := scores[a], scores[b]; {
		case sa > sb:
			return -1
		case sa < sb:
			return 1
		}
		return cmp.Compare(docs[b].ID, docs[a].ID)
	}

	slices.SortFunc(pinned, bestFirst)
	var out []Scored
	taken := make(map[int64]bool) // IDs chosen so far
	for _, i := range pinned {
		if len(out) == k {
			return out
		}
		if id := docs[i].ID; !taken[id] {
			taken[id] = true
			out = append(out, Scored{ID: id, Score: scores[i], Scorer: ScorerPinned})
		}
	}
	for _, i := range best(rest, k-len(out), docs, taken, bestFirst) {
		out = append(out, Scored{ID: docs[i].ID, Score: scores[i], Scorer: scorer})
	}
	return out
}

// best returns the best n of idx (doc indexes) under order, best first,
// each ID once (its best entry) and none of the IDs taken.
func best(idx []int, n int, docs []Doc, taken map[int64]bool, order func(a, b int) int) []int {
	if n <= 0 {
		return nil
	}
	if n > len(idx)/16 {
		// Few candidates, or a large n: sort them all. The first entry
		// of an ID is then its best.
		slices.SortFunc(idx, order)
		top := idx[:0]
		for _, i := range idx {
			if id := docs[i].ID; !taken[id] {
				taken[id] = true
				if top = append(top, i); len(top) == n {
					break
				}
			}
		}
		return top
	}
	// A long query can qualify thousands of memories of a large bank, and
	// sorting them all would cost more than scoring did. A short sorted
	// list is kept instead: most candidates lose to its last place in one
	// comparison, and the few that enter it cost O(n).
	top := make([]int, 0, n+1)
	for _, i := range idx {
		if len(top) == n && order(i, top[n-1]) >= 0 {
			continue
		}
		id := docs[i].ID
		if taken[id] {
			continue
		}
		if j := slices.IndexFunc(top, func(t int) bool { return docs[t].ID == id }); j >= 0 {
			if order(i, top[j]) >= 0 {
				continue // the ID's better entry is already in
			}
			top = slices.Delete(top, j, j+1)
		}
		at, _ := slices.BinarySearchFunc(top, i, order)
		top = slices.Insert(top, at, i)
		if len(top) > n {
			top = top[:n]
		}
	}
	return top
}
