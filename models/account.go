package models

import (
	"context"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// LoginFailure counts failed logins for one key (an account's email, a
// client address) within a window, in the database, so the throttle holds
// across restarts and across server processes sharing PostgreSQL.
type LoginFailure struct {
	Key         string    `gorm:"primaryKey;size:200"`
	WindowStart time.Time `gorm:"not null;index"`
	Failures    int       `gorm:"not null"`
}

// DemoUsage is how many tokens a user spent on the server-funded demo
// narrator on one day (UTC, "2006-01-02").
type DemoUsage struct {
	UserID int64  `gorm:"primaryKey;autoIncrement:false"`
	User   *User  `gorm:"foreignKey:UserID;constraint:OnDelete:CASCADE"`
	Day    string `gorm:"primaryKey;size:10"`
	Tokens int64  `gorm:"not null;default:0"`
}

// LoginFailures returns the failures counted for key since windowStart
// (0 when none or the window is older).
func (s *Store) LoginFailures(ctx context.Context, key string, since time.Time) (int, error) {
	var f LoginFailure
	err := s.db.WithContext(ctx).Where("key = ? AND window_start >= ?", key, since).Limit(1).Find(&f).Error
	return f.Failures, translate(err, "login failures")
}

// RecordLoginFailure adds one failure to key's window, starting a new
// window at now when the stored one began before since, in one atomic
// upsert, and returns the count.
func (s *Store) RecordLoginFailure(ctx context.Context, key string, now, since time.Time) (int, error) {
	row := LoginFailure{Key: key, WindowStart: now, Failures: 1}
	err := s.db.WithContext(ctx).Clauses(clause.OnConflict{
		Columns: []clause.Column{{Name: "key"}},
		DoUpdates: clause.Assignments(map[string]any{
			"failures":     gorm.Expr("CASE WHEN login_failures.window_start < ? THEN 1 ELSE login_failures.failures + 1 END", since),
			"window_start": gorm.Expr("CASE WHEN login_failures.window_start < ? THEN ? ELSE login_failures.window_start END", since, now),
		}),
	}).Create(&row).Error
	if err != nil {
		return 0, translate(err, "login failures")
	}
	return s.LoginFailures(ctx, key, since)
}

// ClearLoginFailures forgets key's failures (after a successful login).
func (s *Store) ClearLoginFailures(ctx context.Context, key string) error {
	return translate(s.db.WithContext(ctx).Where("key = ?", key).Delete(&LoginFailure{}).Error, "login failures")
}

// SweepLoginFailures deletes windows that began before since.
func (s *Store) SweepLoginFailures(ctx context.Context, since time.Time) (int64, error) {
	res := s.db.WithContext(ctx).Where("window_start < ?", since).Delete(&LoginFailure{})
	return res.RowsAffected, translate(res.Error, "login failures")
}

// ReserveDemoTokens adds tokens to a user's count for day if the count is
// still under budget, checking and adding in one atomic upsert (several
// calls at once cannot all pass one check); false when it was not.
func (s *Store) ReserveDemoTokens(ctx context.Context, userID int64, day string, tokens, budget int64) (bool, error) {
	if budget <= 0 {
		return false, nil
	}
	res := s.db.WithContext(ctx).Clauses(clause.OnConflict{
		Columns:   []clause.Column{{Name: "user_id"}, {Name: "day"}},
		DoUpdates: clause.Assignments(map[string]any{"tokens": gorm.Expr("demo_usage.tokens + ?", tokens)}),
		Where:     clause.Where{Exprs: []clause.Expression{gorm.Expr("demo_usage.tokens < ?", budget)}},
	}).Create(&DemoUsage{UserID: userID, Day: day, Tokens: tokens})
	if res.Error != nil {
		return false, translate(res.Error, "demo usage")
	}
	return res.RowsAffected > 0, nil
}

// AddDemoTokens adds tokens (a negative number takes some back) to a
// user's count for day and returns the new total, in one atomic upsert.
func (s *Store) AddDemoTokens(ctx context.Context, userID int64, day string, tokens int64) (int64, error) {
	row := DemoUsage{UserID: userID, Day: day, Tokens: tokens}
	err := s.db.WithContext(ctx).Clauses(clause.OnConflict{
		Columns:   []clause.Column{{Name: "user_id"}, {Name: "day"}},
		DoUpdates: clause.Assignments(map[string]any{"tokens": gorm.Expr("demo_usage.tokens + ?", tokens)}),
	}).Create(&row).Error
	if err != nil {
		return 0, translate(err, "demo usage")
	}
	return s.DemoTokens(ctx, userID, day)
}

// DemoTokens is a user's demo narrator tokens on day.
func (s *Store) DemoTokens(ctx context.Context, userID int64, day string) (int64, error) {
	var u DemoUsage
	err := s.db.WithContext(ctx).Where("user_id = ? AND day = ?", userID, day).Limit(1).Find(&u).Error
	return u.Tokens, translate(err, "demo usage")
}

// TableName keeps the table name the migration created.
func (DemoUsage) TableName() string { return "demo_usage" }
