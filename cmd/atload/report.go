package main

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
)

// report is everything atload measured; -json prints it as is.
type report struct {
	Config       reportConfig `json:"config"`
	Server       reportServer `json:"server"`
	SetupSeconds float64      `json:"setup_seconds"`
	FDs          struct {
		LoadSoft   uint64 `json:"load_soft"`
		LoadHard   uint64 `json:"load_hard"`
		Needed     uint64 `json:"needed"`
		ServerSoft int64  `json:"server_soft"`
		ServerHard int64  `json:"server_hard"`
		Advice     string `json:"advice,omitempty"`
	} `json:"open_file_limits"`
	Idle struct {
		Before          processSample `json:"before_waiters"`
		With            processSample `json:"with_waiters_idle"`
		RSSPerWaiterKiB float64       `json:"rss_per_waiter_kib"`
		RampSeconds     float64       `json:"ramp_seconds"`
	} `json:"idle"`
	Unrelated struct {
		Baseline       dist `json:"baseline"`
		BaselineErrors int  `json:"baseline_errors"`
		Idle           dist `json:"waiters_idle"`
		IdleErrors     int  `json:"waiters_idle_errors"`
		Posting        dist `json:"while_posting"`
		PostingErrors  int  `json:"while_posting_errors"`
	} `json:"unrelated_requests"`
	CPU struct {
		Idle    cpuUse `json:"waiters_idle"`
		Posting cpuUse `json:"while_posting"`
	} `json:"cpu"`
	Posts dist       `json:"post_calls"`
	Wake  wakeReport `json:"wake"`
	Write struct {
		Ceiling1        rate    `json:"commit_ceiling_1"`
		CeilingC        rate    `json:"commit_ceiling_c"`
		OneSession      rate    `json:"post_message_one_session"`
		Spread          rate    `json:"post_message_spread"`
		OneSessionRatio float64 `json:"one_session_over_ceiling_c"`
		SpreadRatio     float64 `json:"spread_over_ceiling_c"`
	} `json:"write"`
	Problems []string `json:"problems"`

	mu sync.Mutex
}

type reportConfig struct {
	Sessions     int     `json:"sessions"`
	HTTPWaiters  int     `json:"http_waiters"`
	HTTPMode     string  `json:"http_mode"`
	MCPWaiters   int     `json:"mcp_waiters"`
	Identities   int     `json:"identities_per_session"`
	AISeats      int     `json:"ai_seats_per_session"`
	Posts        int     `json:"posts"`
	Rate         float64 `json:"posts_per_second"`
	Writer       string  `json:"writer"`
	WaitTimeoutS int     `json:"wait_timeout_seconds"`
	Workers      int     `json:"workers"`
	Smoke        bool    `json:"smoke"`
	GOMAXPROCS   int     `json:"load_gomaxprocs"`
}

type reportServer struct {
	URL      string `json:"url"`
	PID      int    `json:"pid"`
	Database string `json:"database"`
}

// processSample is the server's footprint at one moment.
type processSample struct {
	RSSKiB    int64    `json:"rss_kib"`
	OpenFiles int      `json:"open_files"`
	DBConns   *pgConns `json:"db_connections"` // nil: SQLite or unknown
}

type wakeReport struct {
	All               dist `json:"all"`
	HTTP              dist `json:"http"`
	MCP               dist `json:"mcp"`
	AfterPostReturned dist `json:"after_post_returned"`
	Polls             int  `json:"polls"`
	Missed            int  `json:"missed"`
	MissedWhispers    int  `json:"missed_whispers"`
	Duplicates        int  `json:"duplicates"`
	Forbidden         int  `json:"forbidden"`
	Errors            int  `json:"errors"`
}

func (r *report) problem(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.Problems = append(r.Problems, fmt.Sprintf(format, args...))
}

func (d dist) String() string {
	return fmt.Sprintf("p50 %7.2fms  p90 %7.2fms  p99 %7.2fms  max %7.2fms  (n=%d)", d.P50, d.P90, d.P99, d.Max, d.N)
}

func (c *pgConns) String() string {
	if c == nil {
		return "n/a"
	}
	var parts []string
	for s, n := range c.ByState {
		if s == "" {
			s = "?"
		}
		parts = append(parts, fmt.Sprintf("%s %d", s, n))
	}
	sort.Strings(parts)
	return fmt.Sprintf("%d (%s)", c.Total, strings.Join(parts, ", "))
}

func (r rate) String() string {
	s := fmt.Sprintf("%8.1f/s  p50 %.2fms  p99 %.2fms  errors %d", r.PerSec, r.Latency.P50, r.Latency.P99, r.Errors)
	if r.FirstErr != "" {
		s += "  first: " + r.FirstErr
	}
	return s
}

// print writes the report for people.
func (r *report) print(w io.Writer) {
	c := r.Config
	p := func(format string, args ...any) { fmt.Fprintf(w, format+"\n", args...) }
	mode := "full"
	if c.Smoke {
		mode = "smoke"
	}
	p("== atload (%s) against %s, %s, pid %d ==", mode, r.Server.URL, r.Server.Database, r.Server.PID)
	p("waiters: %d HTTP (%s) + %d MCP wait_for_event over %d session(s) (%d identities, %d AI seats each); %d posts at %.1f/s via %s; poll timeout %ds",
		c.HTTPWaiters, c.HTTPMode, c.MCPWaiters, c.Sessions, c.Identities, c.AISeats, c.Posts, c.Rate, c.Writer, c.WaitTimeoutS)
	p("set-up %.1fs, waiters out and settled in %.1fs", r.SetupSeconds, r.Idle.RampSeconds)
	p("")
	p("wake latency (post sent -> waiter has the event; %d polls):", r.Wake.Polls)
	p("  all    %s", r.Wake.All)
	p("  HTTP   %s", r.Wake.HTTP)
	p("  MCP    %s", r.Wake.MCP)
	p("  after the post's response returned: %s", r.Wake.AfterPostReturned)
	p("  post calls: %s", r.Posts)
	p("  missed %d, missed whispers %d, duplicates %d, forbidden %d, waiter errors %d",
		r.Wake.Missed, r.Wake.MissedWhispers, r.Wake.Duplicates, r.Wake.Forbidden, r.Wake.Errors)
	p("")
	n := c.HTTPWaiters + c.MCPWaiters
	if r.Server.PID != 0 {
		p("server memory: RSS %d KiB before the waiters, %d KiB with %d idle: %.1f KiB per waiter",
			r.Idle.Before.RSSKiB, r.Idle.With.RSSKiB, n, r.Idle.RSSPerWaiterKiB)
		p("server open files: %d before, %d with the waiters", r.Idle.Before.OpenFiles, r.Idle.With.OpenFiles)
	} else {
		p("server memory: n/a (give -pid)")
	}
	p("CPU with the waiters idle: %s", r.CPU.Idle)
	p("CPU while posting:         %s", r.CPU.Posting)
	p("database connections held: before %s; with the waiters idle %s", r.Idle.Before.DBConns, r.Idle.With.DBConns)
	p("")
	p("unrelated requests (GET /api/me, GET /api/sessions/{id}):")
	p("  no waiters     %s  errors %d", r.Unrelated.Baseline, r.Unrelated.BaselineErrors)
	p("  waiters idle   %s  errors %d", r.Unrelated.Idle, r.Unrelated.IdleErrors)
	p("  while posting  %s  errors %d", r.Unrelated.Posting, r.Unrelated.PostingErrors)
	if r.Write.Ceiling1.Workers > 0 {
		p("")
		p("write path (same database, same durability settings):")
		p("  raw INSERT+COMMIT, 1 conn     %s", r.Write.Ceiling1)
		p("  raw INSERT+COMMIT, %d conns   %s", r.Write.CeilingC.Workers, r.Write.CeilingC)
		p("  MCP post_message, %d workers, one session   %s  (%.2f of the %d-conn ceiling)", r.Write.OneSession.Workers, r.Write.OneSession, r.Write.OneSessionRatio, r.Write.CeilingC.Workers)
		p("  MCP post_message, %d workers, %d sessions   %s  (%.2f of the %d-conn ceiling)", r.Write.Spread.Workers, r.Write.Spread.Workers, r.Write.Spread, r.Write.SpreadRatio, r.Write.CeilingC.Workers)
	}
	p("")
	p("open files: this process %d (hard %d), needed about %d; server soft %d hard %d", r.FDs.LoadSoft, r.FDs.LoadHard, r.FDs.Needed, r.FDs.ServerSoft, r.FDs.ServerHard)
	if r.FDs.Advice != "" {
		p("  RAISE: %s", r.FDs.Advice)
	}
	if len(r.Problems) == 0 {
		p("OK: no missed, duplicated or forbidden events, no errors")
		return
	}
	p("PROBLEMS:")
	for _, s := range r.Problems {
		p("  - %s", s)
	}
}
