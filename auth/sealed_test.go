package auth

import (
	"errors"
	"strings"
	"testing"
)

func TestSealRoundTripAndTamper(t *testing.T) {
	secret := []byte(strings.Repeat("s", 40))
	sealed, err := SealSecret(secret, "api-key", "sk-test-123456")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(sealed, "sk-test") {
		t.Fatalf("sealed value shows the plaintext: %q", sealed)
	}
	again, _ := SealSecret(secret, "api-key", "sk-test-123456")
	if again == sealed {
		t.Fatal("two seals of one value are equal: the nonce is not random")
	}
	got, err := OpenSecret(secret, "api-key", sealed)
	if err != nil || got != "sk-test-123456" {
		t.Fatalf("open = %q, %v", got, err)
	}
	if _, err := OpenSecret([]byte(strings.Repeat("t", 40)), "api-key", sealed); !errors.Is(err, ErrSealedInvalid) {
		t.Fatalf("another server secret opened it: %v", err)
	}
	if _, err := OpenSecret(secret, "other-purpose", sealed); !errors.Is(err, ErrSealedInvalid) {
		t.Fatalf("another purpose opened it: %v", err)
	}
	tampered := sealed[:len(sealed)-2] + "AA"
	if _, err := OpenSecret(secret, "api-key", tampered); !errors.Is(err, ErrSealedInvalid) {
		t.Fatalf("tampered value opened: %v", err)
	}
	if s, _ := SealSecret(secret, "api-key", ""); s != "" {
		t.Fatalf("empty seals to %q", s)
	}
}
