package auth

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strings"
)

// sealedPrefix marks a stored secret sealed with SealSecret, so a future
// format (or a legacy plaintext row) stays recognisable.
const sealedPrefix = "enc1:"

// ErrSealedInvalid means a sealed value was not made with this server secret
// (the secret changed) or was altered.
var ErrSealedInvalid = errors.New("auth: sealed value cannot be opened with this server secret")

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

// SealSecret encrypts plaintext (a user's API key) for storage with AES-256-GCM
// under a key derived from the server secret. The purpose is bound into the
// key and the ciphertext. An empty plaintext seals to "".
func SealSecret(secret []byte, purpose, plaintext string) (string, error) {
	if plaintext == "" {
		return "", nil
	}
	gcm, err := sealCipher(secret, purpose)
	if err != nil {
		return "", err
	}
	nonce := make([]byte, gcm.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return "", err
	}
	sealed := gcm.Seal(nonce, nonce, []byte(plaintext), []byte(purpose))
	return sealedPrefix + base64.RawStdEncoding.EncodeToString(sealed), nil
}

// OpenSecret reverses SealSecret. "" opens to "".
func OpenSecret(secret []byte, purpose, sealed string) (string, error) {
	if sealed == "" {
		return "", nil
	}
	raw, ok := strings.CutPrefix(sealed, sealedPrefix)
	if !ok {
		return "", ErrSealedInvalid
	}
	data, err := base64.RawStdEncoding.DecodeString(raw)
	if err != nil {
		return "", ErrSealedInvalid
	}
	gcm, err := sealCipher(secret, purpose)
	if err != nil {
		return "", err
	}
	if len(data) < gcm.NonceSize() {
		return "", ErrSealedInvalid
	}
	plain, err := gcm.Open(nil, data[:gcm.NonceSize()], data[gcm.NonceSize():], []byte(purpose))
	if err != nil {
		return "", ErrSealedInvalid
	}
	return string(plain), nil
}
