package table_test

import (
	"encoding/json"
	"testing"

	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/gameplay/table/tabletest"
	"github.com/adventure-table/adventure-table/models"
	"github.com/adventure-table/adventure-table/models/apperr"
	"github.com/adventure-table/adventure-table/models/modelstest"
)

// TestUnstorableTextRefused posts a NUL character, then invalid UTF-8, into
// every free-text field of the table's services: each is refused with its
// validator's code and fields[<json name>], on SQLite as on PostgreSQL
// (which cannot store either), and nothing is stored.
func TestUnstorableTextRefused(t *testing.T) {
	lt, _ := newLiveTable(t)
	svc := lt.svc
	character := func(edit func(in *table.CharacterInput, s string)) func(string) error {
		return func(s string) error {
			in := tabletest.Character("Vex")
			edit(&in, s)
			_, err := svc.CreateCharacter(ctx, lt.Seated, in)
			return err
		}
	}
	post := func(c table.Caller, in table.MessageInput, edit func(in *table.MessageInput, s string)) func(string) error {
		return func(s string) error {
			edit(&in, s)
			_, err := svc.PostMessage(ctx, c, lt.LobbyID, in)
			return err
		}
	}
	input := func(edit func(in *table.InputLine, s string)) func(string) error {
		return func(s string) error {
			in := table.InputLine{Text: "hello"}
			edit(&in, s)
			_, err := svc.PostInput(ctx, lt.Owner, lt.LobbyID, in)
			return err
		}
	}
	say := table.MessageInput{Kind: models.MessageDialogue, Text: "hello"}
	narrate := table.MessageInput{Kind: models.MessageNarration, Text: "The wind rises."}
	tests := []struct {
		name, field string
		code        apperr.Code
		call        func(s string) error
	}{
		{"RenameMe", "display_name", apperr.DisplayNameInvalid, func(s string) error { _, err := svc.RenameMe(ctx, lt.Owner, s); return err }},
		{"CreateRoom", "name", apperr.RoomNameInvalid, func(s string) error { _, err := svc.CreateRoom(ctx, lt.Owner, s); return err }},
		{"UpdateRoom", "name", apperr.RoomNameInvalid, func(s string) error {
			_, err := svc.UpdateRoom(ctx, lt.Owner, lt.RoomID, table.RoomChange{Name: &s})
			return err
		}},
		{"JoinRoom", "invite_code", apperr.InviteCodeInvalid, func(s string) error { _, err := svc.JoinRoom(ctx, lt.Stranger, s); return err }},
		{"CreateCampaign", "name", apperr.CampaignNameInvalid, func(s string) error {
			_, err := svc.CreateCampaign(ctx, lt.Owner, lt.RoomID, s)
			return err
		}},
		{"UpdateCampaign", "name", apperr.CampaignNameInvalid, func(s string) error {
			_, err := svc.UpdateCampaign(ctx, lt.Owner, lt.CampaignID, table.CampaignChange{Name: &s})
			return err
		}},
		{"AddSeat", "label", apperr.SeatLabelInvalid, func(s string) error { _, err := svc.AddSeat(ctx, lt.Owner, lt.CampaignID, s); return err }},
		{"CharacterName", "name", apperr.CharacterInvalid, character(func(in *table.CharacterInput, s string) { in.Name = s })},
		{"CharacterBiography", "biography", apperr.CharacterInvalid, character(func(in *table.CharacterInput, s string) { in.Biography = s })},
		{"CharacterGuidance", "roleplay_guidance", apperr.CharacterInvalid, character(func(in *table.CharacterInput, s string) { in.RoleplayGuidance = s })},
		{"CharacterClass", "class", apperr.CharacterInvalid, character(func(in *table.CharacterInput, s string) { in.Class = s })},
		{"CharacterSpecies", "species", apperr.CharacterInvalid, character(func(in *table.CharacterInput, s string) { in.Species = s })},
		{"CharacterBackground", "background", apperr.CharacterInvalid, character(func(in *table.CharacterInput, s string) { in.Background = s })},
		{"CharacterResource", "resources.0.name", apperr.CharacterInvalid, character(func(in *table.CharacterInput, s string) { in.Resources[0].Name = s })},
		{"UpdateCharacter", "biography", apperr.CharacterInvalid, func(s string) error {
			in := tabletest.Character("Mira")
			in.Biography = s
			_, err := svc.UpdateCharacter(ctx, lt.Seated, lt.CharacterID, in)
			return err
		}},
		{"MessageText", "text", apperr.MessageTextInvalid, post(lt.Seated, say, func(in *table.MessageInput, s string) { in.Text = s })},
		{"MessageSpeaker", "speaker", apperr.InvalidRequest, post(lt.Owner, narrate, func(in *table.MessageInput, s string) { in.Speaker = s })},
		{"MessageKey", "idempotency_key", apperr.InvalidRequest, post(lt.Seated, say, func(in *table.MessageInput, s string) { in.IdempotencyKey = s })},
		{"InputText", "text", apperr.MessageTextInvalid, input(func(in *table.InputLine, s string) { in.Text = s })},
		{"InputCheck", "text", apperr.MessageTextInvalid, input(func(in *table.InputLine, s string) { in.Text = "/check perception 12 " + s })},
		{"InputKey", "idempotency_key", apperr.InvalidRequest, input(func(in *table.InputLine, s string) { in.IdempotencyKey = s })},
		{"StageText", "text", apperr.InvalidRequest, func(s string) error {
			_, err := svc.SetStage(ctx, lt.Owner, lt.LobbyID, table.StageInput{Text: s})
			return err
		}},
		{"CheckLabel", "label", apperr.CheckInvalid, func(s string) error {
			_, err := svc.RequestCheck(ctx, lt.Owner, lt.LobbyID, table.CheckRequestInput{Skill: "perception", Label: s})
			return err
		}},
		{"RollKey", "idempotency_key", apperr.InvalidRequest, func(s string) error {
			_, err := svc.ResolveRequest(ctx, lt.Seated, 1, table.RollInput{IdempotencyKey: s})
			return err
		}},
		{"QuickRollKey", "idempotency_key", apperr.InvalidRequest, func(s string) error {
			_, err := svc.QuickRoll(ctx, lt.Seated, lt.LobbyID, table.QuickRollInput{Formula: "1d20", IdempotencyKey: s})
			return err
		}},
		{"ActionText", "text", apperr.MessageTextInvalid, func(s string) error {
			_, err := svc.DeclareAction(ctx, lt.Seated, lt.LobbyID, table.ActionInput{Text: s})
			return err
		}},
		{"WindowPrompt", "prompt", apperr.MessageTextInvalid, func(s string) error {
			_, err := svc.OpenActionWindow(ctx, lt.Owner, lt.LobbyID, table.WindowInput{Prompt: s})
			return err
		}},
		{"HandoffInstruction", "temporary_instruction", apperr.MessageTextInvalid, func(s string) error {
			_, err := svc.LetAIControl(ctx, lt.Seated, lt.PlayerSeatID, table.HandoffInput{TemporaryInstruction: s})
			return err
		}},
	}
	// Everything a refused call could have written shows in one of these.
	snapshot := func() string {
		var out []any
		for _, read := range []func() (any, error){
			func() (any, error) { return svc.ListRooms(ctx, lt.Owner) },
			func() (any, error) { return svc.ListRooms(ctx, lt.Stranger) },
			func() (any, error) { return svc.GetRoom(ctx, lt.Owner, lt.RoomID) },
			func() (any, error) { return svc.ListCharacters(ctx, lt.Seated) },
			func() (any, error) { return svc.ListEvents(ctx, lt.Owner, lt.LobbyID, 0, table.MaxEventLimit) },
			func() (any, error) { return svc.ListEvents(ctx, lt.Seated, lt.LobbyID, 0, table.MaxEventLimit) },
		} {
			v, err := read()
			tabletest.Must(t, err)
			out = append(out, v)
		}
		b, _ := json.MarshalIndent(out, "", " ")
		return string(b)
	}
	refusals := make([]modelstest.TextRefusal, len(tests))
	for i, tt := range tests {
		refusals[i] = modelstest.TextRefusal{Name: tt.name, Field: tt.field, Code: tt.code, Call: tt.call}
	}
	modelstest.CheckRefusesUnstorableText(t, refusals, snapshot)
}
