package narrative_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/adventure-table/adventure-table/gameplay/llm"
	"github.com/adventure-table/adventure-table/gameplay/narrative"
)

// naturalProse is a public-domain book (Newton's Opticks, the text Go's
// compress tests use) cut into paragraphs: real prose, so compression
// ratios are not flattered by generated repetition.
func naturalProse(t testing.TB) []string {
	t.Helper()
	f, err := os.Open("testdata/prose/opticks.txt.gz")
	must(t, err)
	defer f.Close()
	r, err := gzip.NewReader(f)
	must(t, err)
	var b bytes.Buffer
	_, err = b.ReadFrom(r)
	must(t, err)
	var out []string
	for _, p := range strings.Split(b.String(), "\n\n") {
		p = strings.Join(strings.Fields(p), " ")
		if len(p) > 200 && len(p) < 3000 {
			out = append(out, p)
		}
	}
	return out
}

// snapshotJSON is a snapshot's JSON as stored before compression (the
// field order of narrative's snapshot), rebuilt from its Insights.
func snapshotJSON(ins narrative.Insights) []byte {
	js, _ := json.Marshal(struct {
		Messages     []narrative.InsightMessage `json:"messages"`
		Sections     []narrative.InsightSection `json:"sections"`
		Cards        []narrative.InsightCard    `json:"cards"`
		Budget       int                        `json:"budget"`
		TotalTokens  int                        `json:"total_tokens"`
		HistoryTurns int                        `json:"history_turns"`
		Memories     []narrative.InsightMemory  `json:"memories"`
	}{ins.Messages, ins.Sections, ins.Cards, ins.Budget, ins.TotalTokens, ins.HistoryTurns, ins.Memories})
	return js
}

// BenchmarkSnapshotStorage plays a 500-turn adventure of natural prose
// (Newton's Opticks, a paragraph a turn, 8,000-token budget) through the
// real turn path with the scripted model, and reports the prompt
// snapshots' stored bytes against their raw JSON, each turn's time (p50,
// p99) and Insights read by another process (nothing remembered: every
// chain decoded from the rows; p50, p99, max). Self-contained so it runs
// on older commits too (before/after). -benchtime=1x.
func BenchmarkSnapshotStorage(b *testing.B) {
	const turns = 500
	for b.Loop() {
		f := newSolo(b)
		ctx := context.Background()
		_, err := f.svc.PutSettings(ctx, f.user, narrative.ProviderSettingsInput{BaseURL: f.fake.URL(), Model: "fake", ContextBudget: 8000,
			MaxOutputTokens: 600, Temperature: 0.8, TopP: 0.95})
		must(b, err)
		adv := f.adventure().Adventure.ID
		prose := naturalProse(b)
		var ids []int64
		var turnTimes, readTimes []time.Duration
		for i := range turns {
			start := time.Now()
			ids = append(ids, f.play(adv, "I read on.", prose[i%len(prose)], "").Action.ID)
			turnTimes = append(turnTimes, time.Since(start))
		}
		other := narrative.New(f.store, narrative.Options{Provider: llm.NewOpenAI(nil), Secret: testSecret})
		var stored, raw int
		for _, id := range ids {
			blob, err := f.store.FindActionPrompt(ctx, id)
			must(b, err)
			stored += len(blob)
			start := time.Now()
			ins, err := other.GetInsights(ctx, f.user, id)
			readTimes = append(readTimes, time.Since(start))
			must(b, err)
			raw += len(snapshotJSON(ins))
		}
		ms := func(d []time.Duration, q float64) float64 {
			slices.Sort(d)
			return float64(d[min(len(d)-1, int(q*float64(len(d))))].Microseconds()) / 1000
		}
		b.ReportMetric(float64(raw)/turns, "rawjson-bytes/turn")
		b.ReportMetric(float64(stored)/turns, "stored-bytes/turn")
		b.ReportMetric(float64(raw)/float64(stored), "ratio")
		b.ReportMetric(ms(turnTimes, 0.5), "turn-p50-ms")
		b.ReportMetric(ms(turnTimes, 0.99), "turn-p99-ms")
		b.ReportMetric(ms(readTimes, 0.5), "insights-p50-ms")
		b.ReportMetric(ms(readTimes, 0.99), "insights-p99-ms")
		b.ReportMetric(ms(readTimes, 1), "insights-max-ms")
	}
}
