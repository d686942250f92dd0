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

// grantTarget is what a token is minted for: a table seat, a solo
// adventure or a scenario.
type grantTarget struct {
	kind string // seat, adventure or scenario
	id   int64
}

const grantUsage = "usage: adventure-table grant -seat <id> | -adventure <id> | -scenario <id> (ids are on the room page, in the adventure's address, and in the API)"

// grantArgs takes "-seat N", "-adventure N" or "-scenario N" (or -x=N) out
// of the arguments; the rest are the usual settings flags.
func grantArgs(args []string) (grantTarget, []string, error) {
	var rest []string
	var target grantTarget
	raw := ""
	for i := 0; i < len(args); i++ {
		name, value, hasValue := strings.Cut(strings.TrimPrefix(args[i], "-"), "=")
		name = strings.TrimPrefix(name, "-")
		if name != "seat" && name != "adventure" && name != "scenario" {
			rest = append(rest, args[i])
			continue
		}
		if target.kind != "" {
			return grantTarget{}, nil, errors.New(grantUsage)
		}
		if !hasValue {
			if i+1 >= len(args) {
				return grantTarget{}, nil, fmt.Errorf("-%s needs an id", name)
			}
			i++
			value = args[i]
		}
		target.kind, raw = name, value
	}
	id, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || id <= 0 {
		return grantTarget{}, nil, errors.New(grantUsage)
	}
	target.id = id
	return target, rest, nil
}

// runGrantCommand mints an AI grant for a seat from the terminal. Only in
// local mode: there the operator owns the machine and the data; a hosted
// server hands out tokens only through its owners in the browser.
func runGrantCommand(ctx context.Context, getenv func(string) string, args []string, target grantTarget, stdout, stderr io.Writer) int {
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
	services := gameplay.New(store, gameplay.Options{Mode: cfg.Mode})
	if target.kind != "seat" {
		m, err := services.Narrative.OperatorSoloGrant(ctx, target.id, target.kind == "scenario")
		if err != nil {
			fmt.Fprintln(stderr, "adventure-table grant:", err)
			return 1
		}
		fmt.Fprintf(stdout, "%s\n", m.Token)
		fmt.Fprintf(stderr, "AI token for %s %d (shown once; store it now; it expires %s). Use it as: Authorization: Bearer <token>\n",
			target.kind, target.id, m.Grant.ExpiresAt.Format("2006-01-02"))
		return 0
	}
	m, err := services.Table.OperatorGrant(ctx, target.id)
	if err != nil {
		fmt.Fprintln(stderr, "adventure-table grant:", err)
		return 1
	}
	fmt.Fprintf(stdout, "%s\n", m.Token)
	fmt.Fprintf(stderr, "AI token for seat %d (%s, shown once; store it now). Use it as: Authorization: Bearer <token>\n", target.id, m.Grant.Role)
	return 0
}
