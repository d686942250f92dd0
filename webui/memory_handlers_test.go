package webui_test

import (
	"fmt"
	"net/http/httptest"
	"testing"

	"github.com/adventure-table/adventure-table/gameplay/llm/llmtest"
	"github.com/adventure-table/adventure-table/gameplay/table/tabletest"
)

// The memory bank over HTTP: write, list, pin, forget, see it in Insights;
// bad input and another user's bank are refused (answers are checked
// against the OpenAPI document by the fixture).
func TestMemoryBankOverHTTP(t *testing.T) {
	f := newFixture(t, withSecret)
	srv := httptest.NewServer(f.handler)
	defer srv.Close()
	fake := llmtest.New(t)
	me := tabletest.NewUser(t, f.services.Table, "Solo")
	narrateWith(t, srv, me, fake.URL(), map[string]any{"memory_top_k": 3})
	sc := decode[struct{ ID int64 }](t, send(t, srv, me, "POST", "/api/scenarios",
		`{"title":"Inn","premise":"An inn.","plot_essentials":"","ai_instructions":"","authors_note":"","opening":"The inn is warm.","stat_schema":{},"cards":[]}`), 201)
	adv := decode[struct {
		Adventure struct{ ID int64 } `json:"adventure"`
	}](t, send(t, srv, me, "POST", fmt.Sprintf("/api/scenarios/%d/play", sc.ID), `{"persona_name":"Mara","persona_pronouns":"she/her","persona_desc":""}`), 201).Adventure.ID
	base := fmt.Sprintf("/api/adventures/%d/memories", adv)

	mv := decode[struct {
		ID     int64  `json:"id"`
		Kind   string `json:"kind"`
		Pinned bool   `json:"pinned"`
	}](t, send(t, srv, me, "POST", base, `{"text":"Mara promised Bram she would return.","pinned":true}`), 201)
	if mv.Kind != "note" || !mv.Pinned {
		t.Fatalf("created %+v", mv)
	}
	for _, body := range []string{`{"text":""}`, `{"text":"x","extra":1}`, `{"text":12}`} {
		if res := send(t, srv, me, "POST", base, body); res.StatusCode != 400 {
			t.Fatalf("bad memory %s: %d", body, res.StatusCode)
		}
	}
	fake.Push(llmtest.Reply{Chunks: []string{"Bram nods."}, FinishReason: "stop"})
	readSSE(t, send(t, srv, me, "POST", fmt.Sprintf("/api/adventures/%d/turns", adv), `{"mode":"do","text":"I wave at Bram"}`))
	bank := decode[struct {
		Memories []struct {
			ID           int64 `json:"id"`
			UsedLastTurn bool  `json:"used_last_turn"`
		} `json:"memories"`
		Scorer string `json:"scorer"`
		TopK   int    `json:"top_k"`
	}](t, send(t, srv, me, "GET", base, ""), 200)
	if len(bank.Memories) != 1 || !bank.Memories[0].UsedLastTurn || bank.Scorer != "bm25" || bank.TopK != 3 {
		t.Fatalf("bank %+v", bank)
	}
	page := decode[struct {
		Story []struct{ ID int64 } `json:"story"`
	}](t, send(t, srv, me, "GET", fmt.Sprintf("/api/adventures/%d", adv), ""), 200)
	ins := decode[struct {
		Memories []struct {
			ID     int64  `json:"id"`
			Scorer string `json:"scorer"`
		} `json:"memories"`
	}](t, send(t, srv, me, "GET", fmt.Sprintf("/api/actions/%d/insights", page.Story[len(page.Story)-1].ID), ""), 200)
	if len(ins.Memories) != 1 || ins.Memories[0].ID != mv.ID || ins.Memories[0].Scorer != "pinned" {
		t.Fatalf("insights memories %+v", ins.Memories)
	}
	changed := decode[struct {
		Pinned    bool `json:"pinned"`
		Forgotten bool `json:"forgotten"`
	}](t, send(t, srv, me, "PATCH", fmt.Sprintf("%s/%d", base, mv.ID), `{"pinned":false,"forgotten":true}`), 200)
	if changed.Pinned || !changed.Forgotten {
		t.Fatalf("changed %+v", changed)
	}
	other := tabletest.NewUser(t, f.services.Table, "Other")
	for _, req := range [][3]string{{"GET", base, ""}, {"POST", base, `{"text":"mine now"}`}, {"PATCH", fmt.Sprintf("%s/%d", base, mv.ID), `{"pinned":true}`}} {
		if res := send(t, srv, other, req[0], req[1], req[2]); res.StatusCode != 404 {
			t.Fatalf("%s %s as another user: %d", req[0], req[1], res.StatusCode)
		}
	}
	if res := send(t, srv, me, "PATCH", fmt.Sprintf("%s/%d", base, mv.ID+999), `{"pinned":true}`); res.StatusCode != 404 {
		t.Fatalf("unknown memory: %d", res.StatusCode)
	}
}
