package table

import (
	"context"
	"strings"

	"github.com/adventure-table/adventure-table/models"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// SheetTable is the running session a character plays in from a seat its
// owner controls: where the rolls of its sheet go.
type SheetTable struct {
	SessionID    int64  `json:"session_id"`
	SeatID       int64  `json:"seat_id"`
	RoomID       int64  `json:"room_id"`
	RoomName     string `json:"room_name"`
	CampaignName string `json:"campaign_name"`
}

// CharacterSheet is the reading view of one of the caller's characters:
// the character with what the sheet rules derive from it, and the table
// its rolls go to (null when it is not playing in a running session from
// the caller's seat; its sheet then rolls nothing).
type CharacterSheet struct {
	Character CharacterView `json:"character"`
	Table     *SheetTable   `json:"table"`
}

// SheetRollInput is a click on the sheet: a check (a skill, an ability or a
// saving throw) or an attack's to-hit or damage. It carries no modifier:
// the server takes it from the stored character.
type SheetRollInput struct {
	Check          string `json:"check,omitempty" jsonschema:"a skill, an ability or a saving throw (dex_save): 1d20 + the character's modifier"`
	Attack         string `json:"attack,omitempty" jsonschema:"instead of check: an attack of the sheet, by name or 1-based number"`
	Damage         bool   `json:"damage,omitempty" jsonschema:"with attack: roll its damage instead of its to-hit"`
	IdempotencyKey string `json:"idempotency_key,omitempty"`
}

// SheetRoll is a roll of the sheet as it went to the table's feed.
type SheetRoll struct {
	SessionID int64          `json:"session_id"`
	Result    RollResultView `json:"result"`
}

// GetCharacterSheet returns one of the caller's characters with the table
// its rolls go to, if any. Returns not_found.
func (s *Service) GetCharacterSheet(ctx context.Context, c Caller, id int64) (CharacterSheet, error) {
	var out CharacterSheet
	err := s.store.Tx(ctx, func(tx *models.Store) error {
		ch, err := ownCharacter(ctx, tx, c, id)
		if err != nil {
			return err
		}
		out.Character = characterView(*ch)
		out.Table, err = sheetTable(ctx, tx, c, id)
		return err
	})
	return out, err
}

// sheetTable finds the running session the character is leased to and the
// seat the caller controls there that plays it; nil when there is none
// (no lease, the session is not in play, the caller lost the room or the
// seat).
func sheetTable(ctx context.Context, tx *models.Store, c Caller, characterID int64) (*SheetTable, error) {
	lease, err := tx.FindLease(ctx, characterID)
	if apperr.CodeOf(err) == apperr.NotFound {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	sc, err := loadSession(ctx, tx, c, lease.SessionID, false)
	switch apperr.CodeOf(err) {
	case "":
	case apperr.NotFound, apperr.RoomAccessRevoked:
		return nil, nil
	default:
		return nil, err
	}
	if sc.session.Status != models.SessionActive {
		return nil, nil
	}
	participants, err := tx.FindParticipants(ctx, sc.session.ID)
	if err != nil {
		return nil, err
	}
	for _, p := range participants {
		if p.CharacterID == nil || *p.CharacterID != characterID {
			continue
		}
		for _, seat := range sc.seats {
			if seat.ID == p.SeatID && seat.Role == models.SeatPlayer && controls(sc.actor, seat) {
				return &SheetTable{SessionID: sc.session.ID, SeatID: seat.ID, RoomID: sc.room.ID, RoomName: sc.room.Name, CampaignName: sc.campaign.Name}, nil
			}
		}
	}
	return nil, nil
}

// RollFromSheet rolls a check or an attack of one of the caller's
// characters at the running table it plays at, as the seat that plays it:
// it is QuickRoll of that session (the same roll, event and feed line as
// "/r stealth" typed there), refused unless the seat rolling still plays
// this character when the roll is written. Returns not_found (not the
// caller's character), character_not_at_table, invalid_request (check,
// attack), and QuickRoll's codes.
func (s *Service) RollFromSheet(ctx context.Context, c Caller, characterID int64, in SheetRollInput) (SheetRoll, error) {
	if strings.TrimSpace(in.Check) == "" && strings.TrimSpace(in.Attack) == "" {
		return SheetRoll{}, apperr.E(apperr.InvalidRequest, "A roll of the sheet names a check or an attack.").WithField("check", "a skill, an ability, a saving throw, or an attack instead")
	}
	if in.Check != "" && in.Attack != "" {
		return SheetRoll{}, apperr.E(apperr.InvalidRequest, "Roll either a check or an attack.").WithField("attack", "empty with check")
	}
	var table *SheetTable
	err := s.store.Tx(ctx, func(tx *models.Store) error {
		if _, err := ownCharacter(ctx, tx, c, characterID); err != nil {
			return err
		}
		var err error
		table, err = sheetTable(ctx, tx, c, characterID)
		return err
	})
	if err != nil {
		return SheetRoll{}, err
	}
	if table == nil {
		return SheetRoll{}, notAtTable()
	}
	res, _, err := s.quickRoll(ctx, c, table.SessionID, QuickRollInput{Check: in.Check, Attack: in.Attack, Damage: in.Damage,
		IdempotencyKey: in.IdempotencyKey, forCharacter: characterID})
	if err != nil {
		return SheetRoll{}, err
	}
	return SheetRoll{SessionID: table.SessionID, Result: res}, nil
}

func notAtTable() error {
	return apperr.E(apperr.CharacterNotAtTable, "This character is not playing at a running table from your seat.")
}
