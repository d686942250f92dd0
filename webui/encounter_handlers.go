package webui

import (
	"net/http"
	"slices"

	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// encounterRoutes mounts the fight of a session: its view, start, the
// initiative, turns, attacks, the DM's changes, death saves and the end.
// Each route is one gameplay call; the MCP tools call the same ones.
func (s *Server) encounterRoutes() {
	t := s.opts.Services.Table
	codes := func(extra ...apperr.Code) []apperr.Code {
		return append([]apperr.Code{apperr.NotFound, apperr.RoomAccessRevoked, apperr.SessionNotActive}, extra...)
	}
	result := typeOf[table.EncounterResult]()
	// Clipped: each route appends its own codes to a copy, never into a
	// shared backing array another route's list already uses.
	running := slices.Clip(codes(apperr.EncounterNotRunning, apperr.EncounterInvalid))
	faces := []apperr.Code{apperr.DiceFaceInvalid, apperr.DiceFacesMissing}
	path := "/api/sessions/{id}/encounter"

	s.route(apiRoute{Method: "GET", Path: path, Tag: "combat", Summary: "The running fight as the caller may see it (an NPC's AC and HP for the DM only, unless revealed); null when none", Response: typeOf[table.EncounterNow](),
		Errors: []apperr.Code{apperr.NotFound, apperr.RoomAccessRevoked}},
		withID("id", http.StatusOK, t.GetEncounter), s.identify)
	s.route(apiRoute{Method: "POST", Path: path, Tag: "combat", Summary: "Start a fight with participant seats and named NPCs (current DM)", Status: http.StatusCreated, Request: typeOf[table.StartEncounterInput](), Response: result,
		Errors: codes(apperr.NotCurrentDM, apperr.EncounterAlreadyRunning, apperr.EncounterInvalid, apperr.ProxyTargetInvalid)},
		withIDAndBody("id", http.StatusCreated, t.StartEncounter), s.identify)
	s.route(apiRoute{Method: "POST", Path: path + "/combatants", Tag: "combat", Summary: "Add a participant seat or an NPC to the running fight (current DM)", Request: typeOf[table.AddCombatantInput](), Response: result,
		Errors: append(running, apperr.NotCurrentDM, apperr.ProxyTargetInvalid)},
		withIDAndBody("id", http.StatusOK, t.AddCombatant), s.identify)
	s.route(apiRoute{Method: "POST", Path: path + "/initiative", Tag: "combat", Summary: "Roll a combatant's initiative before the fight begins: server dice, or the physical d20 entered (a player for their own seat)", Request: typeOf[table.InitiativeInput](), Response: result,
		Errors: append(append(running, apperr.NotYourCombatant, apperr.Conflict), faces...)},
		withIDAndBody("id", http.StatusOK, t.RollEncounterInitiative), s.identify)
	s.route(apiRoute{Method: "POST", Path: path + "/advance", Tag: "combat", Summary: "Begin the fight in initiative order, or end the current turn and begin the next (the DM, or the player whose turn it is)", Response: result,
		Errors: append(running, apperr.NotYourTurn)},
		withID("id", http.StatusOK, t.AdvanceEncounter), s.identify)
	s.route(apiRoute{Method: "POST", Path: path + "/attack", Tag: "combat", Summary: "Attack roll against the target's AC (hidden from players for an NPC); on a hit, damage dealt (a player with their own seat)", Request: typeOf[table.AttackInput](), Response: result,
		Errors: append(append(running, apperr.NotYourCombatant, apperr.Conflict, apperr.DiceInvalidExpression, apperr.DiceExpressionTooLong, apperr.DiceTooManyDice, apperr.DiceTooManySides), faces...)},
		withIDAndBody("id", http.StatusOK, t.Attack), s.identify)
	s.route(apiRoute{Method: "POST", Path: path + "/change", Tag: "combat", Summary: "Damage, heal, temporary HP, a timed condition, reveal or hide an NPC's numbers, or remove a combatant (current DM)", Request: typeOf[table.CombatantChangeInput](), Response: result,
		Errors: append(running, apperr.NotCurrentDM)},
		withIDAndBody("id", http.StatusOK, t.ChangeCombatant), s.identify)
	s.route(apiRoute{Method: "POST", Path: path + "/death-save", Tag: "combat", Summary: "Roll a dying combatant's death save (a player for their own seat)", Request: typeOf[table.DeathSaveInput](), Response: result,
		Errors: append(append(running, apperr.NotYourCombatant), faces...)},
		withIDAndBody("id", http.StatusOK, t.RollDeathSave), s.identify)
	s.route(apiRoute{Method: "POST", Path: path + "/end", Tag: "combat", Summary: "End the fight; its summary goes into the log (current DM)", Response: result,
		Errors: append(running, apperr.NotCurrentDM)},
		withID("id", http.StatusOK, t.EndEncounter), s.identify)
}
