package limits

import (
	"maps"
	"testing"
)

// FuzzParse: Parse never panics; what it accepts is valid, prints in the
// form it reads, and reads back to the same rules.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"", "off", "ip=600/1m:120,join=20/10m", "turn=off", "guest=3/60m:3", "login=10/90s:2",
		"ip=1/1s", "mcp=1000000/24h:1000000", "ip=1/1m,ip=2/1m", "ip=1/1.5s", "create=+5/+1h"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		cfg, err := Parse(s)
		if err != nil {
			return
		}
		if err := cfg.Validate(); err != nil {
			t.Fatalf("Parse(%q) accepted an invalid config: %v", s, err)
		}
		printed := cfg.String()
		again, err := Parse(printed)
		if err != nil {
			t.Fatalf("Parse(%q) printed %q, which does not parse: %v", s, printed, err)
		}
		if !maps.Equal(cfg, again) {
			t.Fatalf("Parse(%q) = %v, printed %q, read back as %v", s, cfg, printed, again)
		}
		for _, r := range cfg {
			if r.limit() <= 0 {
				t.Fatalf("Parse(%q): rule %s has no refill", s, r)
			}
		}
	})
}
