package models

import "gorm.io/gorm"

// migrationV34AnalyticsVisitorIndex indexes a visitor's days, so the
// dashboard's "came back" (a visitor of a day seen on an earlier day) is a
// lookup per visitor, not a scan of every day.
var migrationV34AnalyticsVisitorIndex = Migration{
	Version: 34,
	Name:    "analytics_visitor_index",
	Up: func(tx *gorm.DB) error {
		return tx.Exec("CREATE INDEX ix_analytics_visitor_days_visitor ON analytics_visitor_days (visitor, day)").Error
	},
}
