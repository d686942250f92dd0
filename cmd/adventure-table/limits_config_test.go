package main

import (
	"strings"
	"testing"

	"github.com/adventure-table/adventure-table/gameplay/limits"
)

// TestLimitsConfig: a hosted server has the default limits unless
// AT_LIMITS changes them; a local one has none whatever AT_LIMITS says; a
// bad AT_LIMITS stops either with one line naming it.
func TestLimitsConfig(t *testing.T) {
	secret := strings.Repeat("s", 40)
	hosted := func(limitsEnv string) map[string]string {
		env := map[string]string{"AT_MODE": "hosted", "AT_SECRET": secret, "AT_TLS_PROXY": "1"}
		if limitsEnv != "" {
			env["AT_LIMITS"] = limitsEnv
		}
		return env
	}
	for _, tt := range []struct {
		name string
		env  map[string]string
		args []string
		want string // Config.Limits.String()
	}{
		{"HostedDefaults", hosted(""), nil, limits.Defaults().String()},
		{"HostedOverride", hosted("join=5/10m,turn=off"), nil,
			strings.NewReplacer("join=20/10m", "join=5/10m", "turn=120/1h", "turn=off").Replace(limits.Defaults().String())},
		{"HostedOff", hosted("off"), nil, "off"},
		{"FlagWins", hosted("off"), []string{"-limits", "ip=10/1m"}, strings.Replace(limits.Defaults().String(), "ip=600/1m:120", "ip=10/1m", 1)},
		{"LocalNone", map[string]string{}, nil, "off"},
		{"LocalIgnoresAT_LIMITS", map[string]string{"AT_LIMITS": "ip=1/1h"}, nil, "off"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := LoadConfig(envFunc(tt.env), tt.args)
			if err != nil {
				t.Fatal(err)
			}
			if got := c.Limits.String(); got != tt.want {
				t.Fatalf("limits %s, want %s", got, tt.want)
			}
			if (limits.New(c.Limits) == nil) != (tt.want == "off") {
				t.Fatalf("limits.New(%s) on/off is wrong", c.Limits)
			}
		})
	}
	for _, env := range []map[string]string{hosted("join=fast"), {"AT_LIMITS": "dance=1/1m"}} {
		_, err := LoadConfig(envFunc(env), nil)
		if err == nil || !strings.HasPrefix(err.Error(), "AT_LIMITS: ") || strings.ContainsAny(err.Error(), "\r\n") {
			t.Fatalf("AT_LIMITS=%q: got %v, want one line naming AT_LIMITS", env["AT_LIMITS"], err)
		}
	}
}
