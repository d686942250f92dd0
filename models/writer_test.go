package models_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/adventure-table/adventure-table/models"
	"github.com/adventure-table/adventure-table/models/modelstest"
)

// TestWritersQueueInProcess: on SQLite a transaction waits for the one
// writer in Go (so the next one starts the moment the last commits, and a
// caller that gives up is answered at once), not in SQLite's busy handler;
// on PostgreSQL transactions do not wait for each other at all.
func TestWritersQueueInProcess(t *testing.T) {
	store := modelstest.MustOpen(t)
	ctx := context.Background()
	holding, release := make(chan struct{}), make(chan struct{})
	first := make(chan error, 1)
	go func() {
		first <- store.Tx(ctx, func(tx *models.Store) error {
			close(holding)
			<-release
			return nil
		})
	}()
	<-holding

	wctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	err := store.Tx(wctx, func(tx *models.Store) error { return nil })
	switch store.Dialect() {
	case models.SQLite:
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("a second writer while one holds SQLite: %v, want it to wait in Go until its context ends", err)
		}
	default:
		if err != nil {
			t.Fatalf("a second transaction on PostgreSQL: %v, want it to run beside the first", err)
		}
	}
	close(release)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	// A transaction inside a transaction does not wait for itself.
	if err := store.Tx(ctx, func(tx *models.Store) error {
		return tx.Tx(ctx, func(*models.Store) error { return nil })
	}); err != nil {
		t.Fatalf("nested transaction: %v", err)
	}
}
