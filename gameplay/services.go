// Package gameplay holds the application services: the only place where
// rules, permissions and state changes live. The browser routes (webui) and
// the MCP tools (mcp) both call these functions; neither writes storage.
package gameplay

import (
	"context"
	"log/slog"
	"time"

	"github.com/adventure-table/adventure-table/gameplay/accounts"
	"github.com/adventure-table/adventure-table/gameplay/analytics"
	"github.com/adventure-table/adventure-table/gameplay/llm"
	"github.com/adventure-table/adventure-table/gameplay/narrative"
	"github.com/adventure-table/adventure-table/gameplay/scripting"
	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/models"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// Services is the aggregate the edges are built on.
type Services struct {
	// Table holds the multiplayer table's rules.
	Table *table.Service
	// Narrative holds the solo narrated adventure.
	Narrative *narrative.Service
	// Accounts turns guests into accounts and holds the login rules.
	Accounts *accounts.Service
	// Analytics counts what happens, anonymously, and flushes it every
	// minute (Run) and when the server stops (Flush).
	Analytics *analytics.Counter

	store *models.Store
	mode  string
	now   func() time.Time
	demo  *narrative.DemoConfig
}

// Options configures New. Zero values mean defaults.
type Options struct {
	// Mode is the server personality, "local" or "hosted".
	Mode string
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// Secret is the server secret; it seals stored API keys.
	Secret []byte
	// PreviousSecret, after a rotation, still opens the API keys it sealed
	// (see narrative.Options).
	PreviousSecret []byte
	// Demo is the server-funded demo narrator; nil for none (see
	// narrative.Options).
	Demo *narrative.DemoConfig
	// Provider streams completions; the OpenAI-compatible client when nil.
	Provider llm.Provider
	// Sandbox runs scenario scripts; a default one is made on first use when nil.
	Sandbox *scripting.Sandbox
	// ProcessID names this server process in solo turn claims (see
	// narrative.Options); random when empty.
	ProcessID string
	// Logger receives background failures (the memory bank's worker).
	Logger *slog.Logger
	// SnapshotKeep and SnapshotMaxAge bound the prompt snapshots an
	// adventure keeps (see narrative.Options).
	SnapshotKeep   int
	SnapshotMaxAge time.Duration
	// AdminEmails are the accounts that operate a hosted server (they read
	// its dashboard).
	AdminEmails []string
}

// New builds the services on an open, migrated store.
func New(store *models.Store, opts Options) *Services {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Mode == "" {
		opts.Mode = "local"
	}
	counts := analytics.New(store, opts.Secret, opts.Now, opts.Logger)
	tables := table.New(store, opts.Now)
	tables.UseAnalytics(counts)
	narr := narrative.New(store, narrative.Options{Now: opts.Now, Provider: opts.Provider, Secret: opts.Secret, Sandbox: opts.Sandbox, ProcessID: opts.ProcessID,
		PreviousSecret: opts.PreviousSecret, Demo: opts.Demo, Logger: opts.Logger, SnapshotKeep: opts.SnapshotKeep, SnapshotMaxAge: opts.SnapshotMaxAge,
		Analytics: counts})
	// A campaign's memories are written with the room owner's model
	// settings (or the demo narrator), as the narrator at a seat is.
	tables.UseMemory(table.MemoryOptions{Model: narr, ProcessID: narr.ProcessID(), Logger: opts.Logger})
	return &Services{
		Table:     tables,
		Narrative: narr,
		Accounts: accounts.New(store, accounts.Options{Now: opts.Now, Logger: opts.Logger, Table: tables, Analytics: counts,
			AdminEmails: opts.AdminEmails}),
		Analytics: counts,
		store:     store, mode: opts.Mode, now: opts.Now, demo: opts.Demo,
	}
}

// OperatorReport is the server's dashboard: the anonymous counters of the
// last days days (analytics.BuildReport). Only an operator reads it: in
// hosted mode an account named in AdminEmails (checked on the account's
// row); in local mode the person at this machine (fromThisMachine: the
// request came from a loopback address), not a friend on the network.
// Returns operator_required.
func (s *Services) OperatorReport(ctx context.Context, userID int64, fromThisMachine bool, days int) (analytics.Report, error) {
	operator := s.mode == "local" && fromThisMachine
	if s.mode != "local" {
		var err error
		if operator, err = s.Accounts.IsAdmin(ctx, userID); err != nil {
			return analytics.Report{}, err
		}
	}
	if !operator {
		return analytics.Report{}, apperr.E(apperr.OperatorRequired, "Only the server's operators see its dashboard.")
	}
	return s.Report(ctx, days)
}

// Report reads the dashboard's counters without asking who reads them:
// for `adventure-table stats`, whose reader already holds the database.
func (s *Services) Report(ctx context.Context, days int) (analytics.Report, error) {
	var budget int64
	if s.demo != nil {
		budget = s.demo.DailyTokens
		if budget == 0 {
			budget = narrative.DefaultDemoDailyTokens
		}
	}
	return analytics.BuildReport(ctx, s.store, s.now(), days, budget)
}

// Shutdown tells the services the server is stopping: streaming turns end
// with turn_interrupted and free their claims, and every long poll answers
// with its current page. It returns at once.
func (s *Services) Shutdown() {
	s.Table.Shutdown()
	s.Narrative.Shutdown()
}

// sweepBatch is how many idle guests one read of the sweep lists.
const sweepBatch = 200

// SweepIdleGuests deletes the guests idle for longer than retention and
// returns how many. Each goes through the one deletion rule
// (table.Service.DeleteUser, a transaction per guest): what they own goes, what
// they held in other people's rooms is released. A guest who fails to go
// is skipped and the sweep goes on; the first such error is returned with
// the count.
func (s *Services) SweepIdleGuests(ctx context.Context, retention time.Duration) (int64, error) {
	before := s.now().Add(-retention)
	stillIdle := func(u *models.User) bool { return models.IdleGuest(u, before) }
	var swept int64
	var firstErr error
	for after := int64(0); ; {
		ids, err := s.store.FindIdleGuestIDs(ctx, before, after, sweepBatch)
		if err != nil {
			return swept, err
		}
		for _, id := range ids {
			deleted, err := s.Table.DeleteUser(ctx, id, stillIdle)
			if err != nil && apperr.CodeOf(err) != apperr.NotFound && firstErr == nil {
				firstErr = err
			}
			if deleted {
				swept++
			}
		}
		if len(ids) < sweepBatch {
			return swept, firstErr
		}
		after = ids[len(ids)-1]
	}
}
