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

// turnStopsChannel tells every server process that a Stop was asked for an
// adventure's turn (RequestTurnStop). The payload is the adventure id.
const turnStopsChannel = "at_turn_stops"

// notify queues a NOTIFY of id on channel inside the caller's transaction
// (PostgreSQL only).
func (s *Store) notify(ctx context.Context, channel string, id int64) error {
	if s.dialect != Postgres {
		return nil
	}
	return s.db.WithContext(ctx).Exec("SELECT pg_notify(?, ?)", channel, strconv.FormatInt(id, 10)).Error
}

// ListenSessionEvents calls onEvent with the session id of every commit that
// added events, in any server process, until ctx ends; on the same
// connection it counts the authority changes other processes commit (see
// authorityClock), so what this process cached about who may do what is
// resolved again as soon as it changed anywhere. It returns once the first
// LISTEN is in place (or failed), and keeps listening in the background,
// reconnecting after a lost connection; onError hears about each failure.
// A notification missed while reconnecting costs latency only: every wait
// re-reads the database, and cached actors expire on a timer. SQLite has
// one process: it does nothing and returns nil.
func (s *Store) ListenSessionEvents(ctx context.Context, onEvent func(sessionID int64), onError func(error)) error {
	clock := s.authority.clock
	return s.listenFor(ctx, map[string]func(int64){
		sessionEventsChannel: onEvent,
		authorityChannel: func(origin int64) {
			if origin != clock.origin {
				clock.n.Add(1)
			}
		},
	}, onError)
}

// ListenTurnStops calls onStop with the adventure id of every Stop asked
// for (RequestTurnStop) in any server process, until ctx ends; as
// ListenSessionEvents otherwise. A notification missed while reconnecting
// costs latency only: the turn's heartbeat reads the request too.
func (s *Store) ListenTurnStops(ctx context.Context, onStop func(adventureID int64), onError func(error)) error {
	return s.listenFor(ctx, map[string]func(int64){turnStopsChannel: onStop}, onError)
}

// listenFor runs one LISTEN connection for the channels, whose payloads
// are ids, calling each channel's function with them.
func (s *Store) listenFor(ctx context.Context, channels map[string]func(int64), onError func(error)) error {
	if s.dialect != Postgres {
		return nil
	}
	conn, err := s.listen(ctx, channels)
	if err != nil {
		return err
	}
	go func() {
		for {
			err := receive(ctx, conn, channels)
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
				if conn, err = s.listen(ctx, channels); err == nil {
					break
				}
				onError(err)
			}
		}
	}()
	return nil
}

func (s *Store) listen(ctx context.Context, channels map[string]func(int64)) (*pgx.Conn, error) {
	conn, err := pgx.Connect(ctx, s.pgURL)
	if err != nil {
		return nil, fmt.Errorf("listen: connect: %w", err)
	}
	for channel := range channels {
		if _, err := conn.Exec(ctx, "LISTEN "+channel); err != nil {
			_ = conn.Close(context.Background())
			return nil, fmt.Errorf("listen on %s: %w", channel, err)
		}
	}
	return conn, nil
}

func receive(ctx context.Context, conn *pgx.Conn, channels map[string]func(int64)) error {
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return fmt.Errorf("listen: %w", err)
		}
		if id, err := strconv.ParseInt(n.Payload, 10, 64); err == nil && channels[n.Channel] != nil {
			channels[n.Channel](id)
		}
	}
}
