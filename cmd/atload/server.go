package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// server is the adventure-table process under load: started by atload or
// attached to.
type server struct {
	base    string // http://host:port
	pid     int    // 0: unknown (attached without -pid)
	bin     string // binary used for "grant"
	dataDir string // the server's AT_DATA_DIR
	dbURL   string // the server's AT_DATABASE_URL; empty: SQLite in dataDir
	cmd     *exec.Cmd
	logPath string
	// addr, when set, is the address every start listens on (a process
	// restarted behind a proxy keeps its upstream address); extraEnv are
	// further settings.
	addr     string
	extraEnv []string
	// stopWait receives when a started server exits.
	stopWait chan error
}

// sqlitePath is where a SQLite server keeps its database.
func (s *server) sqlitePath() string { return filepath.Join(s.dataDir, "adventure.db") }

// env is this process's environment without any AT_* setting, plus the
// server's database settings, so that "grant" opens what the server opened.
func (s *server) env(extra ...string) []string {
	var out []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "AT_") {
			out = append(out, kv)
		}
	}
	out = append(out, "AT_MODE=local", "AT_DATA_DIR="+s.dataDir)
	if s.dbURL != "" {
		out = append(out, "AT_DATABASE_URL="+s.dbURL)
	}
	return append(out, extra...)
}

// freeAddr picks a free loopback port.
func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// start runs the binary in local mode on a free port and waits until it
// answers /api/health.
func (s *server) start(ctx context.Context, workDir string) error {
	addr := s.addr
	if addr == "" {
		var err error
		if addr, err = freeAddr(); err != nil {
			return err
		}
	}
	s.base = "http://" + addr
	s.logPath = filepath.Join(workDir, "server.log")
	// appended to: a restarted process keeps the log of the one before
	logf, err := os.OpenFile(s.logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	defer logf.Close()
	s.cmd = exec.Command(s.bin, "serve")
	s.cmd.Env = s.env(append([]string{"AT_ADDR=" + addr}, s.extraEnv...)...)
	s.cmd.Stdout, s.cmd.Stderr = logf, logf
	if err := s.cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", s.bin, err)
	}
	s.pid = s.cmd.Process.Pid
	exited := make(chan error, 1)
	go func() { exited <- s.cmd.Wait() }()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-exited:
			s.cmd = nil
			return fmt.Errorf("the server exited at start (%v); its log: %s\n%s", err, s.logPath, tail(s.logPath))
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		if s.healthy(ctx) {
			// The goroutine reaps the process; stop waits on exited.
			s.stopWait = exited
			return nil
		}
	}
	return fmt.Errorf("the server did not answer %s/api/health within 60s; its log: %s", s.base, s.logPath)
}

// healthy reports whether /api/health answers 200.
func (s *server) healthy(ctx context.Context) bool {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.base+"/api/health", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// stop ends a server atload started: SIGTERM (open long polls are
// answered at once), then SIGKILL after 15 s.
func (s *server) stop() {
	if s.stopWait == nil {
		return
	}
	_ = syscall.Kill(s.pid, syscall.SIGTERM)
	select {
	case <-s.stopWait:
	case <-time.After(15 * time.Second):
		_ = syscall.Kill(s.pid, syscall.SIGKILL)
		<-s.stopWait
	}
	s.stopWait = nil
}

// grant mints an AI grant for a seat with "adventure-table grant" on the
// server's database, as an operator would.
func (s *server) grant(ctx context.Context, seatID int64) (string, error) {
	cmd := exec.CommandContext(ctx, s.bin, "grant", "-seat", strconv.FormatInt(seatID, 10))
	cmd.Env = s.env()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%s grant -seat %d: %v: %s", s.bin, seatID, err, strings.TrimSpace(errb.String()))
	}
	tok := strings.TrimSpace(out.String())
	if tok == "" {
		return "", fmt.Errorf("%s grant -seat %d printed no token", s.bin, seatID)
	}
	return tok, nil
}

// tail is the end of a log file, for error messages.
func tail(path string) string {
	b, _ := os.ReadFile(path)
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	return string(b)
}

// pgDatabase is a database atload created for one run on a PostgreSQL
// server, dropped at the end.
type pgDatabase struct {
	admin, name, url string
}

// createPGDatabase creates a fresh database on the server adminURL names
// and returns it with its URL.
func createPGDatabase(ctx context.Context, adminURL string) (*pgDatabase, error) {
	u, err := url.Parse(adminURL)
	if err != nil {
		return nil, fmt.Errorf("-pg: %w", err)
	}
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	name := "atload_" + hex.EncodeToString(b)
	conn, err := pgx.Connect(ctx, adminURL)
	if err != nil {
		return nil, fmt.Errorf("connect to PostgreSQL: %w", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		return nil, fmt.Errorf("create database %s: %w", name, err)
	}
	u.Path = "/" + name
	return &pgDatabase{admin: adminURL, name: name, url: u.String()}, nil
}

// drop removes the database, ending any session still on it.
func (d *pgDatabase) drop(ctx context.Context) error {
	conn, err := pgx.Connect(ctx, d.admin)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, "DROP DATABASE IF EXISTS "+d.name+" WITH (FORCE)")
	return err
}
