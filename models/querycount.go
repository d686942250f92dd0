package models

import (
	"context"
	"sync/atomic"

	"gorm.io/gorm"
)

type queryCounterKey struct{}

// WithQueryCounter returns a context under which every SQL statement the
// store runs is counted in the returned counter. Tests use it to prove a
// read does not grow with the data (no N+1).
func WithQueryCounter(ctx context.Context) (context.Context, *atomic.Int64) {
	n := new(atomic.Int64)
	return context.WithValue(ctx, queryCounterKey{}, n), n
}

func countStatement(db *gorm.DB) {
	if db.Statement == nil || db.Statement.Context == nil {
		return
	}
	if n, ok := db.Statement.Context.Value(queryCounterKey{}).(*atomic.Int64); ok {
		n.Add(1)
	}
}

// registerQueryCounter hooks the counter into every kind of statement.
func registerQueryCounter(db *gorm.DB) error {
	cb := db.Callback()
	for _, err := range []error{
		cb.Query().After("gorm:query").Register("at:count_query", countStatement),
		cb.Create().After("gorm:create").Register("at:count_create", countStatement),
		cb.Update().After("gorm:update").Register("at:count_update", countStatement),
		cb.Delete().After("gorm:delete").Register("at:count_delete", countStatement),
		cb.Row().After("gorm:row").Register("at:count_row", countStatement),
		cb.Raw().After("gorm:raw").Register("at:count_raw", countStatement),
	} {
		if err != nil {
			return err
		}
	}
	return nil
}
