package models

import (
	"fmt"

	"gorm.io/gorm"
)

// The tables as version 33 created them. Frozen: never edit.

type analyticsHitV33 struct {
	Day    string `gorm:"size:10;primaryKey;autoIncrement:false"`
	Metric string `gorm:"size:64;primaryKey;autoIncrement:false"`
	Label  string `gorm:"size:128;primaryKey;autoIncrement:false"`
	Hits   int64  `gorm:"not null;default:0"`
}

func (analyticsHitV33) TableName() string { return "analytics_hits" }

type analyticsVisitorDayV33 struct {
	Day     string `gorm:"size:10;primaryKey;autoIncrement:false"`
	Visitor string `gorm:"size:32;primaryKey;autoIncrement:false"`
	Flags   int64  `gorm:"not null;default:0"`
}

func (analyticsVisitorDayV33) TableName() string { return "analytics_visitor_days" }

// migrationV33Analytics adds the anonymous counters (engine room §3.4).
var migrationV33Analytics = Migration{
	Version: 33,
	Name:    "analytics",
	Up: func(tx *gorm.DB) error {
		for _, m := range []any{&analyticsHitV33{}, &analyticsVisitorDayV33{}} {
			if err := tx.Migrator().CreateTable(m); err != nil {
				return fmt.Errorf("create analytics tables: %w", err)
			}
		}
		return nil
	},
}
