package combat_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/adventure-table/adventure-table/gameplay/combat"
	"github.com/adventure-table/adventure-table/gameplay/dice"
	"github.com/adventure-table/adventure-table/gameplay/sheet"
)

// TestTwoRoundFight runs a fight through every rule with physical dice:
// two seats (bonuses from their sheets) and a goblin, an initiative tie
// broken by the bonus and another by a roll-off, a timed condition, a
// critical hit dropping a player, death saves, damage at 0 HP, and the dead
// skipped. Every step returns a new value; the history of values stays as
// it was, which is what storing the steps as events will rely on.
func TestTwoRoundFight(t *testing.T) {
	scores := func(dex int) sheet.Scores { return sheet.Scores{Str: 16, Dex: dex, Con: 12, Int: 10, Wis: 10, Cha: 10} }
	fighter := combat.Combatant{ID: "seat:1", Name: "Brakka", SeatID: 1, InitiativeBonus: combat.SeatBonus(sheet.Input{Level: 3, Scores: scores(14)}),
		AC: 16, HP: combat.HP{Max: 28, Current: 28}}
	wizard := combat.Combatant{ID: "seat:2", Name: "Ilsa", SeatID: 2, InitiativeBonus: combat.SeatBonus(sheet.Input{Level: 3, Scores: scores(12)}),
		AC: 12, HP: combat.HP{Max: 8, Current: 8}}
	goblin := combat.Combatant{ID: "npc:goblin", Name: "Goblin", InitiativeBonus: 2, Advantage: true, AC: 15, HP: combat.HP{Max: 7, Current: 7}, DiesAtZero: true}

	var history []combat.Encounter
	must := func(e combat.Encounter, err error) combat.Encounter {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		history = append(history, e)
		return e
	}
	e := combat.Encounter{}
	for _, c := range []combat.Combatant{fighter, wizard, goblin} {
		e = must(e.Add(c, nil))
	}
	for id, faces := range map[string][]int{"seat:1": {13}, "seat:2": {14}, "npc:goblin": {5, 13}} {
		c, _ := e.Combatant(id)
		in, err := combat.RollInitiative(c, dice.Faces(faces...))
		if err != nil {
			t.Fatal(err)
		}
		e = must(e.SetInitiative(id, in))
	}
	// All at 15. Ilsa (+1) is behind Brakka and the goblin (+2), who roll
	// off: goblin 8, Brakka 17 (in ID order).
	e, tc, err := e.Start(dice.Faces(8, 17))
	e = must(e, err)
	if diff := cmp.Diff([]string{"seat:1", "npc:goblin", "seat:2"}, e.Order()); diff != "" {
		t.Fatalf("order (-want +got):\n%s", diff)
	}
	if tc.ActorID != "seat:1" || tc.Round != 1 {
		t.Fatalf("start: %+v", tc)
	}

	attack := func(attackerID, targetID string, bonus int, d20 []int, damage string, dmgFaces []int) combat.Damage {
		t.Helper()
		attacker, _ := e.Combatant(attackerID)
		target, _ := e.Combatant(targetID)
		adv, dis, auto := combat.AttackModes(attacker, target, true)
		ar, err := combat.RollAttack(combat.Attack{Bonus: bonus, Advantage: adv, Disadvantage: dis, AutoCritical: auto}, target.AC, dice.Faces(d20...))
		if err != nil {
			t.Fatal(err)
		}
		if !ar.Hit {
			return combat.Damage{}
		}
		dr, err := combat.RollDamage(damage, "slashing", ar.Critical, dice.Faces(dmgFaces...))
		if err != nil {
			t.Fatal(err)
		}
		target, dmg := combat.TakeDamage(target, []combat.DamageRoll{dr}, ar.Critical)
		e = must(e.Update(target))
		return dmg
	}
	next := func(wantActor string, wantRound int) combat.TurnChange {
		t.Helper()
		var tc combat.TurnChange
		e, tc, err = e.Next()
		e = must(e, err)
		if tc.ActorID != wantActor || tc.Round != wantRound {
			t.Fatalf("turn: %s round %d, want %s round %d", tc.ActorID, tc.Round, wantActor, wantRound)
		}
		return tc
	}

	// Round 1. Brakka hits the goblin (10 + 5 vs 15) for 1d8 + 3 = 5 and
	// frightens it until the end of her next turn.
	if dmg := attack("seat:1", "npc:goblin", 5, []int{10}, "1d8 + 3", []int{2}); dmg.After.Current != 2 {
		t.Fatalf("goblin at %d, want 2", dmg.After.Current)
	}
	e = must(e.AddCondition("npc:goblin", combat.Condition{Name: "frightened", Ends: combat.AtEndOfTurn, TimerID: "seat:1", Rounds: 1}))
	next("npc:goblin", 1)
	// The frightened goblin attacks Ilsa with disadvantage: 20 and 20, a
	// critical hit: (1d6 + 1d6) + 2 = 11, 3 past her 8 HP (not massive).
	if dmg := attack("npc:goblin", "seat:2", 4, []int{20, 20}, "1d6 + 2", []int{4, 5}); !dmg.Unconscious || dmg.Taken != 11 {
		t.Fatalf("Ilsa: %+v", dmg)
	}
	if tc := next("seat:2", 1); !tc.DeathSaveDue {
		t.Fatal("Ilsa must roll a death save")
	}
	ilsa, _ := e.Combatant("seat:2")
	ilsa, ds, err := combat.RollDeathSave(ilsa, dice.Faces(12))
	if err != nil {
		t.Fatal(err)
	}
	e = must(e.Update(ilsa))
	if !ds.Success || ds.After.Successes != 1 {
		t.Fatalf("death save: %+v", ds)
	}

	// Round 2. Brakka rolls a natural 1 and misses; her turn ends and the
	// goblin is no longer frightened.
	next("seat:1", 2)
	attack("seat:1", "npc:goblin", 5, []int{1}, "1d8 + 3", nil)
	if tc := next("npc:goblin", 2); len(tc.Expired) != 1 || tc.Expired[0].Condition.Name != "frightened" {
		t.Fatalf("expired: %+v", tc.Expired)
	}
	// The goblin stabs unconscious Ilsa within 5 feet: advantage, and the
	// hit is a critical: two failed death saves.
	if dmg := attack("npc:goblin", "seat:2", 4, []int{3, 11}, "1d6 + 2", []int{1, 1}); dmg.DeathSaveFailures != 2 || dmg.Died {
		t.Fatalf("Ilsa at 0 HP: %+v", dmg)
	}
	next("seat:2", 2)
	ilsa, _ = e.Combatant("seat:2")
	if ilsa, ds, err = combat.RollDeathSave(ilsa, dice.Faces(9)); err != nil {
		t.Fatal(err)
	}
	e = must(e.Update(ilsa))
	if !ds.Died || ilsa.Status() != combat.StatusDead {
		t.Fatalf("Ilsa: %+v %s", ds, ilsa.Status())
	}

	// Round 3: Brakka kills the goblin; the dead are skipped from now on.
	next("seat:1", 3)
	if dmg := attack("seat:1", "npc:goblin", 5, []int{15}, "1d8 + 3", []int{6}); !dmg.Died {
		t.Fatalf("goblin: %+v", dmg)
	}
	next("seat:1", 4)

	// The first values are untouched by everything that followed.
	first := history[0]
	if len(first.Combatants) != 1 || first.Started() || first.Combatants[0].Initiative != nil {
		t.Errorf("first value changed: %+v", first)
	}
	started := history[6]
	if g, _ := started.Combatant("npc:goblin"); g.HP.Current != 7 || len(g.Conditions) != 0 || started.Round != 1 {
		t.Errorf("the started encounter changed: goblin %+v round %d", g, started.Round)
	}
}
