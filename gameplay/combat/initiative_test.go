package combat_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/adventure-table/adventure-table/gameplay/combat"
	"github.com/adventure-table/adventure-table/gameplay/dice"
	"github.com/adventure-table/adventure-table/gameplay/sheet"
	"github.com/adventure-table/adventure-table/models/apperr"
)

func TestSeatBonus(t *testing.T) {
	// Initiative is a Dexterity check: the sheet's number, not a second rule.
	in := sheet.Input{Level: 5, Scores: sheet.Scores{Str: 10, Dex: 15, Con: 10, Int: 10, Wis: 10, Cha: 10}}
	if got, want := combat.SeatBonus(in), sheet.Derive(in).Initiative; got != want || got != 2 {
		t.Errorf("SeatBonus = %d, want %d (= sheet initiative, +2)", got, want)
	}
}

func TestRollInitiative(t *testing.T) {
	for _, tt := range []struct {
		name           string
		c              combat.Combatant
		faces          []int
		total, natural int
		formula        string
	}{
		{"Normal", combat.Combatant{InitiativeBonus: 3}, []int{11}, 14, 11, "1d20 + 3"},
		{"NegativeBonus", combat.Combatant{InitiativeBonus: -1}, []int{11}, 10, 11, "1d20 - 1"},
		{"Advantage", combat.Combatant{InitiativeBonus: 2, Advantage: true}, []int{4, 17}, 19, 17, "2d20kh1 + 2"},
		{"Disadvantage", combat.Combatant{Disadvantage: true}, []int{4, 17}, 4, 4, "2d20kl1"},
		{"BothCancel", combat.Combatant{Advantage: true, Disadvantage: true}, []int{9}, 9, 9, "1d20"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := combat.RollInitiative(tt.c, dice.Faces(tt.faces...))
			if err != nil {
				t.Fatal(err)
			}
			if got.Total != tt.total || got.Natural != tt.natural || got.Roll.Formula != tt.formula {
				t.Errorf("got total %d natural %d formula %q, want %d %d %q", got.Total, got.Natural, got.Roll.Formula, tt.total, tt.natural, tt.formula)
			}
		})
	}
	t.Run("ErrPhysicalFaceInvalid", func(t *testing.T) {
		_, err := combat.RollInitiative(combat.Combatant{}, dice.Faces(21))
		if got := apperr.CodeOf(err); got != dice.CodeFaceInvalid {
			t.Errorf("code = %q, want %q", got, dice.CodeFaceInvalid)
		}
	})
}

// entered is an initiative entered as a total (the face is irrelevant to order).
func entered(total int) *combat.Initiative { return &combat.Initiative{Total: total} }

var hp10 = combat.HP{Max: 10, Current: 10}

func mustEncounter(t *testing.T, cs ...combat.Combatant) combat.Encounter {
	t.Helper()
	var e combat.Encounter
	for _, c := range cs {
		if c.HP.Max == 0 {
			c.HP = combat.HP{Max: 10, Current: 10}
		}
		var err error
		if e, err = e.Add(c, nil); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

func TestStartOrder(t *testing.T) {
	for _, tt := range []struct {
		name      string
		cs        []combat.Combatant
		rollOffs  []int // faces the roll-off dice show, in order
		wantOrder []string
		wantUsed  int
	}{
		{
			name: "ByTotal",
			cs: []combat.Combatant{
				{ID: "a", Initiative: entered(8)}, {ID: "b", Initiative: entered(19)}, {ID: "c", Initiative: entered(12)},
			},
			wantOrder: []string{"b", "c", "a"},
		},
		{
			name: "TieBrokenByBonus",
			cs: []combat.Combatant{
				{ID: "a", InitiativeBonus: 1, Initiative: entered(15)}, {ID: "b", InitiativeBonus: 4, Initiative: entered(15)},
			},
			wantOrder: []string{"b", "a"},
		},
		{
			name: "TieBrokenByRollOff",
			cs: []combat.Combatant{
				{ID: "a", InitiativeBonus: 2, Initiative: entered(15)}, {ID: "b", InitiativeBonus: 2, Initiative: entered(15)},
				{ID: "c", InitiativeBonus: 0, Initiative: entered(15)},
			},
			// a and b roll off (in ID order): 6 and 13; c is behind on bonus.
			rollOffs:  []int{6, 13},
			wantOrder: []string{"b", "a", "c"},
			wantUsed:  2,
		},
		{
			name: "RollOffTiedAgain",
			cs: []combat.Combatant{
				{ID: "a", Initiative: entered(10)}, {ID: "b", Initiative: entered(10)}, {ID: "c", Initiative: entered(10)},
			},
			// All three roll 7, 7, 18: c first; a and b roll again 3, 4.
			rollOffs:  []int{7, 7, 18, 3, 4},
			wantOrder: []string{"c", "b", "a"},
			wantUsed:  5,
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := mustEncounter(t, tt.cs...)
			src := dice.Faces(tt.rollOffs...)
			got, tc, err := e.Start(src)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.wantOrder, got.Order()); diff != "" {
				t.Errorf("order (-want +got):\n%s", diff)
			}
			if src.Used() != tt.wantUsed {
				t.Errorf("roll-off dice used = %d, want %d", src.Used(), tt.wantUsed)
			}
			if tc.Round != 1 || tc.ActorID != tt.wantOrder[0] || got.Round != 1 {
				t.Errorf("start: round %d actor %q, want 1 %q", tc.Round, tc.ActorID, tt.wantOrder[0])
			}
			// The order is a value: starting from the same state with the
			// same dice gives the same order.
			again, _, err := e.Start(dice.Faces(tt.rollOffs...))
			if err != nil || !cmp.Equal(again.Order(), got.Order()) {
				t.Errorf("second start: %v %v, want %v", again.Order(), err, got.Order())
			}
		})
	}
	t.Run("ErrMissingInitiative", func(t *testing.T) {
		e := mustEncounter(t, combat.Combatant{ID: "a", Initiative: entered(3)}, combat.Combatant{ID: "b"})
		_, _, err := e.Start(nil)
		if apperr.CodeOf(err) != apperr.InvalidRequest {
			t.Errorf("code = %q, want invalid_request", apperr.CodeOf(err))
		}
	})
	t.Run("ErrRollOffFacesMissing", func(t *testing.T) {
		e := mustEncounter(t, combat.Combatant{ID: "a", Initiative: entered(3)}, combat.Combatant{ID: "b", Initiative: entered(3)})
		got, _, err := e.Start(dice.Faces(4))
		if apperr.CodeOf(err) != dice.CodeFacesMissing || got.Started() {
			t.Errorf("code = %q started %v, want %q and not started", apperr.CodeOf(err), got.Started(), dice.CodeFacesMissing)
		}
	})
	t.Run("ErrSetInitiativeAfterStart", func(t *testing.T) {
		e := mustEncounter(t, combat.Combatant{ID: "a", Initiative: entered(3)})
		e, _, _ = e.Start(nil)
		if _, err := e.SetInitiative("a", combat.Initiative{Total: 20}); apperr.CodeOf(err) != apperr.Conflict {
			t.Errorf("code = %q, want conflict", apperr.CodeOf(err))
		}
	})
}

func TestSetInitiativeThenStart(t *testing.T) {
	e := mustEncounter(t, combat.Combatant{ID: "fighter", InitiativeBonus: 1}, combat.Combatant{ID: "goblin", InitiativeBonus: 2, Advantage: true})
	for id, faces := range map[string][]int{"fighter": {16}, "goblin": {3, 12}} {
		c, _ := e.Combatant(id)
		in, err := combat.RollInitiative(c, dice.Faces(faces...))
		if err != nil {
			t.Fatal(err)
		}
		if e, err = e.SetInitiative(id, in); err != nil {
			t.Fatal(err)
		}
	}
	// fighter 17, goblin 14 (kept 12 + 2).
	e, _, err := e.Start(nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"fighter", "goblin"}, e.Order()); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
}

func TestAddMidEncounter(t *testing.T) {
	start := func(t *testing.T) combat.Encounter {
		e := mustEncounter(t,
			combat.Combatant{ID: "a", Initiative: entered(18)},
			combat.Combatant{ID: "b", InitiativeBonus: 1, Initiative: entered(12)},
			combat.Combatant{ID: "c", Initiative: entered(5)})
		e, _, err := e.Start(nil)
		if err != nil {
			t.Fatal(err)
		}
		if e, _, err = e.Next(); err != nil { // b's turn
			t.Fatal(err)
		}
		return e
	}
	for _, tt := range []struct {
		name      string
		add       combat.Combatant
		rollOffs  []int
		wantOrder []string
	}{
		{"PlacedByInitiative", combat.Combatant{ID: "d", HP: hp10, Initiative: entered(15)}, nil, []string{"a", "d", "b", "c"}},
		{"Last", combat.Combatant{ID: "d", HP: hp10, Initiative: entered(1)}, nil, []string{"a", "b", "c", "d"}},
		{"TieRollsOffWithCurrent", combat.Combatant{ID: "d", HP: hp10, InitiativeBonus: 1, Initiative: entered(12)}, []int{4, 9}, []string{"a", "d", "b", "c"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := start(t)
			got, err := e.Add(tt.add, dice.Faces(tt.rollOffs...))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.wantOrder, got.Order()); diff != "" {
				t.Errorf("order (-want +got):\n%s", diff)
			}
			if cur, _ := got.Current(); cur.ID != "b" || got.Round != 1 {
				t.Errorf("current %q round %d, want b 1", cur.ID, got.Round)
			}
			if len(e.Combatants) != 3 {
				t.Errorf("the old encounter changed: %d combatants", len(e.Combatants))
			}
		})
	}
	t.Run("ErrNoInitiative", func(t *testing.T) {
		_, err := start(t).Add(combat.Combatant{ID: "d", HP: hp10}, nil)
		if ae, ok := apperr.As(err); !ok || ae.Code != apperr.InvalidRequest || ae.Fields["initiative"] == "" {
			t.Errorf("err = %v, want invalid_request on initiative", err)
		}
	})
	for _, tt := range []struct {
		name  string
		c     combat.Combatant
		field string
	}{
		{"ErrNoMaxHP", combat.Combatant{ID: "d", Initiative: entered(3)}, "hp.max"},
		{"ErrCurrentAboveMax", combat.Combatant{ID: "d", HP: combat.HP{Max: 5, Current: 6}, Initiative: entered(3)}, "hp.current"},
		{"ErrNegativeTemp", combat.Combatant{ID: "d", HP: combat.HP{Max: 5, Current: 5, Temp: -1}, Initiative: entered(3)}, "hp.temp"},
		{"ErrAC", combat.Combatant{ID: "d", HP: combat.HP{Max: 5, Current: 5}, AC: 101, Initiative: entered(3)}, "ac"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := start(t)
			got, err := e.Add(tt.c, nil)
			ae, ok := apperr.As(err)
			if !ok || ae.Code != apperr.InvalidRequest || ae.Fields[tt.field] == "" || len(got.Combatants) != 3 {
				t.Errorf("err = %v (fields %v), combatants %d; want invalid_request on %s, nothing added", err, ae, len(got.Combatants), tt.field)
			}
		})
	}
	t.Run("ErrDuplicateID", func(t *testing.T) {
		if _, err := start(t).Add(combat.Combatant{ID: "a", Initiative: entered(3)}, nil); apperr.CodeOf(err) != apperr.InvalidRequest {
			t.Errorf("code = %q, want invalid_request", apperr.CodeOf(err))
		}
	})
}
