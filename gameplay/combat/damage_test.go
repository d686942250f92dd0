package combat_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/adventure-table/adventure-table/gameplay/combat"
	"github.com/adventure-table/adventure-table/gameplay/dice"
	"github.com/adventure-table/adventure-table/models/apperr"
)

func TestRollAttack(t *testing.T) {
	for _, tt := range []struct {
		name      string
		a         combat.Attack
		ac        int
		faces     []int
		total     int
		hit, crit bool
	}{
		{"HitEqualsAC", combat.Attack{Bonus: 5}, 15, []int{10}, 15, true, false},
		{"MissBelowAC", combat.Attack{Bonus: 5}, 15, []int{9}, 14, false, false},
		{"Natural20HitsAnyACAndCrits", combat.Attack{Bonus: 0}, 30, []int{20}, 20, true, true},
		{"Natural1MissesAnyTotal", combat.Attack{Bonus: 25}, 10, []int{1}, 26, false, false},
		{"AdvantageKeepsHighNatural20", combat.Attack{Bonus: 2, Advantage: true}, 25, []int{3, 20}, 22, true, true},
		{"DisadvantageKeepsLowNatural1", combat.Attack{Bonus: 9, Disadvantage: true}, 5, []int{20, 1}, 10, false, false},
		{"NegativeBonus", combat.Attack{Bonus: -2}, 12, []int{14}, 12, true, false},
		{"AutoCriticalOnHit", combat.Attack{Bonus: 3, AutoCritical: true}, 12, []int{9}, 12, true, true},
		{"AutoCriticalMissStaysMiss", combat.Attack{Bonus: 3, AutoCritical: true}, 12, []int{8}, 11, false, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := combat.RollAttack(tt.a, tt.ac, dice.Faces(tt.faces...))
			if err != nil {
				t.Fatal(err)
			}
			if got.Total != tt.total || got.Hit != tt.hit || got.Critical != tt.crit || got.AC != tt.ac {
				t.Errorf("total %d hit %v crit %v, want %d %v %v", got.Total, got.Hit, got.Critical, tt.total, tt.hit, tt.crit)
			}
		})
	}
	t.Run("ErrBadAC", func(t *testing.T) {
		if _, err := combat.RollAttack(combat.Attack{}, -1, dice.Faces(10)); apperr.CodeOf(err) != apperr.InvalidRequest {
			t.Errorf("code = %q, want invalid_request", apperr.CodeOf(err))
		}
	})
}

func TestRollDamage(t *testing.T) {
	for _, tt := range []struct {
		name     string
		notation string
		crit     bool
		faces    []int
		want     int
		formula  string
	}{
		{"Normal", "1d8 + 3", false, []int{5}, 8, "d8 + 3"},
		{"CriticalDoublesDiceNotModifier", "1d8 + 3", true, []int{5, 6}, 14, "d8 + d8 + 3"},
		{"CriticalEveryTerm", "2d6 + 1d4 + 2", true, []int{1, 2, 3, 4, 1, 2}, 15, "2d6 + 2d6 + (d4 + d4) + 2"},
		{"NeverNegative", "1d4 - 5", false, []int{2}, 0, "d4 - 5"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := combat.RollDamage(tt.notation, "Slashing", tt.crit, dice.Faces(tt.faces...))
			if err != nil {
				t.Fatal(err)
			}
			if got.Amount != tt.want || got.Roll.Normalized != tt.formula || got.Type != "slashing" {
				t.Errorf("amount %d formula %q type %q, want %d %q slashing", got.Amount, got.Roll.Normalized, got.Type, tt.want, tt.formula)
			}
		})
	}
	t.Run("ErrNotation", func(t *testing.T) {
		if _, err := combat.RollDamage("2d", "fire", false, nil); apperr.CodeOf(err) != dice.CodeInvalidExpression {
			t.Errorf("code = %q, want %q", apperr.CodeOf(err), dice.CodeInvalidExpression)
		}
	})
}

func TestDefensesModified(t *testing.T) {
	d := combat.Defenses{Immunities: []string{"poison"}, Resistances: []string{"Fire", "cold"}, Vulnerabilities: []string{"cold", "radiant"}}
	for _, tt := range []struct {
		typ    string
		amount int
		want   int
	}{
		{"slashing", 7, 7},
		{"poison", 30, 0},
		{"fire", 7, 3}, // half, rounded down
		{"FIRE", 1, 0}, // case-insensitive
		{"radiant", 7, 14},
		{"cold", 7, 6},  // resistance then vulnerability
		{"", 9, 9},      // untyped
		{"fire", -4, 0}, // never negative
	} {
		if got := d.Modified(tt.amount, tt.typ); got != tt.want {
			t.Errorf("Modified(%d, %q) = %d, want %d", tt.amount, tt.typ, got, tt.want)
		}
	}
}

func part(amount int, typ string) combat.DamageRoll {
	return combat.DamageRoll{Amount: amount, Type: typ}
}

func TestTakeDamage(t *testing.T) {
	pc := combat.Combatant{ID: "pc", HP: combat.HP{Max: 20, Current: 12}}
	for _, tt := range []struct {
		name  string
		c     combat.Combatant
		parts []combat.DamageRoll
		crit  bool
		want  combat.Damage
		saves combat.DeathSaves
		stat  string
	}{
		{"HPOnly", pc, []combat.DamageRoll{part(5, "slashing")}, false,
			combat.Damage{Before: pc.HP, After: combat.HP{Max: 20, Current: 7}, Taken: 5}, combat.DeathSaves{}, combat.StatusActive},
		{"TempFirst", with(pc, func(c *combat.Combatant) { c.HP.Temp = 4 }), []combat.DamageRoll{part(6, "fire")}, false,
			combat.Damage{Before: combat.HP{Max: 20, Current: 12, Temp: 4}, After: combat.HP{Max: 20, Current: 10}, Taken: 6, TempAbsorbed: 4}, combat.DeathSaves{}, combat.StatusActive},
		{"TempAbsorbsAll", with(pc, func(c *combat.Combatant) { c.HP.Temp = 8 }), []combat.DamageRoll{part(6, "fire")}, false,
			combat.Damage{Before: combat.HP{Max: 20, Current: 12, Temp: 8}, After: combat.HP{Max: 20, Current: 12, Temp: 2}, Taken: 6, TempAbsorbed: 6}, combat.DeathSaves{}, combat.StatusActive},
		{"ResistanceAndVulnerabilityPerPart", with(pc, func(c *combat.Combatant) {
			c.Defenses = combat.Defenses{Resistances: []string{"fire"}, Vulnerabilities: []string{"radiant"}, Immunities: []string{"poison"}}
		}), []combat.DamageRoll{part(5, "fire"), part(3, "radiant"), part(9, "poison")}, false,
			combat.Damage{Before: pc.HP, After: combat.HP{Max: 20, Current: 4}, Taken: 8}, combat.DeathSaves{}, combat.StatusActive},
		{"DropsToZeroUnconscious", with(pc, func(c *combat.Combatant) { c.DeathSaves = combat.DeathSaves{Failures: 2} }), []combat.DamageRoll{part(20, "")}, false,
			combat.Damage{Before: pc.HP, After: combat.HP{Max: 20}, Taken: 20, Unconscious: true}, combat.DeathSaves{}, combat.StatusDying},
		{"MassiveDamageInstantDeath", pc, []combat.DamageRoll{part(32, "")}, false,
			combat.Damage{Before: pc.HP, After: combat.HP{Max: 20}, Taken: 32, InstantDeath: true, Died: true}, combat.DeathSaves{}, combat.StatusDead},
		{"JustBelowMassive", pc, []combat.DamageRoll{part(31, "")}, false,
			combat.Damage{Before: pc.HP, After: combat.HP{Max: 20}, Taken: 31, Unconscious: true}, combat.DeathSaves{}, combat.StatusDying},
		{"MonsterDiesAtZero", with(pc, func(c *combat.Combatant) { c.DiesAtZero = true }), []combat.DamageRoll{part(12, "")}, false,
			combat.Damage{Before: pc.HP, After: combat.HP{Max: 20}, Taken: 12, Died: true}, combat.DeathSaves{}, combat.StatusDead},
		{"AtZeroOneFailure", down(pc, 1), []combat.DamageRoll{part(3, "")}, false,
			combat.Damage{Before: combat.HP{Max: 20}, After: combat.HP{Max: 20}, Taken: 3, DeathSaveFailures: 1}, combat.DeathSaves{Failures: 2}, combat.StatusDying},
		{"AtZeroCriticalTwoFailures", down(pc, 0), []combat.DamageRoll{part(3, "")}, true,
			combat.Damage{Before: combat.HP{Max: 20}, After: combat.HP{Max: 20}, Taken: 3, DeathSaveFailures: 2}, combat.DeathSaves{Failures: 2}, combat.StatusDying},
		{"AtZeroThirdFailureKills", down(pc, 2), []combat.DamageRoll{part(3, "")}, false,
			combat.Damage{Before: combat.HP{Max: 20}, After: combat.HP{Max: 20}, Taken: 3, DeathSaveFailures: 1, Died: true}, combat.DeathSaves{Failures: 3}, combat.StatusDead},
		{"AtZeroMassiveKills", down(pc, 0), []combat.DamageRoll{part(20, "")}, false,
			combat.Damage{Before: combat.HP{Max: 20}, After: combat.HP{Max: 20}, Taken: 20, InstantDeath: true, Died: true}, combat.DeathSaves{}, combat.StatusDead},
		{"StableDamagedDyingAgain", with(down(pc, 0), func(c *combat.Combatant) { c.DeathSaves.Stable = true }), []combat.DamageRoll{part(1, "")}, false,
			combat.Damage{Before: combat.HP{Max: 20}, After: combat.HP{Max: 20}, Taken: 1, DeathSaveFailures: 1}, combat.DeathSaves{Failures: 1}, combat.StatusDying},
		{"ImmuneTakesNothing", with(pc, func(c *combat.Combatant) { c.Defenses.Immunities = []string{"fire"} }), []combat.DamageRoll{part(9, "fire")}, false,
			combat.Damage{Before: pc.HP, After: pc.HP}, combat.DeathSaves{}, combat.StatusActive},
		{"DeadTakesNothing", with(down(pc, 0), func(c *combat.Combatant) { c.Dead = true }), []combat.DamageRoll{part(9, "")}, false,
			combat.Damage{Before: combat.HP{Max: 20}, After: combat.HP{Max: 20}}, combat.DeathSaves{}, combat.StatusDead},
	} {
		t.Run(tt.name, func(t *testing.T) {
			before := tt.c.HP
			got, dmg := combat.TakeDamage(tt.c, tt.parts, tt.crit)
			if diff := cmp.Diff(tt.want, dmg); diff != "" {
				t.Errorf("damage (-want +got):\n%s", diff)
			}
			if got.HP != dmg.After || got.DeathSaves != tt.saves || got.Status() != tt.stat {
				t.Errorf("combatant hp %+v saves %+v status %s, want %+v %+v %s", got.HP, got.DeathSaves, got.Status(), dmg.After, tt.saves, tt.stat)
			}
			if tt.c.HP != before {
				t.Errorf("TakeDamage changed its input")
			}
		})
	}
}

func TestApplyDamage(t *testing.T) {
	for _, tt := range []struct {
		hp       combat.HP
		amount   int
		want     combat.HP
		overflow int
	}{
		{combat.HP{Max: 10, Current: 10, Temp: 3}, 2, combat.HP{Max: 10, Current: 10, Temp: 1}, 0},
		{combat.HP{Max: 10, Current: 10, Temp: 3}, 5, combat.HP{Max: 10, Current: 8}, 0},
		{combat.HP{Max: 10, Current: 4, Temp: 3}, 10, combat.HP{Max: 10}, 3},
	} {
		got, overflow := combat.ApplyDamage(tt.hp, tt.amount)
		if got != tt.want || overflow != tt.overflow {
			t.Errorf("ApplyDamage(%+v, %d) = %+v, %d; want %+v, %d", tt.hp, tt.amount, got, overflow, tt.want, tt.overflow)
		}
	}
}

func TestHeal(t *testing.T) {
	c := down(combat.Combatant{ID: "pc", HP: combat.HP{Max: 20}}, 2)
	got, err := combat.Heal(c, 30)
	if err != nil {
		t.Fatal(err)
	}
	if got.HP.Current != 20 || got.DeathSaves != (combat.DeathSaves{}) || got.Status() != combat.StatusActive {
		t.Errorf("healed: %+v %+v", got.HP, got.DeathSaves)
	}
	dead := with(c, func(c *combat.Combatant) { c.Dead = true })
	if got, _ := combat.Heal(dead, 5); got.HP.Current != 0 || !got.Dead {
		t.Errorf("the dead were healed: %+v", got)
	}
	if _, err := combat.Heal(c, 0); apperr.CodeOf(err) != apperr.InvalidRequest {
		t.Errorf("code = %q, want invalid_request", apperr.CodeOf(err))
	}
}

func TestDeathSave(t *testing.T) {
	dying := down(combat.Combatant{ID: "pc", HP: combat.HP{Max: 20}}, 0)
	for _, tt := range []struct {
		name    string
		saves   combat.DeathSaves
		natural int
		want    combat.DeathSaves
		success bool
		status  string
		hp      int
	}{
		{"TenSucceeds", combat.DeathSaves{}, 10, combat.DeathSaves{Successes: 1}, true, combat.StatusDying, 0},
		{"NineFails", combat.DeathSaves{}, 9, combat.DeathSaves{Failures: 1}, false, combat.StatusDying, 0},
		{"OneIsTwoFailures", combat.DeathSaves{Successes: 2}, 1, combat.DeathSaves{Successes: 2, Failures: 2}, false, combat.StatusDying, 0},
		{"TwentyRegainsOneHP", combat.DeathSaves{Successes: 1, Failures: 2}, 20, combat.DeathSaves{}, true, combat.StatusActive, 1},
		{"ThirdSuccessStable", combat.DeathSaves{Successes: 2, Failures: 2}, 15, combat.DeathSaves{Stable: true}, true, combat.StatusStable, 0},
		{"ThirdFailureDead", combat.DeathSaves{Successes: 2, Failures: 2}, 5, combat.DeathSaves{Successes: 2, Failures: 3}, false, combat.StatusDead, 0},
		{"OneWithOneFailureDead", combat.DeathSaves{Failures: 1}, 1, combat.DeathSaves{Failures: 3}, false, combat.StatusDead, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := with(dying, func(c *combat.Combatant) { c.DeathSaves = tt.saves })
			got, ds, err := combat.RollDeathSave(c, dice.Faces(tt.natural))
			if err != nil {
				t.Fatal(err)
			}
			if got.DeathSaves != tt.want || ds.After != tt.want || ds.Success != tt.success || got.Status() != tt.status || got.HP.Current != tt.hp {
				t.Errorf("saves %+v success %v status %s hp %d, want %+v %v %s %d", got.DeathSaves, ds.Success, got.Status(), got.HP.Current, tt.want, tt.success, tt.status, tt.hp)
			}
			if ds.Natural != tt.natural || ds.Roll.Formula != "1d20" {
				t.Errorf("roll %q natural %d", ds.Roll.Formula, ds.Natural)
			}
		})
	}
	for _, tt := range []struct {
		name string
		c    combat.Combatant
	}{
		{"ErrConscious", combat.Combatant{HP: combat.HP{Max: 5, Current: 5}}},
		{"ErrStable", with(dying, func(c *combat.Combatant) { c.DeathSaves.Stable = true })},
		{"ErrDead", with(dying, func(c *combat.Combatant) { c.Dead = true })},
	} {
		t.Run(tt.name, func(t *testing.T) {
			src := dice.Faces(12)
			if _, _, err := combat.RollDeathSave(tt.c, src); apperr.CodeOf(err) != apperr.InvalidRequest || src.Used() != 0 {
				t.Errorf("code = %q, dice used %d; want invalid_request, none", apperr.CodeOf(err), src.Used())
			}
		})
	}
}

func with(c combat.Combatant, f func(*combat.Combatant)) combat.Combatant {
	f(&c)
	return c
}

// down is c at 0 HP with failures death save failures.
func down(c combat.Combatant, failures int) combat.Combatant {
	c.HP.Current, c.HP.Temp = 0, 0
	c.DeathSaves = combat.DeathSaves{Failures: failures}
	return c
}
