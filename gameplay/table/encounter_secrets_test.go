package table_test

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/adventure-table/adventure-table/gameplay/combat"
	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/gameplay/table/tabletest"
)

// hiddenNumbers are what players do not see of the hidden NPCs, by
// combatant id: armor class, hit points, defenses and initiative bonus.
type hiddenNumbers map[string]string

func hiddenOf(t *testing.T, v table.EncounterView) hiddenNumbers {
	t.Helper()
	out := hiddenNumbers{}
	for _, c := range v.Combatants {
		if !c.Hidden {
			continue
		}
		if c.AC == nil || c.HP == nil {
			t.Fatalf("a view without %s's numbers: %+v", c.ID, c)
		}
		raw, _ := json.Marshal(struct {
			AC       int
			HP       combat.HP
			Defenses *combat.Defenses
			Bonus    *int
		}{*c.AC, *c.HP, c.Defenses, c.InitiativeBonus})
		out[c.ID] = string(raw)
	}
	return out
}

// scriptedFight runs a fight with a hidden ogre through initiative, turns,
// attacks on the ogre and by it, the DM's changes to the ogre and to Mira,
// a hidden wolf joining and being revealed, and the end. It returns the
// hidden numbers the DM's own view shows after each change, by the seq of
// the public event that recorded it.
func scriptedFight(t *testing.T) (fight, map[int64]hiddenNumbers) {
	t.Helper()
	f := startFight(t)
	svc := f.svc
	truth := map[int64]hiddenNumbers{}
	record := func(out table.EncounterResult, err error) {
		t.Helper()
		tabletest.Must(t, err)
		v, err := svc.GetEncounter(ctx, f.Owner, f.LobbyID)
		tabletest.Must(t, err)
		if v.Encounter == nil { // ended: the DM's result is the full view
			truth[out.Event.Seq] = hiddenOf(t, out.Encounter)
			return
		}
		truth[out.Event.Seq] = hiddenOf(t, *v.Encounter)
	}
	page, err := svc.ListEvents(ctx, f.Owner, f.LobbyID, 0, table.MaxEventLimit)
	tabletest.Must(t, err)
	for _, e := range page.Events {
		if e.Kind == table.EventEncounterStarted {
			v, err := svc.GetEncounter(ctx, f.Owner, f.LobbyID)
			tabletest.Must(t, err)
			truth[e.Seq] = hiddenOf(t, *v.Encounter)
		}
	}
	record(svc.RollEncounterInitiative(ctx, f.Seated, f.LobbyID, table.InitiativeInput{CombatantID: f.mira, Faces: []int{10}}))
	record(svc.RollEncounterInitiative(ctx, f.Unseated, f.LobbyID, table.InitiativeInput{CombatantID: f.tomas, Faces: []int{13}}))
	record(svc.AdvanceEncounter(ctx, f.Owner, f.LobbyID)) // Tomas
	record(svc.AdvanceEncounter(ctx, f.Unseated, f.LobbyID))
	// The ogre's turn: it hits Tomas; the DM knocks it prone, freezes it
	// (cold, resisted: 24 → 12) and heals it 5.
	record(svc.Attack(ctx, f.Owner, f.LobbyID, table.AttackInput{AttackerID: f.ogre, TargetID: f.tomas, Bonus: 4, Damage: "1d6+3",
		Faces: []int{15}, DamageFaces: []int{2}}))
	record(svc.ChangeCombatant(ctx, f.Owner, f.LobbyID, table.CombatantChangeInput{CombatantID: f.ogre, Op: table.OpAddCondition, Condition: "prone"}))
	record(svc.ChangeCombatant(ctx, f.Owner, f.LobbyID, table.CombatantChangeInput{CombatantID: f.ogre, Op: table.OpDamage, Amount: 24, DamageType: "cold"}))
	record(svc.ChangeCombatant(ctx, f.Owner, f.LobbyID, table.CombatantChangeInput{CombatantID: f.ogre, Op: table.OpHeal, Amount: 5}))
	record(svc.AdvanceEncounter(ctx, f.Owner, f.LobbyID)) // Mira
	// Mira misses the prone ogre, then crits it (disadvantage from afar:
	// two d20s each): (5+4) + 3 = 12.
	record(svc.Attack(ctx, f.Seated, f.LobbyID, table.AttackInput{AttackerID: f.mira, TargetID: f.ogre, Bonus: 5, Damage: "1d8+3", Faces: []int{2, 1}}))
	record(svc.Attack(ctx, f.Seated, f.LobbyID, table.AttackInput{AttackerID: f.mira, TargetID: f.ogre, Bonus: 5, Damage: "1d8+3",
		Faces: []int{20, 20}, DamageFaces: []int{5, 4}}))
	record(svc.ChangeCombatant(ctx, f.Owner, f.LobbyID, table.CombatantChangeInput{CombatantID: f.mira, Op: table.OpSetTempHP, Amount: 3}))
	record(svc.AdvanceEncounter(ctx, f.Seated, f.LobbyID)) // round 2
	wolfInit := 1
	record(svc.AddCombatant(ctx, f.Owner, f.LobbyID, table.AddCombatantInput{NPC: &table.NPCInput{Name: "Wolf", AC: 71, HP: 7111, Initiative: &wolfInit}}))
	record(svc.ChangeCombatant(ctx, f.Owner, f.LobbyID, table.CombatantChangeInput{CombatantID: "npc:2", Op: table.OpReveal}))
	record(svc.EndEncounter(ctx, f.Owner, f.LobbyID))
	return f, truth
}

func payloadOf(t *testing.T, e table.EventView) map[string]json.RawMessage {
	t.Helper()
	var p map[string]json.RawMessage
	tabletest.Must(t, json.Unmarshal(e.Payload, &p))
	return p
}

// TestEncounterDMLearnsEveryHiddenNumber: after every public encounter
// event and the DM-only encounter.secret beside it (if any), the hidden
// numbers the DM can piece together from the log (the latest it was told
// of each NPC still hidden) are those its own view showed at that moment.
func TestEncounterDMLearnsEveryHiddenNumber(t *testing.T) {
	f, truth := scriptedFight(t)
	page, err := f.svc.ListEvents(ctx, f.Owner, f.LobbyID, 0, table.MaxEventLimit)
	tabletest.Must(t, err)
	secrets := map[int64]table.EventView{}
	for _, e := range page.Events {
		if e.Kind == table.EventEncounterSecret {
			var of struct {
				OfSeq int64 `json:"of_seq"`
			}
			tabletest.Must(t, json.Unmarshal(e.Payload, &of))
			secrets[of.OfSeq] = e
		}
	}
	known := hiddenNumbers{}
	learn := func(raw json.RawMessage) {
		var v table.EncounterView
		if len(raw) > 0 {
			tabletest.Must(t, json.Unmarshal(raw, &v))
			maps.Copy(known, hiddenOf(t, v))
		}
	}
	checked := 0
	for _, e := range page.Events {
		want, ok := truth[e.Seq]
		if !ok {
			continue
		}
		var public table.EncounterView
		tabletest.Must(t, json.Unmarshal(payloadOf(t, e)["encounter"], &public))
		if s, ok := secrets[e.Seq]; ok {
			p := payloadOf(t, s)
			learn(p["encounter"])
			var hidden []table.CombatantView
			if raw := p["hidden"]; len(raw) > 0 {
				tabletest.Must(t, json.Unmarshal(raw, &hidden))
				learn(mustJSON(t, table.EncounterView{Combatants: hidden}))
			}
		}
		got := hiddenNumbers{}
		for _, c := range public.Combatants {
			if c.Hidden {
				got[c.ID] = known[c.ID]
			}
		}
		if !maps.Equal(got, want) {
			t.Errorf("after %s (seq %d) the DM can tell %v, its view showed %v", e.Kind, e.Seq, got, want)
		}
		checked++
	}
	if checked != len(truth) {
		t.Fatalf("checked %d public events of %d", checked, len(truth))
	}
}

// TestEncounterSecretsCarrySecrets: the DM's encounter.secret is written
// only beside a change that holds something players may not read (a hidden
// NPC's numbers set or changed, a hidden AC and outcome, the DM's change to
// a hidden NPC, the summary with its damage taken), and always holds it
// in a field of its own; the public summary leaves a hidden NPC's damage
// taken out instead of writing null.
func TestEncounterSecretsCarrySecrets(t *testing.T) {
	f, _ := scriptedFight(t)
	page, err := f.svc.ListEvents(ctx, f.Owner, f.LobbyID, 0, table.MaxEventLimit)
	tabletest.Must(t, err)
	envelope := []string{"version", "encounter_id", "of", "of_seq", "encounter"}
	var of []string
	for _, e := range page.Events {
		p := payloadOf(t, e)
		if e.Kind == table.EventEncounterEnded {
			var s struct {
				Summary struct {
					Combatants []map[string]json.RawMessage `json:"combatants"`
				} `json:"summary"`
			}
			tabletest.Must(t, json.Unmarshal(e.Payload, &s))
			for _, c := range s.Summary.Combatants {
				taken, ok := c["damage_taken"]
				if hidden := string(c["id"]) == `"`+f.ogre+`"`; hidden == ok || string(taken) == "null" {
					t.Errorf("the public summary's damage_taken for %s: %s (present %v)", c["id"], taken, ok)
				}
			}
		}
		if e.Kind != table.EventEncounterSecret {
			continue
		}
		var kind string
		tabletest.Must(t, json.Unmarshal(p["of"], &kind))
		change := ""
		if kind == table.EventEncounterChanged {
			var pub struct {
				Change string `json:"change"`
			}
			var ofSeq int64
			tabletest.Must(t, json.Unmarshal(p["of_seq"], &ofSeq))
			for _, pe := range page.Events {
				if pe.Seq == ofSeq {
					tabletest.Must(t, json.Unmarshal(pe.Payload, &pub))
				}
			}
			change = ":" + pub.Change
		}
		of = append(of, kind+change)
		own := slices.DeleteFunc(slices.Collect(maps.Keys(p)), func(k string) bool { return slices.Contains(envelope, k) })
		if len(own) == 0 {
			t.Errorf("secret %d beside %s holds nothing of its own: %s", e.Seq, kind, e.Payload)
		}
		if kind == table.EventEncounterEnded && !strings.Contains(string(e.Payload), `"damage_taken":24`) {
			t.Errorf("the DM's summary lacks the ogre's 24 damage taken: %s", e.Payload)
		}
	}
	want := []string{"encounter.started", "encounter.changed:damage", "encounter.changed:heal",
		"encounter.attack", "encounter.attack", "encounter.changed:joined", "encounter.ended"}
	if !slices.Equal(of, want) {
		t.Errorf("the DM's secrets are beside\n %v\nwant\n %v", of, want)
	}
}
