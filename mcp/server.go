// Package mcp is the Model Context Protocol edge: it turns a bearer token
// into a principal, mounts the go-sdk server (protocol 2026-07-28,
// stateless) and maps application errors to tool results. No game rule lives
// here: each tool makes one gameplay call.
package mcp

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/adventure-table/adventure-table/auth"
	"github.com/adventure-table/adventure-table/gameplay/limits"
	"github.com/adventure-table/adventure-table/gameplay/narrative"
	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// ProtocolVersion is the MCP revision this server is built for.
const ProtocolVersion = "2026-07-28"

// Principal is who a bearer token speaks for: an AI controller grant. The
// grant's authority over its seat is checked again by every gameplay call.
type Principal struct {
	GrantID int64
	// Caller, when the verifier sets it, is the verified caller carrying
	// the grant row it read, so the tool call does not read it again.
	Caller table.Caller
	// Solo is set for a solo grant's token (GrantID is then that grant's):
	// the one adventure or scenario it may touch.
	Solo *narrative.SoloAgent
}

// limitKey is the principal's key in the mcp call budget; table and solo
// grants number their ids apart.
func (p Principal) limitKey() string {
	if p.Solo != nil {
		return "solo:" + strconv.FormatInt(p.GrantID, 10)
	}
	return strconv.FormatInt(p.GrantID, 10)
}

// caller is the table caller the principal speaks as.
func (p Principal) caller() table.Caller {
	if p.Caller.GrantID == p.GrantID {
		return p.Caller
	}
	return table.AI(p.GrantID)
}

// TokenVerifier checks a bearer token. It returns an application error of
// kind unauthorized for a token that is unknown, revoked or expired.
type TokenVerifier func(ctx context.Context, token string) (Principal, error)

// NoGrants refuses every token: the verifier used when none is configured.
func NoGrants(context.Context, string) (Principal, error) {
	return Principal{}, apperr.E(apperr.Unauthorized, "This token is not valid for this server.")
}

// Options configures the MCP handler.
type Options struct {
	Version string
	Verify  TokenVerifier
	Logger  *slog.Logger
	// Table serves the table tools; without it a table token is offered
	// none.
	Table *table.Service
	// Narrative serves the solo tools and checks solo tokens (at_solo_…);
	// without it a solo token is refused.
	Narrative *narrative.Service
	// BehindLocalProxy disables go-sdk's DNS-rebinding guard. The guard
	// refuses (403) any request that reaches a loopback listener with a
	// non-loopback Host header, which is exactly what a reverse proxy on the
	// same machine forwards. Set it only when such a proxy is declared.
	BehindLocalProxy bool
	// Limits holds the hosted server's limits; each tool call spends one
	// of its grant's mcp budget. Nil (local mode) limits nothing.
	Limits *limits.Limits
}

// Instructions tell a connecting agent what this server is.
const Instructions = "Adventure Table: a role-playing table shared by humans and AI agents. " +
	"Connect with the bearer token of the seat you were given; every tool acts as that seat."

// NewHandler returns the http.Handler to mount at /mcp: cross-origin
// protection first (browsers from other origins get 403), then the bearer
// check (401 with WWW-Authenticate), then the SDK's stateless streamable
// HTTP handler.
func NewHandler(opts Options) http.Handler {
	if opts.Verify == nil {
		opts.Verify = NoGrants
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	// The SDK logs every stateless request at INFO; keep only its warnings.
	sdkLogger := slog.New(warnOnly{opts.Logger.Handler()})
	deps := toolDeps{table: opts.Table, narrative: opts.Narrative, logger: opts.Logger, limits: opts.Limits}
	// One server per kind of grant: tools/list answers with the tools the
	// token's grant can use, and a tool of another kind is unknown.
	tableServer := newServer(opts, sdkLogger, Instructions)
	addPrompts(tableServer)
	if opts.Table != nil {
		for _, t := range tools {
			t.register(tableServer, deps)
		}
	}
	adventureServer := newServer(opts, sdkLogger, adventureInstructions)
	scenarioServer := newServer(opts, sdkLogger, scenarioInstructions)
	if opts.Narrative != nil {
		for _, t := range adventureTools {
			t.register(adventureServer, deps)
		}
		for _, t := range scenarioTools {
			t.register(scenarioServer, deps)
		}
		addSoloPrompts(adventureServer, scenarioServer)
	}
	serverFor := func(r *http.Request) *mcpsdk.Server {
		p, _ := PrincipalFromContext(r.Context())
		switch {
		case p.Solo != nil && p.Solo.AdventureID != 0:
			return adventureServer
		case p.Solo != nil:
			return scenarioServer
		}
		return tableServer
	}
	streamable := mcpsdk.NewStreamableHTTPHandler(serverFor, &mcpsdk.StreamableHTTPOptions{
		// 2026-07-28 requires stateless servers; older clients still work
		// because the SDK fakes the session per request.
		Stateless: true,
		// A stage image travels in the call as base64: 10 MiB of image is
		// about 13.4 MiB of text.
		MaxRequestBodyBytes:        maxRequestBytes,
		DisableLocalhostProtection: opts.BehindLocalProxy,
		Logger:                     sdkLogger,
	})
	origin := http.NewCrossOriginProtection()
	origin.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeHTTPError(w, http.StatusForbidden, apperr.E(apperr.OriginForbidden, "Requests from another origin are not allowed."))
	}))
	inner := requireBearer(verifier(opts), streamable)
	guarded := origin.Handler(inner)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// A page served from this machine (any localhost origin) is not a
		// cross-site attacker: MCP carries no cookies, only bearer tokens,
		// and the spec expects local origins to be accepted. Every other
		// foreign origin is refused.
		if isLoopbackOrigin(r.Header.Get("Origin")) {
			inner.ServeHTTP(w, r)
			return
		}
		guarded.ServeHTTP(w, r)
	})
}

// verifier checks a solo token (at_solo_…) against its grant, and any
// other with opts.Verify.
func verifier(opts Options) TokenVerifier {
	return func(ctx context.Context, token string) (Principal, error) {
		if !strings.HasPrefix(token, auth.SoloGrantTokenPrefix) {
			return opts.Verify(ctx, token)
		}
		if opts.Narrative == nil {
			return NoGrants(ctx, token)
		}
		a, err := opts.Narrative.AuthenticateSoloGrant(ctx, token)
		if err != nil {
			return Principal{}, err
		}
		return Principal{GrantID: a.GrantID, Solo: &a}, nil
	}
}

// newServer is one go-sdk server with this server's options.
func newServer(opts Options, sdkLogger *slog.Logger, instructions string) *mcpsdk.Server {
	return mcpsdk.NewServer(&mcpsdk.Implementation{Name: "adventure-table", Version: opts.Version}, &mcpsdk.ServerOptions{
		Instructions: instructions,
		// Declared explicitly: with no capability set the SDK still answers
		// prompts/list, and conformance checks then demand the capability.
		Capabilities: &mcpsdk.ServerCapabilities{Prompts: &mcpsdk.PromptCapabilities{}, Tools: &mcpsdk.ToolCapabilities{}},
		// Discovery and the tool and prompt lists change only with a new
		// build: clients may keep them for a minute. "private" because they
		// are answered behind a bearer token.
		SetCacheable: func(_ context.Context, _ mcpsdk.Request, c *mcpsdk.Cacheable) {
			c.TTLMs, c.CacheScope = 60_000, "private"
		},
		Logger: sdkLogger,
	})
}

// isLoopbackOrigin reports whether an Origin header names this machine.
func isLoopbackOrigin(origin string) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return false
	}
	h := u.Hostname()
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

type principalKey struct{}

// PrincipalFromContext returns the principal the bearer middleware verified.
func PrincipalFromContext(ctx context.Context) (Principal, bool) {
	p, ok := ctx.Value(principalKey{}).(Principal)
	return p, ok
}

// requireBearer refuses requests without a valid bearer token. The token is
// never logged or echoed.
func requireBearer(verify TokenVerifier, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		token, ok := bearerToken(r.Header.Get("Authorization"))
		if !ok {
			w.Header().Set("WWW-Authenticate", `Bearer realm="adventure-table"`)
			writeHTTPError(w, http.StatusUnauthorized, apperr.E(apperr.Unauthorized, "A bearer token is required."))
			return
		}
		p, err := verify(r.Context(), token)
		if err != nil {
			if apperr.CodeOf(err).Kind() != apperr.KindUnauthorized {
				// A failing database must not look like a bad token.
				w.Header().Set("Retry-After", "5")
				writeHTTPError(w, http.StatusServiceUnavailable, apperr.E(apperr.DatabaseUnavailable, "The token could not be checked; try again."))
				return
			}
			w.Header().Set("WWW-Authenticate", `Bearer realm="adventure-table", error="invalid_token"`)
			writeHTTPError(w, http.StatusUnauthorized, err)
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), principalKey{}, p)))
	})
}

func bearerToken(header string) (string, bool) {
	scheme, token, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, token != ""
}

// maxRequestBytes bounds one MCP request body.
const maxRequestBytes = 15 << 20

// warnOnly passes on the SDK's records at warning level and above, and
// lowers to WARN the errors it logs for a client's protocol mistakes (a
// removed method, a duplicate initialize): the client is wrong, the server
// is fine.
type warnOnly struct{ slog.Handler }

var clientMistakes = map[string]bool{
	"method removed in the new protocol": true, "method invalid during initialization": true,
	"duplicate initialize request": true, "initialized before initialize": true, "duplicate initialized notification": true,
}

func (w warnOnly) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= slog.LevelWarn && w.Handler.Enabled(ctx, slog.LevelWarn)
}

func (w warnOnly) Handle(ctx context.Context, r slog.Record) error {
	if r.Level >= slog.LevelError && clientMistakes[r.Message] {
		lowered := slog.NewRecord(r.Time, slog.LevelWarn, r.Message, r.PC)
		r.Attrs(func(a slog.Attr) bool { lowered.AddAttrs(a); return true })
		r = lowered
	}
	return w.Handler.Handle(ctx, r)
}

func (w warnOnly) WithAttrs(attrs []slog.Attr) slog.Handler {
	return warnOnly{w.Handler.WithAttrs(attrs)}
}

func (w warnOnly) WithGroup(name string) slog.Handler { return warnOnly{w.Handler.WithGroup(name)} }
