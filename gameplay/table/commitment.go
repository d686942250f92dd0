package table

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"strconv"

	"github.com/adventure-table/adventure-table/models"
)

// A secret DC is committed to when the check is asked: players see only
// the commitment, the DM the DC. When the check resolves, its roll.resolved
// event reveals the DC and the salt, so anyone can recompute the commitment
// and see that the DC was not changed after the roll. A cancelled check
// reveals nothing: the DM may ask again with the same DC.
//
// The commitment is the lowercase hex SHA-256 of the UTF-8 string
//
//	adventure-table-dc-v1:<dc>:<salt>
//
// where <dc> is the DC in decimal (no sign, no leading zeros) and <salt> is
// the 16 random bytes (crypto/rand) in lowercase hex (32 characters). For
// example DC 15 with salt 000102030405060708090a0b0c0d0e0f hashes
// "adventure-table-dc-v1:15:000102030405060708090a0b0c0d0e0f". The web app
// recomputes it with Web Crypto (webui/app/src/table/commitment.ts).

// DCCommitmentPrefix starts the string a DC commitment hashes; the version
// changes if the encoding ever does.
const DCCommitmentPrefix = "adventure-table-dc-v1:"

// dcSaltBytes is the salt's length: 128 bits, so the 40 possible DCs cannot
// be tried against the commitment.
const dcSaltBytes = 16

// DCCommitment is the commitment to dc with salt (lowercase hex).
func DCCommitment(dc int, salt string) string {
	sum := sha256.Sum256([]byte(DCCommitmentPrefix + strconv.Itoa(dc) + ":" + salt))
	return hex.EncodeToString(sum[:])
}

// newDCSalt draws a fresh salt from the operating system's CSPRNG.
func newDCSalt() string {
	b := make([]byte, dcSaltBytes)
	_, _ = rand.Read(b) // never fails (crypto/rand.Read panics rather than return an error)
	return hex.EncodeToString(b)
}

// requestCommitment is a request's DC commitment: "" when it has no DC, or
// was asked before commitments existed (no salt).
func requestCommitment(r models.RollRequest) string {
	if r.DC == nil || r.DCSalt == "" {
		return ""
	}
	return DCCommitment(*r.DC, r.DCSalt)
}

// dcRevealed says whether a request's DC and salt are open to everyone who
// sees the request: once it resolved. (The DM sees the DC throughout.)
func dcRevealed(r models.RollRequest) bool {
	return r.Status == models.RollResolved && r.DC != nil
}
