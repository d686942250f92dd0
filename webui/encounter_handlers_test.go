package webui_test

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/gameplay/table/tabletest"
)

// The hidden NPC's numbers as JSON numbers: a timestamp's digits follow a
// digit, a colon or a dot, never one of these.
var (
	secretHP = regexp.MustCompile(`[:\[, ]9173[,}\] ]`)
	secretAC = regexp.MustCompile(`[:\[, ]93[,}\] ]`)
)

func hasSecret(b []byte) bool { return secretHP.Match(b) || secretAC.Match(b) }

// TestEncounterSecretsOverHTTP: a human DM runs a fight with a hidden NPC
// (AC 93, HP 9173) over the combat routes, each answer checked against the
// OpenAPI document; the player's answers, the fight view, the event list
// and the live stream never hold those numbers, while the DM's do.
func TestEncounterSecretsOverHTTP(t *testing.T) {
	f := newFixture(t, withSecret)
	tf := startedTable(t, f)
	srv := httptest.NewServer(f.server)
	t.Cleanup(srv.Close)
	h, dm, player := f.handler, tf.Owner, tf.Seated
	base := fmt.Sprintf("/api/sessions/%d/encounter", tf.LobbyID)
	mira := fmt.Sprintf("seat:%d", tf.PlayerSeatID)
	stream := openStream(t, srv, player, tf.LobbyID, 0, "")

	var seen []byte // everything the player read
	as := func(c table.Caller, method, path, body string, want int) []byte {
		t.Helper()
		rec := call(t, h, c, method, path, body)
		if rec.Code != want {
			t.Fatalf("%s %s: got %d, want %d: %s", method, path, rec.Code, want, rec.Body)
		}
		if c == player {
			seen = append(seen, rec.Body.Bytes()...)
		}
		return rec.Body.Bytes()
	}

	started := as(dm, "POST", base, fmt.Sprintf(`{"name":"Bridge ambush","seat_ids":[%d],"npcs":[{"name":"Shadow Ogre","ac":93,"hp":9173,"initiative":10}]}`, tf.PlayerSeatID), 201)
	if !secretHP.Match(started) || !secretAC.Match(started) {
		t.Fatalf("the DM does not see the ogre's numbers: %s", started)
	}
	as(player, "POST", base, `{"name":"mine"}`, 403)
	as(player, "POST", base+"/initiative", fmt.Sprintf(`{"combatant_id":%q,"faces":[15]}`, mira), 200)
	as(player, "POST", base+"/advance", "", 403) // not_your_turn
	as(dm, "POST", base+"/advance", "", 200)
	// Mira (15 + her bonus) goes before the ogre (10): her turn, a natural
	// 20 (AC 93 falls to nothing less) and a miss.
	var now table.EncounterNow
	tabletest.Must(t, json.Unmarshal(as(player, "GET", base, "", 200), &now))
	if now.Encounter == nil || now.Encounter.CurrentID != mira {
		t.Fatalf("not Mira's turn: %+v", now.Encounter)
	}
	for _, ogre := range now.Encounter.Combatants {
		if ogre.ID == "npc:1" && (!ogre.Hidden || ogre.AC != nil || ogre.HP != nil) {
			t.Fatalf("the player's view of the ogre: %+v", ogre)
		}
	}
	hit := as(player, "POST", base+"/attack", fmt.Sprintf(`{"attacker_id":%q,"target_id":"npc:1","weapon":"Rapier","bonus":5,"damage":"1d8+3","damage_type":"piercing","faces":[20]}`, mira), 200)
	if !strings.Contains(string(hit), `"hit":true`) {
		t.Fatalf("the natural 20 missed: %s", hit)
	}
	miss := as(player, "POST", base+"/attack", fmt.Sprintf(`{"attacker_id":%q,"target_id":"npc:1","bonus":5,"damage":"1d8+3","faces":[2]}`, mira), 200)
	if !strings.Contains(string(miss), `"hit":false`) {
		t.Fatalf("a 7 hit AC 93: %s", miss)
	}
	as(player, "POST", base+"/advance", "", 200)
	as(player, "POST", base+"/change", `{"combatant_id":"npc:1","op":"reveal"}`, 403)
	as(player, "POST", base+"/end", "", 403)

	// The views and the event list, as each reads them.
	playerEvents := as(player, "GET", fmt.Sprintf("/api/sessions/%d/events?after=0&limit=200", tf.LobbyID), "", 200)
	dmView := as(dm, "GET", base, "", 200)
	dmEvents := as(dm, "GET", fmt.Sprintf("/api/sessions/%d/events?after=0&limit=200", tf.LobbyID), "", 200)
	if !secretHP.Match(dmView) || !secretAC.Match(dmView) || !secretAC.Match(dmEvents) || !strings.Contains(string(dmEvents), table.EventEncounterSecret) {
		t.Fatalf("the DM lacks the ogre's numbers: %s\n%s", dmView, dmEvents)
	}
	var page table.EventPage
	tabletest.Must(t, json.Unmarshal(playerEvents, &page))
	if page.HasMore || page.Cursor >= 93 {
		t.Fatalf("the scene must fit one page below seq 93: cursor %d", page.Cursor)
	}
	as(dm, "POST", base+"/end", "", 200)

	// The live stream, up to the end of the fight.
	for ended := false; !ended; {
		fr, ok := stream.next(t)
		if !ok {
			t.Fatal("the stream ended")
		}
		seen = append(seen, fr.data...)
		for _, e := range fr.page.Events {
			ended = ended || e.Kind == table.EventEncounterEnded
			if e.Kind == table.EventEncounterSecret {
				t.Fatalf("the player's stream carried %s", e.Kind)
			}
		}
	}
	if strings.Count(string(seen), table.EventEncounterAttack) < 2 {
		t.Fatalf("the player did not read both attacks")
	}
	if hasSecret(seen) {
		t.Fatalf("the player read a hidden number: HP %q AC %q", secretHP.Find(seen), secretAC.Find(seen))
	}
}
