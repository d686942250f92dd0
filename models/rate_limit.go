package models

import (
	"context"
	"time"
)

// RateLimitState is one rate-limit bucket shared by every process on one
// PostgreSQL database, kept as GCRA's theoretical arrival time (TAT, in
// microseconds since the Unix epoch): a request at now is allowed when
// max(TAT, now) + interval − now ≤ burst × interval, and moves TAT there.
// A bucket whose TAT has passed is full again, and is swept.
type RateLimitState struct {
	Class string `gorm:"size:16;primaryKey;autoIncrement:false"`
	Key   string `gorm:"size:200;primaryKey;autoIncrement:false"`
	TatUS int64  `gorm:"column:tat_us;not null;index:ix_rate_limit_states_tat"`
}

func (RateLimitState) TableName() string { return "rate_limit_states" }

// TakeRate spends one request of class's bucket for key at now, with one
// request every interval on average and at most burst at once: in one
// UPSERT, so processes deciding at the same moment each see the other's
// request. It returns 0 when allowed, else how long until it would be (a
// refused request changes nothing). PostgreSQL only: SQLite is one
// process's database, whose buckets stay in its memory.
func (s *Store) TakeRate(ctx context.Context, class, key string, now time.Time, interval time.Duration, burst int) (time.Duration, error) {
	nowUS, stepUS := now.UnixMicro(), interval.Microseconds()
	allowUS := int64(burst) * stepUS
	var tat []int64
	err := s.db.WithContext(ctx).Raw(`INSERT INTO rate_limit_states AS r (class, key, tat_us) VALUES (?, ?, ?)
		ON CONFLICT (class, key) DO UPDATE SET tat_us = GREATEST(r.tat_us, ?) + ?
		WHERE GREATEST(r.tat_us, ?) + ? - ? <= ?
		RETURNING tat_us`, class, key, nowUS+stepUS, nowUS, stepUS, nowUS, stepUS, nowUS, allowUS).Scan(&tat).Error
	if err != nil || len(tat) == 1 {
		return 0, translate(err, "rate limit")
	}
	var held int64
	if err := s.db.WithContext(ctx).Raw("SELECT tat_us FROM rate_limit_states WHERE class = ? AND key = ?", class, key).Scan(&held).Error; err != nil {
		return 0, translate(err, "rate limit")
	}
	wait := max(held, nowUS) + stepUS - nowUS - allowUS
	return time.Duration(max(wait, 1)) * time.Microsecond, nil
}

// SweepRateLimits deletes the buckets that are full again at now and
// returns how many.
func (s *Store) SweepRateLimits(ctx context.Context, now time.Time) (int64, error) {
	res := s.db.WithContext(ctx).Where("tat_us < ?", now.UnixMicro()).Delete(&RateLimitState{})
	return res.RowsAffected, translate(res.Error, "rate limit")
}
