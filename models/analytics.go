package models

import (
	"context"
	"strings"
)

// AnalyticsHit is one counter of a day: how many times metric happened
// with label (a page kind, an error code, a latency bucket). Counters only
// ever grow: a flush adds to them (AddAnalyticsHits).
type AnalyticsHit struct {
	Day    string `gorm:"size:10;primaryKey;autoIncrement:false"` // YYYY-MM-DD, UTC
	Metric string `gorm:"size:64;primaryKey;autoIncrement:false"`
	Label  string `gorm:"size:128;primaryKey;autoIncrement:false"`
	Hits   int64  `gorm:"not null;default:0"`
}

func (AnalyticsHit) TableName() string { return "analytics_hits" }

// AnalyticsVisitorDay is one anonymous visitor's day: the funnel steps they
// reached, as bit flags that only ever turn on. Visitor is a keyed one-way
// hash of the user (analytics.Visitor), never the user's id.
type AnalyticsVisitorDay struct {
	Day     string `gorm:"size:10;primaryKey;autoIncrement:false;index:ix_analytics_visitor_days_visitor,priority:2"`
	Visitor string `gorm:"size:32;primaryKey;autoIncrement:false;index:ix_analytics_visitor_days_visitor,priority:1"`
	Flags   int64  `gorm:"not null;default:0"`
}

func (AnalyticsVisitorDay) TableName() string { return "analytics_visitor_days" }

// analyticsBatch bounds the rows of one statement (SQLite allows 32,766
// variables; a hit row binds four).
const analyticsBatch = 500

// AddAnalyticsHits adds the hits to their counters, creating the ones a day
// has not seen: one INSERT … ON CONFLICT DO UPDATE per 500 rows, the same
// statement on SQLite and PostgreSQL.
func (s *Store) AddAnalyticsHits(ctx context.Context, hits []AnalyticsHit) error {
	return s.upsertAnalytics(ctx, "analytics_hits (day, metric, label, hits)", "(?, ?, ?, ?)",
		"(day, metric, label) DO UPDATE SET hits = analytics_hits.hits + excluded.hits", len(hits), func(i int) []any {
			h := hits[i]
			return []any{h.Day, h.Metric, h.Label, h.Hits}
		})
}

// MarkAnalyticsVisitorDays turns on the given funnel flags of each visitor's
// day (a flag once on stays on), in the same kind of statement.
func (s *Store) MarkAnalyticsVisitorDays(ctx context.Context, days []AnalyticsVisitorDay) error {
	return s.upsertAnalytics(ctx, "analytics_visitor_days (day, visitor, flags)", "(?, ?, ?)",
		"(day, visitor) DO UPDATE SET flags = analytics_visitor_days.flags | excluded.flags", len(days), func(i int) []any {
			d := days[i]
			return []any{d.Day, d.Visitor, d.Flags}
		})
}

// upsertAnalytics writes n rows in batches of analyticsBatch, all in one
// transaction: a flush lands whole or not at all, so a retried flush never
// counts a row twice.
func (s *Store) upsertAnalytics(ctx context.Context, into, row, conflict string, n int, args func(i int) []any) error {
	if n == 0 {
		return nil
	}
	return s.Tx(ctx, func(tx *Store) error {
		for from := 0; from < n; from += analyticsBatch {
			to := min(from+analyticsBatch, n)
			rows := make([]string, 0, to-from)
			var vals []any
			for i := from; i < to; i++ {
				rows = append(rows, row)
				vals = append(vals, args(i)...)
			}
			sql := "INSERT INTO " + into + " VALUES " + strings.Join(rows, ", ") + " ON CONFLICT " + conflict
			if err := tx.db.WithContext(ctx).Exec(sql, vals...).Error; err != nil {
				return translate(err, "analytics")
			}
		}
		return nil
	})
}

// AnalyticsHitsSince returns the counters of the days from since (YYYY-MM-DD)
// on, summed by day, metric and label: tens of rows however much traffic
// they count.
func (s *Store) AnalyticsHitsSince(ctx context.Context, since string) ([]AnalyticsHit, error) {
	var out []AnalyticsHit
	err := s.db.WithContext(ctx).Model(&AnalyticsHit{}).Select("day, metric, label, SUM(hits) AS hits").
		Where("day >= ?", since).Group("day, metric, label").Order("day, metric, label").Scan(&out).Error
	return out, translate(err, "analytics")
}

// AnalyticsFunnel is how many visitors reached a set of flags on a day.
type AnalyticsFunnel struct {
	Day      string
	Flags    int64
	Visitors int64
}

// AnalyticsFunnelSince counts the visitors of each day from since on by the
// flags they reached.
func (s *Store) AnalyticsFunnelSince(ctx context.Context, since string) ([]AnalyticsFunnel, error) {
	var out []AnalyticsFunnel
	err := s.db.WithContext(ctx).Model(&AnalyticsVisitorDay{}).Select("day, flags, COUNT(*) AS visitors").
		Where("day >= ?", since).Group("day, flags").Order("day, flags").Scan(&out).Error
	return out, translate(err, "analytics")
}

// AnalyticsReturning is how many of a day's visitors had come on an
// earlier day.
type AnalyticsReturning struct {
	Day      string
	Visitors int64
}

// AnalyticsReturningSince counts, for each day from since on, its visitors
// seen on any earlier day (came back another day), one row per day.
func (s *Store) AnalyticsReturningSince(ctx context.Context, since string) ([]AnalyticsReturning, error) {
	var out []AnalyticsReturning
	err := s.db.WithContext(ctx).Raw(`SELECT d.day AS day, COUNT(*) AS visitors FROM analytics_visitor_days d
		WHERE d.day >= ? AND EXISTS (SELECT 1 FROM analytics_visitor_days e WHERE e.visitor = d.visitor AND e.day < d.day)
		GROUP BY d.day ORDER BY d.day`, since).Scan(&out).Error
	return out, translate(err, "analytics")
}
