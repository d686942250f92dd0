package recall

import (
	"math"
	"slices"
	"unicode"
	"unicode/utf8"
)

// Okapi BM25 parameters, the usual ones: k1 saturates repetition (the tenth
// "goblin" adds little), b normalises for memory length.
const (
	k1 = 1.2
	b  = 0.75
)

// lexicon is an inverted index of the memory texts.
type lexicon struct {
	// forms maps each word as written (lowercased) to its term id, or to
	// stopword, so the common case of a word seen before costs one lookup
	// instead of a stopword test, a stem and a second lookup.
	forms    map[string]int32
	terms    map[string]int32 // stemmed term → term id
	start    []int            // term t's postings are postings[start[t]:start[t+1]]
	postings []posting
	lenNorm  []float64 // per doc: k1·(1−b+b·length/average length)
}

const stopword = -1

// posting says a term occurs tf times in a doc.
type posting struct{ doc, tf int32 }

func buildLexicon(docs []Doc) *lexicon {
	// Tokenize every doc once into term ids; the postings are then laid
	// out in one array (no per-term slices to grow). Sizes are estimated
	// up front because growing the maps showed in profiles: English prose
	// runs about one content word per eight bytes, and a vocabulary grows
	// like the square root of the text (Heaps' law).
	size := 0
	for _, d := range docs {
		size += len(d.Text)
	}
	words := size / 8
	vocabulary := min(words, 40*int(math.Sqrt(float64(words))))
	lx := &lexicon{forms: make(map[string]int32, vocabulary), terms: make(map[string]int32, vocabulary)}
	ids := make([]int32, 0, words)
	ends := make([]int, len(docs))
	var tk tokenizer
	for d := range docs {
		tk.reset(docs[d].Text)
		for tk.word() {
			id, seen := lx.forms[string(tk.buf)]
			if !seen {
				id = lx.newForm(tk.buf)
			}
			if id != stopword {
				ids = append(ids, id)
			}
		}
		ends[d] = len(ids)
	}

	// Document frequency: lastDoc avoids counting a repeated term twice.
	df := make([]int, len(lx.terms))
	lastDoc := make([]int32, len(lx.terms))
	for i := range lastDoc {
		lastDoc[i] = -1
	}
	from := 0
	for d, end := range ends {
		for _, t := range ids[from:end] {
			if lastDoc[t] != int32(d) {
				lastDoc[t] = int32(d)
				df[t]++
			}
		}
		from = end
	}
	lx.start = make([]int, len(df)+1)
	for t, n := range df {
		lx.start[t+1] = lx.start[t] + n
	}

	// Fill: a doc's postings for a term are contiguous, so a repeat is
	// always the term's most recent posting. df is reused as the fill cursor.
	lx.postings = make([]posting, lx.start[len(df)])
	copy(df, lx.start)
	from = 0
	for d, end := range ends {
		for _, t := range ids[from:end] {
			if at := df[t]; at > lx.start[t] && lx.postings[at-1].doc == int32(d) {
				lx.postings[at-1].tf++
			} else {
				lx.postings[at] = posting{doc: int32(d), tf: 1}
				df[t]++
			}
		}
		from = end
	}

	lx.lenNorm = make([]float64, len(docs))
	avg := float64(len(ids)) / float64(max(len(docs), 1))
	from = 0
	for d, end := range ends {
		length := float64(end - from)
		if avg > 0 {
			length /= avg
		}
		lx.lenNorm[d] = k1 * (1 - b + b*length)
		from = end
	}
	return lx
}

// newForm records a word not seen before and returns its term id.
func (lx *lexicon) newForm(word []byte) int32 {
	form := string(word)
	id := int32(stopword)
	if term, ok := contentTerm(word); ok {
		var known bool
		if id, known = lx.terms[string(term)]; !known {
			id = int32(len(lx.terms))
			// Stemming usually only cuts the word, and then the term
			// can share the form's bytes instead of allocating.
			if len(term) <= len(form) && form[:len(term)] == string(term) {
				lx.terms[form[:len(term)]] = id
			} else {
				lx.terms[string(term)] = id
			}
		}
	}
	lx.forms[form] = id
	return id
}

// lookup returns the term id of a word, or false for a stopword or a term
// no memory contains. It only reads, so queries can run concurrently.
func (lx *lexicon) lookup(word []byte) (int32, bool) {
	if id, seen := lx.forms[string(word)]; seen {
		return id, id != stopword
	}
	if term, ok := contentTerm(word); ok {
		id, known := lx.terms[string(term)]
		return id, known
	}
	return 0, false
}

// scores returns the BM25 score of every doc for text. Each distinct query
// term counts once: the query is recent story, where a word's repetition
// says what the narrator dwelt on, not what the player is asking about.
func (lx *lexicon) scores(text string) []float64 {
	out := make([]float64, len(lx.lenNorm))
	n := float64(len(lx.lenNorm))
	for _, t := range lx.queryTerms(text) {
		ps := lx.postings[lx.start[t]:lx.start[t+1]]
		df := float64(len(ps))
		// Lucene's IDF: like Robertson's but never negative, so a word in
		// most memories weighs little instead of counting against them.
		idf := math.Log1p((n - df + 0.5) / (df + 0.5))
		for _, p := range ps {
			tf := float64(p.tf)
			out[p.doc] += idf * tf * (k1 + 1) / (tf + lx.lenNorm[p.doc])
		}
	}
	return out
}

// queryTerms returns the ids of the distinct terms of text the bank knows.
func (lx *lexicon) queryTerms(text string) []int32 {
	var ids []int32
	var tk tokenizer
	tk.reset(text)
	for tk.word() {
		if id, ok := lx.lookup(tk.buf); ok {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return slices.Compact(ids)
}

// tokenizer splits a text into words: runs of letters and digits (any
// script), lowercased. contentTerm then drops stopwords and stems. It reuses
// one buffer, so tokenizing allocates nothing once the buffer has grown.
type tokenizer struct {
	text string
	pos  int
	buf  []byte // the current word
}

func (tk *tokenizer) reset(text string) {
	tk.text, tk.pos, tk.buf = text, 0, tk.buf[:0]
}

// contentTerm stems word in place, or reports false for a stopword.
func contentTerm(word []byte) ([]byte, bool) {
	if isStopword(word) {
		return nil, false
	}
	return stem(word), true
}

// Byte classes for the tokenizer's ASCII fast path.
const (
	separator = iota
	lowerOrDigit
	upper
	multibyte
)

var byteClass = func() (c [256]uint8) {
	for i := range c {
		switch {
		case 'a' <= i && i <= 'z', '0' <= i && i <= '9':
			c[i] = lowerOrDigit
		case 'A' <= i && i <= 'Z':
			c[i] = upper
		case i >= utf8.RuneSelf:
			c[i] = multibyte
		}
	}
	return c
}()

// word reads the next run of letters and digits, lowercased, into buf.
// Apostrophes split like any other separator: "Innkeeper's" gives
// "innkeeper" and "s", and "s" is a stopword. Runs of lowercase ASCII, most
// of any English text, are copied in one go.
func (tk *tokenizer) word() bool {
	tk.buf = tk.buf[:0]
	text, pos := tk.text, tk.pos
	for pos < len(text) {
		c := text[pos]
		switch byteClass[c] {
		case lowerOrDigit:
			start := pos
			for pos < len(text) && byteClass[text[pos]] == lowerOrDigit {
				pos++
			}
			tk.buf = append(tk.buf, text[start:pos]...)
			continue
		case upper:
			tk.buf = append(tk.buf, c+('a'-'A'))
			pos++
			continue
		case multibyte:
			r, size := utf8.DecodeRuneInString(text[pos:])
			pos += size
			if unicode.IsLetter(r) || unicode.IsDigit(r) {
				tk.buf = utf8.AppendRune(tk.buf, unicode.ToLower(r))
				continue
			}
		default:
			pos++
		}
		if len(tk.buf) > 0 { // a separator ends the word
			break
		}
	}
	tk.pos = pos
	return len(tk.buf) > 0
}

// isStopword reports whether w is a function word that says nothing about
// which memory is relevant. A switch compiles to a search on length and
// bytes, and string(w) in it does not allocate.
func isStopword(w []byte) bool {
	switch string(w) {
	case "a", "about", "above", "after", "again", "against", "all", "am", "an", "and", "any", "are", "as", "at",
		"be", "because", "been", "before", "being", "below", "between", "both", "but", "by",
		"can", "could", "d", "did", "do", "does", "doing", "done", "down", "during",
		"each", "few", "for", "from", "further", "had", "has", "have", "having", "he", "her", "here", "hers",
		"herself", "him", "himself", "his", "how", "i", "if", "in", "into", "is", "it", "its", "itself", "just",
		"ll", "m", "may", "me", "might", "more", "most", "must", "my", "myself", "no", "nor", "not", "now",
		"of", "off", "on", "once", "only", "or", "other", "our", "ours", "ourselves", "out", "over", "own",
		"re", "s", "same", "shall", "she", "should", "so", "some", "such", "t", "than", "that", "the", "their",
		"theirs", "them", "themselves", "then", "there", "these", "they", "this", "those", "through", "to", "too",
		"under", "until", "up", "us", "ve", "very", "was", "we", "were", "what", "when", "where", "which", "while",
		"who", "whom", "why", "will", "with", "would", "you", "your", "yours", "yourself", "yourselves":
		return true
	}
	return false
}

// stem strips a few English suffixes in place so inflections of a word meet:
// "promised", "promise", "promises" and "promising" all become "promis". It
// is deliberately light (no irregulars, no derivations): a wrong conflation
// pulls in an irrelevant memory, a missed one only loses a little recall.
func stem(w []byte) []byte {
	// Plurals and third person: "stories" → "story", "promises" →
	// "promise". Words ending in "ss", "us", "is" are not plurals (glass,
	// bonus, iris); "-es" plurals lose their "e" below (boxes → box).
	switch n := len(w); {
	case n > 4 && hasSuffix(w, "ies"):
		w = append(w[:n-3], 'y')
	case n > 3 && w[n-1] == 's' && w[n-2] != 's' && w[n-2] != 'u' && w[n-2] != 'i':
		w = w[:n-1]
	}
	// Past tense and participles, only when a syllable remains, so "need",
	// "shed", "king" and "string" stay whole.
	switch n := len(w); {
	case n > 4 && hasSuffix(w, "ied"):
		return append(w[:n-3], 'y')
	case n > 4 && hasSuffix(w, "ed") && hasVowel(w[:n-2]):
		// Already past the silent "e" below: "agreed" → "agre" like
		// "agree", "moved" → "mov" like "move".
		return undouble(w[:n-2])
	case n > 5 && hasSuffix(w, "ing") && hasVowel(w[:n-3]):
		w = undouble(w[:n-3])
	}
	// A final silent "e" goes, so "promise" meets "promis(ed)" and "move"
	// meets "mov(ing)"; short words such as "see" keep it.
	if n := len(w); n > 3 && w[n-1] == 'e' {
		w = w[:n-1]
	}
	return w
}

func hasSuffix(w []byte, suffix string) bool {
	return len(w) >= len(suffix) && string(w[len(w)-len(suffix):]) == suffix
}

func hasVowel(w []byte) bool {
	for _, c := range w {
		switch c {
		case 'a', 'e', 'i', 'o', 'u', 'y':
			return true
		}
	}
	return false
}

// undouble turns "stopp(ed)" into "stop" and "runn(ing)" into "run", but
// keeps the doubles that belong to the word: "fall", "miss", "buzz".
func undouble(w []byte) []byte {
	n := len(w)
	if n < 2 || w[n-1] != w[n-2] {
		return w
	}
	switch c := w[n-1]; {
	case c < 'a' || c > 'z', c == 'l', c == 's', c == 'z', c == 'e', c == 'o', c == 'a', c == 'i', c == 'u':
		return w
	}
	return w[:n-1]
}
