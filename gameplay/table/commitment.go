package table

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"strconv"

	"github.com/adventure-table/adventure-table/models"
)

// A secret DC is committed to when the check is asked: players see only
// the commitment, the DM the DC. Once every check of the request's group is
// settled (rolled or cancelled), a roll.revealed event for each rolled check
// gives the DC and the salt to whoever saw the roll, so anyone can recompute
// the commitment and see that the DC was not changed after the roll. The
// group waits for its last check because one DC is asked of all its seats:
// revealing it on the first roll would tell the others their DC. A
// cancelled check reveals nothing of its own (the DM may ask again with the
// same DC), but its group's rolled checks are revealed once it is settled.
// When the session ends, every rolled check still sealed is revealed.
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

// EventRollRevealed opens a rolled check's DC commitment: its payload has
// request_id, dc, dc_salt and dc_commitment.
const EventRollRevealed = "roll.revealed"

// revealSettledGroup reveals the DCs of a group's rolled checks once none
// of them is pending: a roll.revealed event for each (to whoever saw its
// roll), and the mark that lets the views show the DC and salt. It locks
// the group so that two last rolls settle it once.
func (s *Service) revealSettledGroup(ctx context.Context, tx *models.Store, sessionID int64, groupID *int64, dmSeat int64) error {
	if groupID == nil {
		return nil
	}
	if err := tx.LockRollGroup(ctx, *groupID); err != nil {
		return err
	}
	reqs, err := tx.FindRollRequestsInGroup(ctx, *groupID)
	if err != nil {
		return err
	}
	var open []models.RollRequest
	for _, r := range reqs {
		if r.Status == models.RollPending {
			return nil
		}
		if r.Status == models.RollResolved && !r.DCRevealed && requestCommitment(r) != "" {
			open = append(open, r)
		}
	}
	return s.revealDCs(ctx, tx, sessionID, open, dmSeat)
}

// revealDCs reveals rolled requests' committed DCs: a roll.revealed event
// for each (to whoever saw its roll), and the mark that lets the views show
// the DC and salt.
func (s *Service) revealDCs(ctx context.Context, tx *models.Store, sessionID int64, reqs []models.RollRequest, dmSeat int64) error {
	ids := make([]int64, 0, len(reqs))
	for _, r := range reqs {
		seat := r.TargetSeatID
		if _, err := s.appendNext(ctx, tx, sessionID, eventDraft{kind: EventRollRevealed, acting: &dmSeat, subject: &seat,
			character: r.TargetCharacterID, visibility: r.Visibility,
			payload: map[string]any{"request_id": r.ID, "dc": *r.DC, "dc_salt": r.DCSalt, "dc_commitment": requestCommitment(r)}}); err != nil {
			return err
		}
		ids = append(ids, r.ID)
	}
	return tx.MarkDCRevealed(ctx, ids)
}

// revealAtEnd reveals, when a session ends, the committed DCs of its rolled
// checks still sealed because a check of their group was never rolled:
// with the session over, the DC protects nothing more.
func (s *Service) revealAtEnd(ctx context.Context, tx *models.Store, sessionID, dmSeat int64) error {
	reqs, err := tx.FindUnrevealedDCs(ctx, sessionID)
	if err != nil {
		return err
	}
	return s.revealDCs(ctx, tx, sessionID, reqs, dmSeat)
}
