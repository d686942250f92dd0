package dice_test

import (
	"testing"

	"github.com/adventure-table/adventure-table/gameplay/dice"
	"github.com/adventure-table/adventure-table/models/apperr"
)

func TestD20(t *testing.T) {
	for _, tt := range []struct {
		name     string
		adv, dis bool
		want     string
	}{
		{"Normal", false, false, "1d20"},
		{"Advantage", true, false, "2d20kh1"},
		{"Disadvantage", false, true, "2d20kl1"},
		{"BothCancel", true, true, "1d20"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := dice.D20(tt.adv, tt.dis); got != tt.want {
				t.Errorf("D20(%v, %v) = %q, want %q", tt.adv, tt.dis, got, tt.want)
			}
		})
	}
}

func TestNatural(t *testing.T) {
	for _, tt := range []struct {
		name  string
		expr  string
		faces []int
		want  int
	}{
		{"Plain", "1d20 + 5", []int{13}, 13},
		{"AdvantageKeepsHigh", "2d20kh1 + 2", []int{4, 17}, 17},
		{"DisadvantageKeepsLow", "2d20kl1", []int{4, 17}, 4},
		{"NoDice", "7", nil, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r, err := dice.Roll(tt.expr, dice.Faces(tt.faces...))
			if err != nil {
				t.Fatal(err)
			}
			if got := dice.Natural(r); got != tt.want {
				t.Errorf("Natural(%s with %v) = %d, want %d", tt.expr, tt.faces, got, tt.want)
			}
		})
	}
}

func TestCritical(t *testing.T) {
	for _, tt := range []struct {
		name, expr, want string
		faces            []int
		total            int
	}{
		{"DiceTwiceModifierOnce", "1d8 + 3", "d8 + d8 + 3", []int{5, 6}, 14},
		{"SeveralTerms", "2d6 + 1d4 + 2", "2d6 + 2d6 + (d4 + d4) + 2", []int{1, 2, 3, 4, 1, 2}, 15},
		{"SubtractedTermDoubledInPlace", "1d10 - 1d4", "d10 + d10 - (d4 + d4)", []int{10, 9, 1, 2}, 16},
		{"ConstantOnly", "5", "5", nil, 5},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e, err := dice.Parse(tt.expr, dice.DefaultLimits)
			if err != nil {
				t.Fatal(err)
			}
			c, err := e.Critical(dice.DefaultLimits)
			if err != nil {
				t.Fatal(err)
			}
			if c.Normalized() != tt.want {
				t.Errorf("Critical(%q) = %q, want %q", tt.expr, c.Normalized(), tt.want)
			}
			r, err := c.Roll(dice.Faces(tt.faces...))
			if err != nil {
				t.Fatal(err)
			}
			if r.Total != tt.total {
				t.Errorf("total = %d, want %d", r.Total, tt.total)
			}
		})
	}
	t.Run("ErrTooManyDice", func(t *testing.T) {
		e, err := dice.Parse("60d6", dice.DefaultLimits)
		if err != nil {
			t.Fatal(err)
		}
		_, err = e.Critical(dice.Limits{MaxDicePerTerm: 100, MaxTotalDice: 100})
		if got := apperr.CodeOf(err); got != dice.CodeTooManyDice {
			t.Errorf("code = %q, want %q", got, dice.CodeTooManyDice)
		}
	})
}
