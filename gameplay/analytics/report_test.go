package analytics_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/adventure-table/adventure-table/gameplay/analytics"
	"github.com/adventure-table/adventure-table/models"
	"github.com/adventure-table/adventure-table/models/modelstest"
)

// TestReport, on SQLite and PostgreSQL: counters flushed over three days
// read back as the dashboard shows them — the funnel in people (one person
// making six things is one), who came back another day, failures by code
// for turns and narrator steps, the time-to-first-token quantiles from the
// fixed buckets, demo spend against the budget of the people it served.
func TestReport(t *testing.T) {
	store := modelstest.MustOpen(t)
	secret := []byte("report-test-secret")
	at := func(day string) *analytics.Counter { return analytics.New(store, secret, clock(day+"T12:00:00Z"), nil) }

	d1 := at("2026-12-01")
	d1.Count(analytics.MetricVisit, "home", 5)
	d1.Reach(1, analytics.Came)
	d1.Reach(2, analytics.Came)
	d3 := at("2026-12-03")
	d3.Count(analytics.MetricVisit, "solo", 7)
	d3.Count(analytics.MetricVisit, "home", 1)
	for range 6 {
		d3.Reach(1, analytics.Made) // six adventures started: one person
	}
	d3.Reach(1, analytics.Played)
	d3.Reach(3, analytics.Came)
	d3.Failed(analytics.SoloTurn, "provider_timeout")
	d3.Failed(analytics.SoloTurn, "provider_timeout")
	d3.Failed(analytics.NarratorStep, "provider_refused")
	d3.Count(analytics.MetricRateLimited, "login", 1)
	d3.Count(analytics.MetricAISeat, "narrator_dm", 1)
	for _, ms := range []int{90, 300, 300, 400, 450, 700, 800, 900, 1500, 40000} {
		d3.ModelCall(time.Duration(ms)*time.Millisecond, 100, ms < 500)
	}
	d3.Reach(1, analytics.Demo)
	for _, c := range []*analytics.Counter{d1, d3} {
		if err := c.Flush(ctx); err != nil {
			t.Fatal(err)
		}
	}

	rep, err := analytics.BuildReport(ctx, store, clock("2026-12-03T20:00:00Z")(), 3, 20000)
	if err != nil {
		t.Fatal(err)
	}
	if rep.From != "2026-12-01" || rep.To != "2026-12-03" || len(rep.Days) != 3 || rep.Days[1].Day != "2026-12-02" {
		t.Fatalf("period: %s..%s, days %+v", rep.From, rep.To, rep.Days)
	}
	first, empty, third := rep.Days[0], rep.Days[1], rep.Days[2]
	if first.Visits != 5 || first.Came != 2 || first.Returned != 0 || empty != (analytics.DayReport{Day: "2026-12-02"}) {
		t.Errorf("first days: %+v %+v", first, empty)
	}
	if third.Visits != 8 || third.Came != 2 || third.Made != 1 || third.Played != 1 || third.Returned != 1 {
		t.Errorf("funnel of the third day (2 people, 1 made six things, 1 came back): %+v", third)
	}
	if third.TurnsFailed != 2 || third.NarratorStepsFailed != 1 || third.RateLimited != 1 {
		t.Errorf("failures of the third day: %+v", third)
	}
	// 10 calls: the 5th is in ≤ 500 ms, the 10th (p95 rank) above 32 s
	if third.FirstTokenP50MS != 500 || third.FirstTokenP95MS != -1 || rep.Latency.P50MS != 500 || rep.Latency.Calls != 10 {
		t.Errorf("latency: day p50 %d p95 %d, period %+v", third.FirstTokenP50MS, third.FirstTokenP95MS, rep.Latency)
	}
	if third.TokensDemo != 500 || third.TokensBYOK != 500 || third.DemoUsers != 1 || third.DemoBudget != 20000 {
		t.Errorf("tokens: %+v", third)
	}
	want := []analytics.Failure{{What: "turn", Code: "provider_timeout", Hits: 2}, {What: "narrator_step", Code: "provider_refused", Hits: 1}}
	if len(rep.Failures) != 2 || rep.Failures[0] != want[0] || rep.Failures[1] != want[1] {
		t.Errorf("failures: %+v", rep.Failures)
	}
	if len(rep.VisitsByPage) != 2 || rep.VisitsByPage[0] != (analytics.LabelCount{Label: "solo", Hits: 7}) {
		t.Errorf("visits by page: %+v", rep.VisitsByPage)
	}
	if len(rep.AISeats) != 1 || rep.AISeats[0].Label != "narrator_dm" {
		t.Errorf("AI seats: %+v", rep.AISeats)
	}

	var csv strings.Builder
	if err := rep.WriteCSV(&csv); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(csv.String()), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[0], "day,visits,came,made,played,returned,") ||
		!strings.HasPrefix(lines[3], "2026-12-03,8,2,1,1,1,") {
		t.Errorf("CSV:\n%s", csv.String())
	}
}

// TestLatencyLabels: a label per fixed bucket, sorted as the bounds are.
func TestLatencyLabels(t *testing.T) {
	for d, want := range map[time.Duration]string{50 * time.Millisecond: "le_00100", 100 * time.Millisecond: "le_00100",
		101 * time.Millisecond: "le_00250", 3 * time.Second: "le_04000", time.Minute: "le_inf"} {
		if got := analytics.LatencyLabel(d); got != want {
			t.Errorf("LatencyLabel(%v) = %s, want %s", d, got, want)
		}
	}
	if analytics.FormatMS(500) != "≤ 500 ms" || analytics.FormatMS(2000) != "≤ 2 s" || analytics.FormatMS(-1) != "> 32 s" {
		t.Error("FormatMS")
	}
}

// BenchmarkReport: the dashboard's report of 30 days with 10,000 visitors
// a day (300,000 visitor-day rows, a third coming back) and a few hundred
// counters a day: its three GROUP BY statements, the rows they answer and
// the time.
func BenchmarkReport(b *testing.B) {
	store := modelstest.MustOpen(b)
	secret := []byte("bench")
	start, _ := time.Parse(time.DateOnly, "2026-11-05")
	for d := range 30 {
		at := start.AddDate(0, 0, d).Add(12 * time.Hour)
		c := analytics.New(store, secret, func() time.Time { return at }, nil)
		for v := range 10_000 {
			// a third of each day's visitors are regulars, here every day
			id := int64(d*10_000 + v + 1)
			if v%3 == 0 {
				id = int64(v + 1)
			}
			c.Reach(id, analytics.Came)
		}
		for p := range 12 {
			c.Count(analytics.MetricVisit, "page-"+string(rune('a'+p)), 2000)
		}
		for code := range 8 {
			c.Failed(analytics.SoloTurn, "code-"+string(rune('a'+code)))
		}
		for ms := 50; ms < 40_000; ms *= 2 {
			c.ModelCall(time.Duration(ms)*time.Millisecond, 500, ms%3 == 0)
		}
		if err := c.Flush(ctx); err != nil {
			b.Fatal(err)
		}
	}
	now := start.AddDate(0, 0, 29).Add(20 * time.Hour)
	var statements int64
	counted := &rowCounter{Reader: store}
	for b.Loop() {
		qctx, n := models.WithQueryCounter(ctx)
		counted.rows = 0
		rep, err := analytics.BuildReport(qctx, counted, now, 30, 20000)
		if err != nil {
			b.Fatal(err)
		}
		if rep.Days[29].Came != 10_000 || rep.Days[29].Returned < 3000 {
			b.Fatalf("last day: %+v", rep.Days[29])
		}
		statements = n.Load()
	}
	b.ReportMetric(float64(statements), "statements/report")
	b.ReportMetric(float64(counted.rows), "rows/report")
}

// rowCounter counts the rows a report's queries answer.
type rowCounter struct {
	analytics.Reader
	rows int
}

func (r *rowCounter) AnalyticsHitsSince(ctx context.Context, since string) ([]models.AnalyticsHit, error) {
	out, err := r.Reader.AnalyticsHitsSince(ctx, since)
	r.rows += len(out)
	return out, err
}

func (r *rowCounter) AnalyticsFunnelSince(ctx context.Context, since string) ([]models.AnalyticsFunnel, error) {
	out, err := r.Reader.AnalyticsFunnelSince(ctx, since)
	r.rows += len(out)
	return out, err
}

func (r *rowCounter) AnalyticsReturningSince(ctx context.Context, since string) ([]models.AnalyticsReturning, error) {
	out, err := r.Reader.AnalyticsReturningSince(ctx, since)
	r.rows += len(out)
	return out, err
}
