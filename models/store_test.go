package models_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/adventure-table/adventure-table/models"
	"github.com/adventure-table/adventure-table/models/apperr"
	"github.com/adventure-table/adventure-table/models/modelstest"
)

// TestConcurrentWritersNeverBusy runs 50 read-then-write transactions at
// once. On SQLite a deferred BEGIN would fail some of them with SQLITE_BUSY
// at once; with BEGIN IMMEDIATE they queue on the busy timeout instead.
func TestConcurrentWritersNeverBusy(t *testing.T) {
	ctx := context.Background()
	s := modelstest.MustOpen(t)
	const writers = 50
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	start := make(chan struct{})
	for i := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			errs <- s.Tx(ctx, func(tx *models.Store) error {
				n, err := tx.CountUsers(ctx)
				if err != nil {
					return err
				}
				return tx.CreateUser(ctx, &models.User{DisplayName: fmt.Sprintf("writer %d saw %d", i, n), CreatedAt: time.Now()})
			})
		}()
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("writer failed: %v", err)
		}
	}
	n, err := s.CountUsers(ctx)
	if err != nil || n != writers {
		t.Fatalf("got %d users (%v), want %d", n, err, writers)
	}
}

func TestTxRollsBackOnError(t *testing.T) {
	ctx := context.Background()
	s := modelstest.MustOpen(t)
	boom := errors.New("boom")
	err := s.Tx(ctx, func(tx *models.Store) error {
		if err := tx.CreateUser(ctx, &models.User{DisplayName: "ghost", CreatedAt: time.Now()}); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("got %v, want boom", err)
	}
	if n, _ := s.CountUsers(ctx); n != 0 {
		t.Fatalf("got %d users after rollback, want 0", n)
	}
}

func TestFindUserNotFound(t *testing.T) {
	s := modelstest.MustOpen(t)
	_, err := s.FindUserByID(context.Background(), 42)
	if got := apperr.CodeOf(err); got != apperr.NotFound {
		t.Fatalf("got code %q (%v), want not_found", got, err)
	}
}

func TestPingAndDialect(t *testing.T) {
	s := modelstest.MustOpen(t)
	if err := s.Ping(context.Background()); err != nil {
		t.Fatal(err)
	}
	if s.Dialect() != modelstest.Dialect() {
		t.Fatalf("got dialect %q, want %q", s.Dialect(), modelstest.Dialect())
	}
}

func TestRedactURL(t *testing.T) {
	got := models.RedactURL("postgres://app:s3cret@db.example:5432/at?sslmode=require")
	if strings.Contains(got, "s3cret") || !strings.Contains(got, "app:xxxxx@db.example") {
		t.Fatalf("got %q, want the password masked", got)
	}
}

func TestOpenRejectsUnknownURL(t *testing.T) {
	_, err := models.Open(context.Background(), models.Config{DatabaseURL: "mysql://x"})
	if err == nil || !strings.Contains(err.Error(), "postgres://") {
		t.Fatalf("got %v, want a clear refusal", err)
	}
}

// TestReserveDemoTokens: a reservation is added only while the day's count
// is under the budget, checked and added in one statement, so of many
// reservations at once only those that found the count under the budget
// pass; a settlement (a negative amount) takes back what was not spent.
func TestReserveDemoTokens(t *testing.T) {
	store := modelstest.MustOpen(t)
	ctx := context.Background()
	u := &models.User{DisplayName: "player", CreatedAt: time.Now()}
	if err := store.CreateUser(ctx, u); err != nil {
		t.Fatal(err)
	}
	const day, budget = "2030-01-02", 1000
	results := make(chan bool, 8)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			ok, err := store.ReserveDemoTokens(ctx, u.ID, day, 300, budget)
			if err != nil {
				t.Error(err)
			}
			results <- ok
		})
	}
	wg.Wait()
	close(results)
	passed := 0
	for ok := range results {
		if ok {
			passed++
		}
	}
	// 0, 300, 600 and 900 are under 1000: four pass, whatever the order.
	if used, err := store.DemoTokens(ctx, u.ID, day); err != nil || passed != 4 || used != 1200 {
		t.Fatalf("%d reservations passed, %d tokens counted (%v); want 4 and 1200", passed, used, err)
	}
	if used, err := store.AddDemoTokens(ctx, u.ID, day, -500); err != nil || used != 700 {
		t.Fatalf("after settling: %d (%v), want 700", used, err)
	}
	if ok, err := store.ReserveDemoTokens(ctx, u.ID, day, 300, budget); err != nil || !ok {
		t.Fatalf("under the budget again: %v %v", ok, err)
	}
	if ok, err := store.ReserveDemoTokens(ctx, u.ID, "2030-01-03", 300, 0); err != nil || ok {
		t.Fatalf("a zero budget: %v %v", ok, err)
	}
}
