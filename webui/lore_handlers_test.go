package webui_test

import (
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/adventure-table/adventure-table/gameplay/llm/llmtest"
	"github.com/adventure-table/adventure-table/gameplay/table/tabletest"
)

type playCard struct {
	ID             int64    `json:"id"`
	Title          string   `json:"title"`
	Keys           []string `json:"keys"`
	Entry          string   `json:"entry"`
	Enabled        bool     `json:"enabled"`
	Source         string   `json:"source"`
	PlayerAuthored bool     `json:"player_authored"`
	LastTurn       *struct {
		Trigger  string `json:"trigger"`
		Included bool   `json:"included"`
	} `json:"last_turn"`
}

type playCards struct {
	Cards     []playCard `json:"cards"`
	MaxCards  int        `json:"max_cards"`
	LastBuild *struct {
		Budget    int  `json:"budget"`
		Used      int  `json:"used"`
		Estimated bool `json:"estimated"`
	} `json:"last_build"`
}

// Story cards in play over HTTP: list, edit, add, set aside; each change
// reaches the next request the model gets; bad input, a streaming turn and
// another user are refused with their codes (answers are checked against
// the OpenAPI document by the fixture). The reasoning effort of the
// narrator settings reaches the request too.
func TestLoreInPlayOverHTTP(t *testing.T) {
	f := newFixture(t, withSecret)
	srv := httptest.NewServer(f.handler)
	defer srv.Close()
	fake := llmtest.New(t)
	me := tabletest.NewUser(t, f.services.Table, "Solo")
	narrateWith(t, srv, me, fake.URL(), map[string]any{"reasoning_effort": "medium"})
	sc := decode[struct{ ID int64 }](t, send(t, srv, me, "POST", "/api/scenarios",
		`{"title":"Inn","premise":"An inn.","plot_essentials":"","ai_instructions":"","authors_note":"","opening":"The inn is warm.","stat_schema":{},
		  "cards":[{"title":"Bram","keys":["Bram"],"entry":"Bram keeps the inn.","type":"character"}]}`), 201)
	adv := decode[struct {
		Adventure struct{ ID int64 } `json:"adventure"`
	}](t, send(t, srv, me, "POST", fmt.Sprintf("/api/scenarios/%d/play", sc.ID), `{"persona_name":"Mara","persona_pronouns":"she/her","persona_desc":""}`), 201).Adventure.ID
	base := fmt.Sprintf("/api/adventures/%d/cards", adv)
	turn := func(text, reply string) string {
		t.Helper()
		fake.Push(llmtest.Reply{Chunks: []string{reply}, FinishReason: "stop", Usage: &llmtest.Usage{Prompt: 321, Completion: 5}})
		readSSE(t, send(t, srv, me, "POST", fmt.Sprintf("/api/adventures/%d/turns", adv), fmt.Sprintf(`{"mode":"do","text":%q}`, text)))
		reqs := fake.Requests()
		last := reqs[len(reqs)-1]
		if last.ReasoningEffort != "medium" {
			t.Fatalf("reasoning_effort %q, want medium", last.ReasoningEffort)
		}
		var all []string
		for _, m := range last.Messages {
			all = append(all, m.Content)
		}
		return strings.Join(all, "\n")
	}

	list := decode[playCards](t, send(t, srv, me, "GET", base, ""), 200)
	if len(list.Cards) != 1 || list.LastBuild != nil || list.MaxCards != 500 {
		t.Fatalf("list %+v", list)
	}
	bram := list.Cards[0]
	if p := turn("I wave at Bram", "He waves."); !strings.Contains(p, "Bram keeps the inn.") {
		t.Fatal("the scenario card is not in the prompt")
	}
	list = decode[playCards](t, send(t, srv, me, "GET", base, ""), 200)
	if c := list.Cards[0]; c.LastTurn == nil || !c.LastTurn.Included || list.LastBuild == nil || list.LastBuild.Used != 321 || list.LastBuild.Budget != 4000 {
		t.Fatalf("after a turn %+v %+v", list.Cards[0], list.LastBuild)
	}

	edited := decode[playCard](t, send(t, srv, me, "PATCH", fmt.Sprintf("%s/%d", base, bram.ID), `{"entry":"Bram is a spy."}`), 200)
	if !edited.PlayerAuthored || edited.Entry != "Bram is a spy." {
		t.Fatalf("edited %+v", edited)
	}
	added := decode[playCard](t, send(t, srv, me, "POST", base, `{"title":"Moon","keys":["moon"],"entry":"The moon is red.","type":"lore"}`), 201)
	if added.Source != "player" || !added.Enabled {
		t.Fatalf("added %+v", added)
	}
	if p := turn("I ask Bram about the moon", "He frowns."); !strings.Contains(p, "Bram is a spy.") || !strings.Contains(p, "The moon is red.") {
		t.Fatalf("the edit or the new card did not reach the prompt:\n%s", p)
	}
	decode[playCard](t, send(t, srv, me, "PATCH", fmt.Sprintf("%s/%d", base, bram.ID), `{"enabled":false}`), 200)
	if p := turn("I ask Bram again", "Silence."); strings.Contains(p, "Bram is a spy.") {
		t.Fatal("a set-aside card entered the prompt")
	}

	for _, tt := range []struct {
		name, method, path, body, code string
		status                         int
	}{
		{"NoTitle", "POST", base, `{"title":" ","keys":[],"entry":"","type":""}`, "card_invalid", 400},
		{"LongEntry", "POST", base, `{"title":"x","keys":[],"entry":"` + strings.Repeat("a", 4001) + `","type":""}`, "card_invalid", 400},
		{"UnknownField", "POST", base, `{"title":"x","keys":[],"entry":"","type":"","secret":1}`, "invalid_request", 400},
		{"BadEdit", "PATCH", fmt.Sprintf("%s/%d", base, bram.ID), `{"title":""}`, "card_invalid", 400},
		{"UnknownLogic", "POST", base, `{"title":"x","keys":["a1"],"secondary_keys":["b1"],"logic":"xor","entry":"","type":""}`, "card_logic_invalid", 400},
		{"LookaroundKey", "POST", base, `{"title":"x","keys":["/a(?=b)/"],"entry":"","type":""}`, "card_key_invalid", 400},
		{"LongRegexEdit", "PATCH", fmt.Sprintf("%s/%d", base, bram.ID), `{"secondary_keys":["/` + strings.Repeat("a", 201) + `/"]}`, "card_key_invalid", 400},
		{"NoSuchCard", "PATCH", fmt.Sprintf("%s/%d", base, 999999), `{"enabled":true}`, "not_found", 404},
		{"TooLongToCount", "POST", "/api/solo/tokens", `{"text":"` + strings.Repeat("a", 16001) + `"}`, "turn_text_invalid", 400},
		{"BadEffort", "PUT", "/api/solo/settings", `{"base_url":"` + fake.URL() + `","model":"fake","context_budget":4000,"max_output_tokens":300,"temperature":0.8,"top_p":0.9,"reasoning_effort":"max"}`, "provider_settings_invalid", 400},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := send(t, srv, me, tt.method, tt.path, tt.body)
			body := decode[errorBody](t, res, tt.status)
			if body.Error.Code != tt.code {
				t.Fatalf("code %q, want %q", body.Error.Code, tt.code)
			}
		})
	}

	other := tabletest.NewUser(t, f.services.Table, "Other")
	for _, r := range []struct{ method, path, body string }{
		{"GET", base, ""},
		{"POST", base, `{"title":"x","keys":[],"entry":"","type":""}`},
		{"PATCH", fmt.Sprintf("%s/%d", base, bram.ID), `{"enabled":true}`},
	} {
		if body := decode[errorBody](t, send(t, srv, other, r.method, r.path, r.body), 404); body.Error.Code != "not_found" {
			t.Fatalf("%s %s as another user: %+v", r.method, r.path, body)
		}
	}
	list = decode[playCards](t, send(t, srv, me, "GET", base, ""), 200)
	if len(list.Cards) != 2 || list.Cards[0].Enabled || list.Cards[0].Entry != "Bram is a spy." {
		t.Fatalf("refused requests changed the cards: %+v", list.Cards)
	}

	count := decode[struct {
		Tokens     int     `json:"tokens"`
		TokenRatio float64 `json:"token_ratio"`
	}](t, send(t, srv, me, "POST", "/api/solo/tokens", `{"text":"I open the door."}`), 200)
	if count.Tokens < 3 || count.TokenRatio <= 0 {
		t.Fatalf("count %+v", count)
	}
}

type errorBody struct {
	Error struct {
		Code string `json:"code"`
	} `json:"error"`
}
