package table_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/gameplay/table/tabletest"
	"github.com/adventure-table/adventure-table/models"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// The ogre's hidden numbers: values no other number in the fight takes, so
// finding them in what a player reads means a leak.
const (
	ogreAC = 83
	ogreHP = 9173
)

// As JSON numbers (a colon before them), so a timestamp's digits never match.
var ogreSecrets = []string{":9173", ":9161", ":9149", `"ac":83`}

// fight is the live table with an encounter: Tomas (seat B, Dex +2, AC 12,
// 20 HP), the hidden ogre (entered initiative 15) and Mira (seat A, Dex
// +2, AC 12, 20 HP).
type fight struct {
	liveTable
	store *models.Store
	mira  string
	tomas string
	ogre  string
}

func startFight(t *testing.T) fight {
	t.Helper()
	lt, store := newLiveTable(t)
	f := fight{liveTable: lt, store: store}
	init := 15
	out, err := lt.svc.StartEncounter(ctx, lt.Owner, lt.LobbyID, table.StartEncounterInput{Name: "Ogre bridge",
		NPCs: []table.NPCInput{{Name: "Ogre", AC: ogreAC, HP: ogreHP, Initiative: &init, Resistances: []string{"cold"}}}})
	tabletest.Must(t, err)
	if out.Encounter.Phase != table.PhaseInitiative || len(out.Encounter.Combatants) != 3 {
		t.Fatalf("started: %+v", out.Encounter)
	}
	for _, c := range out.Encounter.Combatants {
		switch {
		case c.SeatID != nil && *c.SeatID == lt.PlayerSeatID:
			f.mira = c.ID
		case c.SeatID != nil:
			f.tomas = c.ID
		default:
			f.ogre = c.ID
			if c.AC == nil || *c.AC != ogreAC || c.HP == nil || c.HP.Max != ogreHP || !c.Hidden {
				t.Fatalf("the DM sees the ogre's numbers, hidden from players: %+v", c)
			}
		}
	}
	return f
}

func (f fight) combatant(t *testing.T, v table.EncounterView, id string) table.CombatantView {
	t.Helper()
	for _, c := range v.Combatants {
		if c.ID == id {
			return c
		}
	}
	t.Fatalf("no combatant %s in %+v", id, v)
	return table.CombatantView{}
}

func (f fight) hp(t *testing.T, characterID int64) table.HP {
	t.Helper()
	ch, err := f.store.FindCharacterByID(ctx, characterID)
	tabletest.Must(t, err)
	return table.HP{Max: ch.HPMax, Current: ch.HPCurrent, Temp: ch.HPTemp}
}

// untilTurn has the DM begin the fight or pass turns until it is id's.
func (f fight) untilTurn(t *testing.T, id string) {
	t.Helper()
	for range 4 {
		out, err := f.svc.AdvanceEncounter(ctx, f.Owner, f.LobbyID)
		tabletest.Must(t, err)
		if out.Encounter.CurrentID == id {
			return
		}
	}
	t.Fatalf("%s's turn never came", id)
}

// noSecrets fails when anything a player can read holds the ogre's hidden
// numbers: the events through the list and the wait, and the encounter.
func (f fight) noSecrets(t *testing.T, c table.Caller) {
	t.Helper()
	page, err := f.svc.ListEvents(ctx, c, f.LobbyID, 0, table.MaxEventLimit)
	tabletest.Must(t, err)
	waited, err := f.svc.WaitEvents(ctx, c, f.LobbyID, 0, 1e9)
	tabletest.Must(t, err)
	enc, err := f.svc.GetEncounter(ctx, c, f.LobbyID)
	tabletest.Must(t, err)
	raw, _ := json.Marshal([]any{page, waited, enc})
	for _, s := range ogreSecrets {
		if strings.Contains(string(raw), s) {
			t.Fatalf("a player reads the ogre's hidden %s", s)
		}
	}
	for _, e := range page.Events {
		if e.Kind == table.EventEncounterSecret {
			t.Fatalf("a player reads the DM's encounter.secret event %d", e.Seq)
		}
	}
}

// TestEncounterFight runs a fight through initiative and its ties, turns
// and rounds, a timed condition's expiry, attacks against a hidden AC,
// damage through temporary hit points, a critical hit, death saves and the
// end, checking at each step what players may and may not read.
func TestEncounterFight(t *testing.T) {
	f := startFight(t)
	svc := f.svc

	// Initiative: each player rolls their own; the DM could roll for anyone.
	_, err := svc.RollEncounterInitiative(ctx, f.Seated, f.LobbyID, table.InitiativeInput{CombatantID: f.tomas, Faces: []int{13}})
	wantCode(t, err, apperr.NotYourCombatant)
	_, err = svc.AdvanceEncounter(ctx, f.Owner, f.LobbyID)
	wantCode(t, err, apperr.EncounterInvalid) // nobody rolled yet
	_, err = svc.RollEncounterInitiative(ctx, f.Seated, f.LobbyID, table.InitiativeInput{CombatantID: f.mira, Faces: []int{10}})
	tabletest.Must(t, err)
	out, err := svc.RollEncounterInitiative(ctx, f.Unseated, f.LobbyID, table.InitiativeInput{CombatantID: f.tomas, Faces: []int{13}})
	tabletest.Must(t, err)
	if c := f.combatant(t, out.Encounter, f.tomas); c.Initiative == nil || *c.Initiative != 15 {
		t.Fatalf("Tomas's initiative: %+v", c)
	}
	// Players do not begin the fight.
	_, err = svc.AdvanceEncounter(ctx, f.Seated, f.LobbyID)
	wantCode(t, err, apperr.NotYourTurn)
	out, err = svc.AdvanceEncounter(ctx, f.Owner, f.LobbyID)
	tabletest.Must(t, err)
	// Tomas (15, +2) and the ogre (15, +0) tie: the higher bonus goes first.
	order := []string{}
	for _, c := range out.Encounter.Combatants {
		order = append(order, c.ID)
	}
	if strings.Join(order, ",") != strings.Join([]string{f.tomas, f.ogre, f.mira}, ",") || out.Encounter.Round != 1 || out.Encounter.CurrentID != f.tomas {
		t.Fatalf("order %v round %d current %s", order, out.Encounter.Round, out.Encounter.CurrentID)
	}
	_, err = svc.RollEncounterInitiative(ctx, f.Seated, f.LobbyID, table.InitiativeInput{CombatantID: f.mira, Faces: []int{20}})
	wantCode(t, err, apperr.Conflict)

	// Only the current actor (or the DM) ends the turn, and a player
	// attacks on their own turn.
	_, err = svc.AdvanceEncounter(ctx, f.Seated, f.LobbyID)
	wantCode(t, err, apperr.NotYourTurn)
	_, err = svc.Attack(ctx, f.Seated, f.LobbyID, table.AttackInput{AttackerID: f.mira, TargetID: f.ogre, Bonus: 5, Damage: "1d8"})
	wantCode(t, err, apperr.NotYourTurn)
	out, err = svc.AdvanceEncounter(ctx, f.Unseated, f.LobbyID)
	tabletest.Must(t, err)
	if out.Encounter.CurrentID != f.ogre {
		t.Fatalf("after Tomas: %s", out.Encounter.CurrentID)
	}

	// On the ogre's turn its roar frightens Mira until the start of its
	// next turn.
	_, err = svc.ChangeCombatant(ctx, f.Owner, f.LobbyID, table.CombatantChangeInput{CombatantID: f.mira, Op: table.OpAddCondition,
		Condition: "Frightened", Rounds: 1, Ends: "start_of_turn", TimerID: f.ogre})
	tabletest.Must(t, err)
	_, err = svc.ChangeCombatant(ctx, f.Seated, f.LobbyID, table.CombatantChangeInput{CombatantID: f.mira, Op: table.OpRemoveCondition, Condition: "frightened"})
	wantCode(t, err, apperr.NotCurrentDM)

	// The ogre hits Tomas, who has 5 temporary hit points: 19 against AC 12,
	// 2d6+3 = 15, the first 5 off the temporary ones.
	_, err = svc.ChangeCombatant(ctx, f.Owner, f.LobbyID, table.CombatantChangeInput{CombatantID: f.tomas, Op: table.OpSetTempHP, Amount: 5})
	tabletest.Must(t, err)
	out, err = svc.Attack(ctx, f.Owner, f.LobbyID, table.AttackInput{AttackerID: f.ogre, TargetID: f.tomas, Weapon: "Greatclub", Bonus: 4,
		Damage: "2d6+3", DamageType: "bludgeoning", Faces: []int{15}, DamageFaces: []int{6, 6}})
	tabletest.Must(t, err)
	if hp := f.hp(t, f.UnseatedCharacterID); hp != (table.HP{Max: 20, Current: 10, Temp: 0}) {
		t.Fatalf("Tomas's character after 15 damage with 5 temporary: %+v", hp)
	}
	if c := f.combatant(t, out.Encounter, f.tomas); c.HP == nil || c.HP.Current != 10 {
		t.Fatalf("Tomas in the fight: %+v", c)
	}
	// The public attack says it hit, not against what: the ogre's AC is in
	// the DM's encounter.secret beside it.
	var attack table.EventPayload = out.Event.Payload
	if !strings.Contains(string(attack), `"hit":true`) || strings.Contains(string(attack), `"ac":83`) {
		t.Fatalf("public attack payload %s", attack)
	}

	out, err = svc.AdvanceEncounter(ctx, f.Owner, f.LobbyID)
	tabletest.Must(t, err)
	if out.Encounter.CurrentID != f.mira || len(f.combatant(t, out.Encounter, f.mira).Conditions) != 1 {
		t.Fatalf("Mira's turn, still frightened: %+v", out.Encounter)
	}
	// Mira, frightened, attacks the ogre with disadvantage: her two d20s are
	// 20 and 18, the lower counts: 18 + 5 = 23 misses AC 83.
	out, err = svc.Attack(ctx, f.Seated, f.LobbyID, table.AttackInput{AttackerID: f.mira, TargetID: f.ogre, Weapon: "Rapier", Bonus: 5,
		Damage: "1d8+3", DamageType: "piercing", Faces: []int{20, 18}})
	tabletest.Must(t, err)
	if !strings.Contains(string(out.Event.Payload), `"hit":false`) {
		t.Fatalf("Mira's frightened attack: %s", out.Event.Payload)
	}
	// A player attacks only with their own combatant.
	_, err = svc.Attack(ctx, f.Seated, f.LobbyID, table.AttackInput{AttackerID: f.ogre, TargetID: f.tomas, Bonus: 5, Damage: "1d4"})
	wantCode(t, err, apperr.NotYourCombatant)
	// Bad input changes nothing and says what is wrong.
	_, err = svc.Attack(ctx, f.Seated, f.LobbyID, table.AttackInput{AttackerID: f.mira, TargetID: "npc:99", Bonus: 5, Damage: "1d4"})
	wantCode(t, err, apperr.EncounterInvalid)
	_, err = svc.Attack(ctx, f.Seated, f.LobbyID, table.AttackInput{AttackerID: f.mira, TargetID: f.ogre, Bonus: 5, Damage: "1d4+"})
	wantCode(t, err, apperr.DiceInvalidExpression)

	// Round 2: the frightened condition ends as the ogre's turn starts.
	out, err = svc.AdvanceEncounter(ctx, f.Seated, f.LobbyID)
	tabletest.Must(t, err)
	if out.Encounter.Round != 2 || out.Encounter.CurrentID != f.tomas {
		t.Fatalf("round 2 begins with Tomas: %+v", out.Encounter)
	}
	out, err = svc.AdvanceEncounter(ctx, f.Unseated, f.LobbyID)
	tabletest.Must(t, err)
	if c := f.combatant(t, out.Encounter, f.mira); len(c.Conditions) != 0 || !strings.Contains(string(out.Event.Payload), `"frightened"`) {
		t.Fatalf("the frightened condition expires at the start of the ogre's turn: %+v %s", c, out.Event.Payload)
	}

	// The ogre crits Tomas: 2d6 doubled to 4d6 (1+1+1+1) + 3 = 7; at 10
	// HP he is at 3. A second crit of 1d6 doubled (6+6) drops him to 0:
	// unconscious and dying.
	_, err = svc.Attack(ctx, f.Owner, f.LobbyID, table.AttackInput{AttackerID: f.ogre, TargetID: f.tomas, Bonus: 4, Damage: "2d6+3",
		Faces: []int{20}, DamageFaces: []int{1, 1, 1, 1}})
	tabletest.Must(t, err)
	if hp := f.hp(t, f.UnseatedCharacterID); hp.Current != 3 {
		t.Fatalf("after a critical 4d6+3 of 7: %+v", hp)
	}
	out, err = svc.Attack(ctx, f.Owner, f.LobbyID, table.AttackInput{AttackerID: f.ogre, TargetID: f.tomas, Bonus: 4, Damage: "1d6",
		Faces: []int{20}, DamageFaces: []int{6, 6}})
	tabletest.Must(t, err)
	if c := f.combatant(t, out.Encounter, f.tomas); c.Status != "dying" || f.hp(t, f.UnseatedCharacterID).Current != 0 {
		t.Fatalf("Tomas at 0 HP: %+v", c)
	}

	// Mira's natural 20 is a critical hit through the hidden AC: 1d8 doubled
	// (5+4) + 3 = 12 piercing; the ogre goes from 9173 to 9161, which only
	// the DM reads.
	_, err = svc.AdvanceEncounter(ctx, f.Owner, f.LobbyID)
	tabletest.Must(t, err)
	out, err = svc.Attack(ctx, f.Seated, f.LobbyID, table.AttackInput{AttackerID: f.mira, TargetID: f.ogre, Bonus: 5,
		Damage: "1d8+3", DamageType: "piercing", Faces: []int{20}, DamageFaces: []int{5, 4}})
	tabletest.Must(t, err)
	if c := f.combatant(t, out.Encounter, f.ogre); c.HP != nil || c.AC != nil {
		t.Fatalf("Mira's view of the ogre shows its numbers: %+v", c)
	}
	dmView, err := svc.GetEncounter(ctx, f.Owner, f.LobbyID)
	tabletest.Must(t, err)
	if c := f.combatant(t, *dmView.Encounter, f.ogre); c.HP == nil || c.HP.Current != 9161 {
		t.Fatalf("the DM's ogre after 12: %+v", c)
	}
	// Cold (resisted) halves: 24 → 12.
	_, err = svc.ChangeCombatant(ctx, f.Owner, f.LobbyID, table.CombatantChangeInput{CombatantID: f.ogre, Op: table.OpDamage, Amount: 24, DamageType: "cold"})
	tabletest.Must(t, err)
	dmView, err = svc.GetEncounter(ctx, f.Owner, f.LobbyID)
	tabletest.Must(t, err)
	if c := f.combatant(t, *dmView.Encounter, f.ogre); c.HP.Current != 9149 {
		t.Fatalf("cold resisted: %+v", c.HP)
	}
	for _, c := range []table.Caller{f.Seated, f.Unseated, f.DMKey} {
		f.noSecrets(t, c)
	}
	// The DM reads every secret.
	page, err := svc.ListEvents(ctx, f.Owner, f.LobbyID, 0, table.MaxEventLimit)
	tabletest.Must(t, err)
	raw, _ := json.Marshal(page)
	for _, s := range ogreSecrets {
		if !strings.Contains(string(raw), s) {
			t.Errorf("the DM does not read %s", s)
		}
	}

	// Tomas's turn (round 3): he is dying; a 1 counts two failures, a 5 a
	// third: dead. Then his turns are skipped.
	out, err = svc.AdvanceEncounter(ctx, f.Owner, f.LobbyID)
	tabletest.Must(t, err)
	if out.Encounter.CurrentID != f.tomas || !strings.Contains(string(out.Event.Payload), `"death_save_due":true`) {
		t.Fatalf("Tomas's turn with a death save due: %+v %s", out.Encounter, out.Event.Payload)
	}
	_, err = svc.RollDeathSave(ctx, f.Seated, f.LobbyID, table.DeathSaveInput{CombatantID: f.tomas, Faces: []int{12}})
	wantCode(t, err, apperr.NotYourCombatant)
	_, err = svc.RollDeathSave(ctx, f.Unseated, f.LobbyID, table.DeathSaveInput{CombatantID: f.tomas, Faces: []int{1}})
	tabletest.Must(t, err)
	out, err = svc.RollDeathSave(ctx, f.Unseated, f.LobbyID, table.DeathSaveInput{CombatantID: f.tomas, Faces: []int{5}})
	tabletest.Must(t, err)
	if c := f.combatant(t, out.Encounter, f.tomas); c.Status != "dead" || c.DeathSaves.Failures != 3 {
		t.Fatalf("three failures: %+v", c)
	}
	out, err = svc.AdvanceEncounter(ctx, f.Owner, f.LobbyID) // ogre
	tabletest.Must(t, err)
	out, err = svc.AdvanceEncounter(ctx, f.Owner, f.LobbyID) // Mira
	tabletest.Must(t, err)
	out, err = svc.AdvanceEncounter(ctx, f.Owner, f.LobbyID) // Tomas is skipped: the ogre
	tabletest.Must(t, err)
	if out.Encounter.CurrentID != f.ogre || out.Encounter.Round != 4 {
		t.Fatalf("the dead are skipped: %+v", out.Encounter)
	}

	// The end leaves a summary in the log; the encounter is no longer running.
	_, err = svc.EndEncounter(ctx, f.Seated, f.LobbyID)
	wantCode(t, err, apperr.NotCurrentDM)
	out, err = svc.EndEncounter(ctx, f.Owner, f.LobbyID)
	tabletest.Must(t, err)
	if out.Event.Kind != table.EventEncounterEnded || out.Encounter.Phase != table.PhaseEnded ||
		!strings.Contains(string(out.Event.Payload), `"rounds":4`) || !strings.Contains(string(out.Event.Payload), `"damage_dealt":12`) ||
		// The hidden ogre's damage taken (after its resistance) is the DM's.
		!strings.Contains(string(out.Event.Payload), `"name":"Ogre","status":"active","hits":3,"misses":0,"damage_dealt":34}`) {
		t.Fatalf("summary: %s", out.Event.Payload)
	}
	page, err = svc.ListEvents(ctx, f.Owner, f.LobbyID, out.Event.Seq, table.MaxEventLimit)
	tabletest.Must(t, err)
	if len(page.Events) != 1 || page.Events[0].Kind != table.EventEncounterSecret || !strings.Contains(string(page.Events[0].Payload), `"damage_taken":24`) {
		t.Fatalf("the DM's summary: %+v", page.Events)
	}
	if v, err := svc.GetEncounter(ctx, f.Seated, f.LobbyID); err != nil || v.Encounter != nil {
		t.Fatalf("after the end: %+v %v", v, err)
	}
	_, err = svc.AdvanceEncounter(ctx, f.Owner, f.LobbyID)
	wantCode(t, err, apperr.EncounterNotRunning)
	f.noSecrets(t, f.Seated)
}

// TestEncounterRevealed shows an NPC's numbers to players once the DM
// reveals them, and hides them again.
func TestEncounterRevealed(t *testing.T) {
	f := startFight(t)
	_, err := f.svc.ChangeCombatant(ctx, f.Owner, f.LobbyID, table.CombatantChangeInput{CombatantID: f.ogre, Op: table.OpReveal})
	tabletest.Must(t, err)
	v, err := f.svc.GetEncounter(ctx, f.Seated, f.LobbyID)
	tabletest.Must(t, err)
	if c := f.combatant(t, *v.Encounter, f.ogre); c.AC == nil || *c.AC != ogreAC || c.Hidden {
		t.Fatalf("revealed: %+v", c)
	}
	_, err = f.svc.ChangeCombatant(ctx, f.Owner, f.LobbyID, table.CombatantChangeInput{CombatantID: f.ogre, Op: table.OpHide})
	tabletest.Must(t, err)
	v, err = f.svc.GetEncounter(ctx, f.Seated, f.LobbyID)
	tabletest.Must(t, err)
	if c := f.combatant(t, *v.Encounter, f.ogre); c.AC != nil || !c.Hidden {
		t.Fatalf("hidden again: %+v", c)
	}
	_, err = f.svc.ChangeCombatant(ctx, f.Owner, f.LobbyID, table.CombatantChangeInput{CombatantID: f.mira, Op: table.OpHide})
	wantCode(t, err, apperr.EncounterInvalid)
}

// TestEncounterStartRules: only the DM starts, one fight at a time, and a
// bad NPC is refused with nothing stored.
func TestEncounterStartRules(t *testing.T) {
	lt, _ := newLiveTable(t)
	svc := lt.svc
	_, err := svc.StartEncounter(ctx, lt.Seated, lt.LobbyID, table.StartEncounterInput{})
	wantCode(t, err, apperr.NotCurrentDM)
	for _, npc := range []table.NPCInput{{Name: "", AC: 10, HP: 5}, {Name: "Rat", AC: 10, HP: 0}, {Name: "Rat", AC: 101, HP: 5}} {
		_, err = svc.StartEncounter(ctx, lt.Owner, lt.LobbyID, table.StartEncounterInput{NPCs: []table.NPCInput{npc}})
		wantCode(t, err, apperr.EncounterInvalid)
	}
	_, err = svc.StartEncounter(ctx, lt.Owner, lt.LobbyID, table.StartEncounterInput{SeatIDs: []int64{lt.DMSeatID}})
	wantCode(t, err, apperr.ProxyTargetInvalid)
	if v, err := svc.GetEncounter(ctx, lt.Owner, lt.LobbyID); err != nil || v.Encounter != nil {
		t.Fatalf("a refused start stored %+v %v", v, err)
	}
	_, err = svc.AdvanceEncounter(ctx, lt.Owner, lt.LobbyID)
	wantCode(t, err, apperr.EncounterNotRunning)
	_, err = svc.StartEncounter(ctx, lt.Owner, lt.LobbyID, table.StartEncounterInput{SeatIDs: []int64{lt.PlayerSeatID}})
	tabletest.Must(t, err)
	_, err = svc.StartEncounter(ctx, lt.Owner, lt.LobbyID, table.StartEncounterInput{})
	wantCode(t, err, apperr.EncounterAlreadyRunning)
	_, err = svc.GetEncounter(ctx, lt.Stranger, lt.LobbyID)
	wantCode(t, err, apperr.NotFound)
}

// TestEncounterChangeIsAtomic: a failure after the character's hit points
// were written and before the events leaves the character, the fight and
// the log as they were.
func TestEncounterChangeIsAtomic(t *testing.T) {
	f := startFight(t)
	svc := f.svc
	for _, id := range []string{f.mira, f.tomas} {
		_, err := svc.RollEncounterInitiative(ctx, f.Owner, f.LobbyID, table.InitiativeInput{CombatantID: id, Faces: []int{10}})
		tabletest.Must(t, err)
	}
	_, err := svc.AdvanceEncounter(ctx, f.Owner, f.LobbyID)
	tabletest.Must(t, err)
	before, err := svc.ListEvents(ctx, f.Owner, f.LobbyID, 0, table.MaxEventLimit)
	tabletest.Must(t, err)
	injected := errors.New("injected")
	svc.SetFailpoint(func(point string) error {
		if point == "encounter.before_events" {
			return injected
		}
		return nil
	})
	_, err = svc.Attack(ctx, f.Owner, f.LobbyID, table.AttackInput{AttackerID: f.ogre, TargetID: f.mira, Bonus: 4, Damage: "1d6+3", Faces: []int{15}, DamageFaces: []int{6}})
	if !errors.Is(err, injected) {
		t.Fatalf("got %v", err)
	}
	svc.SetFailpoint(nil)
	if hp := f.hp(t, f.CharacterID); hp.Current != 20 {
		t.Fatalf("the failed attack's damage stayed: %+v", hp)
	}
	v, err := svc.GetEncounter(ctx, f.Owner, f.LobbyID)
	tabletest.Must(t, err)
	if c := f.combatant(t, *v.Encounter, f.mira); c.HP.Current != 20 {
		t.Fatalf("the fight kept the failed damage: %+v", c)
	}
	after, err := svc.ListEvents(ctx, f.Owner, f.LobbyID, 0, table.MaxEventLimit)
	tabletest.Must(t, err)
	if after.Cursor != before.Cursor {
		t.Fatalf("events written by a failed change: %d → %d", before.Cursor, after.Cursor)
	}
}

// TestEncounterJoin: an NPC joining a fight that has begun takes its place
// by initiative and the current actor keeps the turn; only the DM adds.
func TestEncounterJoin(t *testing.T) {
	f := startFight(t)
	svc := f.svc
	_, err := svc.RollEncounterInitiative(ctx, f.Owner, f.LobbyID, table.InitiativeInput{CombatantID: f.mira, Faces: []int{10}})
	tabletest.Must(t, err)
	_, err = svc.RollEncounterInitiative(ctx, f.Owner, f.LobbyID, table.InitiativeInput{CombatantID: f.tomas, Faces: []int{13}})
	tabletest.Must(t, err)
	_, err = svc.AdvanceEncounter(ctx, f.Owner, f.LobbyID)
	tabletest.Must(t, err)
	wolfInit := 13
	wolf := table.NPCInput{Name: "Wolf", AC: 13, HP: 11, Initiative: &wolfInit}
	_, err = svc.AddCombatant(ctx, f.Seated, f.LobbyID, table.AddCombatantInput{NPC: &wolf})
	wantCode(t, err, apperr.NotCurrentDM)
	_, err = svc.AddCombatant(ctx, f.Owner, f.LobbyID, table.AddCombatantInput{})
	wantCode(t, err, apperr.EncounterInvalid)
	out, err := svc.AddCombatant(ctx, f.Owner, f.LobbyID, table.AddCombatantInput{NPC: &wolf})
	tabletest.Must(t, err)
	names := []string{}
	for _, c := range out.Encounter.Combatants {
		names = append(names, c.Name)
	}
	if strings.Join(names, ",") != "Tomas,Ogre,Wolf,Mira" || out.Encounter.CurrentID != f.tomas {
		t.Fatalf("order %v, current %s", names, out.Encounter.CurrentID)
	}
}

// TestEncounterSheetAttack: a character's attack named by its sheet rolls
// the sheet's to-hit and damage, whatever bonus the request claims.
func TestEncounterSheetAttack(t *testing.T) {
	f := startFight(t)
	svc := f.svc
	ch, err := f.store.FindCharacterByID(ctx, f.CharacterID)
	tabletest.Must(t, err)
	// Mira: level 3 (+2 proficiency), Dex 14 (+2): a rapier hits at +4 for 1d8+2.
	ch.Attacks = []models.Attack{{Name: "Rapier", Ability: "dex", Proficient: true, Damage: "1d8", DamageType: "piercing", AddModifier: true}}
	tabletest.Must(t, f.store.SaveCharacter(ctx, ch))
	for _, id := range []string{f.mira, f.tomas} {
		_, err := svc.RollEncounterInitiative(ctx, f.Owner, f.LobbyID, table.InitiativeInput{CombatantID: id, Faces: []int{10}})
		tabletest.Must(t, err)
	}
	f.untilTurn(t, f.mira)
	out, err := svc.Attack(ctx, f.Seated, f.LobbyID, table.AttackInput{AttackerID: f.mira, TargetID: f.tomas, Weapon: "rapier", Bonus: 40,
		Faces: []int{10}, DamageFaces: []int{3}})
	tabletest.Must(t, err)
	p := string(out.Event.Payload)
	if !strings.Contains(p, `"total":14`) || !strings.Contains(p, `"weapon":"Rapier"`) || !strings.Contains(p, `"formula":"1d8+2"`) {
		t.Fatalf("the sheet's rapier: %s", p)
	}
	if hp := f.hp(t, f.UnseatedCharacterID); hp.Current != 15 {
		t.Fatalf("Tomas after 3+2 piercing: %+v", hp)
	}
	_, err = svc.Attack(ctx, f.Seated, f.LobbyID, table.AttackInput{AttackerID: f.mira, TargetID: f.tomas, Weapon: "Longbow", Faces: []int{10}})
	wantCode(t, err, apperr.EncounterInvalid)
}

// TestEncounterInitiativeAdvantage: a sheet with advantage on initiative
// rolls two d20s and keeps the higher.
func TestEncounterInitiativeAdvantage(t *testing.T) {
	f := startFight(t)
	ch, err := f.store.FindCharacterByID(ctx, f.CharacterID)
	tabletest.Must(t, err)
	ch.InitiativeAdvantage = true
	tabletest.Must(t, f.store.SaveCharacter(ctx, ch))
	// The fight read Mira's sheet when it started; she joins a new one.
	_, err = f.svc.EndEncounter(ctx, f.Owner, f.LobbyID)
	tabletest.Must(t, err)
	_, err = f.svc.StartEncounter(ctx, f.Owner, f.LobbyID, table.StartEncounterInput{SeatIDs: []int64{f.PlayerSeatID}})
	tabletest.Must(t, err)
	_, err = f.svc.RollEncounterInitiative(ctx, f.Seated, f.LobbyID, table.InitiativeInput{CombatantID: f.mira, Faces: []int{4}})
	wantCode(t, err, apperr.DiceFacesMissing)
	out, err := f.svc.RollEncounterInitiative(ctx, f.Seated, f.LobbyID, table.InitiativeInput{CombatantID: f.mira, Faces: []int{4, 17}})
	tabletest.Must(t, err)
	if c := f.combatant(t, out.Encounter, f.mira); c.Initiative == nil || *c.Initiative != 19 {
		t.Fatalf("advantage keeps 17 (+2): %+v", c)
	}
}
