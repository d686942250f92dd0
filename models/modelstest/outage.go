package modelstest

import (
	"context"
	"io"
	"net"
	"net/url"
	"sync"
	"testing"

	"github.com/adventure-table/adventure-table/models"
)

// Outage is a database a test can take away and give back, for real: on
// PostgreSQL the store talks through a TCP proxy whose connections are
// cut (and new ones refused) by Cut and allowed again by Restore; on
// SQLite, Cut closes the store (there is no server to lose) and Restore is
// not possible.
type Outage struct {
	tb      testing.TB
	store   *models.Store
	target  string
	ln      net.Listener
	addr    string
	mu      sync.Mutex
	conns   []net.Conn
	stopped bool
}

// MustOpenCuttable opens a fresh, migrated database whose connection a test
// can cut.
func MustOpenCuttable(tb testing.TB) (*models.Store, *Outage) {
	tb.Helper()
	o := &Outage{tb: tb}
	cfg := Config(tb)
	if cfg.DatabaseURL != "" {
		u, err := url.Parse(cfg.DatabaseURL)
		if err != nil {
			tb.Fatal(err)
		}
		o.target = u.Host
		o.listen("127.0.0.1:0")
		u.Host = o.addr
		cfg.DatabaseURL = u.String()
		tb.Cleanup(o.stop)
	}
	s, err := models.Open(context.Background(), cfg)
	if err != nil {
		tb.Fatalf("open test database: %v", err)
	}
	tb.Cleanup(func() { s.Close() })
	if _, err := s.Migrate(context.Background()); err != nil {
		tb.Fatalf("migrate: %v", err)
	}
	o.store = s
	return s, o
}

// CanRestore reports whether the database can come back (PostgreSQL).
func (o *Outage) CanRestore() bool { return o.target != "" }

// Cut takes the database away: every open connection is closed and new
// ones are refused.
func (o *Outage) Cut() {
	if !o.CanRestore() {
		o.store.Close()
		return
	}
	o.mu.Lock()
	o.ln.Close()
	for _, c := range o.conns {
		c.Close()
	}
	o.conns = nil
	o.mu.Unlock()
}

// Drop closes every open connection but keeps accepting new ones: a
// network blip or a server restart the pool must recover from by itself.
func (o *Outage) Drop() {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, c := range o.conns {
		c.Close()
	}
	o.conns = nil
}

// Restore gives the database back on the same address.
func (o *Outage) Restore() {
	if !o.CanRestore() {
		o.tb.Fatal("an SQLite outage cannot be restored")
	}
	o.listen(o.addr)
}

func (o *Outage) listen(addr string) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		o.tb.Fatalf("outage proxy: %v", err)
	}
	o.mu.Lock()
	o.ln, o.addr = ln, ln.Addr().String()
	o.mu.Unlock()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("tcp", o.target)
			if err != nil {
				c.Close()
				continue
			}
			o.mu.Lock()
			if o.stopped {
				o.mu.Unlock()
				c.Close()
				up.Close()
				return
			}
			o.conns = append(o.conns, c, up)
			o.mu.Unlock()
			go func() { io.Copy(up, c); up.Close() }()
			go func() { io.Copy(c, up); c.Close() }()
		}
	}()
}

func (o *Outage) stop() {
	o.mu.Lock()
	o.stopped = true
	o.mu.Unlock()
	o.Cut()
}
