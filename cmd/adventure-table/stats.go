package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/adventure-table/adventure-table/gameplay"
	"github.com/adventure-table/adventure-table/gameplay/analytics"
)

// statsUsage is printed with every usage error of `stats`.
const statsUsage = `usage: adventure-table stats [--days N] [--csv] [flags]
  prints the operator's dashboard (the anonymous counters) for the last N days (default 14, at most 366):
  visits and the funnel per day, failed turns and narrator steps by code, time to first token,
  demo narrator spend against its budget, rate-limit refusals, AI seats
  --csv    one row per day, the dashboard's CSV export
  flags    the settings of serve (database, data dir): adventure-table help`

// statsArgs takes --days and --csv out of args; the rest are the usual
// settings flags.
func statsArgs(args []string) (days int, csv bool, rest []string, err error) {
	days = 14
	for i := 0; i < len(args); i++ {
		name, value, hasValue := strings.Cut(strings.TrimLeft(args[i], "-"), "=")
		switch {
		case !strings.HasPrefix(args[i], "-"):
			rest = append(rest, args[i])
		case name == "days":
			if !hasValue {
				if i+1 >= len(args) {
					return 0, false, nil, fmt.Errorf("--days needs a number")
				}
				i++
				value = args[i]
			}
			if days, err = strconv.Atoi(value); err != nil || days < 1 || days > analytics.MaxReportDays {
				return 0, false, nil, fmt.Errorf("--days must be a number from 1 to %d, got %q", analytics.MaxReportDays, value)
			}
		case name == "csv":
			if hasValue {
				return 0, false, nil, fmt.Errorf("--csv takes no value")
			}
			csv = true
		default:
			rest = append(rest, args[i])
		}
	}
	return days, csv, rest, nil
}

// runStatsCommand prints the dashboard's report in a terminal: the same
// report (gameplay.Services.Report) the operator's page draws.
func runStatsCommand(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	days, csv, rest, err := statsArgs(args)
	if err != nil {
		fmt.Fprintln(stderr, "adventure-table stats:", err)
		fmt.Fprintln(stderr, statsUsage)
		return 2
	}
	cfg, err := LoadConfig(getenv, rest)
	if err == nil {
		err = cfg.ensureLocalSecret()
	}
	if err != nil {
		fmt.Fprintln(stderr, "adventure-table: configuration:", err)
		return 2
	}
	store, _, err := openMigrated(ctx, cfg)
	if err != nil {
		fmt.Fprintln(stderr, "adventure-table stats:", err)
		return 1
	}
	defer store.Close()
	rep, err := gameplay.New(store, gameplay.Options{Mode: cfg.Mode, Secret: []byte(cfg.Secret), Demo: cfg.Demo,
		Logger: newLogger(cfg, stderr)}).Report(ctx, days)
	if err != nil {
		fmt.Fprintln(stderr, "adventure-table stats:", err)
		return 1
	}
	if csv {
		err = rep.WriteCSV(stdout)
	} else {
		err = writeStats(stdout, rep)
	}
	if err != nil {
		fmt.Fprintln(stderr, "adventure-table stats:", err)
		return 1
	}
	return 0
}

// writeStats lays the report out as aligned tables.
func writeStats(w io.Writer, rep analytics.Report) error {
	fmt.Fprintf(w, "Adventure Table, %s to %s (UTC, %d days), newest first\n", rep.From, rep.To, len(rep.Days))
	tables := []struct {
		title, header string
		row           func(d analytics.DayReport) string
	}{
		{"People (the funnel counts people, not clicks)", "day\tvisits\tcame\tmade something\tplayed\tcame back\trate limited\t",
			func(d analytics.DayReport) string {
				return fmt.Sprintf("%s\t%d\t%d\t%d\t%d\t%d\t%d\t", d.Day, d.Visits, d.Came, d.Made, d.Played, d.Returned, d.RateLimited)
			}},
		{"Play", "day\tsolo turns\tfailed\tnarrator steps failed\tsessions started\tended\tfirst token p50\tp95\t",
			func(d analytics.DayReport) string {
				return fmt.Sprintf("%s\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t", d.Day, d.SoloTurns, d.TurnsFailed, d.NarratorStepsFailed,
					d.SessionsStarted, d.SessionsEnded, analytics.FormatMS(d.FirstTokenP50MS), analytics.FormatMS(d.FirstTokenP95MS))
			}},
		{"Model tokens (demo budget: the people the demo narrator served × its tokens per person a day)", "day\tdemo\tdemo budget\tdemo people\tBYOK\t",
			func(d analytics.DayReport) string {
				return fmt.Sprintf("%s\t%d\t%d\t%d\t%d\t", d.Day, d.TokensDemo, d.DemoBudget, d.DemoUsers, d.TokensBYOK)
			}},
	}
	for _, t := range tables {
		fmt.Fprintln(w, "\n"+t.title)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, t.header)
		for i := len(rep.Days) - 1; i >= 0; i-- {
			fmt.Fprintln(tw, t.row(rep.Days[i]))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if rep.DemoDailyTokens == 0 {
		fmt.Fprintln(w, "(this server has no demo narrator)")
	}
	fmt.Fprintf(w, "\nTime to first token: p50 %s, p95 %s (%d model calls)\n", analytics.FormatMS(rep.Latency.P50MS),
		analytics.FormatMS(rep.Latency.P95MS), rep.Latency.Calls)
	fmt.Fprintln(w, "\nFailures by code")
	if len(rep.Failures) == 0 {
		fmt.Fprintln(w, "  none")
	}
	for _, f := range rep.Failures {
		fmt.Fprintf(w, "  %-14s %-32s %d\n", f.What, f.Code, f.Hits)
	}
	for _, list := range []struct {
		title string
		rows  []analytics.LabelCount
	}{{"Visits by page", rep.VisitsByPage}, {"Rate-limit refusals by class", rep.RateLimited}, {"Seats handed to an AI", rep.AISeats}} {
		fmt.Fprintln(w, "\n"+list.title)
		if len(list.rows) == 0 {
			fmt.Fprintln(w, "  none")
		}
		for _, r := range list.rows {
			fmt.Fprintf(w, "  %-32s %d\n", r.Label, r.Hits)
		}
	}
	return nil
}
