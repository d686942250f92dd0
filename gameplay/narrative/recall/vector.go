package recall

import "math"

// Cosine is the cosine similarity of a and b. A dimension mismatch, an empty
// or zero vector, or any NaN/Inf scores 0 and never panics: a 768-dim memory
// meeting a 1536-dim query after the user changed embedding models is not
// comparable at all, and truncating one to the other would yield a number
// that looks meaningful and is not.
func Cosine(a, b []float32) float64 {
	if len(a) != len(b) {
		return 0
	}
	dot, bb := dotNorm(a, b)
	return cosine(dot, sumSquares(a), bb)
}

// cosineScores scores every doc against q; docs without a vector, or with
// one of another dimension, score 0.
func cosineScores(docs []Doc, q []float32) []float64 {
	out := make([]float64, len(docs))
	qq := sumSquares(q)
	for i, d := range docs {
		if len(d.Vector) == len(q) {
			dot, dd := dotNorm(q, d.Vector)
			out[i] = cosine(dot, qq, dd)
		}
	}
	return out
}

// cosine finishes a similarity from a·b, |a|² and |b|². Sums are in float64,
// where squares of float32 values cannot overflow, so an Inf or NaN here
// comes from the input and the answer is 0.
func cosine(dot, aa, bb float64) float64 {
	if aa == 0 || bb == 0 {
		return 0
	}
	c := dot / (math.Sqrt(aa) * math.Sqrt(bb))
	if math.IsNaN(c) || math.IsInf(c, 0) {
		return 0
	}
	return max(-1, min(1, c)) // rounding can step just past ±1
}

// dotNorm returns a·b and |b|²; len(b) must equal len(a). Four independent
// accumulators let the CPU overlap the additions: this loop is the whole
// cost of a vector query.
func dotNorm(a, b []float32) (dot, bb float64) {
	b = b[:len(a)]
	var d0, d1, d2, d3, n0, n1, n2, n3 float64
	i := 0
	for ; i+4 <= len(a); i += 4 {
		x, y := a[i:i+4:i+4], b[i:i+4:i+4]
		x0, x1, x2, x3 := float64(x[0]), float64(x[1]), float64(x[2]), float64(x[3])
		y0, y1, y2, y3 := float64(y[0]), float64(y[1]), float64(y[2]), float64(y[3])
		d0 += x0 * y0
		d1 += x1 * y1
		d2 += x2 * y2
		d3 += x3 * y3
		n0 += y0 * y0
		n1 += y1 * y1
		n2 += y2 * y2
		n3 += y3 * y3
	}
	for ; i < len(a); i++ {
		x, y := float64(a[i]), float64(b[i])
		d0 += x * y
		n0 += y * y
	}
	return d0 + d1 + d2 + d3, n0 + n1 + n2 + n3
}

func sumSquares(a []float32) float64 {
	_, aa := dotNorm(a, a)
	return aa
}
