package analytics

import (
	"cmp"
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"slices"
	"strconv"
	"time"

	"github.com/adventure-table/adventure-table/models"
)

// Reader is what a report reads (models.Store): three GROUP BY queries,
// each answering tens of rows however much traffic sits behind them.
type Reader interface {
	AnalyticsHitsSince(ctx context.Context, since string) ([]models.AnalyticsHit, error)
	AnalyticsFunnelSince(ctx context.Context, since string) ([]models.AnalyticsFunnel, error)
	AnalyticsReturningSince(ctx context.Context, since string) ([]models.AnalyticsReturning, error)
}

// MaxReportDays bounds a report's period.
const MaxReportDays = 366

// Report is what the operator's dashboard and `adventure-table stats` show
// of the days from From to To (UTC, inclusive).
type Report struct {
	From string `json:"from"`
	To   string `json:"to"`
	// Days has one entry per day of the period, oldest first, zeros
	// included, so a chart's days are evenly spaced.
	Days []DayReport `json:"days"`
	// The period's totals by label, largest first.
	VisitsByPage []LabelCount `json:"visits_by_page"`
	Failures     []Failure    `json:"failures"`
	RateLimited  []LabelCount `json:"rate_limited"`
	AISeats      []LabelCount `json:"ai_seats"`
	// Latency is the time to first token over the period.
	Latency Latency `json:"latency"`
	// DemoDailyTokens is the demo narrator's budget per user and day; 0
	// when the server has no demo narrator.
	DemoDailyTokens int64 `json:"demo_daily_tokens"`
}

// DayReport is one day's counts.
type DayReport struct {
	Day    string `json:"day"`
	Visits int64  `json:"visits"`
	// The funnel, in people (anonymous visitors), not clicks.
	Came     int64 `json:"came"`
	Made     int64 `json:"made"`
	Played   int64 `json:"played"`
	Returned int64 `json:"returned"`

	SoloTurns           int64 `json:"solo_turns"`
	TurnsFailed         int64 `json:"turns_failed"`
	NarratorStepsFailed int64 `json:"narrator_steps_failed"`
	SessionsStarted     int64 `json:"sessions_started"`
	SessionsEnded       int64 `json:"sessions_ended"`
	RateLimited         int64 `json:"rate_limited"`
	// Time to first token that day, bucket bounds in ms (-1: above every
	// bucket, 0: no model call).
	FirstTokenP50MS int64 `json:"first_token_p50_ms"`
	FirstTokenP95MS int64 `json:"first_token_p95_ms"`
	TokensDemo      int64 `json:"tokens_demo"`
	TokensBYOK      int64 `json:"tokens_byok"`
	// DemoUsers is how many people the demo narrator served; DemoBudget
	// what they could have spent (DemoUsers × the budget per user).
	DemoUsers  int64 `json:"demo_users"`
	DemoBudget int64 `json:"demo_budget"`
}

// LabelCount is a total by label.
type LabelCount struct {
	Label string `json:"label"`
	Hits  int64  `json:"hits"`
}

// Failure is how often a solo turn ("turn") or a narrator step
// ("narrator_step") failed with an error code.
type Failure struct {
	What string `json:"what"`
	Code string `json:"code"`
	Hits int64  `json:"hits"`
}

// Latency is a period's time-to-first-token histogram and its quantiles
// (bucket bounds in ms; -1: above every bucket; 0: no call).
type Latency struct {
	Calls   int64        `json:"calls"`
	Buckets []LabelCount `json:"buckets"`
	P50MS   int64        `json:"p50_ms"`
	P95MS   int64        `json:"p95_ms"`
}

// BuildReport reads the counters of the days days up to today (now's UTC
// day) and shapes them for reading. demoDailyTokens is the demo narrator's
// budget per user (0: none).
func BuildReport(ctx context.Context, r Reader, now time.Time, days int, demoDailyTokens int64) (Report, error) {
	days = min(max(days, 1), MaxReportDays)
	to := now.UTC()
	from := to.AddDate(0, 0, -(days - 1))
	rep := Report{From: day(from), To: day(to), DemoDailyTokens: demoDailyTokens}
	hits, err := r.AnalyticsHitsSince(ctx, rep.From)
	if err != nil {
		return Report{}, err
	}
	funnel, err := r.AnalyticsFunnelSince(ctx, rep.From)
	if err != nil {
		return Report{}, err
	}
	returning, err := r.AnalyticsReturningSince(ctx, rep.From)
	if err != nil {
		return Report{}, err
	}

	index := map[string]*DayReport{}
	rep.Days = make([]DayReport, days)
	for i := range rep.Days {
		rep.Days[i].Day = day(from.AddDate(0, 0, i))
		index[rep.Days[i].Day] = &rep.Days[i]
	}
	byPage, rated, seats := map[string]int64{}, map[string]int64{}, map[string]int64{}
	failures := map[Failure]int64{}
	dayLatency := map[string]map[string]int64{}
	allLatency := map[string]int64{}
	for _, h := range hits {
		d := index[h.Day]
		if d == nil {
			continue // a clock ahead of this one's: not in the period
		}
		switch h.Metric {
		case MetricVisit:
			d.Visits += h.Hits
			byPage[h.Label] += h.Hits
		case MetricTurn:
			d.SoloTurns += h.Hits
		case MetricTurnFailed:
			d.TurnsFailed += h.Hits
			failures[Failure{What: "turn", Code: h.Label}] += h.Hits
		case MetricNarratorStepFailed:
			d.NarratorStepsFailed += h.Hits
			failures[Failure{What: "narrator_step", Code: h.Label}] += h.Hits
		case MetricTableSession:
			switch h.Label {
			case "started":
				d.SessionsStarted += h.Hits
			case "ended":
				d.SessionsEnded += h.Hits
			}
		case MetricRateLimited:
			d.RateLimited += h.Hits
			rated[h.Label] += h.Hits
		case MetricAISeat:
			seats[h.Label] += h.Hits
		case MetricFirstToken:
			if dayLatency[h.Day] == nil {
				dayLatency[h.Day] = map[string]int64{}
			}
			dayLatency[h.Day][h.Label] += h.Hits
			allLatency[h.Label] += h.Hits
		case MetricTokens:
			switch h.Label {
			case "demo":
				d.TokensDemo += h.Hits
			case "byok":
				d.TokensBYOK += h.Hits
			}
		}
	}
	for _, f := range funnel {
		d := index[f.Day]
		if d == nil {
			continue
		}
		// Anyone with a row came that day; the other steps are flags.
		d.Came += f.Visitors
		if Step(f.Flags)&Made != 0 {
			d.Made += f.Visitors
		}
		if Step(f.Flags)&Played != 0 {
			d.Played += f.Visitors
		}
		if Step(f.Flags)&Demo != 0 {
			d.DemoUsers += f.Visitors
		}
	}
	for _, ret := range returning {
		if d := index[ret.Day]; d != nil {
			d.Returned = ret.Visitors
		}
	}
	for i := range rep.Days {
		d := &rep.Days[i]
		d.FirstTokenP50MS, d.FirstTokenP95MS = quantileMS(dayLatency[d.Day], 0.50), quantileMS(dayLatency[d.Day], 0.95)
		d.DemoBudget = d.DemoUsers * demoDailyTokens
	}
	rep.VisitsByPage, rep.RateLimited, rep.AISeats = largestFirst(byPage), largestFirst(rated), largestFirst(seats)
	for f, n := range failures {
		f.Hits = n
		rep.Failures = append(rep.Failures, f)
	}
	slices.SortFunc(rep.Failures, func(a, b Failure) int {
		return cmp.Or(cmp.Compare(b.Hits, a.Hits), cmp.Compare(a.What, b.What), cmp.Compare(a.Code, b.Code))
	})
	if rep.Failures == nil {
		rep.Failures = []Failure{}
	}
	rep.Latency = Latency{Buckets: []LabelCount{}, P50MS: quantileMS(allLatency, 0.50), P95MS: quantileMS(allLatency, 0.95)}
	for _, label := range latencyLabels() {
		rep.Latency.Buckets = append(rep.Latency.Buckets, LabelCount{Label: label, Hits: allLatency[label]})
		rep.Latency.Calls += allLatency[label]
	}
	return rep, nil
}

// latencyLabels are the histogram's labels in order, the open bucket last.
func latencyLabels() []string {
	out := make([]string, 0, len(LatencyBuckets)+1)
	for _, b := range LatencyBuckets {
		out = append(out, bucketLabel(b))
	}
	return append(out, latencyOverflow)
}

// quantileMS is the upper bound (ms) of the bucket holding quantile q of
// the counts: 0 when there are none, -1 when it lies above every bound.
func quantileMS(counts map[string]int64, q float64) int64 {
	var total int64
	for _, n := range counts {
		total += n
	}
	if total == 0 {
		return 0
	}
	rank := int64(q*float64(total) + 0.999999) // the rank-th call, 1-based
	var seen int64
	for _, b := range LatencyBuckets {
		if seen += counts[bucketLabel(b)]; seen >= rank {
			return b.Milliseconds()
		}
	}
	return -1
}

func largestFirst(m map[string]int64) []LabelCount {
	out := make([]LabelCount, 0, len(m))
	for label, n := range m {
		out = append(out, LabelCount{Label: label, Hits: n})
	}
	slices.SortFunc(out, func(a, b LabelCount) int {
		return cmp.Or(cmp.Compare(b.Hits, a.Hits), cmp.Compare(a.Label, b.Label))
	})
	return out
}

// WriteCSV writes the report's days as CSV, one row per day with a
// column per count, for a spreadsheet.
func (r Report) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	header := []string{"day", "visits", "came", "made", "played", "returned", "solo_turns", "turns_failed",
		"narrator_steps_failed", "sessions_started", "sessions_ended", "rate_limited", "first_token_p50_ms",
		"first_token_p95_ms", "tokens_demo", "tokens_byok", "demo_users", "demo_budget"}
	if err := cw.Write(header); err != nil {
		return err
	}
	for _, d := range r.Days {
		row := []int64{d.Visits, d.Came, d.Made, d.Played, d.Returned, d.SoloTurns, d.TurnsFailed, d.NarratorStepsFailed,
			d.SessionsStarted, d.SessionsEnded, d.RateLimited, d.FirstTokenP50MS, d.FirstTokenP95MS, d.TokensDemo,
			d.TokensBYOK, d.DemoUsers, d.DemoBudget}
		rec := make([]string, 0, len(row)+1)
		rec = append(rec, d.Day)
		for _, n := range row {
			rec = append(rec, strconv.FormatInt(n, 10))
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// FormatMS says a quantile as people read it: "≤ 500 ms", "≤ 2 s",
// "> 32 s", or "–" with no call.
func FormatMS(ms int64) string {
	switch {
	case ms == 0:
		return "–"
	case ms < 0:
		return fmt.Sprintf("> %d s", LatencyBuckets[len(LatencyBuckets)-1].Milliseconds()/1000)
	case ms < 1000:
		return fmt.Sprintf("≤ %d ms", ms)
	}
	return fmt.Sprintf("≤ %d s", ms/1000)
}
