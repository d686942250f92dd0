package limits

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Bounds of a rule in AT_LIMITS.
const (
	maxEvents = 1_000_000
	minWindow = time.Second
	maxWindow = 24 * time.Hour
)

// Parse reads AT_LIMITS: empty means Defaults; "off" limits nothing;
// otherwise a comma-separated list of class=events/window[:burst] (window a
// Go duration such as 1m, 10m or 1h; burst, the most at once, defaults to
// events) or class=off, each changing one class of Defaults. For example
// "ip=600/1m:120,join=20/10m,turn=off".
func Parse(s string) (Config, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Defaults(), nil
	}
	if s == "off" {
		return Config{}, nil
	}
	cfg := Defaults()
	seen := map[Class]bool{}
	for item := range strings.SplitSeq(s, ",") {
		name, spec, ok := strings.Cut(strings.TrimSpace(item), "=")
		if !ok {
			return nil, fmt.Errorf("%q is not class=events/window[:burst] or class=off (or the whole value \"off\")", strings.TrimSpace(item))
		}
		class := Class(strings.TrimSpace(name))
		if !known(class) {
			return nil, fmt.Errorf("unknown class %q; the classes are %s", class, classList())
		}
		if seen[class] {
			return nil, fmt.Errorf("class %s is given twice", class)
		}
		seen[class] = true
		spec = strings.TrimSpace(spec)
		if spec == "off" {
			delete(cfg, class)
			continue
		}
		rule, err := parseRule(spec)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", class, err)
		}
		cfg[class] = rule
	}
	return cfg, nil
}

// parseRule reads events/window[:burst].
func parseRule(spec string) (Rule, error) {
	events, rest, ok := strings.Cut(spec, "/")
	if !ok {
		return Rule{}, fmt.Errorf("%q is not events/window[:burst] (such as 20/10m or 600/1m:120) or off", spec)
	}
	window, burst, hasBurst := strings.Cut(rest, ":")
	var r Rule
	var err error
	if r.Events, err = count(events); err != nil {
		return Rule{}, fmt.Errorf("events: %w", err)
	}
	r.Window, err = time.ParseDuration(window)
	if err != nil || r.Window < minWindow || r.Window > maxWindow {
		return Rule{}, fmt.Errorf("window %q must be a duration from %s to %s, such as 1m, 10m or 1h", window, minWindow, shortDuration(maxWindow))
	}
	r.Burst = r.Events
	if hasBurst {
		if r.Burst, err = count(burst); err != nil {
			return Rule{}, fmt.Errorf("burst: %w", err)
		}
	}
	return r, nil
}

// count reads a whole number from 1 to maxEvents.
func count(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > maxEvents {
		return 0, fmt.Errorf("%q must be a whole number from 1 to %d", s, maxEvents)
	}
	return n, nil
}

// Validate checks rules built in code the way Parse checks a string.
func (c Config) Validate() error {
	for class, r := range c {
		if !known(class) {
			return fmt.Errorf("unknown class %q", class)
		}
		if r.Events < 1 || r.Events > maxEvents || r.Burst < 1 || r.Burst > maxEvents || r.Window < minWindow || r.Window > maxWindow {
			return fmt.Errorf("%s: %s is out of bounds", class, r)
		}
	}
	return nil
}

// String writes c as Parse reads it: "off", or every class in order (a
// class without a rule as class=off).
func (c Config) String() string {
	if len(c) == 0 {
		return "off"
	}
	parts := make([]string, 0, len(Classes))
	for _, class := range Classes {
		if r, ok := c[class]; ok {
			parts = append(parts, string(class)+"="+r.String())
		} else {
			parts = append(parts, string(class)+"=off")
		}
	}
	return strings.Join(parts, ",")
}

func known(c Class) bool {
	for _, k := range Classes {
		if k == c {
			return true
		}
	}
	return false
}

func classList() string {
	names := make([]string, len(Classes))
	for i, c := range Classes {
		names[i] = string(c)
	}
	return strings.Join(names, ", ")
}

func itoa(n int) string { return strconv.Itoa(n) }

// shortDuration writes d without zero units: 1m, 10m, 1h, 1h30m, 90s stays
// 1m30s.
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
