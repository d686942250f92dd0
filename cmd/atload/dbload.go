package main

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"
	"gorm.io/driver/sqlite"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"
)

// openRaw opens the server's database for the raw commit loop with the
// durability the server uses. SQLite: the same file and the same
// connection settings as models.Open (WAL, synchronous=FULL, foreign keys,
// busy timeout, BEGIN IMMEDIATE). PostgreSQL: the same database and the
// server defaults (synchronous_commit as configured).
func openRaw(srv *server) (*sql.DB, error) {
	if srv.dbURL != "" {
		return sql.Open("pgx", srv.dbURL)
	}
	q := url.Values{}
	q.Set("_journal_mode", "WAL")
	q.Set("_synchronous", "FULL")
	q.Set("_foreign_keys", "on")
	q.Set("_busy_timeout", "15000")
	q.Set("_txlock", "immediate")
	db, err := gorm.Open(sqlite.Open("file:"+srv.sqlitePath()+"?"+q.Encode()), &gorm.Config{Logger: logger.Discard})
	if err != nil {
		return nil, err
	}
	return db.DB()
}

// rate is a measured throughput.
type rate struct {
	Workers  int     `json:"workers"`
	PerSec   float64 `json:"per_second"`
	Latency  dist    `json:"latency"`
	Errors   int     `json:"errors"`
	FirstErr string  `json:"first_error,omitempty"`
}

// closedLoop runs workers that each call op back to back for warm+d and
// counts what completes within the last d.
func closedLoop(ctx context.Context, workers int, warm, d time.Duration, op func(ctx context.Context, worker int, i int64) error) rate {
	start := time.Now()
	from, end := start.Add(warm), start.Add(warm+d)
	var (
		mu  sync.Mutex
		lat []time.Duration
		out = rate{Workers: workers}
		wg  sync.WaitGroup
	)
	for w := range workers {
		wg.Go(func() {
			var mine []time.Duration
			var errs int
			var first error
			for i := int64(0); ctx.Err() == nil; i++ {
				t0 := time.Now()
				if !t0.Before(end) {
					break
				}
				err := op(ctx, w, i)
				t1 := time.Now()
				if t1.Before(from) || !t1.Before(end) {
					continue
				}
				if err != nil {
					errs++
					if first == nil {
						first = err
					}
					continue
				}
				mine = append(mine, t1.Sub(t0))
			}
			mu.Lock()
			defer mu.Unlock()
			lat = append(lat, mine...)
			out.Errors += errs
			if out.FirstErr == "" && first != nil {
				out.FirstErr = first.Error()
			}
		})
	}
	wg.Wait()
	out.PerSec = float64(len(lat)) / d.Seconds()
	out.Latency = summarize(lat)
	return out
}

// commitCeiling measures single-row INSERT + COMMIT transactions into a
// scratch table of the server's database. The table is a real one (a
// TEMP table on PostgreSQL skips the WAL, so its commits would not
// flush), named after this process, and dropped afterwards.
func commitCeiling(ctx context.Context, srv *server, workers int, warm, d time.Duration) (rate, error) {
	db, err := openRaw(srv)
	if err != nil {
		return rate{}, err
	}
	defer db.Close()
	db.SetMaxOpenConns(workers)
	db.SetMaxIdleConns(workers)
	tbl := fmt.Sprintf("atload_ceiling_%d", os.Getpid())
	ddl := "CREATE TABLE " + tbl + " (id INTEGER PRIMARY KEY, session_id BIGINT NOT NULL, payload TEXT NOT NULL, created_at TIMESTAMP NOT NULL)"
	if srv.dbURL != "" {
		ddl = strings.Replace(ddl, "id INTEGER PRIMARY KEY", "id BIGSERIAL PRIMARY KEY", 1)
	}
	if _, err := db.ExecContext(ctx, ddl); err != nil {
		return rate{}, fmt.Errorf("create %s: %w", tbl, err)
	}
	defer db.ExecContext(context.WithoutCancel(ctx), "DROP TABLE "+tbl)
	// About the size of a message event's payload.
	payload := `{"kind":"narration","text":"` + strings.Repeat("x", 200) + `","version":1}`
	ins := "INSERT INTO " + tbl + " (session_id, payload, created_at) VALUES ($1, $2, $3)"
	if srv.dbURL == "" {
		ins = "INSERT INTO " + tbl + " (session_id, payload, created_at) VALUES (?, ?, ?)"
	}
	return closedLoop(ctx, workers, warm, d, func(ctx context.Context, w int, i int64) error {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, ins, w, payload, time.Now().UTC()); err != nil {
			_ = tx.Rollback()
			return err
		}
		return tx.Commit()
	}), nil
}

// pgConns counts the connections open on the server's PostgreSQL
// database, by state, leaving out the one asking.
type pgConns struct {
	Total   int            `json:"total"`
	ByState map[string]int `json:"by_state"`
}

func countPGConns(ctx context.Context, dbURL string) (pgConns, error) {
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		return pgConns{}, err
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `SELECT coalesce(state, ''), count(*) FROM pg_stat_activity
		WHERE datname = current_database() AND pid <> pg_backend_pid() GROUP BY 1`)
	if err != nil {
		return pgConns{}, err
	}
	defer rows.Close()
	out := pgConns{ByState: map[string]int{}}
	for rows.Next() {
		var state string
		var n int
		if err := rows.Scan(&state, &n); err != nil {
			return pgConns{}, err
		}
		out.ByState[state] = n
		out.Total += n
	}
	return out, rows.Err()
}
