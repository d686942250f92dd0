package main

import (
	"context"
	"fmt"
	"os"
	"testing"
)

// TestMain lets the test binary be the floor's child server, as atload is.
func TestMain(m *testing.M) {
	if addr := os.Getenv(floorServerEnv); addr != "" {
		if err := serveFloor(addr); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}
	os.Exit(m.Run())
}

// TestFloor: the floor's child serves streams and MCP waits in its own
// process, and every waiter receives every post, each with a latency.
func TestFloor(t *testing.T) {
	for _, mcp := range []bool{false, true} {
		res, err := runFloor(context.Background(), 20, 3, 50, mcp, t.Logf)
		if err != nil {
			t.Fatal(err)
		}
		if res.Missed != 0 || res.Wake.N != 20*3 || res.Wake.Max <= 0 {
			t.Fatalf("floor (mcp %v) %+v", mcp, res)
		}
	}
}
