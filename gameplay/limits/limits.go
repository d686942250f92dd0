// Package limits holds every rate limit of a hosted server in one place:
// the classes of request that have a budget, their default rules, the
// AT_LIMITS configuration string, and a keyed token-bucket limiter
// (golang.org/x/time/rate) per class. The edges (webui, mcp) choose the key
// — a client IP, a user, a grant — and call Allow; a refusal is the
// application error rate_limited with details.retry_after_seconds, which
// webui also sends as Retry-After.
//
// A local server has no limits at all (a nil *Limits allows everything): a
// laptop user is never throttled by their own app.
package limits

import (
	"context"
	"log/slog"
	"math"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/adventure-table/adventure-table/gameplay/analytics"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// Class names a kind of request with a budget of its own.
type Class string

// The classes. Each keeps its own buckets, so one key may be in several.
const (
	// IP: every /api and /mcp request, per client IP.
	IP Class = "ip"
	// Guest: new guest users, per client IP.
	Guest Class = "guest"
	// Join: joining a room by invite code, per client IP (invite codes
	// must not be guessable by brute force).
	Join Class = "join"
	// Create: creating a room, campaign, character, scenario or adventure,
	// per user.
	Create Class = "create"
	// Upload: stage image uploads, per user.
	Upload Class = "upload"
	// Turn: solo model turns (a turn or a retry), per user.
	Turn Class = "turn"
	// MCP: MCP tool calls, per AI grant.
	MCP Class = "mcp"
	// Login: login and register attempts, per client IP.
	Login Class = "login"
)

// Classes lists every class in the order AT_LIMITS is printed.
var Classes = []Class{IP, Guest, Join, Create, Upload, Turn, MCP, Login}

// Rule allows Events per Window on average, and at most Burst at once.
type Rule struct {
	Events int
	Window time.Duration
	Burst  int
}

// limit is the rule's refill rate in events per second.
func (r Rule) limit() rate.Limit { return rate.Limit(float64(r.Events) / r.Window.Seconds()) }

// String is the rule as AT_LIMITS writes it: events/window[:burst], the
// burst left out when it equals the events.
func (r Rule) String() string {
	s := itoa(r.Events) + "/" + shortDuration(r.Window)
	if r.Burst != r.Events {
		s += ":" + itoa(r.Burst)
	}
	return s
}

// Config is the rule of each limited class; a class absent from it is not
// limited. An empty Config limits nothing.
type Config map[Class]Rule

// Defaults are a hosted server's limits when AT_LIMITS is not set.
func Defaults() Config {
	return Config{
		IP:     {Events: 600, Window: time.Minute, Burst: 120},
		Guest:  {Events: 20, Window: time.Hour, Burst: 20},
		Join:   {Events: 20, Window: 10 * time.Minute, Burst: 20},
		Create: {Events: 60, Window: time.Hour, Burst: 60},
		Upload: {Events: 30, Window: time.Hour, Burst: 30},
		Turn:   {Events: 120, Window: time.Hour, Burst: 120},
		MCP:    {Events: 600, Window: time.Minute, Burst: 120},
		Login:  {Events: 30, Window: 10 * time.Minute, Burst: 30},
	}
}

// Limits is the keyed limiter of every configured class. Its methods are
// safe for concurrent use; a nil *Limits allows everything.
type Limits struct {
	now     func() time.Time
	classes map[Class]*keyed
	// refusals counts the refusals by class (analytics); nil counts none.
	refusals *analytics.Counter
	// shared, when set, holds every bucket in the database all processes
	// share (ShareThrough); the in-memory buckets are then its fallback.
	shared Shared
	log    *slog.Logger
}

// Shared keeps rate-limit buckets where every process of a deployment
// sees them (models.Store on PostgreSQL, by GCRA: one UPSERT a decision).
type Shared interface {
	TakeRate(ctx context.Context, class, key string, now time.Time, interval time.Duration, burst int) (time.Duration, error)
	SweepRateLimits(ctx context.Context, now time.Time) (int64, error)
}

// ShareThrough makes every decision in shared, so N processes on one
// database allow what one would, not N times as much. A decision the
// database cannot make (an outage) falls back to this process's bucket
// and is logged: limits never fail a request on their own.
func (l *Limits) ShareThrough(shared Shared, log *slog.Logger) {
	if l == nil {
		return
	}
	if log == nil {
		log = slog.Default()
	}
	l.shared, l.log = shared, log
}

// sharedTimeout bounds one shared decision.
const sharedTimeout = 2 * time.Second

// reserveShared asks the shared store; ok is false when it could not say.
func (l *Limits) reserveShared(k *keyed, key string, now time.Time) (time.Duration, bool) {
	ctx, cancel := context.WithTimeout(context.Background(), sharedTimeout)
	defer cancel()
	interval := time.Duration(float64(k.rule.Window) / float64(k.rule.Events))
	delay, err := l.shared.TakeRate(ctx, string(k.class), key, now, interval, k.rule.Burst)
	if err != nil {
		l.log.Warn("shared rate limit unavailable; this process's bucket decides", "class", k.class, "error", err)
		return 0, false
	}
	return delay, true
}

// Run sweeps the shared buckets that are full again every sweepEvery,
// off every request's path, until ctx ends; without shared buckets it
// returns at once.
func (l *Limits) Run(ctx context.Context) {
	if l == nil || l.shared == nil {
		return
	}
	t := time.NewTicker(sweepEvery)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			if _, err := l.shared.SweepRateLimits(ctx, l.now()); err != nil && ctx.Err() == nil {
				l.log.Warn("shared rate limits not swept", "error", err)
			}
		case <-ctx.Done():
			return
		}
	}
}

// CountRefusals counts every refusal from now on, by its class.
func (l *Limits) CountRefusals(c *analytics.Counter) {
	if l != nil {
		l.refusals = c
	}
}

// New builds the limiter of cfg. It returns nil (no limits) when cfg
// limits nothing. Rules are assumed valid (Parse checks them).
func New(cfg Config) *Limits {
	if len(cfg) == 0 {
		return nil
	}
	l := &Limits{now: time.Now, classes: map[Class]*keyed{}}
	for class, rule := range cfg {
		l.classes[class] = &keyed{class: class, rule: rule, limit: rule.limit(), entries: map[string]*entry{}, maxKeys: defaultMaxKeys}
	}
	return l
}

// Config returns the rules in force (empty for a nil *Limits).
func (l *Limits) Config() Config {
	cfg := Config{}
	if l != nil {
		for class, k := range l.classes {
			cfg[class] = k.rule
		}
	}
	return cfg
}

// Allow spends one event of key's budget in class. It returns nil, or
// rate_limited with details.retry_after_seconds (whole seconds, at least
// 1) when the budget is spent; a refused attempt costs nothing. A class
// that is not configured is never limited.
func (l *Limits) Allow(class Class, key string) error {
	if l == nil {
		return nil
	}
	k := l.classes[class]
	if k == nil {
		return nil
	}
	now := l.now()
	delay, decided := time.Duration(0), false
	if l.shared != nil {
		delay, decided = l.reserveShared(k, key, now)
	}
	if !decided {
		delay = k.reserve(now, key)
	}
	if delay <= 0 {
		return nil
	}
	l.refusals.Count(analytics.MetricRateLimited, string(class), 1)
	secs := int(math.Ceil(delay.Seconds()))
	return apperr.E(apperr.RateLimited, "Too many requests; try again in %d seconds.", secs).
		WithDetail("retry_after_seconds", secs).WithDetail("limit", string(class))
}

// Len is the number of keys class is tracking: the memory it holds.
func (l *Limits) Len(class Class) int {
	if l == nil || l.classes[class] == nil {
		return 0
	}
	k := l.classes[class]
	k.mu.Lock()
	defer k.mu.Unlock()
	return len(k.entries)
}

// Sweep drops, in every class, the buckets that are full again (a fresh
// bucket would behave the same) and returns how many it dropped. Allow
// sweeps by itself; Sweep is for tests and shutdown-free callers that want
// memory back at once.
func (l *Limits) Sweep() int {
	if l == nil {
		return 0
	}
	now, n := l.now(), 0
	for _, k := range l.classes {
		k.mu.Lock()
		n += k.sweep(now)
		k.mu.Unlock()
	}
	return n
}

// The sweep's tuning: a class sweeps when its map has doubled since the
// last sweep (and holds at least minSweepKeys), or sweepEvery after the
// last one; past defaultMaxKeys live buckets it drops the least recently
// seen eighth, so memory stays bounded even under a flood of fresh keys.
const (
	sweepEvery     = time.Minute
	minSweepKeys   = 1024
	defaultMaxKeys = 1 << 16
)

// keyed is one class: a bucket per key behind a mutex.
type keyed struct {
	class     Class
	rule      Rule
	limit     rate.Limit
	mu        sync.Mutex
	entries   map[string]*entry
	lastSweep time.Time
	afterLast int // keys left by the last sweep
	maxKeys   int
}

type entry struct {
	lim      *rate.Limiter
	lastSeen time.Time
}

// reserve takes one token for key at now and returns how long the caller
// would have to wait for it; a positive wait gives the token back.
func (k *keyed) reserve(now time.Time, key string) time.Duration {
	k.mu.Lock()
	defer k.mu.Unlock()
	if now.Sub(k.lastSweep) >= sweepEvery {
		k.sweep(now)
	}
	e := k.entries[key]
	if e == nil {
		if n := len(k.entries); n >= minSweepKeys && n >= 2*k.afterLast || n >= k.maxKeys {
			k.sweep(now)
		}
		e = &entry{lim: rate.NewLimiter(k.limit, k.rule.Burst)}
		k.entries[key] = e
	}
	e.lastSeen = now
	r := e.lim.ReserveN(now, 1)
	if !r.OK() {
		return k.rule.Window
	}
	delay := r.DelayFrom(now)
	if delay > 0 {
		r.CancelAt(now)
	}
	return delay
}

// sweep drops the buckets that are full again at now; if the class still
// holds maxKeys or more, it drops the least recently seen eighth as well
// (those keys start over with a full bucket: the price of bounded memory
// under a flood). Called with k.mu held.
func (k *keyed) sweep(now time.Time) int {
	before := len(k.entries)
	for key, e := range k.entries {
		if e.lim.TokensAt(now) >= float64(e.lim.Burst()) {
			delete(k.entries, key)
		}
	}
	if len(k.entries) >= k.maxKeys {
		type seen struct {
			key string
			at  time.Time
		}
		all := make([]seen, 0, len(k.entries))
		for key, e := range k.entries {
			all = append(all, seen{key, e.lastSeen})
		}
		slices.SortFunc(all, func(a, b seen) int { return a.at.Compare(b.at) })
		for _, s := range all[:max(1, len(all)/8)] {
			delete(k.entries, s.key)
		}
	}
	k.lastSweep, k.afterLast = now, len(k.entries)
	return before - len(k.entries)
}

// IPKey is the bucket key of a client address: an IPv4 address as is, an
// IPv6 address by its /64 (one subscriber usually holds a whole /64, so
// keying single addresses would hand out 2^64 buckets). Anything that is
// not an IP address is its own key.
func IPKey(addr string) string {
	ip, err := netip.ParseAddr(strings.TrimSpace(addr))
	if err != nil {
		return addr
	}
	ip = ip.Unmap().WithZone("")
	if ip.Is4() {
		return ip.String()
	}
	return netip.PrefixFrom(ip, 64).Masked().String()
}

// UserKey is a signed-in (or guest) user's bucket key: the same whichever
// door the request came through, so a user's turns in the browser and
// their agent's turns over MCP spend one budget.
func UserKey(userID int64) string { return "user:" + strconv.FormatInt(userID, 10) }
