package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/adventure-table/adventure-table/gameplay"
	"github.com/adventure-table/adventure-table/gameplay/narrative"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// memoriesUsage is printed with every usage error of `memories`.
const memoriesUsage = `usage: adventure-table memories rewrite --adventure <id> [--dry-run] [flags]
       adventure-table memories ab --adventure <id> --framing <file> [--json] [flags]
  rewrite  replays the adventure's block memories through the current memory prompt with the
           owner's model settings and saves the new texts (--dry-run: print them, save nothing)
  ab       writes each block memory with the current prompt (A) and with a prompt whose framing
           rule is FILE's text (B), side by side; saves nothing (--json: a JSON array)
  flags    the settings of serve (database, data dir, secret, model timeouts): adventure-table help`

// sideBySideMin is the terminal width from which `memories ab` prints A and
// B in two columns instead of one after the other.
const sideBySideMin = 120

// memoriesOptions are the arguments of `memories`; rest are the settings
// flags, read by LoadConfig like serve's.
type memoriesOptions struct {
	verb        string // rewrite | ab
	adventure   int64
	dryRun      bool
	framingFile string
	json        bool
	rest        []string
}

// memoriesArgs takes the verb and its own flags ("-name value", "-name=value",
// one or two dashes) out of args; the rest are the usual settings flags.
func memoriesArgs(args []string) (memoriesOptions, error) {
	var o memoriesOptions
	if len(args) == 0 || (args[0] != "rewrite" && args[0] != "ab") {
		return o, errors.New("the first argument must be rewrite or ab")
	}
	o.verb = args[0]
	seen := map[string]bool{}
	rawID := ""
	for i := 1; i < len(args); i++ {
		arg := args[i]
		if !strings.HasPrefix(arg, "-") {
			o.rest = append(o.rest, arg)
			continue
		}
		name, value, hasValue := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(arg, "-"), "-"), "=")
		switch name {
		case "adventure", "framing":
			if !hasValue {
				if i+1 >= len(args) {
					return o, fmt.Errorf("--%s needs a value", name)
				}
				i++
				value = args[i]
			}
			if name == "adventure" {
				rawID = value
			} else {
				o.framingFile = value
			}
		case "dry-run", "json":
			on := true
			if hasValue {
				b, err := strconv.ParseBool(value)
				if err != nil {
					return o, fmt.Errorf("--%s takes no value or true/false, got %q", name, value)
				}
				on = b
			}
			if name == "dry-run" {
				o.dryRun = on
			} else {
				o.json = on
			}
		default:
			o.rest = append(o.rest, arg)
			continue
		}
		seen[name] = true
	}
	if rawID == "" {
		return o, errors.New("--adventure is required")
	}
	id, err := strconv.ParseInt(rawID, 10, 64)
	if err != nil || id <= 0 {
		return o, fmt.Errorf("--adventure must be an adventure id (a positive number), got %q", rawID)
	}
	o.adventure = id
	switch o.verb {
	case "rewrite":
		for _, name := range []string{"framing", "json"} {
			if seen[name] {
				return o, fmt.Errorf("--%s is a flag of memories ab, not rewrite", name)
			}
		}
	case "ab":
		if seen["dry-run"] {
			return o, errors.New("--dry-run is a flag of memories rewrite; ab never saves")
		}
		if o.framingFile == "" {
			return o, errors.New("--framing <file> is required: the framing rule of prompt B")
		}
	}
	return o, nil
}

// runMemoriesCommand is `adventure-table memories`: the operator's tools
// for an adventure's memory bank, on narrative.Service.ReplayMemories. The
// bank writes each memory once, so `rewrite` is how an existing bank gets
// the current prompt, and `ab` shows what another framing rule would write.
// Both run with the adventure owner's own model settings (their key opened
// with the server secret) and the configured model timeouts and SSRF guard.
// Exit code 2 on bad arguments or configuration, 1 on a failure.
func runMemoriesCommand(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	opts, err := memoriesArgs(args)
	if err != nil {
		fmt.Fprintln(stderr, "adventure-table memories:", err)
		fmt.Fprintln(stderr, memoriesUsage)
		return 2
	}
	framingB := ""
	if opts.verb == "ab" {
		raw, err := os.ReadFile(opts.framingFile)
		if err != nil {
			fmt.Fprintln(stderr, "adventure-table memories ab: --framing:", err)
			return 2
		}
		if framingB = strings.TrimSpace(string(raw)); framingB == "" {
			fmt.Fprintf(stderr, "adventure-table memories ab: --framing: %s is empty\n", opts.framingFile)
			return 2
		}
	}
	cfg, err := LoadConfig(getenv, opts.rest)
	if err == nil {
		err = cfg.ensureLocalSecret()
	}
	if err != nil {
		fmt.Fprintln(stderr, "adventure-table: configuration:", err)
		return 2
	}
	fail := func(err error) int {
		fmt.Fprintln(stderr, "adventure-table memories:", memoriesFailure(err))
		return 1
	}
	store, _, err := openMigrated(ctx, cfg)
	if err != nil {
		return fail(err)
	}
	defer store.Close()
	if _, err := store.FindAdventure(ctx, opts.adventure); err != nil {
		if apperr.CodeOf(err) == apperr.NotFound {
			fmt.Fprintf(stderr, "adventure-table memories: adventure %d does not exist\n", opts.adventure)
			return 1
		}
		return fail(err)
	}
	// Never the demo narrator: a bank is rewritten on the owner's own endpoint.
	svc := gameplay.New(store, gameplay.Options{Mode: cfg.Mode, Secret: []byte(cfg.Secret), PreviousSecret: []byte(cfg.SecretPrevious), Provider: modelProvider(cfg),
		Logger: newLogger(cfg, stderr)}).Narrative
	progress := func(prefix string) func(done, total int) {
		return func(done, total int) { fmt.Fprintf(stderr, "%smemory %d/%d\n", prefix, done, total) }
	}

	if opts.verb == "rewrite" {
		out, err := svc.ReplayMemories(ctx, opts.adventure, narrative.DefaultFraming, !opts.dryRun, progress(""))
		for _, r := range out {
			fmt.Fprintf(stdout, "memory %d (turns %d–%d, branch %d)\n  old: %s\n  new: %s\n\n", r.ID, r.FromDepth, r.Depth, r.BranchID, r.Stored, r.Replayed)
		}
		if err != nil {
			if !opts.dryRun && len(out) > 0 {
				fmt.Fprintf(stderr, "adventure-table memories: %s rewritten before the failure; the others keep their text\n", countMemories(len(out)))
			}
			return fail(err)
		}
		if opts.dryRun {
			fmt.Fprintf(stdout, "%s replayed (dry run: nothing saved)\n", countMemories(len(out)))
		} else {
			fmt.Fprintf(stdout, "%s rewritten\n", countMemories(len(out)))
		}
		return 0
	}

	a, err := svc.ReplayMemories(ctx, opts.adventure, narrative.DefaultFraming, false, progress("A: "))
	if err != nil {
		return fail(err)
	}
	b, err := svc.ReplayMemories(ctx, opts.adventure, framingB, false, progress("B: "))
	if err != nil {
		return fail(err)
	}
	rows := abRows(a, b)
	if opts.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rows); err != nil {
			return fail(err)
		}
		return 0
	}
	printAB(stdout, rows, "B ("+opts.framingFile+")", terminalWidth(stdout, getenv))
	fmt.Fprintf(stdout, "%s compared (nothing saved)\n", countMemories(len(rows)))
	return 0
}

// abRow is one memory of the A/B harness, as --json prints it.
type abRow struct {
	ID        int64  `json:"id"`
	FromDepth int    `json:"from_depth"`
	Depth     int    `json:"depth"`
	Stored    string `json:"stored"`
	A         string `json:"a"`
	B         string `json:"b"`
}

// abRows pairs the two replays by memory, in A's (story) order; a memory
// only one side wrote (the story changed between the runs) keeps the other
// side empty.
func abRows(a, b []narrative.MemoryReplay) []abRow {
	rows := []abRow{}
	at := map[int64]int{}
	for _, r := range a {
		at[r.ID] = len(rows)
		rows = append(rows, abRow{ID: r.ID, FromDepth: r.FromDepth, Depth: r.Depth, Stored: r.Stored, A: r.Replayed})
	}
	for _, r := range b {
		if i, ok := at[r.ID]; ok {
			rows[i].B = r.Replayed
			continue
		}
		rows = append(rows, abRow{ID: r.ID, FromDepth: r.FromDepth, Depth: r.Depth, Stored: r.Stored, B: r.Replayed})
	}
	return rows
}

// printAB prints the rows as plain text: A and B side by side when width
// allows, else one after the other.
func printAB(w io.Writer, rows []abRow, labelB string, width int) {
	labelA := "A (current prompt)"
	for _, r := range rows {
		fmt.Fprintf(w, "memory %d (turns %d–%d)\n  stored: %s\n", r.ID, r.FromDepth, r.Depth, r.Stored)
		if width < sideBySideMin {
			fmt.Fprintf(w, "  %s: %s\n  %s: %s\n\n", labelA, r.A, labelB, r.B)
			continue
		}
		col := (width - 5) / 2 // two-space indent and " | " between the columns
		left, right := wrapText(labelA+": "+r.A, col), wrapText(labelB+": "+r.B, col)
		for i := range max(len(left), len(right)) {
			l, rt := "", ""
			if i < len(left) {
				l = left[i]
			}
			if i < len(right) {
				rt = right[i]
			}
			fmt.Fprintln(w, strings.TrimRight(fmt.Sprintf("  %-*s | %s", col, l, rt), " "))
		}
		fmt.Fprintln(w)
	}
}

// wrapText breaks text into lines of at most width runes, at spaces when it
// can.
func wrapText(text string, width int) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(text) {
		for utf8.RuneCountInString(word) > width {
			if line != "" {
				lines, line = append(lines, line), ""
			}
			runes := []rune(word)
			lines, word = append(lines, string(runes[:width])), string(runes[width:])
		}
		switch {
		case line == "":
			line = word
		case utf8.RuneCountInString(line)+1+utf8.RuneCountInString(word) <= width:
			line += " " + word
		default:
			lines, line = append(lines, line), word
		}
	}
	if line != "" || len(lines) == 0 {
		lines = append(lines, line)
	}
	return lines
}

// terminalWidth is the width of the terminal stdout is, from $COLUMNS; 0
// when stdout is not a terminal or the width is unknown.
func terminalWidth(w io.Writer, getenv func(string) string) int {
	f, ok := w.(*os.File)
	if !ok {
		return 0
	}
	if fi, err := f.Stat(); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		return 0
	}
	n, _ := strconv.Atoi(getenv("COLUMNS"))
	return n
}

// memoriesFailure is the line printed for a failure: an application
// error's stable message and code (a model endpoint's failure says what
// failed, never the key), anything else as it is.
func memoriesFailure(err error) string {
	if e, ok := apperr.As(err); ok && apperr.CodeOf(err) != apperr.Internal {
		return fmt.Sprintf("%s (%s)", e.Message, e.Code)
	}
	if apperr.IsCanceled(err) {
		return "interrupted"
	}
	return err.Error()
}

func countMemories(n int) string {
	if n == 1 {
		return "1 memory"
	}
	return fmt.Sprintf("%d memories", n)
}
