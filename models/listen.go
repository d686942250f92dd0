package models

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
)

// sessionEventsChannel is the PostgreSQL NOTIFY channel that tells every
// server process a session has new events. The payload is the session id.
const sessionEventsChannel = "at_session_events"

// notifySessionEvents queues a NOTIFY inside the caller's transaction:
// PostgreSQL delivers it at commit and drops it on rollback, so a waiter is
// never woken for an event that does not exist. SQLite has one process and
// needs nothing.
func (s *Store) notifySessionEvents(ctx context.Context, sessionID int64) error {
	if s.dialect != Postgres {
		return nil
	}
	return s.db.WithContext(ctx).Exec("SELECT pg_notify(?, ?)", sessionEventsChannel, strconv.FormatInt(sessionID, 10)).Error
}

// ListenSessionEvents calls onEvent with the session id of every commit that
// added events, in any server process, until ctx ends. It returns once the
// first LISTEN is in place (or failed), and keeps listening in the
// background, reconnecting after a lost connection; onError hears about
// each failure. A notification missed while reconnecting costs latency
// only: every wait re-reads the database. SQLite has one process: it does
// nothing and returns nil.
func (s *Store) ListenSessionEvents(ctx context.Context, onEvent func(sessionID int64), onError func(error)) error {
	if s.dialect != Postgres {
		return nil
	}
	conn, err := s.listen(ctx)
	if err != nil {
		return err
	}
	go func() {
		for {
			err := receive(ctx, conn, onEvent)
			_ = conn.Close(context.Background())
			if ctx.Err() != nil {
				return
			}
			onError(err)
			for {
				select {
				case <-ctx.Done():
					return
				case <-time.After(time.Second):
				}
				if conn, err = s.listen(ctx); err == nil {
					break
				}
				onError(err)
			}
		}
	}()
	return nil
}

func (s *Store) listen(ctx context.Context) (*pgx.Conn, error) {
	conn, err := pgx.Connect(ctx, s.pgURL)
	if err != nil {
		return nil, fmt.Errorf("listen for session events: connect: %w", err)
	}
	if _, err := conn.Exec(ctx, "LISTEN "+sessionEventsChannel); err != nil {
		_ = conn.Close(context.Background())
		return nil, fmt.Errorf("listen for session events: %w", err)
	}
	return conn, nil
}

func receive(ctx context.Context, conn *pgx.Conn, onEvent func(int64)) error {
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return fmt.Errorf("listen for session events: %w", err)
		}
		if id, err := strconv.ParseInt(n.Payload, 10, 64); err == nil {
			onEvent(id)
		}
	}
}
