package models

import (
	"fmt"

	"gorm.io/gorm"
)

// The table as version 35 created it. Frozen: never edit.
type rateLimitStateV35 struct {
	Class string `gorm:"size:16;primaryKey;autoIncrement:false"`
	Key   string `gorm:"size:200;primaryKey;autoIncrement:false"`
	TatUS int64  `gorm:"column:tat_us;not null;index:ix_rate_limit_states_tat"`
}

func (rateLimitStateV35) TableName() string { return "rate_limit_states" }

// migrationV35RateLimits adds the rate-limit buckets several processes on
// one PostgreSQL share (RateLimitState).
var migrationV35RateLimits = Migration{
	Version: 35,
	Name:    "rate_limits",
	Up: func(tx *gorm.DB) error {
		if err := tx.Migrator().CreateTable(&rateLimitStateV35{}); err != nil {
			return fmt.Errorf("create rate_limit_states: %w", err)
		}
		return nil
	},
}
