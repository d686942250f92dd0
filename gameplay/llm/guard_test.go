package llm

import (
	"context"
	"errors"
	"net/netip"
	"strings"
	"testing"

	"github.com/adventure-table/adventure-table/gameplay/llm/llmtest"
)

func TestIsPublicAddr(t *testing.T) {
	for addr, want := range map[string]bool{
		"8.8.8.8": true, "2606:4700::1111": true,
		"127.0.0.1": false, "10.1.2.3": false, "192.168.1.1": false, "172.16.0.1": false, "169.254.169.254": false,
		"100.64.0.1": false, "::1": false, "fd00::1": false, "fe80::1": false, "0.0.0.0": false, "::ffff:127.0.0.1": false,
	} {
		if got := IsPublicAddr(netip.MustParseAddr(addr)); got != want {
			t.Errorf("IsPublicAddr(%s) = %v, want %v", addr, got, want)
		}
	}
}

// A hosted server's client refuses to reach a model endpoint on loopback,
// where the fake (like any internal service) listens.
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
