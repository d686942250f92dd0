package table_test

import (
	"context"
	"strings"
	"testing"

	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/gameplay/table/tabletest"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// TestThreeSessionsRemember plays three sessions without a model (memories
// are extracted from their events): the innkeeper named in session 1 is in
// session 2's drafted recap, recalled in session 3 and in its detailed
// recap; a whisper from
// the DM to one player is remembered for that player and the DM only, never
// for the other player (recall, the memory list, the recap); the recap the
// DM edits is the text posted, and a second post is refused.
func TestThreeSessionsRemember(t *testing.T) {
	ctx := context.Background()
	svc, _ := newService(t)
	f := tabletest.New(t, svc)
	must := func(err error) { t.Helper(); tabletest.Must(t, err) }
	// a second player: Unseated sits in the free seat with their character
	_, err := svc.ClaimSeat(ctx, f.Unseated, f.FreeSeatID)
	must(err)
	_, err = svc.SetSeatCharacter(ctx, f.Unseated, f.FreeSeatID, &f.UnseatedCharacterID)
	must(err)

	const innkeeper = "The innkeeper Bertha Stonebrew pours two ales and speaks of a drowned lantern."
	const whisper = "WHISPER-SENTINEL-51: the lantern hides a key."
	say := func(c table.Caller, session int64, in table.MessageInput) {
		t.Helper()
		_, err := svc.PostMessage(ctx, c, session, in)
		must(err)
	}
	drain := func() {
		t.Helper()
		if _, err := svc.DrainCampaignMemoryJobs(ctx); err != nil {
			t.Fatal(err)
		}
	}
	nextSession := func() int64 {
		t.Helper()
		lobby, err := svc.OpenSession(ctx, f.Owner, f.CampaignID)
		must(err)
		r, err := svc.StartSession(ctx, f.Owner, lobby.Session.ID)
		must(err)
		if r.Recap.Status != "drafting" {
			t.Fatalf("a session after another starts with its recap drafting: %q", r.Recap.Status)
		}
		return lobby.Session.ID
	}

	// --- session 1: the innkeeper in public, a whisper to the seated player
	_, err = svc.StartSession(ctx, f.Owner, f.LobbyID)
	must(err)
	one := f.LobbyID
	say(f.Owner, one, table.MessageInput{Kind: "narration", Text: innkeeper})
	say(f.Owner, one, table.MessageInput{Kind: "whisper_dm", Text: whisper, ToSeatID: &f.PlayerSeatID})
	say(f.Seated, one, table.MessageInput{Kind: "character_dialogue", Text: "I raise my mug to Bertha."})
	_, err = svc.EndSession(ctx, f.Owner, one)
	must(err)

	// --- session 2: the drafted recap recalls the innkeeper; the DM edits and posts it
	two := nextSession()
	drain()
	dm, err := svc.Resume(ctx, f.Owner, two)
	must(err)
	if dm.Recap.Status != "draft" || !strings.Contains(dm.Recap.Text, "Bertha Stonebrew") {
		t.Fatalf("the DM's draft recalls the innkeeper: %+v", dm.Recap)
	}
	if strings.Contains(dm.Recap.Text, "WHISPER-SENTINEL") {
		t.Fatalf("a recap is posted to everyone: it holds no whisper: %q", dm.Recap.Text)
	}
	for _, c := range []table.Caller{f.Seated, f.Unseated} {
		r, err := svc.Resume(ctx, c, two)
		must(err)
		if r.Recap.Text != "" {
			t.Fatalf("a player reads no draft: %+v", r.Recap)
		}
	}
	edited := "Last time, Bertha Stonebrew spoke of a drowned lantern. EDITED-RECAP"
	_, err = svc.PostRecap(ctx, f.Owner, two, &edited)
	must(err)
	page, err := svc.ListEvents(ctx, f.Unseated, two, 0, 50)
	must(err)
	if last := page.Events[len(page.Events)-1]; last.Kind != table.EventRecapPosted || !strings.Contains(string(last.Payload), "EDITED-RECAP") {
		t.Fatalf("the players read the DM's edit: %+v", last)
	}
	_, err = svc.PostRecap(ctx, f.Owner, two, nil)
	wantCode(t, err, apperr.RecapNotOpen)
	_, err = svc.EndSession(ctx, f.Owner, two)
	must(err)

	// --- session 3, with a detailed recap (the last few sessions): the
	// innkeeper is recalled; the whisper only for its parties
	detailed := "detailed"
	_, err = svc.UpdateCampaign(ctx, f.Owner, f.CampaignID, table.CampaignChange{RecapStyle: &detailed})
	must(err)
	three := nextSession()
	drain()
	texts := func(ms []table.CampaignMemoryView) string {
		var b strings.Builder
		for _, m := range ms {
			b.WriteString(m.Text + "\n")
		}
		return b.String()
	}
	recalled, err := svc.RecallMemories(ctx, f.Unseated, three, "Where is the innkeeper Bertha and her lantern?", 5)
	must(err)
	if !strings.Contains(texts(recalled), "Bertha") {
		t.Fatalf("session 3 recalls the innkeeper of session 1: %q", texts(recalled))
	}
	relevant := 0
	for _, m := range recalled {
		if strings.Contains(m.Text, "Bertha") || strings.Contains(m.Text, "lantern") {
			relevant++
		}
	}
	for _, who := range []struct {
		name  string
		c     table.Caller
		knows bool
	}{{"the DM", f.Owner, true}, {"the whispered player", f.Seated, true}, {"the other player", f.Unseated, false}} {
		list, err := svc.CampaignMemories(ctx, who.c, f.CampaignID)
		must(err)
		got, err := svc.RecallMemories(ctx, who.c, three, "the key the lantern hides", 10)
		must(err)
		all := texts(list.Memories) + texts(got)
		if strings.Contains(all, "WHISPER-SENTINEL") != who.knows {
			t.Errorf("%s knows the whisper = %v, want %v: %q", who.name, !who.knows, who.knows, all)
		}
		if who.name == "the DM" {
			t.Logf("memories after three sessions: %d (the DM's list); recall precision for the innkeeper: %d of %d", len(list.Memories), relevant, len(recalled))
		}
	}
	r3, err := svc.Resume(ctx, f.Owner, three)
	must(err)
	if !strings.Contains(r3.Recap.Text, "Bertha") || strings.Contains(r3.Recap.Text, "WHISPER-SENTINEL") {
		t.Fatalf("session 3's detailed recap recalls the innkeeper of session 1 and no whisper: %q", r3.Recap.Text)
	}
}
