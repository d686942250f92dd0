package main

import (
	"context"
	"fmt"
	"io"

	"github.com/adventure-table/adventure-table/gameplay"
	"github.com/adventure-table/adventure-table/gameplay/narrative"
)

// snapshotsUsage is printed with every usage error of `snapshots`.
const snapshotsUsage = `usage: adventure-table snapshots recompress [flags]
  converts the prompt snapshots stored before version 37 (zlib, each on its own) to deltas
  against the snapshot before them on their line; Insights read the same. Safe to stop and rerun
  (and to run while the server runs): each batch of 200 is one transaction.
  flags    the settings of serve (database, data dir): adventure-table help`

// runSnapshotsCommand converts old prompt snapshots, printing progress to
// stderr and the totals to stdout.
func runSnapshotsCommand(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] != "recompress" {
		fmt.Fprintln(stderr, "adventure-table snapshots: the first argument must be recompress")
		fmt.Fprintln(stderr, snapshotsUsage)
		return 2
	}
	cfg, err := LoadConfig(getenv, args[1:])
	if err != nil {
		fmt.Fprintln(stderr, "adventure-table: configuration:", err)
		return 2
	}
	store, _, err := openMigrated(ctx, cfg)
	if err != nil {
		fmt.Fprintln(stderr, "adventure-table snapshots:", err)
		return 1
	}
	defer store.Close()
	svc := gameplay.New(store, gameplay.Options{Mode: cfg.Mode, Logger: newLogger(cfg, stderr)})
	rep, err := svc.Narrative.RecompressSnapshots(ctx, func(p narrative.RecompressProgress) {
		fmt.Fprintf(stderr, "recompressed %d of %d snapshots (adventure %d)\n", p.Done, p.Total, p.AdventureID)
	})
	if err != nil {
		fmt.Fprintf(stderr, "adventure-table snapshots: %v (after %d snapshots; rerun to continue)\n", err, rep.Snapshots)
		return 1
	}
	if rep.Snapshots == 0 {
		fmt.Fprintln(stdout, "no snapshots in the old format: nothing to do")
		return 0
	}
	fmt.Fprintf(stdout, "recompressed %d snapshots of %d adventures: %d bytes → %d bytes (%.1f× smaller)\n",
		rep.Snapshots, rep.Adventures, rep.BytesBefore, rep.BytesAfter, float64(rep.BytesBefore)/float64(max(rep.BytesAfter, 1)))
	return 0
}
