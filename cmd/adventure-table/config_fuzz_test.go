package main

import (
	"net"
	"strings"
	"testing"
)

// FuzzLoadConfig: whatever the environment says, LoadConfig never panics;
// it either returns a usable configuration or one line naming a variable.
func FuzzLoadConfig(f *testing.F) {
	f.Add("local", "127.0.0.1:8080", "", "", "", "text")
	f.Add("hosted", ":8080", "1", "10.0.0.0/8", "postgres://u:p@h/db", "json")
	f.Add("cloud", "8080", "maybe", "x", "mysql://", "xml")
	f.Add("local", "[::1]:0", "0", "::1, 192.168.1.1", "", "")
	f.Fuzz(func(t *testing.T, mode, addr, tlsDev, proxies, dbURL, logFormat string) {
		env := map[string]string{
			"AT_MODE": mode, "AT_ADDR": addr, "AT_TLS_DEV": tlsDev, "AT_TRUSTED_PROXIES": proxies,
			"AT_DATABASE_URL": dbURL, "AT_LOG_FORMAT": logFormat, "AT_SECRET": strings.Repeat("k", 32),
		}
		c, err := LoadConfig(envFunc(env), nil)
		if err != nil {
			name, _, ok := strings.Cut(err.Error(), ":")
			if !ok || (!strings.HasPrefix(name, "AT_") && name != "flags") {
				t.Fatalf("error does not name a variable: %q", err)
			}
			if strings.ContainsAny(err.Error(), "\n\r") {
				t.Fatalf("error spans lines: %q", err)
			}
			return
		}
		if c.Mode != "local" && c.Mode != "hosted" {
			t.Fatalf("accepted mode %q", c.Mode)
		}
		if _, _, err := net.SplitHostPort(c.Addr); err != nil {
			t.Fatalf("accepted address %q", c.Addr)
		}
		if c.LogFormat != "text" && c.LogFormat != "json" {
			t.Fatalf("accepted log format %q", c.LogFormat)
		}
	})
}
