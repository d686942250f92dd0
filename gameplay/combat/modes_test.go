package combat_test

import (
	"testing"

	"github.com/adventure-table/adventure-table/gameplay/combat"
)

func conds(names ...string) combat.Combatant {
	c := combat.Combatant{HP: combat.HP{Max: 10, Current: 10}}
	for _, n := range names {
		c.Conditions = append(c.Conditions, combat.Condition{Name: n})
	}
	return c
}

func TestAttackModes(t *testing.T) {
	dying := combat.Combatant{HP: combat.HP{Max: 10}}
	for _, tt := range []struct {
		name               string
		attacker, target   combat.Combatant
		within5ft          bool
		adv, dis, autoCrit bool
	}{
		{"Plain", conds(), conds(), true, false, false, false},
		{"PoisonedAttacker", conds("poisoned"), conds(), true, false, true, false},
		{"InvisibleAttacker", conds("invisible"), conds(), false, true, false, false},
		{"BlindedTarget", conds(), conds("blinded"), false, true, false, false},
		{"InvisibleTarget", conds(), conds("invisible"), false, false, true, false},
		{"ProneTargetClose", conds(), conds("prone"), true, true, false, false},
		{"ProneTargetFar", conds(), conds("prone"), false, false, true, false},
		{"ParalyzedTargetCloseAutoCrit", conds(), conds("paralyzed"), true, true, false, true},
		{"ParalyzedTargetFar", conds(), conds("paralyzed"), false, true, false, false},
		{"DyingIsUnconscious", conds(), dying, true, true, false, true},
		{"BothCancelLater", conds("restrained"), conds("stunned"), false, true, true, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			adv, dis, crit := combat.AttackModes(tt.attacker, tt.target, tt.within5ft)
			if adv != tt.adv || dis != tt.dis || crit != tt.autoCrit {
				t.Errorf("AttackModes = %v %v %v, want %v %v %v", adv, dis, crit, tt.adv, tt.dis, tt.autoCrit)
			}
		})
	}
}

func TestCanAct(t *testing.T) {
	for _, tt := range []struct {
		name string
		c    combat.Combatant
		want bool
	}{
		{"Healthy", conds("prone", "poisoned"), true},
		{"Stunned", conds("stunned"), false},
		{"Incapacitated", conds("incapacitated"), false},
		{"AtZeroHP", combat.Combatant{HP: combat.HP{Max: 10}}, false},
		{"Dead", combat.Combatant{HP: combat.HP{Max: 10, Current: 3}, Dead: true}, false},
	} {
		if got := tt.c.CanAct(); got != tt.want {
			t.Errorf("%s: CanAct = %v, want %v", tt.name, got, tt.want)
		}
	}
}
