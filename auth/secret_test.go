package auth_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adventure-table/adventure-table/auth"
)

func TestLoadOrCreateSecret(t *testing.T) {
	dir := t.TempDir()
	first, err := auth.LoadOrCreateSecret(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(first) < auth.MinSecretLength {
		t.Fatalf("got a %d-byte secret, want at least %d", len(first), auth.MinSecretLength)
	}
	info, err := os.Stat(filepath.Join(dir, auth.SecretFileName))
	if err != nil {
		t.Fatal(err)
	}
	if perm := info.Mode().Perm(); perm != 0o600 {
		t.Fatalf("got mode %o, want 600", perm)
	}
	again, err := auth.LoadOrCreateSecret(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(first, again) {
		t.Fatal("second start generated a new secret; want the kept one")
	}
	other, _ := auth.LoadOrCreateSecret(t.TempDir())
	if bytes.Equal(first, other) {
		t.Fatal("two data dirs got the same secret")
	}
}

func TestLoadOrCreateSecretRefusesReadableFile(t *testing.T) {
	dir := t.TempDir()
	if _, err := auth.LoadOrCreateSecret(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(dir, auth.SecretFileName), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := auth.LoadOrCreateSecret(dir)
	if err == nil || !strings.Contains(err.Error(), "chmod 600") {
		t.Fatalf("got %v, want a refusal that says how to fix it", err)
	}
}
