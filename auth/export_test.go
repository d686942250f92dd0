package auth

import (
	"runtime"

	"golang.org/x/sync/semaphore"
)

// SetHashSlots replaces the hashing semaphore with one of n slots until
// the returned function restores the default.
func SetHashSlots(n int64) (restore func()) {
	hashSlots = semaphore.NewWeighted(n)
	peakHashing.Store(0)
	return func() { hashSlots = semaphore.NewWeighted(int64(runtime.GOMAXPROCS(0))) }
}

// PeakHashing is the most KDF runs seen at once since SetHashSlots.
func PeakHashing() int64 { return peakHashing.Load() }

// DummyHashPrefix is what the dummy hash must start with: today's parameters.
const DummyHashPrefix = "$argon2id$v=19$m=19456,t=2,p=1$"

// DummyHash is the hash unknown accounts are verified against.
func DummyHash() string { return dummyHash }
