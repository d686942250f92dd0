package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/adventure-table/adventure-table/gameplay"
)

// grantArgs takes "-seat N" or "-seat=N" out of the arguments; the rest
// are the usual settings flags.
func grantArgs(args []string) (int64, []string, error) {
	var rest []string
	raw := ""
	for i := 0; i < len(args); i++ {
		name, value, hasValue := strings.Cut(strings.TrimPrefix(args[i], "-"), "=")
		if strings.TrimPrefix(name, "-") != "seat" {
			rest = append(rest, args[i])
			continue
		}
		if !hasValue {
			if i+1 >= len(args) {
				return 0, nil, errors.New("-seat needs a seat id")
			}
			i++
			value = args[i]
		}
		raw = value
	}
	seat, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || seat <= 0 {
		return 0, nil, errors.New("usage: adventure-table grant -seat <id> (seat ids are on the room page and in the API)")
	}
	return seat, rest, nil
}

// runGrantCommand mints an AI grant for a seat from the terminal. Only in
// local mode: there the operator owns the machine and the data; a hosted
// server hands out tokens only through its owners in the browser.
func runGrantCommand(ctx context.Context, getenv func(string) string, args []string, seatID int64, stdout, stderr io.Writer) int {
	cfg, err := LoadConfig(getenv, args)
	if err != nil {
		fmt.Fprintln(stderr, "adventure-table: configuration:", err)
		return 2
	}
	if cfg.Mode != "local" {
		fmt.Fprintln(stderr, "adventure-table grant: only in local mode; on a hosted server the room owner hands out tokens in the browser")
		return 2
	}
	store, _, err := openMigrated(ctx, cfg)
	if err != nil {
		fmt.Fprintln(stderr, "adventure-table:", err)
		return 1
	}
	defer store.Close()
	m, err := gameplay.New(store, gameplay.Options{Mode: cfg.Mode}).Table.OperatorGrant(ctx, seatID)
	if err != nil {
		fmt.Fprintln(stderr, "adventure-table grant:", err)
		return 1
	}
	fmt.Fprintf(stdout, "%s\n", m.Token)
	fmt.Fprintf(stderr, "AI token for seat %d (%s, shown once; store it now). Use it as: Authorization: Bearer <token>\n", seatID, m.Grant.Role)
	return 0
}
