package table

import (
	"encoding/json"
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"
)

// EventPayload is an event's versioned JSON object, stored and sent as
// written. Its fields depend on the event kind; WireSchemas names them.
type EventPayload json.RawMessage

// MarshalJSON sends the stored object as it is ("{}" when empty).
func (p EventPayload) MarshalJSON() ([]byte, error) {
	if len(p) == 0 {
		return []byte(`{"version":1}`), nil
	}
	return p, nil
}

// UnmarshalJSON keeps the object as raw bytes.
func (p *EventPayload) UnmarshalJSON(b []byte) error {
	*p = append((*p)[:0], b...)
	return nil
}

// WireSchemas are the JSON Schemas of the types the schema generator cannot
// see into. Every edge that publishes a schema (the OpenAPI document, the
// MCP tool list) passes them to jsonschema.For, so both say the same thing.
func WireSchemas() map[reflect.Type]*jsonschema.Schema {
	integer := func(d string) *jsonschema.Schema { return &jsonschema.Schema{Type: "integer", Description: d} }
	str := func(d string) *jsonschema.Schema { return &jsonschema.Schema{Type: "string", Description: d} }
	obj := func(d string) *jsonschema.Schema { return &jsonschema.Schema{Type: "object", Description: d} }
	return map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[EventPayload](): {
			Type:        "object",
			Description: "the event's data; which fields it has depends on the kind",
			Required:    []string{"version"},
			Properties: map[string]*jsonschema.Schema{
				"version":     integer("payload format version"),
				"message_id":  integer("message.posted, message.edited, message.deleted"),
				"kind":        str("message.posted: the message kind"),
				"speaker":     str("message.posted: the NPC speaking, for NPC speech"),
				"intent":      str("message.posted: search or check"),
				"check":       str("message.posted: the skill or ability of a check intent; roll.quick: the skill or ability rolled"),
				"attack_name": str("roll.quick of an attack: the name of the sheet's attack rolled"),
				"attack_roll": str("roll.quick of an attack: to_hit or damage"),
				"damage_type": str("roll.quick of an attack's damage: the damage type"),
				"text":        str("message.posted, message.edited and stage.updated: the text"),
				"text_code":   str("message.posted: check.everyone (text_params.check) for a line the server wrote (the DM's /check); text is its English"),
				"text_params": {Type: "object", AdditionalProperties: &jsonschema.Schema{Type: "string"},
					Description: "message.posted: the parameters of text_code"},
				"recipient_seat_ids": {Type: "array", Items: &jsonschema.Schema{Type: "integer"}},
				"rolls": {Type: "array", Items: &jsonschema.Schema{Type: "object"},
					Description: "message.posted: the inline [[...]] rolls, in the text's order (roll results)"},
				"roll_result_ids": {Type: "array", Items: &jsonschema.Schema{Type: "integer"},
					Description: "message.edited: the message's inline rolls, as first rolled (an edit never rolls again)"},
				"deleted":            {Type: "boolean", Description: "message.posted and message.edited, once the message was deleted (text is then empty)"},
				"edited_at":          str("message.edited: when"),
				"edited_by_seat_id":  integer("message.edited: the seat that edited"),
				"deleted_at":         str("message.deleted: when"),
				"deleted_by_seat_id": integer("message.deleted: the seat that deleted (a tombstone)"),
				"seat_id":            integer("the seat concerned"),
				"character_id":       {Types: []string{"null", "integer"}},
				"controller_kind":    str("controller.changed: none, human or ai"),
				"participant_seat_ids": {Type: "array", Items: &jsonschema.Schema{Type: "integer"},
					Description: "session.started"},
				"late":          {Type: "boolean"},
				"request_id":    integer("roll.*: the check request"),
				"group_id":      integer("roll.requested"),
				"label":         str("roll.requested"),
				"result_id":     integer("roll.outcome"),
				"result":        obj("roll.resolved and roll.quick: the roll as the reader may see it"),
				"dc":            integer("roll.outcome: the DC (DM only); roll.revealed: the committed DC, revealed"),
				"dc_salt":       str("roll.revealed: the salt of the DC's commitment (hex)"),
				"dc_commitment": str("roll.requested and roll.revealed: hex SHA-256 of 'adventure-table-dc-v1:<dc>:<dc_salt>' (a secret DC's commitment)"),
				"success":       {Type: "boolean"},
				"action":        obj("action.*: the pending action"),
				"window":        obj("window.*: the action window"),
				"revision":      integer("stage.updated"),
				"image_id":      {Types: []string{"null", "integer"}},
				"image_url":     {Types: []string{"null", "string"}},
				"reason":        str("why"),
				// roll.requested (never the DC: the event reaches players).
				"request_type":    str("roll.requested: ability, skill or save"),
				"ability":         str("roll.requested"),
				"skill":           str("roll.requested"),
				"mode":            str("roll.requested: normal, advantage or disadvantage"),
				"flat_adjustment": integer("roll.requested"),
				"reveal_outcome":  {Type: "boolean"},
				// character.changed: the state before and after.
				"op":     str("character.changed: the operation"),
				"before": obj("character.changed: the state before"),
				"after":  obj("character.changed: the state after"),
				// encounter.*: the fight as the reader may see it and the change.
				"encounter_id":  integer("encounter.*"),
				"encounter":     obj("encounter.*: the fight after the change, as the reader may see it (EncounterView)"),
				"change":        str("encounter.changed: initiative, joined, death_save or the DM's change (damage, heal, set_temp_hp, add_condition, remove_condition, reveal, hide, remove)"),
				"change_detail": obj("encounter.changed: the DM's change and its outcome, when nothing of it is hidden"),
				"combatant_id":  str("encounter.*: the combatant concerned (for encounter.turn: whose turn begins)"),
				"initiative":    obj("encounter.changed (initiative): the roll"),
				"turn":          obj("encounter.turn: the round, whose turn, conditions that expired, whether a death save is due"),
				"attack":        obj("encounter.attack: attacker, target, the d20 roll, hit, critical, the damage and, unless the target is hidden, its AC and outcome; encounter.secret: a hidden target's AC and outcome"),
				"death_save":    obj("encounter.changed (death_save): the roll and the saves after"),
				"summary":       obj("encounter.ended: rounds and each combatant's status, hits, misses, damage dealt and taken (taken absent for a hidden NPC: the DM's encounter.secret has it)"),
				"of":            str("encounter.secret: the kind of the public event it completes"),
				"of_seq":        integer("encounter.secret: the seq of the public event it completes"),
				"hidden": {Type: "array", Items: &jsonschema.Schema{Type: "object"},
					Description: "encounter.secret: the hidden NPCs whose numbers the change set or changed, as the DM sees them (CombatantView)"},
			},
		},
	}
}
