package auth

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"strings"
)

// Sealed values carry a prefix naming their format. enc2 values also name
// the server secret that sealed them ("enc2:<key id>:<data>"), so a server
// whose secret was rotated can tell which of its secrets opens a value, and
// that a value should be sealed again under the current one. enc1 values
// ("enc1:<data>", sealed before key ids) still open; they report stale.
const (
	sealedPrefixV1 = "enc1:"
	sealedPrefixV2 = "enc2:"
)

// ErrSealedInvalid means a sealed value was not made with this server's
// secret (nor its previous one), or was altered.
var ErrSealedInvalid = errors.New("auth: sealed value cannot be opened with this server secret")

// KeyID names a server secret in the values it seals: the first 8 hex
// digits of SHA-256 over a purpose-tagged HMAC of the secret. It is
// one-way and says nothing about the secret beyond telling two apart.
func KeyID(secret []byte) string {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte("adventure-table seal key id v1"))
	sum := sha256.Sum256(m.Sum(nil))
	return hex.EncodeToString(sum[:4])
}

// sealKey derives the AES-256 key for one purpose from the server secret, so
// a key sealed for one use cannot be opened as another.
func sealKey(secret []byte, purpose string) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte("adventure-table seal v1\x00" + purpose))
	return m.Sum(nil)
}

// sealCipher is AES-256-GCM under the purpose's key.
func sealCipher(secret []byte, purpose string) (cipher.AEAD, error) {
	block, err := aes.NewCipher(sealKey(secret, purpose))
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}

// Sealer seals with the current server secret and opens with it or, after
// a rotation, with the previous one (AT_SECRET_PREVIOUS).
type Sealer struct {
	current  []byte
	previous []byte // nil when none
}

// NewSealer seals with current; previous (nil or empty for none) still
// opens what it sealed.
func NewSealer(current, previous []byte) *Sealer {
	if len(previous) == 0 || hmac.Equal(previous, current) {
		previous = nil
	}
	return &Sealer{current: current, previous: previous}
}

// Seal encrypts plaintext (a user's API key) for storage with AES-256-GCM
// under a key derived from the current server secret. The purpose and the
// secret's key id are bound into the ciphertext. An empty plaintext seals
// to "".
func (s *Sealer) Seal(purpose, plaintext string) (string, error) {
	if plaintext == "" {
		return "", nil
	}
	gcm, err := sealCipher(s.current, purpose)
	if err != nil {
		return "", err
	}
	nonce := make([]byte, gcm.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return "", err
	}
	kid := KeyID(s.current)
	sealed := gcm.Seal(nonce, nonce, []byte(plaintext), aadV2(purpose, kid))
	return sealedPrefixV2 + kid + ":" + base64.RawStdEncoding.EncodeToString(sealed), nil
}

// Open reverses Seal. stale is true when the value opened but was not
// sealed by the current secret in the current format (the previous secret
// sealed it, or it predates key ids): seal it again. "" opens to "".
func (s *Sealer) Open(purpose, sealed string) (plain string, stale bool, err error) {
	if sealed == "" {
		return "", false, nil
	}
	if rest, ok := strings.CutPrefix(sealed, sealedPrefixV2); ok {
		kid, data, ok := strings.Cut(rest, ":")
		if !ok {
			return "", false, ErrSealedInvalid
		}
		switch {
		case kid == KeyID(s.current):
			plain, err = openWith(s.current, purpose, data, aadV2(purpose, kid))
			return plain, false, err
		case s.previous != nil && kid == KeyID(s.previous):
			plain, err = openWith(s.previous, purpose, data, aadV2(purpose, kid))
			return plain, err == nil, err
		}
		return "", false, ErrSealedInvalid
	}
	if data, ok := strings.CutPrefix(sealed, sealedPrefixV1); ok {
		// No key id: try each secret.
		if plain, err = openWith(s.current, purpose, data, []byte(purpose)); err == nil {
			return plain, true, nil
		}
		if s.previous != nil {
			if plain, err = openWith(s.previous, purpose, data, []byte(purpose)); err == nil {
				return plain, true, nil
			}
		}
		return "", false, ErrSealedInvalid
	}
	return "", false, ErrSealedInvalid
}

func aadV2(purpose, kid string) []byte { return []byte(purpose + "\x00" + kid) }

func openWith(secret []byte, purpose, data string, aad []byte) (string, error) {
	raw, err := base64.RawStdEncoding.DecodeString(data)
	if err != nil {
		return "", ErrSealedInvalid
	}
	gcm, err := sealCipher(secret, purpose)
	if err != nil {
		return "", err
	}
	if len(raw) < gcm.NonceSize() {
		return "", ErrSealedInvalid
	}
	plain, err := gcm.Open(nil, raw[:gcm.NonceSize()], raw[gcm.NonceSize():], aad)
	if err != nil {
		return "", ErrSealedInvalid
	}
	return string(plain), nil
}

// SealSecret seals with secret alone (NewSealer(secret, nil).Seal).
func SealSecret(secret []byte, purpose, plaintext string) (string, error) {
	return NewSealer(secret, nil).Seal(purpose, plaintext)
}

// OpenSecret opens with secret alone; see Sealer.Open for rotation.
func OpenSecret(secret []byte, purpose, sealed string) (string, error) {
	plain, _, err := NewSealer(secret, nil).Open(purpose, sealed)
	return plain, err
}
