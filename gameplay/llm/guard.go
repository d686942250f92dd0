package llm

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"
)

// PublicOnlyHTTPClient returns a client that connects only to public
// addresses. A hosted server uses it for users' endpoints, so a user cannot
// aim the server at its own network or a cloud metadata address (SSRF). The
// check runs on the address actually dialled, after DNS resolution, so DNS
// rebinding cannot slip past it. A local install, whose whole point is
// reaching Ollama on localhost, uses an ordinary client.
func PublicOnlyHTTPClient() *http.Client {
	dialer := &net.Dialer{Timeout: 15 * time.Second, Control: refuseNonPublic}
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.DialContext = dialer.DialContext
	transport.Proxy = nil // a proxy would dial for us, past the check
	return &http.Client{Transport: transport}
}

func refuseNonPublic(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("endpoint address %q: %w", address, err)
	}
	if !IsPublicAddr(ap.Addr()) {
		return fmt.Errorf("endpoint address %s is not a public address; this server only reaches public model endpoints", ap.Addr())
	}
	return nil
}

// IsPublicAddr reports whether a is a globally routable unicast address.
func IsPublicAddr(a netip.Addr) bool {
	a = a.Unmap()
	if !a.IsGlobalUnicast() || a.IsPrivate() || a.IsLoopback() || a.IsLinkLocalUnicast() {
		return false
	}
	// Carrier-grade NAT and the IPv6 unique-local range are not "private"
	// to netip but are not public either.
	cgnat := netip.MustParsePrefix("100.64.0.0/10")
	return !cgnat.Contains(a)
}
