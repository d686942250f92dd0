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
