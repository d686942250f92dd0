package table_test

import (
	"fmt"
	"testing"

	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/gameplay/table/tabletest"
	"github.com/adventure-table/adventure-table/models"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// TestCharacterDefenses: a sheet's damage resistances, immunities and
// vulnerabilities are stored (SRD types only), travel in the character
// file, and change the damage the character state and a fight deal.
func TestCharacterDefenses(t *testing.T) {
	lt, store := newLiveTable(t)
	svc := lt.svc
	in := tabletest.Character("Vex")
	in.Defenses = table.DefensesView{Resistances: []string{"Fire", " fire"}, Vulnerabilities: []string{"cold"}}
	v, err := svc.CreateCharacter(ctx, lt.Seated, in)
	tabletest.Must(t, err)
	if d := v.Defenses; len(d.Resistances) != 1 || d.Resistances[0] != "fire" || len(d.Vulnerabilities) != 1 || len(d.Immunities) != 0 {
		t.Fatalf("stored defenses: %+v", d)
	}
	file, err := svc.ExportCharacter(ctx, lt.Seated, v.ID)
	tabletest.Must(t, err)
	if len(file.Character.Defenses.Resistances) != 1 {
		t.Fatalf("the character file lost the defenses: %+v", file.Character.Defenses)
	}
	in.Defenses = table.DefensesView{Immunities: []string{"laser"}}
	_, err = svc.CreateCharacter(ctx, lt.Seated, in)
	wantCode(t, err, apperr.CharacterInvalid)
	if e, _ := apperr.As(err); e.Fields["defenses.immunities"] == "" {
		t.Fatalf("fields %v", e.Fields)
	}

	// Mira, at the table, resists fire and is vulnerable to cold.
	ch, err := store.FindCharacterByID(ctx, lt.CharacterID)
	tabletest.Must(t, err)
	ch.Defenses = models.DamageDefenses{Resistances: []string{"fire"}, Vulnerabilities: []string{"cold"}}
	tabletest.Must(t, store.SaveCharacter(ctx, ch))
	for _, step := range []struct {
		typ        string
		amount, hp int
	}{{"fire", 10, 15}, {"cold", 4, 7}, {"", 2, 5}} {
		out, err := svc.ChangeCharacterState(ctx, lt.Owner, lt.LobbyID, table.StateChangeInput{SubjectSeatID: lt.PlayerSeatID, Op: table.OpDamage, Amount: step.amount, DamageType: step.typ})
		tabletest.Must(t, err)
		if out.After.HP.Current != step.hp {
			t.Fatalf("%d %s damage: HP %d, want %d", step.amount, step.typ, out.After.HP.Current, step.hp)
		}
	}
	_, err = svc.ChangeCharacterState(ctx, lt.Owner, lt.LobbyID, table.StateChangeInput{SubjectSeatID: lt.PlayerSeatID, Op: table.OpDamage, Amount: 1, DamageType: "laser"})
	wantCode(t, err, apperr.CharacterStateInvalid)

	// In a fight the same defenses count: 4 fire halves to 2.
	_, err = svc.StartEncounter(ctx, lt.Owner, lt.LobbyID, table.StartEncounterInput{SeatIDs: []int64{lt.PlayerSeatID}})
	tabletest.Must(t, err)
	out, err := svc.ChangeCombatant(ctx, lt.Owner, lt.LobbyID, table.CombatantChangeInput{CombatantID: fmt.Sprintf("seat:%d", lt.PlayerSeatID), Op: table.OpDamage, Amount: 4, DamageType: "fire"})
	tabletest.Must(t, err)
	if c := out.Encounter.Combatants[0]; c.HP == nil || c.HP.Current != 3 {
		t.Fatalf("Mira in the fight after 4 fire: %+v", c.HP)
	}
}
