package llm

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"

	"code.dny.dev/ssrf"

	"github.com/adventure-table/adventure-table/gameplay/llm/llmtest"
)

// TestIsPublicAddr walks the IANA IPv4 and IPv6 special-purpose registries
// (and the forms that embed an IPv4 address in IPv6): one address of each
// non-global block is refused, real public addresses are allowed.
func TestIsPublicAddr(t *testing.T) {
	tests := []struct {
		addr string
		want bool
	}{
		// Public.
		{"8.8.8.8", true}, {"1.1.1.1", true}, {"93.184.215.14", true}, {"2606:4700::1111", true}, {"2a00:1450:4001::64", true},
		// IPv4 special-purpose registry.
		{"0.0.0.0", false}, {"0.1.2.3", false}, // 0.0.0.0/8 this network
		{"10.1.2.3", false}, {"172.16.0.1", false}, {"172.31.255.255", false}, {"192.168.1.1", false}, // RFC 1918
		{"100.64.0.1", false}, {"100.127.255.254", false}, // 100.64.0.0/10 shared (CGNAT)
		{"127.0.0.1", false}, {"127.1.2.3", false}, // loopback
		{"169.254.169.254", false},                   // link-local, cloud metadata
		{"192.0.0.1", false}, {"192.0.0.170", false}, // 192.0.0.0/24 IETF protocol assignments
		{"192.0.2.1", false}, {"198.51.100.1", false}, {"203.0.113.1", false}, // documentation
		{"192.88.99.1", false},                           // 6to4 relay anycast (deprecated)
		{"198.18.0.1", false}, {"198.19.255.254", false}, // 198.18.0.0/15 benchmarking
		{"240.0.0.1", false}, {"255.255.255.255", false}, // reserved, broadcast
		{"224.0.0.1", false}, {"239.255.255.250", false}, // multicast
		// IPv6 special-purpose registry and what lies outside global unicast.
		{"::", false}, {"::1", false}, // unspecified, loopback
		{"::ffff:127.0.0.1", false}, {"::ffff:10.0.0.1", false}, {"::ffff:8.8.8.8", false}, // ::ffff:0:0/96 IPv4-mapped
		{"::127.0.0.1", false}, {"::7f00:1", false}, // ::/96 IPv4-compatible (deprecated)
		{"64:ff9b::7f00:1", false}, {"64:ff9b::a00:1", false}, {"64:ff9b::808:808", false}, // 64:ff9b::/96 NAT64
		{"64:ff9b:1::1", false},                  // 64:ff9b:1::/48 local-use NAT64
		{"100::1", false},                        // 100::/64 discard-only
		{"2001::1", false}, {"2001:2::1", false}, // 2001::/23 IETF protocol assignments (Teredo, benchmarking)
		{"2001:db8::1", false}, {"3fff::1", false}, // documentation
		{"2002:7f00:1::", false}, {"2002:a00:1::1", false}, // 2002::/16 6to4
		{"5f00::1", false},                           // SRv6 SIDs
		{"fc00::1", false}, {"fd00:ec2::254", false}, // fc00::/7 unique-local
		{"fe80::1", false}, {"fec0::1", false}, // link-local, site-local
		{"ff02::1", false}, // multicast
	}
	for _, tt := range tests {
		if got := IsPublicAddr(netip.MustParseAddr(tt.addr)); got != tt.want {
			t.Errorf("IsPublicAddr(%s) = %v, want %v", tt.addr, got, tt.want)
		}
	}
}

// canary is a loopback listener standing for a service inside the server's
// network; it counts the connections it accepts.
func canary(t *testing.T) (port string, accepted *atomic.Int32) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	accepted = &atomic.Int32{}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			c.Close()
		}
	}()
	_, port, _ = net.SplitHostPort(ln.Addr().String())
	return port, accepted
}

// TestPublicOnlyClientRefusesEmbeddedLoopback dials a listener on 127.0.0.1
// through every spelling that reaches (or would, through a NAT64 or 6to4
// gateway) 127.0.0.1: each is refused at the dialer, the listener sees no
// connection.
func TestPublicOnlyClientRefusesEmbeddedLoopback(t *testing.T) {
	port, accepted := canary(t)
	client := PublicOnlyHTTPClient()
	for _, host := range []string{
		"127.0.0.1", "localhost", "0.0.0.0", "[::]", "[::1]",
		"[::ffff:127.0.0.1]", "[::ffff:7f00:1]", "[::127.0.0.1]",
		"[64:ff9b::7f00:1]", "[64:ff9b:1::7f00:1]", "[2002:7f00:1::]",
	} {
		t.Run(host, func(t *testing.T) {
			resp, err := client.Get("http://" + host + ":" + port + "/v1/models")
			if err == nil {
				resp.Body.Close()
				t.Fatalf("got %s, want the dial refused", resp.Status)
			}
			if !errors.Is(err, ssrf.ErrProhibitedIP) || !strings.Contains(err.Error(), "not a public address") {
				t.Fatalf("err = %v, want the guard's refusal", err)
			}
		})
	}
	if n := accepted.Load(); n != 0 {
		t.Fatalf("the loopback listener accepted %d connections", n)
	}
}

// TestPublicOnlyClientRefusesRedirectInward: a server the guard lets through
// (127.0.0.2 stands in for a public address) redirects to a loopback
// listener; the hop is dialled through the same check and refused.
func TestPublicOnlyClientRefusesRedirectInward(t *testing.T) {
	port, accepted := canary(t)
	outside, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Skipf("cannot listen on 127.0.0.2: %v", err)
	}
	var hops atomic.Int32
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hops.Add(1)
		http.Redirect(w, r, "http://127.0.0.1:"+port+"/v1/models", http.StatusFound)
	})}
	go srv.Serve(outside)
	t.Cleanup(func() { srv.Close() })

	g := ssrf.New(ssrf.WithAnyPort(), ssrf.WithAllowedV4Prefixes(netip.MustParsePrefix("127.0.0.2/32")))
	resp, err := guardedClient(g).Get("http://" + outside.Addr().String() + "/v1/models")
	if err == nil {
		resp.Body.Close()
		t.Fatalf("got %s, want the redirect refused", resp.Status)
	}
	if !errors.Is(err, ssrf.ErrProhibitedIP) {
		t.Fatalf("err = %v, want the guard's refusal", err)
	}
	if hops.Load() != 1 || accepted.Load() != 0 {
		t.Fatalf("outside server answered %d times, loopback listener accepted %d connections; want 1 and 0", hops.Load(), accepted.Load())
	}
}

// A hosted server's client refuses to reach a model endpoint on loopback,
// where the fake (like any internal service) listens, and says why.
func TestPublicOnlyClientRefusesLoopback(t *testing.T) {
	fake := llmtest.New(t)
	fake.Push(llmtest.Reply{Chunks: []string{"never"}, FinishReason: "stop"})
	_, err := NewOpenAI(PublicOnlyHTTPClient()).Stream(context.Background(), Settings{BaseURL: fake.URL(), Model: "m", MaxOutputTokens: 10}, Request{Messages: []Message{{Role: RoleUser, Content: "hi"}}}, func(Event) {})
	var le *Error
	if !errors.As(err, &le) || le.Kind != KindUnavailable || !strings.Contains(le.Message, "not a public address") {
		t.Fatalf("err = %v, want unavailable naming the refused address", err)
	}
	if n := len(fake.Requests()); n != 0 {
		t.Fatalf("the fake received %d requests", n)
	}
}
