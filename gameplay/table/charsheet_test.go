package table_test

import (
	"encoding/json"
	"testing"

	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/gameplay/table/tabletest"
	"github.com/adventure-table/adventure-table/models"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// TestSheetRollGoesToTheFeedAsTheSeat: a click on the sheet of a character
// playing at a running table rolls there as its seat — the modifier is the
// stored sheet's, read again at each roll — and the DM reads the roll, with
// what it rolled, in the feed like any quick roll.
func TestSheetRollGoesToTheFeedAsTheSeat(t *testing.T) {
	lt, store := newLiveTable(t)
	sheet, err := lt.svc.GetCharacterSheet(ctx, lt.Seated, lt.CharacterID)
	tabletest.Must(t, err)
	want := table.SheetTable{SessionID: lt.LobbyID, SeatID: lt.PlayerSeatID, RoomID: lt.RoomID}
	if sheet.Table == nil || sheet.Table.SessionID != want.SessionID || sheet.Table.SeatID != want.SeatID || sheet.Table.RoomID != want.RoomID ||
		sheet.Table.RoomName == "" || sheet.Table.CampaignName == "" {
		t.Fatalf("the sheet's table is %+v, want %+v with names", sheet.Table, want)
	}
	d := sheet.Character.Derived

	roll := func(in table.SheetRollInput) table.RollResultView {
		t.Helper()
		r, err := lt.svc.RollFromSheet(ctx, lt.Seated, lt.CharacterID, in)
		tabletest.Must(t, err)
		if r.SessionID != lt.LobbyID || r.Result.ActingSeatID != lt.PlayerSeatID || r.Result.Source != models.SourceQuick ||
			r.Result.SubjectCharacterID == nil || *r.Result.SubjectCharacterID != lt.CharacterID {
			t.Fatalf("the roll went to %d as seat %d (%+v), want session %d as seat %d", r.SessionID, r.Result.ActingSeatID, r.Result, lt.LobbyID, lt.PlayerSeatID)
		}
		if len(r.Result.KeptDice) == 0 || r.Result.Total != sum(r.Result.KeptDice)+r.Result.BaseModifier {
			t.Fatalf("total %d is not the kept dice %v + %d", r.Result.Total, r.Result.KeptDice, r.Result.BaseModifier)
		}
		return r.Result
	}
	// Level 3 (+2), Dex 14 (+2), Stealth with expertise: +6.
	stealth := roll(table.SheetRollInput{Check: "stealth"})
	if stealth.Check != "stealth" || stealth.BaseModifier != d.Skills["stealth"] || stealth.BaseModifier != 6 {
		t.Fatalf("stealth rolled %q + %d, want stealth + %d (6)", stealth.Check, stealth.BaseModifier, d.Skills["stealth"])
	}
	if save := roll(table.SheetRollInput{Check: "dex_save"}); save.Check != "dex_save" || save.BaseModifier != d.Saves["dex"] {
		t.Fatalf("dex save rolled %q + %d, want + %d", save.Check, save.BaseModifier, d.Saves["dex"])
	}
	if str := roll(table.SheetRollInput{Check: "str"}); str.Check != "str" || str.BaseModifier != d.Modifiers["str"] {
		t.Fatalf("strength check rolled %q + %d, want + %d", str.Check, str.BaseModifier, d.Modifiers["str"])
	}

	// The sheet changes behind the page's back: the next roll adds the
	// stored sheet's new number, whatever the page still shows.
	ch, err := store.FindCharacterByID(ctx, lt.CharacterID)
	tabletest.Must(t, err)
	ch.Dex = 20
	ch.Attacks = []models.Attack{{Name: "Rapier", Ability: "dex", Proficient: true, Damage: "1d8", DamageType: "piercing", AddModifier: true}}
	tabletest.Must(t, store.SaveCharacter(ctx, ch))
	if again := roll(table.SheetRollInput{Check: "stealth"}); again.BaseModifier != 5+2*2 {
		t.Fatalf("stealth after Dex 20 adds %d, want 9", again.BaseModifier)
	}
	hit := roll(table.SheetRollInput{Attack: "Rapier"})
	if hit.AttackName != "Rapier" || hit.AttackRoll != "to_hit" || hit.BaseModifier != 5+2 {
		t.Fatalf("rapier to-hit: %+v, want +7", hit)
	}
	dmg := roll(table.SheetRollInput{Attack: "Rapier", Damage: true})
	if dmg.AttackRoll != "damage" || dmg.DamageType != "piercing" || dmg.BaseModifier != 5 || len(dmg.KeptDice) != 1 || dmg.KeptDice[0] > 8 {
		t.Fatalf("rapier damage: %+v, want 1d8 + 5 piercing", dmg)
	}

	// The DM reads the stealth roll in the feed, naming the check.
	page, err := lt.svc.ListEvents(ctx, lt.Owner, lt.LobbyID, 0, 200)
	tabletest.Must(t, err)
	found := false
	for _, e := range page.Events {
		var p struct {
			Check  string               `json:"check"`
			Result table.RollResultView `json:"result"`
		}
		if e.Kind != table.EventRollQuick {
			continue
		}
		tabletest.Must(t, json.Unmarshal(e.Payload, &p))
		if p.Result.ID == stealth.ID {
			found = true
			if p.Check != "stealth" || p.Result.Total != stealth.Total || e.ActingSeatID == nil || *e.ActingSeatID != lt.PlayerSeatID || e.Visibility != models.VisibilityPublic {
				t.Fatalf("the DM's feed shows %+v / %s", e, e.Payload)
			}
		}
	}
	if !found {
		t.Fatal("the DM's feed has no roll.quick of the sheet's stealth roll")
	}
}

func sum(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}

// TestSheetRollRefused: only the owner of a character rolls from its sheet,
// and only while it plays at a running table from a seat they control; a
// refused roll writes nothing.
func TestSheetRollRefused(t *testing.T) {
	t.Run("BeforeTheSessionStarts", func(t *testing.T) {
		svc, _ := newService(t)
		f := tabletest.New(t, svc)
		sheet, err := svc.GetCharacterSheet(ctx, f.Seated, f.CharacterID)
		tabletest.Must(t, err)
		if sheet.Table != nil {
			t.Fatalf("a lobby is no table to roll at: %+v", sheet.Table)
		}
		_, err = svc.RollFromSheet(ctx, f.Seated, f.CharacterID, table.SheetRollInput{Check: "stealth"})
		wantCode(t, err, apperr.CharacterNotAtTable)
	})

	lt, _ := newLiveTable(t)
	other, err := lt.svc.CreateCharacter(ctx, lt.Seated, tabletest.Character("Benched"))
	tabletest.Must(t, err)
	for _, tt := range []struct {
		name      string
		caller    table.Caller
		character int64
		in        table.SheetRollInput
		want      apperr.Code
	}{
		{"ErrNotTheirs", lt.Unseated, lt.CharacterID, table.SheetRollInput{Check: "stealth"}, apperr.NotFound},
		{"ErrDMIsNotTheOwner", lt.Owner, lt.CharacterID, table.SheetRollInput{Check: "stealth"}, apperr.NotFound},
		{"ErrStranger", lt.Stranger, lt.CharacterID, table.SheetRollInput{Check: "stealth"}, apperr.NotFound},
		{"ErrNotSeated", lt.Seated, other.ID, table.SheetRollInput{Check: "stealth"}, apperr.CharacterNotAtTable},
		{"ErrNothingNamed", lt.Seated, lt.CharacterID, table.SheetRollInput{}, apperr.InvalidRequest},
		{"ErrCheckAndAttack", lt.Seated, lt.CharacterID, table.SheetRollInput{Check: "stealth", Attack: "1"}, apperr.InvalidRequest},
		{"ErrNotACheck", lt.Seated, lt.CharacterID, table.SheetRollInput{Check: "1d20+30"}, apperr.InvalidRequest},
		{"ErrNoSuchAttack", lt.Seated, lt.CharacterID, table.SheetRollInput{Attack: "Vorpal sword"}, apperr.InvalidRequest},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := lt.svc.RollFromSheet(ctx, tt.caller, tt.character, tt.in)
			wantCode(t, err, tt.want)
		})
	}
	if h, err := lt.svc.RollHistory(ctx, lt.Owner, lt.LobbyID, 0, 30); err != nil || len(h.Results) != 0 {
		t.Fatalf("refused rolls wrote %d results (%v)", len(h.Results), err)
	}

	// A player whose access was revoked no longer controls the seat: the
	// sheet shows no table and rolls nothing.
	t.Run("ErrAccessRevoked", func(t *testing.T) {
		_, err := lt.svc.RevokeMember(ctx, lt.Owner, lt.RoomID, lt.SeatedAccess)
		tabletest.Must(t, err)
		sheet, err := lt.svc.GetCharacterSheet(ctx, lt.Seated, lt.CharacterID)
		tabletest.Must(t, err)
		if sheet.Table != nil {
			t.Fatalf("a revoked player's sheet still rolls at %+v", sheet.Table)
		}
		_, err = lt.svc.RollFromSheet(ctx, lt.Seated, lt.CharacterID, table.SheetRollInput{Check: "stealth"})
		wantCode(t, err, apperr.CharacterNotAtTable)
	})

	// Once the session ends the character is free: its sheet rolls nothing.
	t.Run("ErrSessionEnded", func(t *testing.T) {
		_, err := lt.svc.EndSession(ctx, lt.Owner, lt.LobbyID)
		tabletest.Must(t, err)
		sheet, err := lt.svc.GetCharacterSheet(ctx, lt.Unseated, lt.UnseatedCharacterID)
		tabletest.Must(t, err)
		if sheet.Table != nil {
			t.Fatalf("an ended session is still the sheet's table: %+v", sheet.Table)
		}
		_, err = lt.svc.RollFromSheet(ctx, lt.Unseated, lt.UnseatedCharacterID, table.SheetRollInput{Check: "perception"})
		wantCode(t, err, apperr.CharacterNotAtTable)
	})
}
