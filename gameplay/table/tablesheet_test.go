package table_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/gameplay/table/tabletest"
	"github.com/adventure-table/adventure-table/models"
)

// TestResumeCarriesSheetTotals: every card at the table reads the sheet's
// totals from the resume, the same as the character page derives them, for
// the DM and the players alike (a character's numbers are never hidden).
func TestResumeCarriesSheetTotals(t *testing.T) {
	lt, _ := newLiveTable(t)
	mira, err := lt.svc.GetCharacter(ctx, lt.Seated, lt.CharacterID)
	tabletest.Must(t, err)
	tomas, err := lt.svc.GetCharacter(ctx, lt.Unseated, lt.UnseatedCharacterID)
	tabletest.Must(t, err)
	want := map[int64]table.CharacterDerived{mira.ID: mira.Derived, tomas.ID: tomas.Derived}
	for _, c := range []struct {
		name   string
		caller table.Caller
	}{{"DM", lt.Owner}, {"Player", lt.Seated}} {
		t.Run(c.name, func(t *testing.T) {
			r, err := lt.svc.Resume(ctx, c.caller, lt.LobbyID)
			tabletest.Must(t, err)
			if len(r.Participants) != 2 {
				t.Fatalf("got %d participants, want 2", len(r.Participants))
			}
			for _, p := range r.Participants {
				if p.Character == nil || p.Character.Derived == nil {
					t.Fatalf("seat %d: no sheet totals in %+v", p.SeatID, p.Character)
				}
				if diff := cmp.Diff(want[p.Character.ID], *p.Character.Derived); diff != "" {
					t.Errorf("%s's card derives differently (-page +card):\n%s", p.Character.Name, diff)
				}
			}
		})
	}
}

// TestRollHistoryNamesSheetRolls: a quick roll of the sheet keeps what it
// rolled (the check, or the attack with its roll and damage type), so the
// history read later names it as the live event did; plain dice name
// nothing.
func TestRollHistoryNamesSheetRolls(t *testing.T) {
	lt, store := newLiveTable(t)
	ch, err := store.FindCharacterByID(ctx, lt.CharacterID)
	tabletest.Must(t, err)
	ch.Attacks = []models.Attack{{Name: "Longsword", Ability: "str", Proficient: true, Damage: "1d8", DamageType: "slashing", AddModifier: true}}
	tabletest.Must(t, store.SaveCharacter(ctx, ch))

	hit := lt.input(t, lt.Seated, "/r attack longsword")
	dmg, err := lt.svc.QuickRoll(ctx, lt.Seated, lt.LobbyID, table.QuickRollInput{Attack: "1", Damage: true})
	tabletest.Must(t, err)
	save := lt.input(t, lt.Seated, "/r dex save")
	seat := lt.PlayerSeatID
	proxy, err := lt.svc.QuickRoll(ctx, lt.Owner, lt.LobbyID, table.QuickRollInput{Check: "Perception", SubjectSeatID: &seat})
	tabletest.Must(t, err)
	plain := lt.input(t, lt.Seated, "/r 2d6")
	type what struct{ Check, AttackName, AttackRoll, DamageType string }
	want := map[int64]what{
		hit.Roll.ID:   {AttackName: "Longsword", AttackRoll: "to_hit"},
		dmg.ID:        {AttackName: "Longsword", AttackRoll: "damage", DamageType: "slashing"},
		save.Roll.ID:  {Check: "dex_save"},
		proxy.ID:      {Check: "perception"},
		plain.Roll.ID: {},
	}
	if got := (what{dmg.Check, dmg.AttackName, dmg.AttackRoll, dmg.DamageType}); got != want[dmg.ID] {
		t.Errorf("the answer names %+v, want %+v", got, want[dmg.ID])
	}
	for _, c := range []table.Caller{lt.Seated, lt.Owner} {
		h, err := lt.svc.RollHistory(ctx, c, lt.LobbyID, 0, 30)
		tabletest.Must(t, err)
		seen := 0
		for _, r := range h.Results {
			w, ok := want[r.ID]
			if !ok {
				continue
			}
			seen++
			if got := (what{r.Check, r.AttackName, r.AttackRoll, r.DamageType}); got != w {
				t.Errorf("history result %d names %+v, want %+v", r.ID, got, w)
			}
		}
		if seen != len(want) {
			t.Fatalf("the history holds %d of the %d rolls", seen, len(want))
		}
	}
}
