// Package auth holds identity primitives shared by the edges and gameplay:
// the server secret now; password hashing, browser sessions and grant tokens
// as they arrive. It imports no transport.
package auth

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// SecretFileName is the file, inside the data dir, that keeps the local
// mode's generated secret.
const SecretFileName = "secret"

// MinSecretLength is the shortest secret accepted, in bytes of text.
const MinSecretLength = 32

// LoadOrCreateSecret returns the secret kept in dir, creating a random one
// (256 bits, hex) with 0600 permissions on first use. A secret file that
// others can read is refused rather than silently trusted.
func LoadOrCreateSecret(dir string) ([]byte, error) {
	path := filepath.Join(dir, SecretFileName)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create data dir: %w", err)
	}
	b, err := os.ReadFile(path)
	if err == nil {
		info, err := os.Stat(path)
		if err != nil {
			return nil, err
		}
		if info.Mode().Perm()&0o077 != 0 {
			return nil, fmt.Errorf("secret file %s is readable by others (mode %o); run chmod 600 on it", path, info.Mode().Perm())
		}
		secret := []byte(strings.TrimSpace(string(b)))
		if len(secret) < MinSecretLength {
			return nil, fmt.Errorf("secret file %s holds fewer than %d characters", path, MinSecretLength)
		}
		return secret, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("read secret: %w", err)
	}
	var raw [32]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return nil, err
	}
	secret := []byte(hex.EncodeToString(raw[:]))
	// O_EXCL: if two processes start at once, one creates and the other fails
	// here and reads the winner's file on its next start.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, fmt.Errorf("create secret: %w", err)
	}
	if _, err := f.Write(append(secret, '\n')); err != nil {
		f.Close()
		return nil, fmt.Errorf("write secret: %w", err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return nil, fmt.Errorf("write secret: %w", err)
	}
	return secret, f.Close()
}
