package llm

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"

	"code.dny.dev/ssrf"
)

// publicOnly is the SSRF guard of a hosted server. code.dny.dev/ssrf denies
// every prefix of the IANA IPv4 and IPv6 Special-Purpose Address Registries
// (its table is generated from them: private, shared 100.64/10, loopback,
// link-local, 192.0.0/24, documentation, benchmarking 198.18/15, 240/4,
// 6to4 2002::/16, 2001::/23, 3fff::/20, …) plus multicast, and reaches IPv6
// only inside global unicast 2000::/3, which leaves out ::/96
// (IPv4-compatible, ::127.0.0.1), ::ffff:0:0/96 (IPv4-mapped), NAT64
// 64:ff9b::/96 and 64:ff9b:1::/48 (64:ff9b::7f00:1 is 127.0.0.1), ULA,
// link-local and multicast. Any port: a model endpoint may listen on 11434
// or 8000 as well as 443.
var publicOnly = ssrf.New(ssrf.WithAnyPort())

// PublicOnlyHTTPClient returns a client that connects only to public
// addresses. A hosted server uses it for users' endpoints, so a user cannot
// aim the server at its own network or a cloud metadata address (SSRF). The
// check runs in the dialer's Control, on the address actually dialled after
// DNS resolution, for every connection (each redirect hop included), so
// neither DNS rebinding nor a redirect can slip past it. A local install,
// whose whole point is reaching Ollama on localhost, uses an ordinary client.
func PublicOnlyHTTPClient() *http.Client { return guardedClient(publicOnly) }

// guardedClient is PublicOnlyHTTPClient with the guard as a parameter, so a
// test can let one loopback address through as a stand-in public server.
func guardedClient(g *ssrf.Guardian) *http.Client {
	dialer := &net.Dialer{Timeout: 15 * time.Second, Control: func(network, address string, c syscall.RawConn) error {
		if err := g.Safe(network, address, c); err != nil {
			return fmt.Errorf("endpoint address %s is not a public address; this server only reaches public model endpoints: %w", address, err)
		}
		return nil
	}}
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.DialContext = dialer.DialContext
	transport.Proxy = nil // a proxy would dial for us, past the check
	return &http.Client{Transport: transport}
}

// IsPublicAddr reports whether a hosted server may connect to a: an address
// that no IANA special-purpose registry entry covers (see publicOnly).
func IsPublicAddr(a netip.Addr) bool { return publicOnly.SafeAddr(a) == nil }
