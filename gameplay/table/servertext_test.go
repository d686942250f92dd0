package table_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/gameplay/table/tabletest"
	"github.com/adventure-table/adventure-table/models"
)

// A guest's server-made name travels with its code and number wherever
// people are shown (the user, the member list, the seat's controller),
// and the DM seat's default label with seat.dm; a chosen name has no code.
func TestServerMadeNamesCarryCodes(t *testing.T) {
	svc, _ := newService(t)
	u, created, err := svc.EnsureGuest(ctx, 0)
	tabletest.Must(t, err)
	number, ok := strings.CutPrefix(u.DisplayName, "Guest ")
	if !created || !ok || len(number) != 4 {
		t.Fatalf("new guest %+v (created %v), want the name Guest NNNN", u, created)
	}
	wantParams := map[string]string{"number": number}
	if u.NameCode != "user.guest" || !cmp.Equal(u.NameParams, wantParams) {
		t.Fatalf("guest name code %q params %v, want user.guest %v", u.NameCode, u.NameParams, wantParams)
	}
	again, _, err := svc.EnsureGuest(ctx, u.ID)
	tabletest.Must(t, err)
	if diff := cmp.Diff(u, again); diff != "" {
		t.Errorf("returning guest (-first +again):\n%s", diff)
	}

	guest := table.Human(u.ID)
	room, err := svc.CreateRoom(ctx, guest, "Den")
	tabletest.Must(t, err)
	if m := room.Members[0]; m.NameCode != "user.guest" || !cmp.Equal(m.NameParams, wantParams) {
		t.Errorf("member %+v, want user.guest %v", m, wantParams)
	}
	room, err = svc.CreateCampaign(ctx, guest, room.ID, "Lost Mine")
	tabletest.Must(t, err)
	dm := room.Campaigns[0].Seats[0]
	if dm.Label != "DM" || dm.LabelCode != "seat.dm" {
		t.Errorf("DM seat label %q code %q, want DM seat.dm", dm.Label, dm.LabelCode)
	}
	room, err = svc.AssignSeat(ctx, guest, dm.ID, room.MyAccess.ID)
	tabletest.Must(t, err)
	dm = room.Campaigns[0].Seats[0]
	if dm.ControllerNameCode != "user.guest" || !cmp.Equal(dm.ControllerNameParams, wantParams) {
		t.Errorf("DM seat controller code %q params %v, want user.guest %v", dm.ControllerNameCode, dm.ControllerNameParams, wantParams)
	}
	room, err = svc.AddSeat(ctx, guest, room.Campaigns[0].ID, "DM")
	tabletest.Must(t, err)
	if p := room.Campaigns[0].Seats[1]; p.Role != "player" || p.LabelCode != "" {
		t.Errorf("player seat labelled DM: %+v, want no label code", p)
	}

	renamed, err := svc.RenameMe(ctx, guest, "Ann")
	tabletest.Must(t, err)
	if renamed.NameCode != "" || renamed.NameParams != nil {
		t.Errorf("renamed %+v, want no name code", renamed)
	}
	room, err = svc.GetRoom(ctx, guest, room.ID)
	tabletest.Must(t, err)
	if m, s := room.Members[0], room.Campaigns[0].Seats[0]; m.NameCode != "" || s.ControllerNameCode != "" || s.ControllerNameParams != nil {
		t.Errorf("after renaming: member %+v, DM seat %+v, want no name codes", m, s)
	}
	// A chosen name that only looks like a guest's is one too.
	for _, name := range []string{"Guest 12", "Guest 12345", "guest 0421", "Guest 0421 the Bold"} {
		if v, err := svc.RenameMe(ctx, guest, name); err != nil || v.NameCode != "" {
			t.Errorf("RenameMe(%q) = %+v, %v; want no name code", name, v, err)
		}
	}
}

// The DM's /check announces the check in a narration line whose
// message.posted payload carries check.everyone with the check, so each
// reader sees it in their language; the English text stays as fallback.
// A retry with the same key replays the same event.
func TestCheckAnnouncementCarriesCode(t *testing.T) {
	lt, _ := newLiveTable(t)
	in := table.InputLine{Text: "/check perception 12", IdempotencyKey: "check-1"}
	first, err := lt.svc.PostInput(ctx, lt.Owner, lt.LobbyID, in)
	tabletest.Must(t, err)
	var p struct {
		Kind       string            `json:"kind"`
		Text       string            `json:"text"`
		TextCode   string            `json:"text_code"`
		TextParams map[string]string `json:"text_params"`
	}
	b, err := json.Marshal(first.Event.Payload)
	tabletest.Must(t, err)
	tabletest.Must(t, json.Unmarshal(b, &p))
	want := struct {
		Kind       string            `json:"kind"`
		Text       string            `json:"text"`
		TextCode   string            `json:"text_code"`
		TextParams map[string]string `json:"text_params"`
	}{"narration", "Everyone: roll perception.", "check.everyone", map[string]string{"check": "perception"}}
	if diff := cmp.Diff(want, p); diff != "" {
		t.Errorf("/check payload (-want +got):\n%s", diff)
	}
	again, err := lt.svc.PostInput(ctx, lt.Owner, lt.LobbyID, in)
	tabletest.Must(t, err)
	if again.Event.Seq != first.Event.Seq || again.MessageID != first.MessageID {
		t.Errorf("retry posted %+v, want the first post %+v", again, first)
	}

	// A line a person typed has no code, even the same words.
	typed, err := lt.svc.PostMessage(ctx, lt.Owner, lt.LobbyID, table.MessageInput{Kind: models.MessageNarration, Text: "Everyone: roll perception."})
	tabletest.Must(t, err)
	if s := string(mustJSON(t, typed.Event.Payload)); strings.Contains(s, "text_code") {
		t.Errorf("typed narration payload %s, want no text_code", s)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	tabletest.Must(t, err)
	return b
}
