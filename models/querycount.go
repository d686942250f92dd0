package models

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/schema"
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
	if r, ok := db.Statement.Context.Value(statementRecorderKey{}).(*StatementRecorder); ok {
		r.mu.Lock()
		r.sql = append(r.sql, db.Statement.SQL.String())
		r.mu.Unlock()
	}
}

type statementRecorderKey struct{}

// StatementRecorder keeps the SQL text of every statement run under a
// context (WithStatementRecorder): tests use it to show which tables a
// request path touches, such as none of the analytics tables for reading.
type StatementRecorder struct {
	mu  sync.Mutex
	sql []string
}

// WithStatementRecorder returns a context whose statements are recorded.
func WithStatementRecorder(ctx context.Context) (context.Context, *StatementRecorder) {
	r := new(StatementRecorder)
	return context.WithValue(ctx, statementRecorderKey{}, r), r
}

// Statements are the SQL texts recorded so far, in order.
func (r *StatementRecorder) Statements() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.sql)
}

// registerQueryCounter hooks the counter into every kind of statement.
func registerQueryCounter(db *gorm.DB) error {
	if err := afterEveryStatement(db, "count", countStatement); err != nil {
		return err
	}
	return db.Callback().Query().After("at:count_query").Register("at:meter_query", meterRead)
}

// afterEveryStatement registers fn to run after every kind of statement
// (query, create, update, delete, row, raw) as at:<name>_<kind>.
func afterEveryStatement(db *gorm.DB, name string, fn func(*gorm.DB)) error {
	cb := db.Callback()
	for _, err := range []error{
		cb.Query().After("gorm:query").Register("at:"+name+"_query", fn),
		cb.Create().After("gorm:create").Register("at:"+name+"_create", fn),
		cb.Update().After("gorm:update").Register("at:"+name+"_update", fn),
		cb.Delete().After("gorm:delete").Register("at:"+name+"_delete", fn),
		cb.Row().After("gorm:row").Register("at:"+name+"_row", fn),
		cb.Raw().After("gorm:raw").Register("at:"+name+"_raw", fn),
	} {
		if err != nil {
			return err
		}
	}
	return nil
}

type readMeterKey struct{}

// ReadMeter counts what queries under a context returned: rows and an
// estimate of their bytes (the length of every text and blob value plus 8
// per other value). Benchmarks use it to show that a read's cost is bounded
// by the context budget, not by the length of the story.
type ReadMeter struct {
	Rows  atomic.Int64
	Bytes atomic.Int64
}

// WithReadMeter returns a context whose query results are measured.
func WithReadMeter(ctx context.Context) (context.Context, *ReadMeter) {
	m := new(ReadMeter)
	return context.WithValue(ctx, readMeterKey{}, m), m
}

func meterRead(db *gorm.DB) {
	if db.Statement == nil || db.Statement.Context == nil || db.Error != nil {
		return
	}
	m, ok := db.Statement.Context.Value(readMeterKey{}).(*ReadMeter)
	if !ok {
		return
	}
	if fields := selectedFields(db); fields != nil {
		rows, bytes := measureFields(db.Statement.Context, reflect.ValueOf(db.Statement.Dest), fields)
		m.Rows.Add(rows)
		m.Bytes.Add(bytes)
		return
	}
	rows, bytes := measure(reflect.ValueOf(db.Statement.Dest))
	m.Rows.Add(rows)
	m.Bytes.Add(bytes)
}

// destSchemas caches the parsed schemas of query destinations.
var destSchemas sync.Map

// selectedFields are the destination's fields a query with a column list
// selected, so the fields it left at their zero value are not counted as
// read; nil when the query selects every column (or its model is unknown).
func selectedFields(db *gorm.DB) []*schema.Field {
	if len(db.Statement.Selects) == 0 {
		return nil
	}
	t := reflect.TypeOf(db.Statement.Dest)
	for t != nil && (t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice) {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct {
		return nil
	}
	dest, err := schema.Parse(reflect.New(t).Interface(), &destSchemas, db.NamingStrategy)
	if err != nil {
		return nil
	}
	var fields []*schema.Field
	for _, col := range db.Statement.Selects {
		name := strings.Trim(col[strings.LastIndex(col, ".")+1:], "`\"")
		if f := dest.LookUpField(name); f != nil {
			fields = append(fields, f)
		} else {
			fields = append(fields, nil) // an expression: counted as 8 bytes
		}
	}
	return fields
}

// measureFields is measure counting only fields of each row.
func measureFields(ctx context.Context, v reflect.Value, fields []*schema.Field) (rows, bytes int64) {
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return 0, 0
		}
		v = v.Elem()
	}
	row := func(r reflect.Value) (n int64) {
		for _, f := range fields {
			if f == nil {
				n += 8
				continue
			}
			n += valueBytes(f.ReflectValueOf(ctx, r))
		}
		return n
	}
	if v.Kind() == reflect.Slice {
		for i := range v.Len() {
			bytes += row(reflect.Indirect(v.Index(i)))
		}
		return int64(v.Len()), bytes
	}
	if v.Kind() != reflect.Struct {
		return 1, valueBytes(v)
	}
	return 1, row(v)
}

// measure walks a query destination: a slice counts its elements as rows.
func measure(v reflect.Value) (rows, bytes int64) {
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return 0, 0
		}
		v = v.Elem()
	}
	if v.Kind() == reflect.Slice && v.Type().Elem().Kind() != reflect.Uint8 {
		for i := range v.Len() {
			bytes += valueBytes(v.Index(i))
		}
		return int64(v.Len()), bytes
	}
	return 1, valueBytes(v)
}

func valueBytes(v reflect.Value) int64 {
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return 0
		}
		v = v.Elem()
	}
	switch v.Kind() {
	case reflect.String:
		return int64(v.Len())
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return int64(v.Len())
		}
		var n int64
		for i := range v.Len() {
			n += valueBytes(v.Index(i))
		}
		return n
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[time.Time]() {
			return 8
		}
		var n int64
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				n += valueBytes(v.Field(i))
			}
		}
		return n
	case reflect.Map:
		var n int64
		for _, k := range v.MapKeys() {
			n += valueBytes(k) + valueBytes(v.MapIndex(k))
		}
		return n
	default:
		return 8
	}
}
