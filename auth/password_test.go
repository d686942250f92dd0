package auth_test

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/adventure-table/adventure-table/auth"
)

var bg = context.Background()

func mustHash(t *testing.T, password string) string {
	t.Helper()
	h, err := auth.HashPassword(bg, password)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestPasswordRoundTrip: a hash verifies its password and no other, and
// carries its parameters in the PHC string form with a fresh salt.
func TestPasswordRoundTrip(t *testing.T) {
	const pw = "correct horse battery staple"
	h := mustHash(t, pw)
	phc := regexp.MustCompile(`^\$argon2id\$v=19\$m=19456,t=2,p=1\$([A-Za-z0-9+/]{22})\$([A-Za-z0-9+/]{43})$`)
	if !phc.MatchString(h) {
		t.Fatalf("hash %q is not $argon2id$v=19$m=19456,t=2,p=1$<16-byte salt>$<32-byte key>", h)
	}
	if strings.Contains(h, pw) {
		t.Fatal("the hash holds the password")
	}
	if other := mustHash(t, pw); other == h {
		t.Fatal("two hashes of one password are equal: no per-password salt")
	}
	for pass, want := range map[string]bool{pw: true, pw + " ": false, "Correct horse battery staple": false, "": false} {
		ok, err := auth.VerifyPassword(bg, h, pass)
		if err != nil || ok != want {
			t.Errorf("verify %q: got %v %v, want %v", pass, ok, err, want)
		}
	}
	if auth.NeedsRehash(h) {
		t.Error("a fresh hash needs a rehash")
	}
	// Parameters are read from the hash, so a hash made with other
	// (older) ones still verifies, and is flagged for a rehash.
	if !auth.NeedsRehash(strings.Replace(h, "t=2", "t=1", 1)) {
		t.Error("a hash with t=1 does not ask for a rehash")
	}
}

func TestMalformedHashes(t *testing.T) {
	h := mustHash(t, "a long enough password")
	for name, bad := range map[string]string{
		"Empty":          "",
		"Bcrypt":         "$2a$10$abcdefghijklmnopqrstuv",
		"OtherVersion":   strings.Replace(h, "v=19", "v=16", 1),
		"Argon2i":        strings.Replace(h, "argon2id", "argon2i", 1),
		"HugeMemory":     strings.Replace(h, "m=19456", "m=99999999", 1),
		"ZeroTime":       strings.Replace(h, "t=2", "t=0", 1),
		"LeadingZero":    strings.Replace(h, "t=2", "t=02", 1),
		"BadSalt":        strings.Replace(h, "$", "$!", 4),
		"MissingKey":     h[:strings.LastIndexByte(h, '$')],
		"TrailingGarbge": h + "$x",
	} {
		before := auth.KDFRuns()
		if _, err := auth.VerifyPassword(bg, bad, "a long enough password"); !errors.Is(err, auth.ErrMalformedHash) {
			t.Errorf("%s: got %v, want ErrMalformedHash", name, err)
		}
		if auth.KDFRuns() != before {
			t.Errorf("%s: a malformed hash ran the KDF", name)
		}
		if !auth.NeedsRehash(bad) {
			t.Errorf("%s: a malformed hash does not ask for a rehash", name)
		}
	}
}

// TestVerifyCostsOneKDFRun: the right password, a wrong one (of the same
// or another length) and an unknown account (the dummy hash) each cost
// exactly one KDF run, and the derived keys are compared whole, in
// constant time (subtle.ConstantTimeCompare), so no path returns early.
func TestVerifyCostsOneKDFRun(t *testing.T) {
	const pw = "right password 123"
	h := mustHash(t, pw)
	for name, verify := range map[string]func() error{
		"Right":          func() error { _, err := auth.VerifyPassword(bg, h, pw); return err },
		"WrongSameLen":   func() error { _, err := auth.VerifyPassword(bg, h, "wrong password 123"); return err },
		"WrongShort":     func() error { _, err := auth.VerifyPassword(bg, h, "x"); return err },
		"UnknownAccount": func() error { return auth.VerifyDummy(bg, pw) },
	} {
		before := auth.KDFRuns()
		if err := verify(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if n := auth.KDFRuns() - before; n != 1 {
			t.Errorf("%s: %d KDF runs, want 1", name, n)
		}
	}
	if !strings.HasPrefix(auth.DummyHash(), auth.DummyHashPrefix) {
		t.Fatalf("the dummy hash %q does not use today's parameters", auth.DummyHash())
	}
	if ok, err := auth.VerifyPassword(bg, auth.DummyHash(), ""); ok || err != nil {
		t.Fatalf("the dummy hash verified the empty password: %v %v", ok, err)
	}
}

// TestDummyVerifyTakesAsLongAsARealOne: the dummy verify is a full KDF
// run at the real parameters, not a shortcut: its time is within a
// generous factor of a real verify's.
func TestDummyVerifyTakesAsLongAsARealOne(t *testing.T) {
	h := mustHash(t, "right password 123")
	measure := func(f func()) time.Duration {
		var best time.Duration
		for i := range 5 {
			start := time.Now()
			f()
			if d := time.Since(start); i == 0 || d < best {
				best = d
			}
		}
		return best
	}
	realVerify := measure(func() { auth.VerifyPassword(bg, h, "wrong password 123") })
	dummy := measure(func() { auth.VerifyDummy(bg, "wrong password 123") })
	if dummy*3 < realVerify || realVerify*3 < dummy {
		t.Fatalf("dummy verify %v vs real verify %v: not the same work", dummy, realVerify)
	}
}

// TestHashingIsBounded: concurrent hashes never exceed the semaphore's
// slots, and a caller whose context ends while waiting gets its error
// without hashing.
func TestHashingIsBounded(t *testing.T) {
	restore := auth.SetHashSlots(1)
	defer restore()
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := auth.HashPassword(bg, "concurrent password"); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if p := auth.PeakHashing(); p != 1 {
		t.Fatalf("peak concurrent hashes %d with one slot", p)
	}

	restore2 := auth.SetHashSlots(2)
	defer restore2()
	for range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			auth.VerifyDummy(bg, "concurrent password")
		}()
	}
	wg.Wait()
	if p := auth.PeakHashing(); p > 2 {
		t.Fatalf("peak concurrent hashes %d with two slots", p)
	}

	// Every slot taken: a request whose context ends gives up, unhashed.
	auth.SetHashSlots(0)
	ctx, cancel := context.WithTimeout(bg, 20*time.Millisecond)
	defer cancel()
	before := auth.KDFRuns()
	if _, err := auth.HashPassword(ctx, "waiting password"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %v, want the context's deadline", err)
	}
	if auth.KDFRuns() != before {
		t.Fatal("a cancelled wait ran the KDF")
	}
}

func TestPasswordRules(t *testing.T) {
	for pw, ok := range map[string]bool{
		"":                       false,
		"123456789":              false,
		"1234567890":             true,
		"          ":             false,
		"\t\n \u00a0\u3000     ": false,
		"日本語のパスワードです":            true,  // 11 characters, 33 bytes
		"ééééé":                  false, // 10 bytes, 5 characters
		strings.Repeat("x", 256): true,
		strings.Repeat("x", 257): false,
		strings.Repeat("é", 256): true,
		"  spaces around  ":      true,
	} {
		if got := auth.PasswordProblem(pw) == ""; got != ok {
			t.Errorf("%q: acceptable %v, want %v (%s)", pw, got, ok, auth.PasswordProblem(pw))
		}
	}
}
