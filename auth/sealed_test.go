package auth

import (
	"encoding/base64"
	"encoding/hex"
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

// sealV1 is how values were sealed before key ids: "enc1:" and the purpose
// alone as additional data.
func sealV1(t *testing.T, secret []byte, purpose, plaintext string) string {
	t.Helper()
	gcm, err := sealCipher(secret, purpose)
	if err != nil {
		t.Fatal(err)
	}
	nonce := make([]byte, gcm.NonceSize())
	sealed := gcm.Seal(nonce, nonce, []byte(plaintext), []byte(purpose))
	return sealedPrefixV1 + base64.RawStdEncoding.EncodeToString(sealed)
}

func TestSealedKeyIDAndRotation(t *testing.T) {
	oldSecret := []byte(strings.Repeat("o", 40))
	newSecret := []byte(strings.Repeat("n", 40))
	otherSecret := []byte(strings.Repeat("x", 40))

	// The key id: 8 hex digits, stable for a secret, different between
	// secrets, and not a prefix of anything derived from the secret alone.
	kid := KeyID(oldSecret)
	if len(kid) != 8 || strings.Trim(kid, "0123456789abcdef") != "" || KeyID(oldSecret) != kid || KeyID(newSecret) == kid {
		t.Fatalf("key ids %q %q", kid, KeyID(newSecret))
	}
	if s := hex.EncodeToString(oldSecret); strings.Contains(s, kid) {
		t.Fatal("the key id shows the secret")
	}

	old := NewSealer(oldSecret, nil)
	sealed, err := old.Seal("api-key", "sk-rotate-me")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(sealed, "enc2:"+kid+":") {
		t.Fatalf("sealed value %q does not name its secret %s", sealed, kid)
	}
	if plain, stale, err := old.Open("api-key", sealed); err != nil || stale || plain != "sk-rotate-me" {
		t.Fatalf("open under its own secret = %q, %v, %v", plain, stale, err)
	}

	// Rotated: the new secret alone cannot open it...
	if _, _, err := NewSealer(newSecret, nil).Open("api-key", sealed); !errors.Is(err, ErrSealedInvalid) {
		t.Fatalf("the new secret alone opened an old value: %v", err)
	}
	// ...with the previous one configured it opens and says "seal again".
	rotated := NewSealer(newSecret, oldSecret)
	plain, stale, err := rotated.Open("api-key", sealed)
	if err != nil || !stale || plain != "sk-rotate-me" {
		t.Fatalf("open after rotation = %q, stale %v, %v", plain, stale, err)
	}
	resealed, err := rotated.Seal("api-key", plain)
	if err != nil || !strings.HasPrefix(resealed, "enc2:"+KeyID(newSecret)+":") {
		t.Fatalf("resealed %q, %v", resealed, err)
	}
	if _, stale, err := rotated.Open("api-key", resealed); err != nil || stale {
		t.Fatalf("resealed value: stale %v, %v", stale, err)
	}
	// Once the previous secret is dropped, the resealed value still opens.
	if p, err := OpenSecret(newSecret, "api-key", resealed); err != nil || p != "sk-rotate-me" {
		t.Fatalf("resealed under the new secret alone = %q, %v", p, err)
	}

	// A wrong secret fails, current or previous, and so does a key id
	// pointed at the other secret (the id is bound into the ciphertext).
	for name, s := range map[string]*Sealer{"other": NewSealer(otherSecret, nil), "other+other": NewSealer(otherSecret, []byte(strings.Repeat("y", 40)))} {
		if _, _, err := s.Open("api-key", sealed); !errors.Is(err, ErrSealedInvalid) {
			t.Fatalf("%s opened it: %v", name, err)
		}
	}
	relabelled := strings.Replace(sealed, kid, KeyID(newSecret), 1)
	if _, _, err := rotated.Open("api-key", relabelled); !errors.Is(err, ErrSealedInvalid) {
		t.Fatalf("a relabelled key id opened: %v", err)
	}
	for _, bad := range []string{"enc2:" + kid, "enc2:" + kid + ":!!", "enc3:" + kid + ":AAAA", "sk-plaintext"} {
		if _, _, err := rotated.Open("api-key", bad); !errors.Is(err, ErrSealedInvalid) {
			t.Fatalf("%q opened: %v", bad, err)
		}
	}
	if _, _, err := rotated.Open("other-purpose", sealed); !errors.Is(err, ErrSealedInvalid) {
		t.Fatalf("another purpose opened it: %v", err)
	}

	// Values sealed before key ids still open, under either secret, and
	// report stale so they are sealed again with an id.
	for _, s := range [][]byte{newSecret, oldSecret} {
		v1 := sealV1(t, s, "api-key", "sk-legacy")
		if plain, stale, err := rotated.Open("api-key", v1); err != nil || !stale || plain != "sk-legacy" {
			t.Fatalf("enc1 value = %q, stale %v, %v", plain, stale, err)
		}
	}
	if _, _, err := NewSealer(otherSecret, nil).Open("api-key", sealV1(t, oldSecret, "api-key", "sk-legacy")); !errors.Is(err, ErrSealedInvalid) {
		t.Fatalf("an enc1 value opened under a wrong secret: %v", err)
	}
	// The same secret as previous is no previous at all.
	if s := NewSealer(newSecret, newSecret); s.previous != nil {
		t.Fatal("a previous secret equal to the current one was kept")
	}
}
