package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/adventure-table/adventure-table/models"
)

// backupUsage is printed with every usage error of `backup` and `restore`.
const backupUsage = `usage: adventure-table backup <file> [flags]
       adventure-table restore <file> [flags]
  backup   writes a consistent copy of the database the settings name while the server runs:
           SQLite through its online backup API, PostgreSQL through pg_dump (custom format)
  restore  loads such a copy into an empty database (SQLite: a data dir without adventure.db;
           PostgreSQL: an empty database), checks it and brings its schema up to date
  flags    the settings of serve (AT_DATABASE_URL, AT_DATA_DIR): adventure-table help
  The server secret is not in the copy: keep AT_SECRET (or $AT_DATA_DIR/secret) with it, or the
  restored server cannot open the API keys it holds and every browser signs in again.`

// runBackupCommand is `backup <file>` and `restore <file>`.
func runBackupCommand(ctx context.Context, verb string, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		fmt.Fprintf(stderr, "adventure-table %s: the first argument is the backup file\n%s\n", verb, backupUsage)
		return 2
	}
	file, rest := args[0], args[1:]
	cfg, err := LoadConfig(getenv, rest)
	if err != nil {
		fmt.Fprintln(stderr, "adventure-table: configuration:", err)
		return 2
	}
	if verb == "backup" {
		err = runBackup(ctx, cfg, file, stdout)
	} else {
		err = runRestore(ctx, cfg, file, stdout)
	}
	if err != nil {
		fmt.Fprintf(stderr, "adventure-table %s: %v\n", verb, err)
		return 1
	}
	return 0
}

func runBackup(ctx context.Context, cfg Config, file string, stdout io.Writer) error {
	store, err := models.Open(ctx, models.Config{DatabaseURL: cfg.DatabaseURL, SQLitePath: cfg.SQLitePath()})
	if err != nil {
		return err
	}
	defer store.Close()
	if err := store.Backup(ctx, file); err != nil {
		return err
	}
	info, err := os.Stat(file)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "backed up %s (%s) to %s, %d bytes\n", store.Location(), store.Dialect(), file, info.Size())
	fmt.Fprintln(stdout, "the server secret is not in the backup: keep it with the file")
	return nil
}

// backupKinds are the first bytes of each kind of backup file.
var backupKinds = map[models.Dialect][]byte{models.SQLite: []byte("SQLite format 3\x00"), models.Postgres: []byte("PGDMP")}

func runRestore(ctx context.Context, cfg Config, file string, stdout io.Writer) error {
	target := models.SQLite
	if cfg.DatabaseURL != "" {
		target = models.Postgres
	}
	head := make([]byte, 16)
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	n, _ := io.ReadFull(f, head)
	f.Close()
	if !bytes.HasPrefix(head[:n], backupKinds[target]) {
		other := models.Postgres
		if target == models.Postgres {
			other = models.SQLite
		}
		if bytes.HasPrefix(head[:n], backupKinds[other]) {
			return fmt.Errorf("%s is a %s backup; the settings name a %s database", file, other, target)
		}
		return fmt.Errorf("%s is not an Adventure Table backup (neither a SQLite file nor a pg_dump archive)", file)
	}
	if target == models.SQLite {
		err = models.RestoreSQLite(ctx, file, cfg.SQLitePath())
	} else {
		err = models.RestorePostgres(ctx, cfg.DatabaseURL, file)
	}
	if errors.Is(err, models.ErrRestoreTargetNotEmpty) {
		return fmt.Errorf("%w (a restore never overwrites a database; point the settings at an empty one)", err)
	}
	if err != nil {
		return err
	}
	// the checked part: the copy opens, migrates as a start would, and reads
	store, rep, err := openMigrated(ctx, cfg)
	if err != nil {
		return fmt.Errorf("the restored database does not open: %w", err)
	}
	defer store.Close()
	counts, err := store.RowCounts(ctx)
	if err != nil {
		return fmt.Errorf("the restored database cannot be read: %w", err)
	}
	fmt.Fprintf(stdout, "restored %s into %s (%s), schema version %d: %s\n", file, store.Location(), store.Dialect(), rep.To, counts)
	return nil
}
