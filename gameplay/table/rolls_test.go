package table_test

import (
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/gameplay/table/tabletest"
	"github.com/adventure-table/adventure-table/models"
	"github.com/adventure-table/adventure-table/models/apperr"
)

func ptrInt(v int) *int { return &v }

// requestPerception asks both players for Perception with advantage at a
// hidden DC 15, and returns the request for player A (Mira) and B (Tomas).
func requestPerception(t *testing.T, lt liveTable) (a, b table.RollRequestView) {
	t.Helper()
	out, err := lt.svc.RequestCheck(ctx, lt.Owner, lt.LobbyID, table.CheckRequestInput{Skill: "perception", DC: ptrInt(15), Mode: "advantage"})
	tabletest.Must(t, err)
	if len(out.Requests) != 2 {
		t.Fatalf("got %d requests, want one per participant", len(out.Requests))
	}
	for _, r := range out.Requests {
		if r.DC == nil || *r.DC != 15 || r.DiceNeeded != 2 || r.Ability != "wis" {
			t.Fatalf("DM's view of the request %+v", r)
		}
		if r.TargetSeatID == lt.PlayerSeatID {
			a = r
		} else {
			b = r
		}
	}
	return a, b
}

func TestModifierFromCharacter(t *testing.T) {
	lt, _ := newLiveTable(t)
	// Mira: level 3 (+2), Wis 13 (+1), proficient in Perception; Dex 14
	// (+2) with expertise in Stealth.
	for _, tt := range []struct {
		skill string
		faces []int
		want  int
	}{{"perception", []int{10}, 10 + 1 + 2}, {"stealth", []int{10}, 10 + 2 + 4}, {"athletics", []int{10}, 10 + 0}} {
		out, err := lt.svc.RequestCheck(ctx, lt.Owner, lt.LobbyID, table.CheckRequestInput{SeatIDs: []int64{lt.PlayerSeatID}, Skill: tt.skill, FlatAdjustment: 0})
		tabletest.Must(t, err)
		res, err := lt.svc.ResolveRequest(ctx, lt.Seated, out.Requests[0].ID, table.RollInput{Faces: tt.faces})
		tabletest.Must(t, err)
		if res.Total != tt.want {
			t.Errorf("%s: total %d, want %d (base %d)", tt.skill, res.Total, tt.want, res.BaseModifier)
		}
	}
}

func TestPhysicalAndServerRolls(t *testing.T) {
	lt, store := newLiveTable(t)
	a, b := requestPerception(t, lt)

	_, err := lt.svc.ResolveRequest(ctx, lt.Unseated, b.ID, table.RollInput{Faces: []int{7}})
	wantCode(t, err, apperr.RollFacesMismatch)
	_, err = lt.svc.ResolveRequest(ctx, lt.Unseated, b.ID, table.RollInput{Faces: []int{7, 21}})
	wantCode(t, err, apperr.DiceFaceInvalid)
	_, err = lt.svc.ResolveRequest(ctx, lt.Unseated, b.ID, table.RollInput{Faces: []int{7, 18, 3}})
	wantCode(t, err, apperr.RollFacesMismatch)
	_, err = lt.svc.ResolveRequest(ctx, lt.Seated, b.ID, table.RollInput{Faces: []int{7, 18}})
	wantCode(t, err, apperr.NotRollTarget)

	// Tomas: Wis 13 (+1), proficient in Perception at level 3 (+2).
	res, err := lt.svc.ResolveRequest(ctx, lt.Unseated, b.ID, table.RollInput{Faces: []int{7, 18}})
	tabletest.Must(t, err)
	if res.Total != 18+3 || res.Source != "physical" || res.Success != nil || len(res.KeptDice) != 1 || res.KeptDice[0] != 18 {
		t.Fatalf("physical result %+v: want 21, kept 18, no success shown to the player", res)
	}
	audit := res.Audit
	if d := audit.Groups[0].Dice; len(d) != 2 || d[0].Value != 7 || !d[0].Dropped || d[1].Value != 18 || !d[1].Kept {
		t.Fatalf("audit %+v does not mark the dropped 7 and kept 18", res.Audit)
	}
	resA, err := lt.svc.ResolveRequest(ctx, lt.Seated, a.ID, table.RollInput{})
	tabletest.Must(t, err)
	if resA.Source != "server" || resA.Total < 1+3 || resA.Total > 20+3 {
		t.Fatalf("server roll %+v", resA)
	}
	board, err := lt.svc.Board(ctx, lt.Owner, lt.LobbyID)
	tabletest.Must(t, err)
	for _, r := range board.Requests {
		if r.Result == nil || r.Result.Success == nil {
			t.Fatalf("the DM does not see pass/fail of %+v", r)
		}
		if r.TargetSeatID == lt.FreeSeatID && !*r.Result.Success {
			t.Fatal("21 against DC 15 failed")
		}
	}
	if n, _ := store.CountResultsOfRequest(ctx, b.ID); n != 1 {
		t.Fatalf("%d results for one request", n)
	}
	_, err = lt.svc.ResolveRequest(ctx, lt.Unseated, b.ID, table.RollInput{})
	wantCode(t, err, apperr.RollRequestAlreadyResolved)
}

// TestSecretDCNeverReachesPlayers walks everything a player can read about
// a check — the roll board, every event, the resume — and finds no DC (nor
// its salt) while it is pending and, the outcome being unrevealed, no
// pass/fail after it is rolled. (Once rolled, the DC itself is revealed to
// open its commitment: TestDCCommitment.)
func TestSecretDCNeverReachesPlayers(t *testing.T) {
	lt, _ := newLiveTable(t)
	a, b := requestPerception(t, lt)
	readers := []table.Caller{lt.Seated, lt.Unseated, lt.DMKey}
	// readAll is everything reader can read of the session, as JSON.
	readAll := func(reader table.Caller) string {
		board, err := lt.svc.Board(ctx, reader, lt.LobbyID)
		tabletest.Must(t, err)
		events, err := lt.svc.ListEvents(ctx, reader, lt.LobbyID, 0, 200)
		tabletest.Must(t, err)
		resume, err := lt.svc.Resume(ctx, reader, lt.LobbyID)
		tabletest.Must(t, err)
		raw, _ := json.Marshal([]any{board, events, resume})
		return string(raw)
	}
	for _, reader := range readers {
		raw := readAll(reader)
		if strings.Contains(raw, `"dc"`) || strings.Contains(raw, `"dc_salt"`) {
			t.Fatalf("reader %d sees a pending check's DC or salt: %s", reader.UserID, raw)
		}
	}
	_, err := lt.svc.ResolveRequest(ctx, lt.Seated, a.ID, table.RollInput{Faces: []int{4, 9}})
	tabletest.Must(t, err)
	_, err = lt.svc.ResolveRequest(ctx, lt.Owner, b.ID, table.RollInput{Faces: []int{12, 2}}) // the DM rolls for B
	tabletest.Must(t, err)
	for _, reader := range readers {
		if raw := readAll(reader); strings.Contains(raw, `"success"`) {
			t.Fatalf("reader %d sees an outcome: %s", reader.UserID, raw)
		}
	}
	// The DM does see them, through the same functions.
	events, _ := lt.svc.ListEvents(ctx, lt.Owner, lt.LobbyID, 0, 200)
	raw, _ := json.Marshal(events)
	if !strings.Contains(string(raw), `"dc":15`) || !strings.Contains(string(raw), `"success":false`) {
		t.Fatalf("the DM's events lack the outcome: %s", raw)
	}
	// The DM rolled for B: audited as a proxy with both seats.
	for _, e := range events.Events {
		if e.Kind == table.EventRollResolved && e.SubjectSeatID != nil && *e.SubjectSeatID == lt.FreeSeatID {
			if e.ExecutionMode != "dm_proxy" || *e.ActingSeatID != lt.DMSeatID {
				t.Fatalf("DM roll for B recorded as %s by seat %d", e.ExecutionMode, *e.ActingSeatID)
			}
		}
	}
}

// TestConcurrentResolutions fires 50 resolutions of one request: one result
// row; every other caller gets roll_request_already_resolved or, with the
// same idempotency key, the same result.
func TestConcurrentResolutions(t *testing.T) {
	lt, store := newLiveTable(t)
	a, _ := requestPerception(t, lt)
	const n = 50
	var wg sync.WaitGroup
	results := make([]table.RollResultView, n)
	errs := make([]error, n)
	gate := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-gate
			key := ""
			if i%2 == 0 {
				key = "same-click"
			}
			results[i], errs[i] = lt.svc.ResolveRequest(ctx, lt.Seated, a.ID, table.RollInput{IdempotencyKey: key})
		}()
	}
	close(gate)
	wg.Wait()
	if c, _ := store.CountResultsOfRequest(ctx, a.ID); c != 1 {
		t.Fatalf("%d result rows, want 1", c)
	}
	var winner int64
	for i := range n {
		if errs[i] == nil {
			if winner != 0 && results[i].ID != winner {
				t.Fatalf("two different results: %d and %d", winner, results[i].ID)
			}
			winner = results[i].ID
			continue
		}
		if apperr.CodeOf(errs[i]) != apperr.RollRequestAlreadyResolved {
			t.Fatalf("caller %d: %v", i, errs[i])
		}
	}
	if winner == 0 {
		t.Fatal("nobody resolved the request")
	}
	replay, err := lt.svc.ResolveRequest(ctx, lt.Seated, a.ID, table.RollInput{IdempotencyKey: "same-click"})
	if err == nil && replay.ID != winner {
		t.Fatalf("replay returned result %d, want %d", replay.ID, winner)
	}
}

func TestPendingActionTransitions(t *testing.T) {
	lt, _ := newLiveTable(t)
	act, err := lt.svc.DeclareAction(ctx, lt.Seated, lt.LobbyID, table.ActionInput{Text: "I pick the lock"})
	tabletest.Must(t, err)
	tests := []struct {
		who  table.Caller
		to   string
		want apperr.Code
	}{
		{lt.Unseated, "cancelled", apperr.NotCurrentDM},
		{lt.Seated, "processing", apperr.NotCurrentDM},
		{lt.Owner, "resolved", apperr.PendingActionInvalidTransition},
		{lt.Owner, "processing", ""},
		{lt.Owner, "pending", apperr.PendingActionInvalidTransition},
		{lt.Owner, "bogus", apperr.PendingActionInvalidTransition},
	}
	for _, tt := range tests {
		_, err := lt.svc.TransitionAction(ctx, tt.who, act.ID, table.TransitionInput{To: tt.to})
		if tt.want == "" {
			tabletest.Must(t, err)
			continue
		}
		wantCode(t, err, tt.want)
	}
	// A check adjudicates it: waiting_for_roll, and the roll moves it on.
	out, err := lt.svc.RequestCheck(ctx, lt.Owner, lt.LobbyID, table.CheckRequestInput{SeatIDs: []int64{lt.PlayerSeatID}, Skill: "sleight_of_hand", PendingActionID: &act.ID})
	tabletest.Must(t, err)
	board, _ := lt.svc.Board(ctx, lt.Owner, lt.LobbyID)
	if board.PendingActions[0].Status != "waiting_for_roll" || *board.PendingActions[0].RollRequestID != out.Requests[0].ID {
		t.Fatalf("action %+v, want waiting for the new request", board.PendingActions[0])
	}
	_, err = lt.svc.ResolveRequest(ctx, lt.Seated, out.Requests[0].ID, table.RollInput{})
	tabletest.Must(t, err)
	board, _ = lt.svc.Board(ctx, lt.Owner, lt.LobbyID)
	if board.PendingActions[0].Status != "processing" {
		t.Fatalf("after the roll the action is %s, want processing", board.PendingActions[0].Status)
	}
	_, err = lt.svc.TransitionAction(ctx, lt.Owner, act.ID, table.TransitionInput{To: "resolved"})
	tabletest.Must(t, err)
	_, err = lt.svc.TransitionAction(ctx, lt.Owner, act.ID, table.TransitionInput{To: "cancelled"})
	wantCode(t, err, apperr.PendingActionInvalidTransition)

	// An action window collects answers until it closes.
	w, err := lt.svc.OpenActionWindow(ctx, lt.Owner, lt.LobbyID, table.WindowInput{Prompt: "What does everyone do?"})
	tabletest.Must(t, err)
	_, err = lt.svc.DeclareAction(ctx, lt.Unseated, lt.LobbyID, table.ActionInput{Text: "I hide", WindowID: &w.ID})
	tabletest.Must(t, err)
	_, err = lt.svc.CloseActionWindow(ctx, lt.Owner, w.ID)
	tabletest.Must(t, err)
	_, err = lt.svc.DeclareAction(ctx, lt.Seated, lt.LobbyID, table.ActionInput{Text: "Too late", WindowID: &w.ID})
	wantCode(t, err, apperr.ActionWindowClosed)
}

func TestTempHPArithmetic(t *testing.T) {
	tests := []struct {
		name string
		got  table.HP
		want table.HP
	}{
		{"DamageTempFirst", table.ApplyDamage(table.HP{Max: 20, Current: 20, Temp: 5}, 8), table.HP{Max: 20, Current: 17, Temp: 0}},
		{"DamageOnlyTemp", table.ApplyDamage(table.HP{Max: 20, Current: 20, Temp: 5}, 3), table.HP{Max: 20, Current: 20, Temp: 2}},
		{"DamageFloorsAtZero", table.ApplyDamage(table.HP{Max: 20, Current: 4, Temp: 0}, 30), table.HP{Max: 20, Current: 0, Temp: 0}},
		{"HealCapsAtMax", table.ApplyHealing(table.HP{Max: 20, Current: 15, Temp: 3}, 10), table.HP{Max: 20, Current: 20, Temp: 3}},
		{"HealBelowOneHealsNothing", table.ApplyHealing(table.HP{Max: 20, Current: 15, Temp: 3}, -4), table.HP{Max: 20, Current: 15, Temp: 3}},
		{"TempDoesNotStackKeepsHigher", table.ApplyTempHP(table.HP{Max: 20, Current: 20, Temp: 5}, 3), table.HP{Max: 20, Current: 20, Temp: 5}},
		{"TempReplacedByHigher", table.ApplyTempHP(table.HP{Max: 20, Current: 20, Temp: 5}, 8), table.HP{Max: 20, Current: 20, Temp: 8}},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: got %+v, want %+v", tt.name, tt.got, tt.want)
		}
	}
}

func TestCharacterStatePolicyAndAudit(t *testing.T) {
	lt, store := newLiveTable(t)
	a, b := lt.PlayerSeatID, lt.FreeSeatID
	_, err := lt.svc.ChangeCharacterState(ctx, lt.Seated, lt.LobbyID, table.StateChangeInput{SubjectSeatID: a, Op: "damage", Amount: 5})
	wantCode(t, err, apperr.CharacterStateForbidden)
	_, err = lt.svc.ChangeCharacterState(ctx, lt.Seated, lt.LobbyID, table.StateChangeInput{SubjectSeatID: b, Op: "heal", Amount: 5})
	wantCode(t, err, apperr.CharacterStateForbidden)
	_, err = lt.svc.ChangeCharacterState(ctx, lt.Owner, lt.LobbyID, table.StateChangeInput{SubjectSeatID: a, Op: "add_condition", Condition: "sleepy"})
	wantCode(t, err, apperr.CharacterStateInvalid)

	st, err := lt.svc.ChangeCharacterState(ctx, lt.Owner, lt.LobbyID, table.StateChangeInput{SubjectSeatID: a, Op: "damage", Amount: 7})
	tabletest.Must(t, err)
	if st.Before.HP.Current != 20 || st.After.HP.Current != 13 {
		t.Fatalf("damage: %+v -> %+v", st.Before.HP, st.After.HP)
	}
	_, err = lt.svc.ChangeCharacterState(ctx, lt.Seated, lt.LobbyID, table.StateChangeInput{SubjectSeatID: a, Op: "set_temp_hp", Amount: 4})
	tabletest.Must(t, err)
	_, err = lt.svc.ChangeCharacterState(ctx, lt.Seated, lt.LobbyID, table.StateChangeInput{SubjectSeatID: a, Op: "spend_resource", Resource: "ki", Amount: 2})
	tabletest.Must(t, err)
	_, err = lt.svc.ChangeCharacterState(ctx, lt.Seated, lt.LobbyID, table.StateChangeInput{SubjectSeatID: a, Op: "spend_resource", Resource: "Ki", Amount: 2})
	wantCode(t, err, apperr.CharacterStateInvalid)
	_, err = lt.svc.ChangeCharacterState(ctx, lt.Owner, lt.LobbyID, table.StateChangeInput{SubjectSeatID: a, Op: "add_condition", Condition: "poisoned"})
	tabletest.Must(t, err)
	ch, _ := store.FindCharacterByID(ctx, lt.CharacterID)
	if ch.HPCurrent != 13 || ch.HPTemp != 4 || ch.Resources[0].Current != 1 || len(ch.Conditions) != 1 || ch.Conditions[0] != "poisoned" {
		t.Fatalf("character after changes: hp %d temp %d res %+v cond %v", ch.HPCurrent, ch.HPTemp, ch.Resources, ch.Conditions)
	}
	page, _ := lt.svc.ListEvents(ctx, lt.Unseated, lt.LobbyID, 0, 200)
	var proxied bool
	for _, e := range page.Events {
		if e.Kind == table.EventCharacterChanged && strings.Contains(string(e.Payload), `"op":"damage"`) {
			proxied = e.ExecutionMode == "dm_proxy" && *e.ActingSeatID == lt.DMSeatID && *e.SubjectSeatID == a && *e.SubjectCharacterID == lt.CharacterID
		}
	}
	if !proxied {
		t.Fatal("the DM's damage is not audited with acting DM and subject seat")
	}
	// The whole-sheet editor cannot overwrite live state during the session.
	_, err = lt.svc.UpdateCharacter(ctx, lt.Seated, lt.CharacterID, tabletest.Character("Mira"))
	wantCode(t, err, apperr.CharacterInSession)
}

func TestQuickRollAndDMSlashCheck(t *testing.T) {
	lt, _ := newLiveTable(t)
	_, err := lt.svc.QuickRoll(ctx, lt.Seated, lt.LobbyID, table.QuickRollInput{Formula: "2d6 +"})
	wantCode(t, err, apperr.DiceInvalidExpression)
	r, err := lt.svc.QuickRoll(ctx, lt.Seated, lt.LobbyID, table.QuickRollInput{Formula: "4d6dl1"})
	tabletest.Must(t, err)
	if r.Source != "quick" || r.RollRequestID != nil || r.Total < 3 || r.Total > 18 {
		t.Fatalf("quick roll %+v", r)
	}
	_, err = lt.svc.QuickRoll(ctx, lt.DMKey, lt.LobbyID, table.QuickRollInput{Formula: "1d20"})
	if apperr.CodeOf(err) != apperr.MessageKindNotAllowed {
		t.Fatalf("a spectator rolled: %v", err)
	}
	_, err = lt.svc.QuickRoll(ctx, lt.Owner, lt.LobbyID, table.QuickRollInput{Formula: "1d20"})
	tabletest.Must(t, err)

	// The DM's /check opens formal requests for everyone; a player's only
	// records an intent.
	_, err = lt.svc.PostInput(ctx, lt.Seated, lt.LobbyID, table.InputLine{Text: "/check perception"})
	tabletest.Must(t, err)
	board, _ := lt.svc.Board(ctx, lt.Owner, lt.LobbyID)
	if len(board.Requests) != 0 {
		t.Fatalf("a player's /check created %d requests", len(board.Requests))
	}
	_, err = lt.svc.PostInput(ctx, lt.Owner, lt.LobbyID, table.InputLine{Text: "/check stealth 12"})
	tabletest.Must(t, err)
	board, _ = lt.svc.Board(ctx, lt.Owner, lt.LobbyID)
	if len(board.Requests) != 2 || *board.Requests[0].DC != 12 || board.Requests[0].Skill != "stealth" {
		t.Fatalf("the DM's /check made %+v", board.Requests)
	}
	playerBoard, _ := lt.svc.Board(ctx, lt.Seated, lt.LobbyID)
	raw, _ := json.Marshal(playerBoard)
	if strings.Contains(string(raw), `"dc"`) {
		t.Fatal("the player's board carries the DC")
	}
	_ = errors.New
	_ = models.RollPending
}

// TestCheckTargetsDeduplicated: a seat named many times is asked once, and
// a list longer than any table is refused before anything is written.
func TestCheckTargetsDeduplicated(t *testing.T) {
	lt, _ := newLiveTable(t)
	seats := make([]int64, 5000)
	for i := range seats {
		seats[i] = lt.PlayerSeatID
	}
	out, err := lt.svc.RequestCheck(ctx, lt.Owner, lt.LobbyID, table.CheckRequestInput{SeatIDs: seats, Skill: "perception"})
	tabletest.Must(t, err)
	if len(out.Requests) != 1 {
		t.Fatalf("one seat named 5000 times made %d requests", len(out.Requests))
	}
	many := make([]int64, table.MaxCheckSeats+1)
	for i := range many {
		many[i] = int64(i + 1)
	}
	_, err = lt.svc.RequestCheck(ctx, lt.Owner, lt.LobbyID, table.CheckRequestInput{SeatIDs: many, Skill: "perception"})
	wantCode(t, err, apperr.CheckInvalid)
}

// The label the DM gives a check ("Spot the ambush") is what its card
// reads on everyone's board; without one, the card names the check.
func TestCheckLabelReachesTheBoard(t *testing.T) {
	lt, _ := newLiveTable(t)
	_, err := lt.svc.RequestCheck(ctx, lt.Owner, lt.LobbyID, table.CheckRequestInput{SeatIDs: []int64{lt.PlayerSeatID}, Skill: "perception", Label: "Spot the ambush"})
	tabletest.Must(t, err)
	_, err = lt.svc.RequestCheck(ctx, lt.Owner, lt.LobbyID, table.CheckRequestInput{SeatIDs: []int64{lt.PlayerSeatID}, Skill: "stealth"})
	tabletest.Must(t, err)
	for _, who := range []table.Caller{lt.Owner, lt.Seated} {
		b, err := lt.svc.Board(ctx, who, lt.LobbyID)
		tabletest.Must(t, err)
		labels := map[string]string{}
		for _, r := range b.Requests {
			labels[r.Skill] = r.Label
		}
		if labels["perception"] != "Spot the ambush" || labels["stealth"] != "stealth" {
			t.Errorf("board labels %v, want the DM's label for perception and the check's name for stealth", labels)
		}
	}
}
