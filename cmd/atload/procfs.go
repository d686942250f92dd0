package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// raiseFDLimit lifts this process's open-file limit to its hard maximum
// (each waiter is a socket). Setting it explicitly also makes a server
// started by atload inherit the raised limit.
func raiseFDLimit() (soft, hard uint64, err error) {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		return 0, 0, err
	}
	rl.Cur = rl.Max
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		return 0, 0, err
	}
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		return 0, 0, err
	}
	return rl.Cur, rl.Max, nil
}

// parseVmRSS reads VmRSS (in KiB) from a /proc/<pid>/status file.
func parseVmRSS(r io.Reader) (int64, error) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) != 2 || f[1] != "kB" {
			return 0, fmt.Errorf("unexpected VmRSS line %q", sc.Text())
		}
		return strconv.ParseInt(f[0], 10, 64)
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, errors.New("no VmRSS line")
}

// parseOpenFilesLimit reads the "Max open files" soft and hard limits from
// a /proc/<pid>/limits file; "unlimited" is reported as -1.
func parseOpenFilesLimit(r io.Reader) (soft, hard int64, err error) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), "Max open files")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) < 2 {
			return 0, 0, fmt.Errorf("unexpected limits line %q", sc.Text())
		}
		num := func(s string) (int64, error) {
			if s == "unlimited" {
				return -1, nil
			}
			return strconv.ParseInt(s, 10, 64)
		}
		if soft, err = num(f[0]); err != nil {
			return 0, 0, err
		}
		hard, err = num(f[1])
		return soft, hard, err
	}
	if err := sc.Err(); err != nil {
		return 0, 0, err
	}
	return 0, 0, errors.New("no Max open files line")
}

// procRSS is the resident set of a process in KiB.
func procRSS(pid int) (int64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	return parseVmRSS(f)
}

// procFDLimit is the open-file limit of a process.
func procFDLimit(pid int) (soft, hard int64, err error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/limits", pid))
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	return parseOpenFilesLimit(f)
}

// procFDs counts a process's open file descriptors.
func procFDs(pid int) (int, error) {
	ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	return len(ents), err
}

// clockTicks is USER_HZ, the unit of the times in /proc/<pid>/stat; 100
// on every Linux architecture Go supports.
const clockTicks = 100

// parseStatCPU reads user+system CPU time from a /proc/<pid>/stat line.
// The command name (field 2) may hold spaces and parentheses, so fields
// are counted from the last ')'.
func parseStatCPU(stat string) (time.Duration, error) {
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, errors.New("no ')' in stat")
	}
	f := strings.Fields(stat[i+1:])
	// f[0] is field 3 (state); utime and stime are fields 14 and 15.
	if len(f) < 13 {
		return 0, fmt.Errorf("short stat line: %d fields", len(f))
	}
	ut, err := strconv.ParseInt(f[11], 10, 64)
	if err != nil {
		return 0, err
	}
	st, err := strconv.ParseInt(f[12], 10, 64)
	if err != nil {
		return 0, err
	}
	return time.Duration(ut+st) * time.Second / clockTicks, nil
}

// procCPU is the CPU time a process has used.
func procCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	return parseStatCPU(string(b))
}

// selfCPU is the CPU time this process has used.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// cpuMeter measures the CPU the server and this process use over a phase.
type cpuMeter struct {
	pid          int
	start        time.Time
	server, self time.Duration
}

func startCPU(pid int) cpuMeter {
	m := cpuMeter{pid: pid, start: time.Now(), self: selfCPU()}
	if pid != 0 {
		m.server, _ = procCPU(pid)
	}
	return m
}

// cpuUse is CPU seconds used over a phase of Seconds wall time.
type cpuUse struct {
	Seconds       float64 `json:"wall_seconds"`
	ServerSeconds float64 `json:"server_cpu_seconds"`
	LoadSeconds   float64 `json:"atload_cpu_seconds"`
}

func (m cpuMeter) stop() cpuUse {
	u := cpuUse{Seconds: time.Since(m.start).Seconds(), LoadSeconds: (selfCPU() - m.self).Seconds()}
	if m.pid != 0 {
		if s, err := procCPU(m.pid); err == nil {
			u.ServerSeconds = (s - m.server).Seconds()
		}
	}
	return u
}

func (u cpuUse) String() string {
	if u.Seconds == 0 {
		return "n/a"
	}
	return fmt.Sprintf("server %.2f CPU-s (%.0f%% of one core), atload %.2f CPU-s (%.0f%%) over %.1fs",
		u.ServerSeconds, 100*u.ServerSeconds/u.Seconds, u.LoadSeconds, 100*u.LoadSeconds/u.Seconds, u.Seconds)
}
