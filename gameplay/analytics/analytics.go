// Package analytics counts what happens on the server without reading
// anything back on a request's path (engine room §3.4): counters add up in
// process memory and a flush writes them, every minute and when the server
// stops, as UPSERTs into a (day, metric, label) → hits table and one row per
// visitor per day whose funnel flags only ever turn on.
//
// It is anonymous by construction: a visitor is a keyed one-way hash of a
// user id, and this package imports no story, chat or identity package (the
// architecture test holds it to that), so no story text can reach it.
package analytics

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/adventure-table/adventure-table/models"
)

// FlushEvery is how often the counters are written unless the server is
// told otherwise (Run's every).
const FlushEvery = 60 * time.Second

// Funnel steps of a visitor's day, as flags that only ever turn on. Who
// came back is read from the days themselves: a visitor with rows on two
// days.
type Step int64

const (
	Came   Step = 1 << iota // any page
	Made                    // a character, a room or a scenario
	Played                  // a solo turn or a table session
	// Demo: a turn or a narrator step was narrated on the server's demo
	// narrator: how many people the demo budget served that day.
	Demo
	stepsKnown = Came | Made | Played | Demo
)

// The metrics counted, each a counter per day and label.
const (
	// MetricTurn: a solo turn saved (label "solo").
	MetricTurn = "turn"
	// MetricTurnFailed: a solo turn that ended in an error, by its stable
	// error code (provider timeouts, refusals, empty replies, the demo
	// budget, …): a failed turn is an HTTP 200 with a bad ending, which no
	// status-code middleware sees.
	MetricTurnFailed = "turn_failed"
	// MetricTableSession: a table session "started" or "ended".
	MetricTableSession = "table_session"
	// MetricVisit: a page of the web app loaded, by its kind (PageKind).
	MetricVisit = "visit"
	// MetricRateLimited: a request refused by a rate limit, by its class
	// (the login throttle's class is "login").
	MetricRateLimited = "rate_limited"
	// MetricNarratorStepFailed: a step of the built-in narrator at a table
	// seat that ended stuck, by its stable error code.
	MetricNarratorStepFailed = "narrator_step_failed"
	// MetricAISeat: a seat handed to an AI, by kind and role ("agent_dm",
	// "agent_player", "narrator_dm", "narrator_player").
	MetricAISeat = "ai_seat"
	// MetricFirstToken: a model call's time to its first streamed piece,
	// by its bucket (LatencyBuckets).
	MetricFirstToken = "model_first_token"
	// MetricTokens: tokens spent on model calls (prompt and completion), by
	// who pays: "demo" (the server's demo narrator) or "byok" (the user's
	// own endpoint).
	MetricTokens = "tokens"
)

// What failed, for Failed.
const (
	SoloTurn     = MetricTurnFailed
	NarratorStep = MetricNarratorStepFailed
)

// Failed counts one failed solo turn or narrator step by its stable error
// code: the one way every failure is counted (a failed turn is an HTTP 200
// with a bad ending, which no status-code middleware sees).
func (c *Counter) Failed(what, code string) {
	if code == "" {
		code = "internal"
	}
	c.Count(what, code, 1)
}

// LatencyBuckets are the upper bounds of the time-to-first-token
// histogram, fixed so that every process and every day add up bucket by
// bucket; the last label, "inf", holds anything slower.
var LatencyBuckets = []time.Duration{100 * time.Millisecond, 250 * time.Millisecond, 500 * time.Millisecond,
	time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 16 * time.Second, 32 * time.Second}

// bucketLabel names a bucket by its bound in milliseconds, zero-padded so
// that labels sort as the bounds do.
func bucketLabel(bound time.Duration) string { return fmt.Sprintf("le_%05d", bound.Milliseconds()) }

// latencyOverflow is the label of the open-ended last bucket.
const latencyOverflow = "le_inf"

// LatencyLabel is the bucket a time to first token is counted in.
func LatencyLabel(d time.Duration) string {
	for _, b := range LatencyBuckets {
		if d <= b {
			return bucketLabel(b)
		}
	}
	return latencyOverflow
}

// ModelCall counts one model call: its time to the first streamed piece
// (when one came: firstToken > 0) and the tokens it spent, by who pays.
func (c *Counter) ModelCall(firstToken time.Duration, tokens int64, demo bool) {
	if firstToken > 0 {
		c.Count(MetricFirstToken, LatencyLabel(firstToken), 1)
	}
	source := "byok"
	if demo {
		source = "demo"
	}
	c.Count(MetricTokens, source, tokens)
}

// pageKinds are the web app's pages by their path's first segment; any
// other path is "other", so a label never holds an id or a typo.
var pageKinds = map[string]string{"": "home", "tables": "tables", "rooms": "room", "join": "join", "sessions": "session",
	"campaigns": "campaign", "seats": "narrator", "characters": "characters", "solo": "solo", "settings": "settings",
	"account": "account", "api": "api_docs", "operator": "operator"}

// PageKind names the page a path of the web app shows.
func PageKind(path string) string {
	first, _, _ := strings.Cut(strings.TrimPrefix(path, "/"), "/")
	if kind, ok := pageKinds[first]; ok {
		return kind
	}
	return "other"
}

// Store is where counters are written (models.Store).
type Store interface {
	AddAnalyticsHits(ctx context.Context, hits []models.AnalyticsHit) error
	MarkAnalyticsVisitorDays(ctx context.Context, days []models.AnalyticsVisitorDay) error
}

type hitKey struct{ day, metric, label string }
type visitorKey struct{ day, visitor string }

// Counter keeps the counts of this process until they are flushed. Its
// methods never touch the database and never block on it: a request counts
// and goes on.
type Counter struct {
	store  Store
	secret []byte
	now    func() time.Time
	log    *slog.Logger

	mu       sync.Mutex
	hits     map[hitKey]int64
	visitors map[visitorKey]Step
	// flushing serialises flushes, so a counter taken out for writing is
	// never merged back over a newer flush's.
	flushing sync.Mutex
}

// New returns a counter writing to store; secret keys the visitor hash.
func New(store Store, secret []byte, now func() time.Time, log *slog.Logger) *Counter {
	if now == nil {
		now = time.Now
	}
	if log == nil {
		log = slog.Default()
	}
	return &Counter{store: store, secret: secret, now: now, log: log, hits: map[hitKey]int64{}, visitors: map[visitorKey]Step{}}
}

// day is a time's UTC day, as the tables key it.
func day(t time.Time) string { return t.UTC().Format(time.DateOnly) }

// Visitor is the anonymous name of a user in the counters:
// HMAC-SHA256(secret, "visitor:<user id>") in hex, cut to 32 characters.
// One-way, so the counters cannot be joined back to users; keyed, so no
// client can compute it.
func Visitor(secret []byte, userID int64) string {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte("visitor:" + strconv.FormatInt(userID, 10)))
	return hex.EncodeToString(m.Sum(nil))[:32]
}

// Count adds n to today's metric with label.
func (c *Counter) Count(metric, label string, n int64) {
	if c == nil || n == 0 {
		return
	}
	k := hitKey{day(c.now()), clip(metric, 64), clip(label, 128)}
	c.mu.Lock()
	c.hits[k] += n
	c.mu.Unlock()
}

// Reach turns on a funnel step of the user's day: counted once per person
// and day however often they do it.
func (c *Counter) Reach(userID int64, step Step) {
	if c == nil || userID == 0 || step&stepsKnown == 0 {
		return
	}
	k := visitorKey{day(c.now()), Visitor(c.secret, userID)}
	c.mu.Lock()
	c.visitors[k] |= step & stepsKnown
	c.mu.Unlock()
}

// Flush writes what was counted since the last flush. On failure the
// counts go back to be written by the next flush (never on a request's
// path) and the error is returned; the store writes a flush whole or not at
// all, so nothing is counted twice.
func (c *Counter) Flush(ctx context.Context) error {
	c.flushing.Lock()
	defer c.flushing.Unlock()
	c.mu.Lock()
	hits, visitors := c.hits, c.visitors
	c.hits, c.visitors = map[hitKey]int64{}, map[visitorKey]Step{}
	c.mu.Unlock()

	rows := make([]models.AnalyticsHit, 0, len(hits))
	for k, n := range hits {
		rows = append(rows, models.AnalyticsHit{Day: k.day, Metric: k.metric, Label: k.label, Hits: n})
	}
	days := make([]models.AnalyticsVisitorDay, 0, len(visitors))
	for k, f := range visitors {
		days = append(days, models.AnalyticsVisitorDay{Day: k.day, Visitor: k.visitor, Flags: int64(f)})
	}
	err := c.store.AddAnalyticsHits(ctx, rows)
	if err != nil {
		c.putBack(hits, visitors)
		return err
	}
	if err = c.store.MarkAnalyticsVisitorDays(ctx, days); err != nil {
		// the hits are written: only the visitor days go back (flags only
		// turn on, so writing them again is harmless anyway)
		c.putBack(nil, visitors)
	}
	return err
}

func (c *Counter) putBack(hits map[hitKey]int64, visitors map[visitorKey]Step) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, n := range hits {
		c.hits[k] += n
	}
	for k, f := range visitors {
		c.visitors[k] |= f
	}
}

// Run flushes every every (FlushEvery when 0) until ctx ends. The server flushes once
// more itself (Flush) after its last request has ended, so what those
// requests counted is written too.
func (c *Counter) Run(ctx context.Context, every time.Duration) {
	if every <= 0 {
		every = FlushEvery
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			if err := c.Flush(ctx); err != nil && ctx.Err() == nil {
				c.log.Warn("analytics flush failed; retried at the next one", "error", err)
			}
		case <-ctx.Done():
			return
		}
	}
}

// clip keeps at most n bytes of s on a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}
