package table

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/adventure-table/adventure-table/gameplay/combat"
	"github.com/adventure-table/adventure-table/gameplay/dice"
	"github.com/adventure-table/adventure-table/gameplay/sheet"
	"github.com/adventure-table/adventure-table/models"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// Encounter event kinds. They are wire contract: never renamed. Every
// change of an encounter is one public event that carries the encounter as
// players may see it; when the change holds something players may not read
// (a hidden NPC's armor class and hit points set or changed, an attack's
// hidden AC and outcome, the summary's damage a hidden NPC took), an
// encounter.secret event beside it carries that to the DM only, with the
// whole encounter as the DM sees it.
const (
	EventEncounterStarted = "encounter.started"
	EventEncounterChanged = "encounter.changed"
	EventEncounterTurn    = "encounter.turn"
	EventEncounterAttack  = "encounter.attack"
	EventEncounterEnded   = "encounter.ended"
	EventEncounterSecret  = "encounter.secret"
)

// Encounter phases, as EncounterView.Phase reports them.
const (
	PhaseInitiative = "initiative" // combatants roll; the order is not fixed yet
	PhaseFighting   = "fighting"   // rounds and turns
	PhaseEnded      = "ended"
)

// Limits of an encounter.
const (
	maxCombatants   = 40
	maxEncounterArg = 80
)

// The changes CombatantChangeInput.Op names beyond the character state's
// (damage, heal, set_temp_hp, add_condition, remove_condition).
const (
	OpReveal = "reveal"
	OpHide   = "hide"
	OpRemove = "remove"
)

var combatantOps = []string{OpDamage, OpHeal, OpSetTempHP, OpAddCondition, OpRemoveCondition, OpReveal, OpHide, OpRemove}

// encounterState is what an encounters row stores: the rules' value and
// what the table adds around it.
type encounterState struct {
	Name  string           `json:"name"`
	Fight combat.Encounter `json:"fight"`
	// Revealed are the NPCs whose armor class and hit points players see.
	Revealed []string          `json:"revealed"`
	NextNPC  int               `json:"next_npc"`
	Tally    map[string]*Tally `json:"tally"`
}

// Tally is what a combatant did and took in an encounter, for its summary.
// DamageDealt is the damage its hits rolled (what players see rolled);
// DamageTaken what it lost after its defenses (hidden for a hidden NPC).
type Tally struct {
	Hits        int `json:"hits"`
	Misses      int `json:"misses"`
	DamageDealt int `json:"damage_dealt"`
	DamageTaken int `json:"damage_taken"`
}

// NPCInput is a named NPC or monster joining an encounter.
type NPCInput struct {
	Name string `json:"name" jsonschema:"the NPC or monster as players know it, 1 to 80 characters"`
	AC   int    `json:"ac" jsonschema:"armor class, 0 to 100; players do not see it unless revealed"`
	HP   int    `json:"hp" jsonschema:"hit point maximum, 1 to 9999; players do not see it unless revealed"`
	// InitiativeBonus and Initiative: an entered initiative counts as is;
	// without one the server rolls d20 + bonus.
	InitiativeBonus     int      `json:"initiative_bonus,omitempty" jsonschema:"added to its initiative d20, -100 to 100"`
	InitiativeAdvantage bool     `json:"initiative_advantage,omitempty"`
	Initiative          *int     `json:"initiative,omitempty" jsonschema:"an initiative already rolled; the server rolls one when absent"`
	Resistances         []string `json:"resistances,omitempty" jsonschema:"damage types it takes half from"`
	Immunities          []string `json:"immunities,omitempty" jsonschema:"damage types it takes none from"`
	Vulnerabilities     []string `json:"vulnerabilities,omitempty" jsonschema:"damage types it takes double from"`
	// KeepsFighting: it falls unconscious and makes death saves at 0 hit
	// points like a character, instead of dying.
	KeepsFighting bool `json:"keeps_fighting,omitempty" jsonschema:"makes death saves at 0 HP instead of dying"`
	Revealed      bool `json:"revealed,omitempty" jsonschema:"players see its AC and hit points"`
}

// StartEncounterInput begins a fight.
type StartEncounterInput struct {
	Name    string     `json:"name,omitempty" jsonschema:"what the fight is called in the log, at most 80 characters"`
	SeatIDs []int64    `json:"seat_ids,omitempty" jsonschema:"the participant seats that fight; every participant with a character when empty"`
	NPCs    []NPCInput `json:"npcs,omitempty"`
}

// InitiativeInput rolls a combatant's initiative before the fight begins.
type InitiativeInput struct {
	CombatantID string `json:"combatant_id" jsonschema:"seat:<seat id> or npc:<n>"`
	Faces       []int  `json:"faces,omitempty" jsonschema:"physical dice: the d20 face rolled (two with advantage or disadvantage); the server rolls when absent"`
}

// AttackInput is an attack roll by one combatant on another; on a hit the
// damage is rolled and dealt.
type AttackInput struct {
	AttackerID string `json:"attacker_id"`
	TargetID   string `json:"target_id"`
	// Weapon naming one of a seat's sheet attacks (by name or number)
	// takes its to-hit, damage and type from the sheet instead of Bonus,
	// Damage and DamageType.
	Weapon       string `json:"weapon,omitempty" jsonschema:"what the attack is made with; for a character, one of its sheet's attacks (name or number) takes the sheet's numbers"`
	Bonus        int    `json:"bonus,omitempty" jsonschema:"the attack's to-hit bonus, -50 to 50 (ignored when weapon names a sheet attack)"`
	Damage       string `json:"damage,omitempty" jsonschema:"damage dice notation, e.g. 1d8+3 (from the sheet when weapon names a sheet attack)"`
	DamageType   string `json:"damage_type,omitempty" jsonschema:"e.g. slashing, fire"`
	Advantage    bool   `json:"advantage,omitempty"`
	Disadvantage bool   `json:"disadvantage,omitempty"`
	Within5ft    bool   `json:"within_5ft,omitempty" jsonschema:"the attacker is within 5 feet of the target (prone, paralyzed and unconscious targets)"`
	Faces        []int  `json:"faces,omitempty" jsonschema:"physical dice: the attack d20 face(s)"`
	DamageFaces  []int  `json:"damage_faces,omitempty" jsonschema:"physical dice: the damage dice faces, in the notation's order"`
}

// CombatantChangeInput is a change the DM makes to a combatant.
type CombatantChangeInput struct {
	CombatantID string `json:"combatant_id"`
	Op          string `json:"op" jsonschema:"damage, heal, set_temp_hp, add_condition, remove_condition, reveal, hide or remove"`
	Amount      int    `json:"amount,omitempty" jsonschema:"damage, heal, set_temp_hp: hit points, 1 to 9999"`
	DamageType  string `json:"damage_type,omitempty" jsonschema:"damage: the type, for resistances"`
	Condition   string `json:"condition,omitempty" jsonschema:"add_condition, remove_condition: e.g. prone, stunned"`
	// Rounds > 0 times the condition: it ends at Ends (start_of_turn or
	// end_of_turn, end_of_turn by default) of TimerID's turn (the
	// combatant itself by default) after that many such turns.
	Rounds  int    `json:"rounds,omitempty" jsonschema:"add_condition: lasts this many rounds; until removed when 0"`
	Ends    string `json:"ends,omitempty" jsonschema:"add_condition: start_of_turn or end_of_turn (default)"`
	TimerID string `json:"timer_id,omitempty" jsonschema:"add_condition: whose turn times it (default: the combatant itself)"`
}

// DeathSaveInput rolls a dying combatant's death save.
type DeathSaveInput struct {
	CombatantID string `json:"combatant_id"`
	Faces       []int  `json:"faces,omitempty" jsonschema:"physical dice: the d20 face"`
}

// ConditionView is a condition as shown: its name and, when timed, the
// turns still to come.
type ConditionView struct {
	Name    string `json:"name"`
	Rounds  int    `json:"rounds,omitempty"`
	Ends    string `json:"ends,omitempty"`
	TimerID string `json:"timer_id,omitempty"`
}

// CombatantView is a combatant as a caller may see it: an NPC's armor
// class, hit points and defenses only for the DM or once revealed.
type CombatantView struct {
	ID              string             `json:"id"`
	Name            string             `json:"name"`
	SeatID          *int64             `json:"seat_id" jsonschema:"the seat of a character; null for an NPC"`
	Initiative      *int               `json:"initiative" jsonschema:"null until rolled"`
	InitiativeBonus *int               `json:"initiative_bonus,omitempty"`
	AC              *int               `json:"ac,omitempty" jsonschema:"absent for players while an NPC is hidden"`
	HP              *combat.HP         `json:"hp,omitempty" jsonschema:"absent for players while an NPC is hidden"`
	Defenses        *combat.Defenses   `json:"defenses,omitempty"`
	Status          string             `json:"status" jsonschema:"active, dying, stable or dead"`
	Conditions      []ConditionView    `json:"conditions"`
	DeathSaves      *combat.DeathSaves `json:"death_saves,omitempty"`
	Hidden          bool               `json:"hidden" jsonschema:"an NPC whose numbers players do not see"`
	Current         bool               `json:"current" jsonschema:"whose turn it is"`
}

// EncounterView is an encounter as a caller may see it.
type EncounterView struct {
	ID         int64           `json:"id"`
	Name       string          `json:"name"`
	Phase      string          `json:"phase" jsonschema:"initiative, fighting or ended"`
	Round      int             `json:"round" jsonschema:"0 while rolling initiative"`
	CurrentID  string          `json:"current_id" jsonschema:"the combatant whose turn it is; empty before the fight begins"`
	Combatants []CombatantView `json:"combatants" jsonschema:"in turn order once the fight begins"`
}

// CombatantSummary is one combatant's part in an ended encounter.
type CombatantSummary struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Status      string `json:"status"`
	Hits        int    `json:"hits"`
	Misses      int    `json:"misses"`
	DamageDealt int    `json:"damage_dealt" jsonschema:"the damage its hits rolled"`
	DamageTaken *int   `json:"damage_taken,omitempty" jsonschema:"the damage it lost after its defenses; absent for players while an NPC is hidden"`
}

// EncounterResult is what an encounter operation returns: the encounter as
// the caller may see it and the public event that recorded the change.
type EncounterResult struct {
	Encounter EncounterView `json:"encounter"`
	Event     EventView     `json:"event"`
}

// encounterOp is one change of a running encounter, inside the
// transaction changeEncounter opens.
type encounterOp struct {
	tx           *models.Store
	sc           sessionScope
	participants map[int64]models.SessionParticipant
	row          *models.Encounter
	st           encounterState
	chars        map[int64]*models.Character // seat combatants' characters, by seat
	changedChars map[int64]bool
	// what the change records: the public event's kind and payload, the
	// DM-only details beside it, and the seat it is about.
	kind   string
	public map[string]any
	secret map[string]any
	// hiddenBefore are the hidden NPCs' numbers before the change
	// (hiddenNumbers), to tell which ones it set or changed.
	hiddenBefore map[string]string
	subject      *int64
	proxy        bool // the DM acts for a seat's combatant
	ended        bool
}

func combatantID(seatID int64) string { return "seat:" + strconv.FormatInt(seatID, 10) }

func encounterInvalid(format string, args ...any) *apperr.Error {
	return apperr.E(apperr.EncounterInvalid, format, args...)
}

// asEncounterError gives the rules' invalid_request and not_found the
// encounter's own code, keeping their message and fields.
func asEncounterError(err error) error {
	if e, ok := apperr.As(err); ok && (e.Code == apperr.InvalidRequest || e.Code == apperr.NotFound) {
		out := *e
		out.Code = apperr.EncounterInvalid
		return &out
	}
	return err
}

func (st encounterState) revealed(id string) bool { return slices.Contains(st.Revealed, id) }

// hides reports whether players miss anything of c.
func (st encounterState) hides(c combat.Combatant) bool { return c.SeatID == 0 && !st.revealed(c.ID) }

func (st encounterState) anyHidden() bool {
	return slices.ContainsFunc(st.Fight.Combatants, st.hides)
}

// hiddenNumbers are what players do not see of each hidden NPC (its armor
// class, hit points, defenses and initiative bonus), by combatant id, as
// text to compare: the numbers an encounter.secret exists to carry.
func (st encounterState) hiddenNumbers() map[string]string {
	out := map[string]string{}
	for _, c := range st.Fight.Combatants {
		if st.hides(c) {
			raw, _ := json.Marshal([]any{c.AC, c.HP, c.Defenses, c.InitiativeBonus})
			out[c.ID] = string(raw)
		}
	}
	return out
}

func (st encounterState) phase(status string) string {
	switch {
	case status == models.EncounterEnded:
		return PhaseEnded
	case st.Fight.Started():
		return PhaseFighting
	}
	return PhaseInitiative
}

// view is the encounter as the DM (full) or a player (hidden NPCs without
// their numbers) sees it. It is the one projection of an encounter.
func (st encounterState) view(id int64, status string, full bool) EncounterView {
	out := EncounterView{ID: id, Name: st.Name, Phase: st.phase(status), Round: st.Fight.Round, Combatants: []CombatantView{}}
	cur, ok := st.Fight.Current()
	if ok && status != models.EncounterEnded {
		out.CurrentID = cur.ID
	}
	for _, c := range st.Fight.Combatants {
		v := CombatantView{ID: c.ID, Name: c.Name, Status: c.Status(), Conditions: []ConditionView{}, Hidden: st.hides(c), Current: c.ID == out.CurrentID}
		if c.SeatID != 0 {
			seat := c.SeatID
			v.SeatID = &seat
			saves := c.DeathSaves
			v.DeathSaves = &saves
		}
		if c.Initiative != nil {
			total := c.Initiative.Total
			v.Initiative = &total
		}
		if full || !v.Hidden {
			ac, hp, def, bonus := c.AC, c.HP, c.Defenses, c.InitiativeBonus
			v.AC, v.HP, v.Defenses, v.InitiativeBonus = &ac, &hp, &def, &bonus
		}
		for _, cond := range c.Conditions {
			v.Conditions = append(v.Conditions, ConditionView{Name: cond.Name, Rounds: cond.Rounds, Ends: cond.Ends, TimerID: cond.TimerID})
		}
		out.Combatants = append(out.Combatants, v)
	}
	return out
}

// viewFor is the encounter as the caller of sc may see it.
func (st encounterState) viewFor(sc sessionScope, row *models.Encounter) EncounterView {
	return st.view(row.ID, row.Status, sc.isCurrentDM())
}

func decodeEncounter(row *models.Encounter) (encounterState, error) {
	var st encounterState
	if err := json.Unmarshal([]byte(row.State), &st); err != nil {
		return encounterState{}, fmt.Errorf("encounter %d: %w", row.ID, err)
	}
	if st.Tally == nil {
		st.Tally = map[string]*Tally{}
	}
	if st.Revealed == nil {
		st.Revealed = []string{}
	}
	return st, nil
}

func (st encounterState) encode() (string, error) {
	b, err := json.Marshal(st)
	return string(b), err
}

func (st encounterState) tally(id string) *Tally {
	t, ok := st.Tally[id]
	if !ok {
		t = &Tally{}
		st.Tally[id] = t
	}
	return t
}

// seatCombatant is a participant's character as a combatant: its armor
// class and initiative bonus by the sheet rules, its hit points as the
// character state holds them (the character stays canonical; see sync).
func seatCombatant(seatID int64, ch *models.Character) (combat.Combatant, error) {
	if ch.HPMax < 1 {
		return combat.Combatant{}, encounterInvalid("%s has no hit point maximum; set it on the character first.", ch.Name).WithField("seat_ids", "characters with hit points")
	}
	d := sheet.Derive(sheetInput(ch))
	return combat.Combatant{ID: combatantID(seatID), Name: ch.Name, SeatID: seatID, InitiativeBonus: d.Initiative, Advantage: d.InitiativeAdvantage,
		AC: d.AC, HP: combat.HP{Max: ch.HPMax, Current: ch.HPCurrent, Temp: ch.HPTemp}, Defenses: defensesView(ch.Defenses).combat(),
		Conditions: []combat.Condition{}}, nil
}

// npcCombatant validates an NPC and makes it a combatant with the next
// npc:<n> ID.
func (st *encounterState) npcCombatant(in NPCInput) (combat.Combatant, bool, error) {
	in.Name = strings.TrimSpace(in.Name)
	if in.Name == "" || len([]rune(in.Name)) > maxEncounterArg {
		return combat.Combatant{}, false, encounterInvalid("An NPC needs a name of 1 to 80 characters.").WithField("name", "1 to 80 characters")
	}
	for _, list := range [][]string{in.Resistances, in.Immunities, in.Vulnerabilities} {
		if len(list) > 20 || slices.ContainsFunc(list, func(s string) bool { return len(s) > 40 }) {
			return combat.Combatant{}, false, encounterInvalid("Damage defenses are at most 20 types of at most 40 characters.").WithField("resistances", "at most 20 types")
		}
	}
	st.NextNPC++
	c := combat.Combatant{ID: "npc:" + strconv.Itoa(st.NextNPC), Name: in.Name, InitiativeBonus: in.InitiativeBonus, Advantage: in.InitiativeAdvantage,
		AC: in.AC, HP: combat.HP{Max: in.HP, Current: in.HP}, DiesAtZero: !in.KeepsFighting, Conditions: []combat.Condition{},
		Defenses: combat.Defenses{Resistances: in.Resistances, Immunities: in.Immunities, Vulnerabilities: in.Vulnerabilities}}
	var err error
	if c.Initiative, err = enteredInitiative(in.Initiative); err != nil {
		return combat.Combatant{}, false, err
	}
	return c, in.Revealed, nil
}

// enteredInitiative is an initiative the caller entered (already rolled at
// the table, or the DM's pick): a total with no dice behind it; nil when
// none was entered. Returns encounter_invalid outside -100..200.
func enteredInitiative(total *int) (*combat.Initiative, error) {
	if total == nil {
		return nil, nil
	}
	if *total < -100 || *total > 200 {
		return nil, encounterInvalid("An entered initiative is -100 to 200.").WithField("initiative", "-100 to 200")
	}
	n := *total
	return &combat.Initiative{Total: n, Roll: dice.Result{Formula: "entered", Normalized: "entered", Groups: []dice.Group{}, Total: n, Min: n, Max: n}}, nil
}

// rollIfMissing rolls c's initiative with the server's dice when it has
// none.
func rollIfMissing(c *combat.Combatant) error {
	if c.Initiative != nil {
		return nil
	}
	in, err := combat.RollInitiative(*c, dice.Crypto)
	if err != nil {
		return err
	}
	c.Initiative = &in
	return nil
}

// StartEncounter begins a fight in a session in play: the chosen
// participant seats (every participant with a character by default) and
// the named NPCs, whose initiative the server rolls unless entered. Seats
// roll their own (RollInitiative); the DM begins the first round with
// AdvanceEncounter. One transaction: the encounter, the public
// encounter.started event and, when an NPC is hidden, the DM's
// encounter.secret. Only the current DM may. Returns not_current_dm,
// session_not_active, encounter_already_running, encounter_invalid,
// proxy_target_invalid.
func (s *Service) StartEncounter(ctx context.Context, c Caller, sessionID int64, in StartEncounterInput) (EncounterResult, error) {
	in.Name = strings.TrimSpace(in.Name)
	if len([]rune(in.Name)) > maxEncounterArg {
		return EncounterResult{}, encounterInvalid("An encounter's name is at most 80 characters.").WithField("name", "at most 80 characters")
	}
	if len(in.SeatIDs)+len(in.NPCs) > maxCombatants {
		return EncounterResult{}, encounterInvalid("An encounter has at most %d combatants.", maxCombatants).WithField("npcs", fmt.Sprintf("at most %d combatants", maxCombatants))
	}
	var out EncounterResult
	err := s.store.Tx(ctx, func(tx *models.Store) error {
		sc, participants, err := loadLive(ctx, tx, c, sessionID)
		if err != nil {
			return err
		}
		if err := requireCurrentDM(sc); err != nil {
			return err
		}
		if _, err := tx.FindRunningEncounter(ctx, sessionID); err == nil {
			return apperr.E(apperr.EncounterAlreadyRunning, "A fight is already running in this session; end it first.")
		} else if apperr.CodeOf(err) != apperr.NotFound {
			return err
		}
		seats := dedupeIDs(in.SeatIDs)
		bySeat := participantsBySeat(participants)
		if len(seats) == 0 {
			for _, p := range participants {
				if p.CharacterID != nil {
					seats = append(seats, p.SeatID)
				}
			}
		}
		st := encounterState{Name: in.Name, Revealed: []string{}, Tally: map[string]*Tally{}, Fight: combat.Encounter{Combatants: []combat.Combatant{}}}
		if st.Name == "" {
			st.Name = "Encounter"
		}
		var charIDs []int64
		for _, seat := range seats {
			p, ok := bySeat[seat]
			if !ok || p.CharacterID == nil {
				return apperr.E(apperr.ProxyTargetInvalid, "Seat %d has no character in this session.", seat).WithField("seat_ids", "participant seats with characters")
			}
			charIDs = append(charIDs, *p.CharacterID)
		}
		chars, err := charactersByID(ctx, tx, charIDs)
		if err != nil {
			return err
		}
		for _, seat := range seats {
			ch := chars[*bySeat[seat].CharacterID]
			cb, err := seatCombatant(seat, &ch)
			if err != nil {
				return err
			}
			if st.Fight, err = st.Fight.Add(cb, dice.Crypto); err != nil {
				return asEncounterError(err)
			}
		}
		for _, npc := range in.NPCs {
			cb, revealed, err := st.npcCombatant(npc)
			if err != nil {
				return err
			}
			if err := rollIfMissing(&cb); err != nil {
				return err
			}
			if st.Fight, err = st.Fight.Add(cb, dice.Crypto); err != nil {
				return asEncounterError(err)
			}
			if revealed {
				st.Revealed = append(st.Revealed, cb.ID)
			}
		}
		if len(st.Fight.Combatants) == 0 {
			return encounterInvalid("A fight needs at least one combatant.").WithField("npcs", "at least one seat or NPC")
		}
		raw, err := st.encode()
		if err != nil {
			return err
		}
		now := s.now()
		row := &models.Encounter{SessionID: sessionID, Status: models.EncounterRunning, State: raw, CreatedAt: now, UpdatedAt: now}
		if err := tx.CreateEncounter(ctx, row); err != nil {
			return err
		}
		op := &encounterOp{tx: tx, sc: sc, row: row, st: st, kind: EventEncounterStarted, public: map[string]any{}, secret: map[string]any{}}
		out, err = s.recordEncounter(ctx, op)
		return err
	})
	if err != nil {
		return EncounterResult{}, err
	}
	s.notifier.Notify(sessionID)
	return out, nil
}

// EncounterNow is the session's running encounter, if any.
type EncounterNow struct {
	Encounter *EncounterView `json:"encounter" jsonschema:"the running fight as the caller may see it; null when none is running"`
}

// GetEncounter returns the session's running encounter as the caller may
// see it (Encounter is nil when none is running). Returns the errors of
// ListEvents.
func (s *Service) GetEncounter(ctx context.Context, c Caller, sessionID int64) (EncounterNow, error) {
	sc, err := loadAudience(allowEndedRead(ctx), s.store, c, sessionID, false)
	if err != nil {
		return EncounterNow{}, err
	}
	return runningEncounter(ctx, s.store, sc)
}

// runningEncounter is the scope's session's running encounter as its
// viewer may see it.
func runningEncounter(ctx context.Context, store *models.Store, sc sessionScope) (EncounterNow, error) {
	row, err := findRunningEncounter(ctx, store, sc.session.ID)
	if err != nil {
		return EncounterNow{}, err
	}
	return encounterFrom(sc, row)
}

// findRunningEncounter is the session's running encounter; nil: none.
func findRunningEncounter(ctx context.Context, store *models.Store, sessionID int64) (*models.Encounter, error) {
	row, err := store.FindRunningEncounter(ctx, sessionID)
	if apperr.CodeOf(err) == apperr.NotFound {
		return nil, nil
	}
	return row, err
}

// encounterFrom is the running encounter row (nil: none) as the scope's
// viewer may see it.
func encounterFrom(sc sessionScope, row *models.Encounter) (EncounterNow, error) {
	if row == nil {
		return EncounterNow{}, nil
	}
	st, err := decodeEncounter(row)
	if err != nil {
		return EncounterNow{}, err
	}
	v := st.viewFor(sc, row)
	return EncounterNow{Encounter: &v}, nil
}

// AddCombatantInput brings a participant seat or a new NPC into the
// running fight. Once the fight has begun, the newcomer takes its place in
// the order by its initiative: the one entered, or the server's roll.
type AddCombatantInput struct {
	SeatID     *int64    `json:"seat_id,omitempty" jsonschema:"a participant seat with a character"`
	NPC        *NPCInput `json:"npc,omitempty"`
	Initiative *int      `json:"initiative,omitempty" jsonschema:"for a seat joining a fight that has begun: its initiative; rolled when absent"`
}

// AddCombatant adds a seat or an NPC to the running fight (the DM only).
// Returns not_current_dm, encounter_not_running, encounter_invalid,
// proxy_target_invalid.
func (s *Service) AddCombatant(ctx context.Context, c Caller, sessionID int64, in AddCombatantInput) (EncounterResult, error) {
	if (in.SeatID == nil) == (in.NPC == nil) {
		return EncounterResult{}, encounterInvalid("Add either a seat or an NPC.").WithField("npc", "either seat_id or npc")
	}
	return s.changeEncounter(ctx, c, sessionID, func(op *encounterOp) error {
		if err := requireCurrentDM(op.sc); err != nil {
			return err
		}
		if len(op.st.Fight.Combatants) >= maxCombatants {
			return encounterInvalid("An encounter has at most %d combatants.", maxCombatants).WithField("npc", fmt.Sprintf("at most %d combatants", maxCombatants))
		}
		var cb combat.Combatant
		revealed := false
		if in.NPC != nil {
			var err error
			if cb, revealed, err = op.st.npcCombatant(*in.NPC); err != nil {
				return err
			}
		} else {
			p, ok := op.participants[*in.SeatID]
			if !ok || p.CharacterID == nil {
				return apperr.E(apperr.ProxyTargetInvalid, "That seat has no character in this session.").WithField("seat_id", "a participant seat with a character")
			}
			ch, err := op.tx.FindCharacterForUpdate(ctx, *p.CharacterID)
			if err != nil {
				return err
			}
			if cb, err = seatCombatant(*in.SeatID, ch); err != nil {
				return err
			}
			if cb.Initiative, err = enteredInitiative(in.Initiative); err != nil {
				return err
			}
			op.chars[*in.SeatID] = ch
		}
		if op.st.Fight.Started() {
			if err := rollIfMissing(&cb); err != nil {
				return err
			}
		}
		var err error
		if op.st.Fight, err = op.st.Fight.Add(cb, dice.Crypto); err != nil {
			return asEncounterError(err)
		}
		if revealed {
			op.st.Revealed = append(op.st.Revealed, cb.ID)
		}
		op.kind, op.subject = EventEncounterChanged, seatPtr(cb)
		op.public["change"], op.public["combatant_id"] = "joined", cb.ID
		return nil
	})
}

// changeEncounter runs fn on the session's running encounter in one
// transaction with the session locked: the seat combatants' hit points are
// read from their characters first (the character state is canonical and
// may have changed outside the fight), and afterwards the encounter, the
// characters fn changed and the events are written together.
func (s *Service) changeEncounter(ctx context.Context, c Caller, sessionID int64, fn func(op *encounterOp) error) (EncounterResult, error) {
	var out EncounterResult
	err := s.store.Tx(ctx, func(tx *models.Store) error {
		sc, participants, err := loadLive(ctx, tx, c, sessionID)
		if err != nil {
			return err
		}
		row, err := tx.FindRunningEncounter(ctx, sessionID)
		if apperr.CodeOf(err) == apperr.NotFound {
			return apperr.E(apperr.EncounterNotRunning, "There is no fight running in this session.")
		}
		if err != nil {
			return err
		}
		st, err := decodeEncounter(row)
		if err != nil {
			return err
		}
		op := &encounterOp{tx: tx, sc: sc, participants: participantsBySeat(participants), row: row, st: st,
			chars: map[int64]*models.Character{}, changedChars: map[int64]bool{}, public: map[string]any{}, secret: map[string]any{},
			hiddenBefore: st.hiddenNumbers()}
		if err := op.loadSeats(ctx); err != nil {
			return err
		}
		if err := fn(op); err != nil {
			return err
		}
		for seat := range op.changedChars {
			ch := op.chars[seat]
			ch.UpdatedAt = s.now()
			if err := tx.SaveCharacter(ctx, ch); err != nil {
				return err
			}
		}
		if err := s.failpoint("encounter.before_events"); err != nil {
			return err
		}
		out, err = s.recordEncounter(ctx, op)
		return err
	})
	if err != nil {
		return EncounterResult{}, err
	}
	s.notifier.Notify(sessionID)
	return out, nil
}

// loadSeats reads the characters of the seat combatants (locked: a fight
// changes their hit points) and refreshes each combatant's hit points,
// armor class and damage defenses from them.
func (op *encounterOp) loadSeats(ctx context.Context) error {
	for i, cb := range op.st.Fight.Combatants {
		if cb.SeatID == 0 {
			continue
		}
		p, ok := op.participants[cb.SeatID]
		if !ok || p.CharacterID == nil {
			continue // left the session: the fight keeps its last numbers
		}
		ch, err := op.tx.FindCharacterForUpdate(ctx, *p.CharacterID)
		if err != nil {
			return err
		}
		op.chars[cb.SeatID] = ch
		cb.HP = combat.HP{Max: max(1, ch.HPMax), Current: min(ch.HPCurrent, max(1, ch.HPMax)), Temp: ch.HPTemp}
		cb.AC = sheet.Derive(sheetInput(ch)).AC
		cb.Defenses = defensesView(ch.Defenses).combat()
		op.st.Fight.Combatants[i] = cb
	}
	return nil
}

// put stores a changed combatant into the fight and, for a seat, its hit
// points into the character.
func (op *encounterOp) put(cb combat.Combatant) error {
	var err error
	if op.st.Fight, err = op.st.Fight.Update(cb); err != nil {
		return asEncounterError(err)
	}
	if ch, ok := op.chars[cb.SeatID]; ok && cb.SeatID != 0 {
		if ch.HPCurrent != cb.HP.Current || ch.HPTemp != cb.HP.Temp {
			ch.HPCurrent, ch.HPTemp = cb.HP.Current, cb.HP.Temp
			op.changedChars[cb.SeatID] = true
		}
	}
	return nil
}

// combatant returns the combatant id, encounter_invalid when there is none.
func (op *encounterOp) combatant(id string) (combat.Combatant, error) {
	cb, ok := op.st.Fight.Combatant(id)
	if !ok {
		return combat.Combatant{}, encounterInvalid("No combatant %q in the fight.", truncate(id, 40)).WithField("combatant_id", "a combatant of the fight")
	}
	return cb, nil
}

// actAs checks that the caller may act for the combatant: the DM for
// anyone, a player for the seat they control.
func (op *encounterOp) actAs(cb combat.Combatant) error {
	if op.sc.isCurrentDM() {
		op.proxy = op.proxy || (cb.SeatID != 0 && cb.SeatID != op.sc.session.DMSeatID)
		return nil
	}
	if cb.SeatID != 0 {
		for _, seat := range op.sc.seats {
			if seat.ID == cb.SeatID && controls(op.sc.actor, seat) {
				return nil
			}
		}
	}
	return apperr.E(apperr.NotYourCombatant, "You can only act for your own character in a fight.")
}

// recordEncounter saves the encounter and appends its events: the public
// one (with the encounter as players see it) and, when the change holds
// something players may not read, the DM's encounter.secret: the change's
// hidden parts, "hidden" (the hidden NPCs whose numbers the change set or
// changed, as the DM sees them) and the whole encounter. A change with
// nothing hidden in it has no secret event. It returns the encounter as
// the caller sees it.
func (s *Service) recordEncounter(ctx context.Context, op *encounterOp) (EncounterResult, error) {
	raw, err := op.st.encode()
	if err != nil {
		return EncounterResult{}, err
	}
	op.row.State, op.row.UpdatedAt = raw, s.now()
	if op.ended {
		now := s.now()
		op.row.Status, op.row.EndedAt = models.EncounterEnded, &now
	}
	if err := op.tx.SaveEncounter(ctx, op.row); err != nil {
		return EncounterResult{}, err
	}
	// The DM acts from the DM's seat (for a seat's combatant: dm_proxy); a
	// player from the seat whose combatant acts, which is the subject.
	acting, mode := op.sc.session.DMSeatID, models.ExecSelf
	switch {
	case !op.sc.isCurrentDM() && op.subject != nil:
		acting = *op.subject
	case op.proxy:
		mode = models.ExecDMProxy
	}
	public := map[string]any{"encounter_id": op.row.ID, "encounter": op.st.view(op.row.ID, op.row.Status, false)}
	for k, v := range op.public {
		public[k] = v
	}
	e, err := s.appendNext(ctx, op.tx, op.row.SessionID, eventDraft{kind: op.kind, acting: &acting, subject: op.subject, mode: mode, payload: public})
	if err != nil {
		return EncounterResult{}, err
	}
	full := op.st.view(op.row.ID, op.row.Status, true)
	var hidden []CombatantView
	for id, numbers := range op.st.hiddenNumbers() {
		if op.hiddenBefore[id] != numbers {
			i := slices.IndexFunc(full.Combatants, func(c CombatantView) bool { return c.ID == id })
			hidden = append(hidden, full.Combatants[i])
		}
	}
	if len(hidden) > 0 {
		slices.SortFunc(hidden, func(a, b CombatantView) int { return strings.Compare(a.ID, b.ID) })
		op.secret["hidden"] = hidden
	}
	if len(op.secret) > 0 {
		secret := map[string]any{"encounter_id": op.row.ID, "of": op.kind, "of_seq": e.Seq, "encounter": full}
		for k, v := range op.secret {
			secret[k] = v
		}
		if _, err := s.appendNext(ctx, op.tx, op.row.SessionID, eventDraft{kind: EventEncounterSecret, acting: &acting, subject: op.subject,
			mode: mode, visibility: models.VisibilityDMOnly, payload: secret}); err != nil {
			return EncounterResult{}, err
		}
	}
	return EncounterResult{Encounter: op.st.viewFor(op.sc, op.row), Event: eventView(e)}, nil
}

// facesOr is the dice source of a roll: the physical dice entered, or the
// server's.
func facesOr(faces []int) dice.Source {
	if len(faces) > 0 {
		return dice.Faces(faces...)
	}
	return dice.Crypto
}

// RollEncounterInitiative rolls a combatant's initiative (d20 + its bonus,
// two d20s with advantage) before the fight begins, with the server's dice
// or the physical dice entered. A player rolls for their own seat, the DM
// for anyone. Returns encounter_not_running, encounter_invalid,
// not_your_combatant, conflict (the fight has begun), dice_* codes.
func (s *Service) RollEncounterInitiative(ctx context.Context, c Caller, sessionID int64, in InitiativeInput) (EncounterResult, error) {
	return s.changeEncounter(ctx, c, sessionID, func(op *encounterOp) error {
		cb, err := op.combatant(in.CombatantID)
		if err != nil {
			return err
		}
		if err := op.actAs(cb); err != nil {
			return err
		}
		if op.st.Fight.Started() {
			return apperr.E(apperr.Conflict, "The initiative order is fixed once the fight has begun.")
		}
		roll, err := combat.RollInitiative(cb, facesOr(in.Faces))
		if err != nil {
			return err
		}
		if op.st.Fight, err = op.st.Fight.SetInitiative(cb.ID, roll); err != nil {
			return asEncounterError(err)
		}
		op.kind, op.subject = EventEncounterChanged, seatPtr(cb)
		op.public["change"], op.public["combatant_id"], op.public["initiative"] = "initiative", cb.ID, roll
		return nil
	})
}

func seatPtr(cb combat.Combatant) *int64 {
	if cb.SeatID == 0 {
		return nil
	}
	seat := cb.SeatID
	return &seat
}

// AdvanceEncounter moves the fight on: before it begins, it fixes the
// order by initiative (ties by bonus, then a roll-off) and gives the first
// turn; after, it ends the current turn and begins the next, a new round
// after the last combatant. Conditions timed to those turn boundaries
// expire. The DM may always; a player only to end their own seat's turn.
// Returns encounter_not_running, encounter_invalid (someone has no
// initiative), not_your_turn.
func (s *Service) AdvanceEncounter(ctx context.Context, c Caller, sessionID int64) (EncounterResult, error) {
	return s.changeEncounter(ctx, c, sessionID, func(op *encounterOp) error {
		if !op.sc.isCurrentDM() {
			cur, ok := op.st.Fight.Current()
			if !ok || op.actAs(cur) != nil {
				return apperr.E(apperr.NotYourTurn, "Only the combatant whose turn it is, or the DM, ends a turn.")
			}
		}
		var tc combat.TurnChange
		var err error
		if op.st.Fight.Started() {
			op.st.Fight, tc, err = op.st.Fight.Next()
		} else {
			op.st.Fight, tc, err = op.st.Fight.Start(dice.Crypto)
		}
		if err != nil {
			return asEncounterError(err)
		}
		next, _ := op.st.Fight.Current()
		op.kind, op.subject = EventEncounterTurn, seatPtr(next)
		op.public["turn"] = tc
		op.public["combatant_id"] = next.ID
		return nil
	})
}

// Attack rolls an attack by one combatant on another against the target's
// armor class (which players do not see while the target is hidden), with
// the advantage and disadvantage the two sides' conditions give, and on a
// hit rolls the damage (every die twice on a critical) and deals it: the
// target's defenses, temporary hit points first, unconsciousness and death
// saves at 0 by the rules of gameplay/combat. A seat's hit points change in
// its character in the same transaction. A player attacks with their own
// seat's combatant on its turn; the DM with anyone at any time. Returns
// encounter_not_running, encounter_invalid, not_your_combatant,
// not_your_turn, conflict (before the fight begins), dice_* codes.
func (s *Service) Attack(ctx context.Context, c Caller, sessionID int64, in AttackInput) (EncounterResult, error) {
	if in.Bonus < -50 || in.Bonus > 50 {
		return EncounterResult{}, encounterInvalid("An attack bonus is -50 to 50.").WithField("bonus", "-50 to 50")
	}
	if len([]rune(in.Weapon)) > maxEncounterArg || len(in.DamageType) > 40 {
		return EncounterResult{}, encounterInvalid("A weapon's name is at most 80 characters and a damage type at most 40.").WithField("weapon", "at most 80 characters")
	}
	if strings.TrimSpace(in.Damage) != "" {
		if _, err := dice.Parse(in.Damage, dice.DefaultLimits); err != nil {
			return EncounterResult{}, err
		}
	}
	return s.changeEncounter(ctx, c, sessionID, func(op *encounterOp) error {
		attacker, err := op.combatant(in.AttackerID)
		if err != nil {
			return err
		}
		if err := op.actAs(attacker); err != nil {
			return err
		}
		in = op.sheetAttack(attacker, in)
		if strings.TrimSpace(in.Damage) == "" {
			return encounterInvalid("Name one of the character's attacks, or give the damage dice.").WithField("damage", "dice notation, or weapon naming a sheet attack")
		}
		target, err := op.combatant(in.TargetID)
		if err != nil {
			return err
		}
		if !op.st.Fight.Started() {
			return apperr.E(apperr.Conflict, "Attacks come once the fight has begun.")
		}
		// A player attacks on their own turn; an attack out of turn (an
		// opportunity attack, a readied action) is the DM's to resolve.
		if cur, _ := op.st.Fight.Current(); !op.sc.isCurrentDM() && cur.ID != attacker.ID {
			return apperr.E(apperr.NotYourTurn, "You attack on your own turn; ask the DM for an attack out of turn.")
		}
		if attacker.Dead || target.Dead {
			return encounterInvalid("The dead neither attack nor are attacked.").WithField("target_id", "a living combatant")
		}
		// Conditions written on the characters count as well as the fight's.
		attacker, target = op.withCharacterConditions(attacker), op.withCharacterConditions(target)
		adv, dis, autoCrit := combat.AttackModes(attacker, target, in.Within5ft)
		roll, err := combat.RollAttack(combat.Attack{Bonus: in.Bonus, Advantage: adv || in.Advantage, Disadvantage: dis || in.Disadvantage, AutoCritical: autoCrit},
			target.AC, facesOr(in.Faces))
		if err != nil {
			return err
		}
		attack := map[string]any{"attacker_id": attacker.ID, "target_id": target.ID, "weapon": strings.TrimSpace(in.Weapon),
			"roll": roll.Roll, "natural": roll.Natural, "total": roll.Total, "hit": roll.Hit, "critical": roll.Critical}
		// A hidden target's AC and what the hit did to it are the DM's;
		// anyone else's are public, as the encounter shows them anyway.
		hiddenTarget := op.st.hides(target)
		secret := map[string]any{"ac": roll.AC}
		if !hiddenTarget {
			attack["ac"] = roll.AC
		}
		at := op.st.tally(attacker.ID)
		if !roll.Hit {
			at.Misses++
		} else {
			at.Hits++
			dmg, err := combat.RollDamage(in.Damage, in.DamageType, roll.Critical, facesOr(in.DamageFaces))
			if err != nil {
				return err
			}
			stored, _ := op.st.Fight.Combatant(target.ID)
			after, res := combat.TakeDamage(stored, []combat.DamageRoll{dmg}, roll.Critical)
			if err := op.put(after); err != nil {
				return err
			}
			at.DamageDealt += dmg.Amount
			op.st.tally(target.ID).DamageTaken += res.Taken
			attack["damage"] = dmg
			attack["target_status"] = after.Status()
			if hiddenTarget {
				secret["result"] = res
			} else {
				attack["result"] = res
			}
		}
		op.kind, op.subject = EventEncounterAttack, seatPtr(attacker)
		if op.subject == nil {
			op.subject = seatPtr(target)
		}
		op.public["attack"] = attack
		if hiddenTarget {
			op.secret["attack"] = secret
		}
		return nil
	})
}

// sheetAttack fills an attack by a seat from its character sheet when the
// weapon names one of the sheet's attacks (by name or number): the sheet's
// to-hit, damage and type then count, whatever the request said, so a
// player's attack is the number their sheet gives.
func (op *encounterOp) sheetAttack(attacker combat.Combatant, in AttackInput) AttackInput {
	ch, ok := op.chars[attacker.SeatID]
	if !ok || attacker.SeatID == 0 || strings.TrimSpace(in.Weapon) == "" {
		return in
	}
	sin := sheetInput(ch)
	i, ok := sheet.FindAttack(sin.Attacks, in.Weapon)
	if !ok {
		return in
	}
	d := sheet.DeriveAttack(sin, sin.Attacks[i])
	in.Weapon, in.Bonus, in.Damage, in.DamageType = d.Name, d.ToHit, d.Damage, d.DamageType
	return in
}

// withCharacterConditions adds the conditions written on a seat's
// character (untimed) to its fight conditions, for the rules that read
// them; they are not stored in the fight.
func (op *encounterOp) withCharacterConditions(cb combat.Combatant) combat.Combatant {
	ch, ok := op.chars[cb.SeatID]
	if !ok || cb.SeatID == 0 {
		return cb
	}
	out := cb
	out.Conditions = slices.Clone(cb.Conditions)
	for _, name := range ch.Conditions {
		if !cb.Has(strings.ToLower(name)) {
			out.Conditions = append(out.Conditions, combat.Condition{Name: strings.ToLower(name)})
		}
	}
	return out
}

// ChangeCombatant is the DM's change to one combatant: damage (through
// its defenses and temporary hit points), healing, temporary hit points, a
// condition (timed in rounds or until removed) added or removed, an NPC's
// numbers revealed to players or hidden again, or the combatant removed.
// Returns not_current_dm, encounter_not_running, encounter_invalid.
func (s *Service) ChangeCombatant(ctx context.Context, c Caller, sessionID int64, in CombatantChangeInput) (EncounterResult, error) {
	if !slices.Contains(combatantOps, in.Op) {
		return EncounterResult{}, encounterInvalid("Unknown change %q.", truncate(in.Op, 40)).WithField("op", strings.Join(combatantOps, ", "))
	}
	if (in.Op == OpDamage || in.Op == OpHeal || in.Op == OpSetTempHP) && (in.Amount < 1 || in.Amount > 9999) {
		return EncounterResult{}, encounterInvalid("The amount is 1 to 9999 hit points.").WithField("amount", "1 to 9999")
	}
	return s.changeEncounter(ctx, c, sessionID, func(op *encounterOp) error {
		if err := requireCurrentDM(op.sc); err != nil {
			return err
		}
		cb, err := op.combatant(in.CombatantID)
		if err != nil {
			return err
		}
		change := map[string]any{"op": in.Op, "combatant_id": cb.ID}
		op.kind, op.subject = EventEncounterChanged, seatPtr(cb)
		op.public["change"] = in.Op
		op.public["combatant_id"] = cb.ID
		switch in.Op {
		case OpDamage:
			after, res := combat.TakeDamage(cb, []combat.DamageRoll{{Type: strings.ToLower(strings.TrimSpace(in.DamageType)), Amount: in.Amount}}, false)
			if err := op.put(after); err != nil {
				return err
			}
			op.st.tally(cb.ID).DamageTaken += res.Taken
			change["result"] = res
		case OpHeal:
			after, err := combat.Heal(cb, in.Amount)
			if err != nil {
				return asEncounterError(err)
			}
			if err := op.put(after); err != nil {
				return err
			}
		case OpSetTempHP:
			cb.HP = combat.GrantTempHP(cb.HP, in.Amount)
			if err := op.put(cb); err != nil {
				return err
			}
		case OpAddCondition:
			cond := combat.Condition{Name: in.Condition}
			if in.Rounds > 0 {
				cond.Ends, cond.Rounds, cond.TimerID = cmp.Or(strings.TrimSpace(in.Ends), combat.AtEndOfTurn), in.Rounds, cmp.Or(strings.TrimSpace(in.TimerID), cb.ID)
			}
			if op.st.Fight, err = op.st.Fight.AddCondition(cb.ID, cond); err != nil {
				return asEncounterError(err)
			}
			change["condition"] = strings.ToLower(strings.TrimSpace(in.Condition))
		case OpRemoveCondition:
			if op.st.Fight, err = op.st.Fight.RemoveCondition(cb.ID, in.Condition); err != nil {
				return asEncounterError(err)
			}
			change["condition"] = strings.ToLower(strings.TrimSpace(in.Condition))
		case OpReveal, OpHide:
			if cb.SeatID != 0 {
				return encounterInvalid("A character's numbers are never hidden.").WithField("combatant_id", "an NPC")
			}
			op.st.Revealed = slices.DeleteFunc(op.st.Revealed, func(id string) bool { return id == cb.ID })
			if in.Op == OpReveal {
				op.st.Revealed = append(op.st.Revealed, cb.ID)
			}
		case OpRemove:
			var tc combat.TurnChange
			if op.st.Fight, tc, err = op.st.Fight.Remove(cb.ID); err != nil {
				return asEncounterError(err)
			}
			op.public["turn"] = tc
		}
		// Only damage's outcome (hit points before and after) can be
		// hidden; the rest of a change the encounter shows players anyway.
		if _, outcome := change["result"]; outcome && op.st.hides(cb) {
			op.secret["change"] = change
		} else {
			op.public["change_detail"] = change
		}
		return nil
	})
}

// RollDeathSave rolls a dying combatant's death save (a d20: 10 or more
// succeeds, 1 counts twice, 20 regains a hit point; three of a kind
// stabilise or kill). A player rolls for their own seat, the DM for
// anyone. Returns encounter_not_running, encounter_invalid (not dying),
// not_your_combatant, dice_* codes.
func (s *Service) RollDeathSave(ctx context.Context, c Caller, sessionID int64, in DeathSaveInput) (EncounterResult, error) {
	return s.changeEncounter(ctx, c, sessionID, func(op *encounterOp) error {
		cb, err := op.combatant(in.CombatantID)
		if err != nil {
			return err
		}
		if err := op.actAs(cb); err != nil {
			return err
		}
		after, save, err := combat.RollDeathSave(cb, facesOr(in.Faces))
		if err != nil {
			return asEncounterError(err)
		}
		if err := op.put(after); err != nil {
			return err
		}
		op.kind, op.subject = EventEncounterChanged, seatPtr(cb)
		op.public["change"], op.public["combatant_id"], op.public["death_save"] = "death_save", cb.ID, save
		return nil
	})
}

// EndEncounter ends the running fight and leaves its summary in the log:
// the rounds fought, each combatant's state and what it dealt and took
// (hidden NPCs' numbers in the DM's copy only). Only the current DM may.
// Returns not_current_dm, encounter_not_running.
func (s *Service) EndEncounter(ctx context.Context, c Caller, sessionID int64) (EncounterResult, error) {
	return s.changeEncounter(ctx, c, sessionID, func(op *encounterOp) error {
		if err := requireCurrentDM(op.sc); err != nil {
			return err
		}
		op.ended = true
		op.kind = EventEncounterEnded
		summary := func(full bool) map[string]any {
			out := []CombatantSummary{}
			for _, cb := range op.st.Fight.Combatants {
				t := *op.st.tally(cb.ID)
				cs := CombatantSummary{ID: cb.ID, Name: cb.Name, Status: cb.Status(), Hits: t.Hits, Misses: t.Misses, DamageDealt: t.DamageDealt}
				if full || !op.st.hides(cb) {
					cs.DamageTaken = &t.DamageTaken
				}
				out = append(out, cs)
			}
			return map[string]any{"rounds": op.st.Fight.Round, "combatants": out}
		}
		op.public["summary"] = summary(false)
		if op.st.anyHidden() {
			op.secret["summary"] = summary(true)
		}
		return nil
	})
}
