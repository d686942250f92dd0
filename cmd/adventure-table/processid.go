package main

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// maxProcessSlots bounds how many servers may share one data directory.
const maxProcessSlots = 64

// lockProcessID names this server process in solo turn claims. The name is
// kept in the data directory (instances/<slot>) and held under an exclusive
// lock for the life of the process: the kernel drops the lock when the
// process ends, however it ends, so the next start on this data directory
// takes the same slot and the same name, and knows that every claim still
// carrying it was left by a dead process (narrative.Service.RecoverTurns
// frees them at once). Servers sharing a data directory take different
// slots. Where no slot can be locked the name is random, and a crashed
// run's claims free themselves when their heartbeat goes stale.
func lockProcessID(dataDir string) (id string, unlock func(), err error) {
	dir := filepath.Join(dataDir, "instances")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", nil, fmt.Errorf("process id: %w", err)
	}
	for slot := range maxProcessSlots {
		f, err := os.OpenFile(filepath.Join(dir, fmt.Sprint(slot)), os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			return "", nil, fmt.Errorf("process id: %w", err)
		}
		locked, err := tryLock(f)
		if err != nil || !locked {
			f.Close()
			if err != nil {
				return "", nil, fmt.Errorf("process id: lock %s: %w", f.Name(), err)
			}
			continue
		}
		raw := make([]byte, 64)
		n, _ := f.ReadAt(raw, 0)
		id = strings.TrimSpace(string(raw[:n]))
		if !validID(id) {
			id = randomID()
			if err := f.Truncate(0); err == nil {
				_, err = f.WriteAt([]byte(id+"\n"), 0)
			}
			if err == nil {
				err = f.Sync()
			}
			if err != nil {
				f.Close()
				return "", nil, fmt.Errorf("process id: write %s: %w", f.Name(), err)
			}
		}
		return id, func() { f.Close() }, nil
	}
	return randomID(), func() {}, nil
}

func randomID() string {
	var raw [8]byte
	_, _ = rand.Read(raw[:])
	return hex.EncodeToString(raw[:])
}

// validID accepts what randomID makes: 16 lower-case hex digits.
func validID(id string) bool {
	if len(id) != 16 {
		return false
	}
	_, err := hex.DecodeString(id)
	return err == nil && strings.ToLower(id) == id
}
