package llm

import (
	"context"
	"fmt"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// Embed returns one vector per text, in the order of texts, from the
// endpoint's /v1/embeddings with s.Model as the embedding model. It refuses
// (KindBadRequest, nothing sent) no texts or no model, and answers
// KindUnavailable when the endpoint's answer does not hold exactly one
// vector per text. The connect, headers and total time limits apply as for
// Stream; errors are mapped the same way.
func (o *OpenAI) Embed(ctx context.Context, s Settings, texts []string) ([][]float32, error) {
	if len(texts) == 0 {
		return nil, &Error{Kind: KindBadRequest, Message: "no texts to embed"}
	}
	if s.Model == "" {
		return nil, &Error{Kind: KindBadRequest, Message: "no embedding model set"}
	}
	callCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	wd := newWatchdog(o.timeouts, cancel)
	defer wd.stop()
	c := o.client(s)
	res, err := c.Embeddings.New(callCtx, openai.EmbeddingNewParams{
		Model: s.Model,
		Input: openai.EmbeddingNewParamsInputUnion{OfArrayOfStrings: texts},
		// Asked for explicitly: the SDK does not decode base64 vectors.
		EncodingFormat: openai.EmbeddingNewParamsEncodingFormatFloat,
	}, option.WithMiddleware(wd.middleware))
	if err != nil {
		if te := wd.timedOut(); te != nil && ctx.Err() == nil {
			return nil, te
		}
		return nil, mapError(ctx, err, s.APIKey, false)
	}
	return vectors(res.Data, len(texts))
}

// vectors orders data by index and converts it to float32, checking that
// every text got exactly one vector and that all have the same length (a
// caller compares them with each other).
func vectors(data []openai.Embedding, n int) ([][]float32, error) {
	bad := func(format string, a ...any) error {
		return &Error{Kind: KindUnavailable, Message: "malformed embeddings answer: " + fmt.Sprintf(format, a...)}
	}
	if len(data) != n {
		return nil, bad("%d vectors for %d texts", len(data), n)
	}
	out := make([][]float32, n)
	for _, d := range data {
		i := d.Index
		if i < 0 || i >= int64(n) || out[i] != nil {
			return nil, bad("index %d is out of range or repeated", i)
		}
		if len(d.Embedding) != len(data[0].Embedding) {
			return nil, bad("vectors of %d and %d dimensions", len(data[0].Embedding), len(d.Embedding))
		}
		v := make([]float32, len(d.Embedding))
		for j, x := range d.Embedding {
			v[j] = float32(x)
		}
		out[i] = v
	}
	return out, nil
}
