package auth

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"unicode"
	"unicode/utf8"

	"golang.org/x/crypto/argon2"
	"golang.org/x/sync/semaphore"
)

// Argon2id at OWASP's current minimum (Password Storage Cheat Sheet; ASVS
// 5.0 appendix C): 19 MiB of memory, two passes, one lane. Every hash
// carries its parameters (PHC string form), so raising them later only
// changes new hashes; NeedsRehash tells a login to upgrade an old one.
const (
	argonMemoryKiB = 19456
	argonTime      = 2
	argonThreads   = 1
	argonSaltLen   = 16
	argonKeyLen    = 32
)

// Password length rules, counted in characters (runes), not bytes.
const (
	PasswordMinChars = 10
	PasswordMaxChars = 256
)

// ErrMalformedHash: a stored password hash is not one this package wrote.
var ErrMalformedHash = errors.New("auth: malformed password hash")

var (
	// hashSlots bounds concurrent KDF runs: each holds 19 MiB and a core
	// for tens of milliseconds, so unbounded logins are a memory and CPU
	// denial of service. Waiters queue under their request's context.
	hashSlots = semaphore.NewWeighted(int64(runtime.GOMAXPROCS(0)))
	// kdfRuns counts every argon2id evaluation, so tests can prove that a
	// refused request did no hashing at all.
	kdfRuns atomic.Int64
	// hashing and peakHashing measure concurrency for the tests.
	hashing, peakHashing atomic.Int64
)

// KDFRuns returns how many times this process has run the password KDF.
func KDFRuns() int64 { return kdfRuns.Load() }

// dummyHash is a well-formed hash with the current parameters that no
// password is expected to match: verifying an unknown account's password
// against it costs exactly what a real verify costs, so response time does
// not tell which emails have accounts (ASVS 6.3.8).
var dummyHash = encodeHash(argonParams{memory: argonMemoryKiB, time: argonTime, threads: argonThreads},
	[]byte("adventure-table!"), []byte("no password hashes to this value"))

type argonParams struct {
	memory  uint32
	time    uint32
	threads uint8
}

// PasswordProblem returns why a new password is not acceptable, or "" when
// it is: 10 to 256 characters, not only whitespace.
func PasswordProblem(password string) string {
	n := utf8.RuneCountInString(password)
	switch {
	case n < PasswordMinChars:
		return fmt.Sprintf("At least %d characters.", PasswordMinChars)
	case n > PasswordMaxChars:
		return fmt.Sprintf("At most %d characters.", PasswordMaxChars)
	case strings.TrimFunc(password, unicode.IsSpace) == "":
		return "Not only spaces."
	}
	return ""
}

// HashPassword returns the encoded argon2id hash of password with a fresh
// random salt: "$argon2id$v=19$m=19456,t=2,p=1$<salt>$<key>" (unpadded
// standard base64). It waits for a hashing slot under ctx.
func HashPassword(ctx context.Context, password string) (string, error) {
	salt := make([]byte, argonSaltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", err
	}
	p := argonParams{memory: argonMemoryKiB, time: argonTime, threads: argonThreads}
	key, err := runKDF(ctx, password, salt, p, argonKeyLen)
	if err != nil {
		return "", err
	}
	return encodeHash(p, salt, key), nil
}

// VerifyPassword reports whether password matches encoded, comparing the
// derived keys in constant time. A malformed hash is ErrMalformedHash; a
// context ended while waiting for a slot is ctx.Err().
func VerifyPassword(ctx context.Context, encoded, password string) (bool, error) {
	p, salt, want, err := decodeHash(encoded)
	if err != nil {
		return false, err
	}
	got, err := runKDF(ctx, password, salt, p, uint32(len(want)))
	if err != nil {
		return false, err
	}
	return subtle.ConstantTimeCompare(got, want) == 1, nil
}

// VerifyDummy runs one full verify against the dummy hash and discards the
// result: the cost of a login for an email that has no account.
func VerifyDummy(ctx context.Context, password string) error {
	_, err := VerifyPassword(ctx, dummyHash, password)
	return err
}

// NeedsRehash reports whether encoded was made with parameters other than
// the current ones (a login then stores a fresh hash).
func NeedsRehash(encoded string) bool {
	p, salt, key, err := decodeHash(encoded)
	return err != nil || p != (argonParams{memory: argonMemoryKiB, time: argonTime, threads: argonThreads}) ||
		len(salt) != argonSaltLen || len(key) != argonKeyLen
}

func runKDF(ctx context.Context, password string, salt []byte, p argonParams, keyLen uint32) ([]byte, error) {
	if err := hashSlots.Acquire(ctx, 1); err != nil {
		return nil, err
	}
	defer hashSlots.Release(1)
	n := hashing.Add(1)
	for {
		peak := peakHashing.Load()
		if n <= peak || peakHashing.CompareAndSwap(peak, n) {
			break
		}
	}
	defer hashing.Add(-1)
	kdfRuns.Add(1)
	return argon2.IDKey([]byte(password), salt, p.time, p.memory, p.threads, keyLen), nil
}

var b64 = base64.RawStdEncoding

func encodeHash(p argonParams, salt, key []byte) string {
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, p.memory, p.time, p.threads,
		b64.EncodeToString(salt), b64.EncodeToString(key))
}

// decodeHash parses the PHC string form, refusing parameters far outside
// anything this package writes (a stored value must not be able to make
// one verify allocate gigabytes).
func decodeHash(encoded string) (argonParams, []byte, []byte, error) {
	parts := strings.Split(encoded, "$")
	if len(parts) != 6 || parts[0] != "" || parts[1] != "argon2id" || parts[2] != fmt.Sprintf("v=%d", argon2.Version) {
		return argonParams{}, nil, nil, ErrMalformedHash
	}
	var m, t, threads uint32
	if n, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &m, &t, &threads); err != nil || n != 3 ||
		fmt.Sprintf("m=%d,t=%d,p=%d", m, t, threads) != parts[3] {
		return argonParams{}, nil, nil, ErrMalformedHash
	}
	if m < 8 || m > 1<<20 || t < 1 || t > 16 || threads < 1 || threads > 16 {
		return argonParams{}, nil, nil, ErrMalformedHash
	}
	salt, err := b64.DecodeString(parts[4])
	if err != nil || len(salt) < 8 || len(salt) > 64 {
		return argonParams{}, nil, nil, ErrMalformedHash
	}
	key, err := b64.DecodeString(parts[5])
	if err != nil || len(key) < 16 || len(key) > 64 {
		return argonParams{}, nil, nil, ErrMalformedHash
	}
	return argonParams{memory: m, time: t, threads: uint8(threads)}, salt, key, nil
}
