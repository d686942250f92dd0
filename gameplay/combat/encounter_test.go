package combat_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/adventure-table/adventure-table/gameplay/combat"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// threeWay is a started encounter: a (18), b (12), c (5), a to act.
func threeWay(t *testing.T, mod func(*combat.Combatant)) combat.Encounter {
	t.Helper()
	cs := []combat.Combatant{
		{ID: "a", HP: combat.HP{Max: 10, Current: 10}, Initiative: entered(18)},
		{ID: "b", HP: combat.HP{Max: 10, Current: 10}, Initiative: entered(12)},
		{ID: "c", HP: combat.HP{Max: 10, Current: 10}, Initiative: entered(5)},
	}
	if mod != nil {
		for i := range cs {
			mod(&cs[i])
		}
	}
	e, _, err := mustEncounter(t, cs...).Start(nil)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

type step struct {
	Actor        string
	Round        int
	NewRound     bool
	DeathSaveDue bool
}

func advance(t *testing.T, e combat.Encounter, n int) (combat.Encounter, []step) {
	t.Helper()
	var out []step
	for range n {
		var tc combat.TurnChange
		var err error
		if e, tc, err = e.Next(); err != nil {
			t.Fatal(err)
		}
		out = append(out, step{tc.ActorID, tc.Round, tc.NewRound, tc.DeathSaveDue})
	}
	return e, out
}

func TestNextTurnsAndRounds(t *testing.T) {
	for _, tt := range []struct {
		name string
		mod  func(*combat.Combatant)
		want []step
	}{
		{"AllAct", nil, []step{{"b", 1, false, false}, {"c", 1, false, false}, {"a", 2, true, false}, {"b", 2, false, false}}},
		{"DeadSkipped", func(c *combat.Combatant) {
			if c.ID == "b" {
				c.Dead = true
			}
		}, []step{{"c", 1, false, false}, {"a", 2, true, false}, {"c", 2, false, false}}},
		{"DeadLastSkippedIntoNewRound", func(c *combat.Combatant) {
			if c.ID == "c" {
				c.Dead = true
			}
		}, []step{{"b", 1, false, false}, {"a", 2, true, false}}},
		{"DyingKeepsTurnAndMustSave", func(c *combat.Combatant) {
			if c.ID == "b" {
				c.HP.Current = 0
			}
		}, []step{{"b", 1, false, true}, {"c", 1, false, false}}},
		{"StableKeepsTurnWithoutSave", func(c *combat.Combatant) {
			if c.ID == "b" {
				c.HP.Current, c.DeathSaves.Stable = 0, true
			}
		}, []step{{"b", 1, false, false}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := threeWay(t, tt.mod)
			before := e.Turn
			got, steps := advance(t, e, len(tt.want))
			if diff := cmp.Diff(tt.want, steps); diff != "" {
				t.Errorf("turns (-want +got):\n%s", diff)
			}
			if cur, _ := got.Current(); cur.ID != tt.want[len(tt.want)-1].Actor {
				t.Errorf("current = %q", cur.ID)
			}
			if e.Turn != before || e.Round != 1 {
				t.Errorf("Next changed its input: turn %d round %d", e.Turn, e.Round)
			}
		})
	}
	t.Run("ErrNotStarted", func(t *testing.T) {
		if _, _, err := (combat.Encounter{}).Next(); apperr.CodeOf(err) != apperr.Conflict {
			t.Errorf("code = %q, want conflict", apperr.CodeOf(err))
		}
	})
	t.Run("ErrAllDead", func(t *testing.T) {
		e := threeWay(t, nil)
		for _, id := range []string{"a", "b", "c"} {
			c, _ := e.Combatant(id)
			c.Dead = true
			e, _ = e.Update(c)
		}
		if _, _, err := e.Next(); apperr.CodeOf(err) != apperr.InvalidRequest {
			t.Errorf("code = %q, want invalid_request", apperr.CodeOf(err))
		}
	})
}

func TestRemove(t *testing.T) {
	for _, tt := range []struct {
		name        string
		advance     int // turns before the removal
		remove      string
		wantOrder   []string
		wantCurrent string
		wantRound   int
		wantActor   string // the report's actor: set when the turn passed
	}{
		{"BeforeCurrent", 1, "a", []string{"b", "c"}, "b", 1, ""},
		{"AfterCurrent", 1, "c", []string{"a", "b"}, "b", 1, ""},
		{"CurrentPassesTurn", 1, "b", []string{"a", "c"}, "c", 1, "c"},
		{"CurrentLastStartsRound", 2, "c", []string{"a", "b"}, "a", 2, "a"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e, _ := advance(t, threeWay(t, nil), tt.advance)
			got, tc, err := e.Remove(tt.remove)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.wantOrder, got.Order()); diff != "" {
				t.Errorf("order (-want +got):\n%s", diff)
			}
			if cur, _ := got.Current(); cur.ID != tt.wantCurrent || got.Round != tt.wantRound || tc.ActorID != tt.wantActor {
				t.Errorf("current %q round %d actor %q, want %q %d %q", cur.ID, got.Round, tc.ActorID, tt.wantCurrent, tt.wantRound, tt.wantActor)
			}
			// The next turn follows the order that is left.
			_, steps := advance(t, got, 1)
			i := (got.Turn + 1) % len(tt.wantOrder)
			if steps[0].Actor != tt.wantOrder[i] {
				t.Errorf("next actor %q, want %q", steps[0].Actor, tt.wantOrder[i])
			}
		})
	}
	t.Run("TimedConditionsEndWithTheirTimer", func(t *testing.T) {
		e := threeWay(t, nil)
		e, err := e.AddCondition("a", combat.Condition{Name: "frightened", Ends: combat.AtEndOfTurn, TimerID: "c", Rounds: 1})
		if err != nil {
			t.Fatal(err)
		}
		e, tc, err := e.Remove("c")
		if err != nil {
			t.Fatal(err)
		}
		if len(tc.Expired) != 1 || tc.Expired[0].CombatantID != "a" || tc.Expired[0].Condition.Name != "frightened" {
			t.Errorf("expired = %+v, want a's frightened", tc.Expired)
		}
		if a, _ := e.Combatant("a"); len(a.Conditions) != 0 {
			t.Errorf("a still has %+v", a.Conditions)
		}
	})
	t.Run("ErrLastAbleToAct", func(t *testing.T) {
		e := mustEncounter(t, combat.Combatant{ID: "a", Initiative: entered(3)}, combat.Combatant{ID: "b", Dead: true, Initiative: entered(2)})
		e, _, _ = e.Start(nil)
		if _, _, err := e.Remove("a"); apperr.CodeOf(err) != apperr.InvalidRequest {
			t.Errorf("code = %q, want invalid_request", apperr.CodeOf(err))
		}
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		if _, _, err := threeWay(t, nil).Remove("z"); apperr.CodeOf(err) != apperr.NotFound {
			t.Errorf("code = %q, want not_found", apperr.CodeOf(err))
		}
	})
}

func TestConditionExpiry(t *testing.T) {
	// Turn order a, b, c. Each case applies a condition to b after
	// `applyAfter` Next calls, then advances; wantAt is the index (1-based)
	// of the Next call whose report lists it as expired, with the actor
	// whose turn began in that call.
	for _, tt := range []struct {
		name       string
		applyAfter int
		cond       combat.Condition
		wantAt     int
		wantActor  string
	}{
		// Set during c's turn (round 1), "until the end of c's next turn":
		// c's current turn end does not count; it ends when c's round-2
		// turn ends, i.e. the Next that starts a's round-3 turn.
		{"EndOfSourcesNextTurnSetInItsTurn", 2, combat.Condition{Name: "frightened", Ends: combat.AtEndOfTurn, TimerID: "c", Rounds: 1}, 4, "a"},
		// Set during a's turn, timed by c: ends at the end of c's turn in
		// this round.
		{"EndOfSourcesNextTurnSetBefore", 0, combat.Condition{Name: "frightened", Ends: combat.AtEndOfTurn, TimerID: "c", Rounds: 1}, 3, "a"},
		// "Until the start of the source's next turn": a sets it on its turn,
		// it ends when a's next turn starts.
		{"StartOfSourcesNextTurn", 0, combat.Condition{Name: "restrained", Ends: combat.AtStartOfTurn, TimerID: "a", Rounds: 1}, 3, "a"},
		// The bearer's own turn: ends at the start of b's second turn from now.
		{"StartOfOwnTurnTwoRounds", 0, combat.Condition{Name: "poisoned", Ends: combat.AtStartOfTurn, TimerID: "b", Rounds: 2}, 4, "b"},
		// Ten rounds (one minute) at the end of the bearer's turn, set on its turn.
		{"OneMinute", 1, combat.Condition{Name: "blinded", Ends: combat.AtEndOfTurn, TimerID: "b", Rounds: 10}, 31, "c"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e, _ := advance(t, threeWay(t, nil), tt.applyAfter)
			e, err := e.AddCondition("b", tt.cond)
			if err != nil {
				t.Fatal(err)
			}
			for i := 1; i <= tt.wantAt; i++ {
				var tc combat.TurnChange
				if e, tc, err = e.Next(); err != nil {
					t.Fatal(err)
				}
				b, _ := e.Combatant("b")
				if i < tt.wantAt {
					if len(tc.Expired) != 0 || len(b.Conditions) != 1 {
						t.Fatalf("Next %d (%s's turn): expired %+v, b has %+v; want it still on", i, tc.ActorID, tc.Expired, b.Conditions)
					}
					continue
				}
				if len(tc.Expired) != 1 || tc.Expired[0].Condition.Name != tt.cond.Name || tc.Expired[0].CombatantID != "b" || tc.ActorID != tt.wantActor {
					t.Errorf("Next %d: expired %+v actor %q, want b's %s as %s's turn starts", i, tc.Expired, tc.ActorID, tt.cond.Name, tt.wantActor)
				}
				if len(b.Conditions) != 0 {
					t.Errorf("b still has %+v", b.Conditions)
				}
			}
		})
	}
	t.Run("UntimedStays", func(t *testing.T) {
		e, err := threeWay(t, nil).AddCondition("b", combat.Condition{Name: " Prone "})
		if err != nil {
			t.Fatal(err)
		}
		e, _ = advance(t, e, 9)
		b, _ := e.Combatant("b")
		if diff := cmp.Diff([]combat.Condition{{Name: "prone"}}, b.Conditions); diff != "" {
			t.Errorf("conditions (-want +got):\n%s", diff)
		}
		if e, err = e.RemoveCondition("b", "prone"); err != nil {
			t.Fatal(err)
		}
		if b, _ := e.Combatant("b"); len(b.Conditions) != 0 {
			t.Errorf("after removal: %+v", b.Conditions)
		}
	})
	t.Run("ReaddReplacesDuration", func(t *testing.T) {
		e := threeWay(t, nil)
		e, _ = e.AddCondition("b", combat.Condition{Name: "poisoned", Ends: combat.AtStartOfTurn, TimerID: "b", Rounds: 1})
		e, _ = e.AddCondition("b", combat.Condition{Name: "poisoned", Ends: combat.AtStartOfTurn, TimerID: "b", Rounds: 3})
		b, _ := e.Combatant("b")
		if len(b.Conditions) != 1 || b.Conditions[0].Rounds != 3 {
			t.Errorf("conditions = %+v, want one poisoned for 3", b.Conditions)
		}
	})
	for _, tt := range []struct {
		name string
		cond combat.Condition
		code apperr.Code
	}{
		{"ErrNoName", combat.Condition{Name: " "}, apperr.InvalidRequest},
		{"ErrBadBoundary", combat.Condition{Name: "prone", Ends: "noon", TimerID: "a", Rounds: 1}, apperr.InvalidRequest},
		{"ErrZeroRounds", combat.Condition{Name: "prone", Ends: combat.AtEndOfTurn, TimerID: "a"}, apperr.InvalidRequest},
		{"ErrUnknownTimer", combat.Condition{Name: "prone", Ends: combat.AtEndOfTurn, TimerID: "z", Rounds: 1}, apperr.NotFound},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := threeWay(t, nil)
			got, err := e.AddCondition("b", tt.cond)
			if apperr.CodeOf(err) != tt.code {
				t.Errorf("code = %q, want %q", apperr.CodeOf(err), tt.code)
			}
			if b, _ := got.Combatant("b"); len(b.Conditions) != 0 {
				t.Errorf("a refused condition was added: %+v", b.Conditions)
			}
		})
	}
}
