package webui

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/gin-gonic/gin"

	"github.com/adventure-table/adventure-table/gameplay/narrative"
	"github.com/adventure-table/adventure-table/gameplay/table"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// userOf is the browser user of a solo route.
func userOf(c *gin.Context) int64 { return callerOf(c).UserID }

// soloID adapts a solo call that takes one path id (solo calls take the
// browser user, not a table caller).
func soloID[T any](param string, status int, call func(ctx context.Context, userID, id int64) (T, error)) gin.HandlerFunc {
	return withID(param, status, func(ctx context.Context, caller table.Caller, id int64) (T, error) {
		return call(ctx, caller.UserID, id)
	})
}

// soloIDBody adapts a solo call that takes a path id and a JSON body.
func soloIDBody[In, T any](param string, status int, call func(ctx context.Context, userID, id int64, in In) (T, error)) gin.HandlerFunc {
	return withIDAndBody(param, status, func(ctx context.Context, caller table.Caller, id int64, in In) (T, error) {
		return call(ctx, caller.UserID, id, in)
	})
}

// EmptyInput is a body with no fields ({}).
type EmptyInput struct{}

// streamTurn answers a turn as Server-Sent Events. Everything that can
// refuse the request (ownership, validation, the turn lock) has happened in
// start, so a refusal is an ordinary JSON error with its status and no
// stream is ever opened for it.
func streamTurn(c *gin.Context, start func(ctx context.Context) (*narrative.Turn, error)) {
	turn, err := start(c.Request.Context())
	if err != nil {
		respondError(c, err)
		return
	}
	w := c.Writer
	openEventStream(w)
	w.Flush()
	turn.Run(c.Request.Context(), func(ev narrative.Event) {
		b, _ := json.Marshal(ev)
		_, _ = w.Write([]byte("data: "))
		_, _ = w.Write(b)
		_, _ = w.Write([]byte("\n\n"))
		w.Flush()
	})
}

// soloRoutes mounts the solo adventure's routes; each is one gameplay call.
func (s *Server) soloRoutes() {
	n := s.opts.Services.Narrative
	page := typeOf[narrative.AdventurePage]()
	notFound := []apperr.Code{apperr.NotFound}
	codes := func(extra ...apperr.Code) []apperr.Code {
		return append(append([]apperr.Code{}, notFound...), extra...)
	}
	tree := codes(apperr.TurnInProgress, apperr.ActionNotOnLine, apperr.ActionNotEditable)

	s.route(apiRoute{Method: "GET", Path: "/api/solo/settings", Tag: "solo", Summary: "The caller's model settings (the API key is never returned)", Response: typeOf[narrative.ProviderSettingsView]()},
		func(c *gin.Context) {
			v, err := n.GetSettings(c.Request.Context(), userOf(c))
			reply(c, http.StatusOK, v, err)
		}, s.identify)
	s.route(apiRoute{Method: "PUT", Path: "/api/solo/settings", Tag: "solo", Summary: "Save the caller's model settings; api_key absent keeps the stored key, \"\" clears it", Request: typeOf[narrative.ProviderSettingsInput](), Response: typeOf[narrative.ProviderSettingsView](), Errors: []apperr.Code{apperr.ProviderSettingsInvalid}},
		func(c *gin.Context) {
			var in narrative.ProviderSettingsInput
			if !bindJSON(c, &in) {
				return
			}
			v, err := n.PutSettings(c.Request.Context(), userOf(c), in)
			reply(c, http.StatusOK, v, err)
		}, s.identify)

	s.route(apiRoute{Method: "GET", Path: "/api/scenarios", Tag: "solo", Summary: "The caller's scenarios", Response: typeOf[narrative.ScenarioList]()},
		func(c *gin.Context) {
			v, err := n.ListScenarios(c.Request.Context(), userOf(c))
			reply(c, http.StatusOK, v, err)
		}, s.identify)
	s.route(apiRoute{Method: "POST", Path: "/api/scenarios", Tag: "solo", Summary: "Create a scenario", Status: http.StatusCreated, Request: typeOf[narrative.ScenarioInput](), Response: typeOf[narrative.ScenarioView](), Errors: []apperr.Code{apperr.ScenarioInvalid, apperr.CardLogicInvalid, apperr.CardKeyInvalid}},
		func(c *gin.Context) {
			var in narrative.ScenarioInput
			if !bindJSONLimit(c, &in, maxScenarioBytes) {
				return
			}
			v, err := n.CreateScenario(c.Request.Context(), userOf(c), in)
			reply(c, http.StatusCreated, v, err)
		}, s.identify)
	s.route(apiRoute{Method: "GET", Path: "/api/scenarios/{id}", Tag: "solo", Summary: "A scenario with its cards", Response: typeOf[narrative.ScenarioView](), Errors: notFound},
		soloID("id", http.StatusOK, n.GetScenario), s.identify)
	s.route(apiRoute{Method: "PUT", Path: "/api/scenarios/{id}", Tag: "solo", Summary: "Replace a scenario (adventures already played keep their copies)", Request: typeOf[narrative.ScenarioInput](), Response: typeOf[narrative.ScenarioView](), Errors: codes(apperr.ScenarioInvalid, apperr.CardLogicInvalid, apperr.CardKeyInvalid)},
		func(c *gin.Context) {
			id, ok := pathID(c, "id")
			if !ok {
				return
			}
			var in narrative.ScenarioInput
			if !bindJSONLimit(c, &in, maxScenarioBytes) {
				return
			}
			v, err := n.UpdateScenario(c.Request.Context(), userOf(c), id, in)
			reply(c, http.StatusOK, v, err)
		}, s.identify)
	s.route(apiRoute{Method: "DELETE", Path: "/api/scenarios/{id}", Tag: "solo", Summary: "Delete a scenario", Response: typeOf[narrative.Deleted](), Errors: notFound},
		soloID("id", http.StatusOK, n.DeleteScenario), s.identify)
	s.route(apiRoute{Method: "POST", Path: "/api/scenarios/{id}/play", Tag: "solo", Summary: "Start an adventure from a scenario (copies its plot, stats and cards)", Status: http.StatusCreated, Request: typeOf[narrative.Persona](), Response: page, Errors: codes(apperr.ScenarioInvalid)},
		soloIDBody("id", http.StatusCreated, n.Play), s.identify)

	s.route(apiRoute{Method: "GET", Path: "/api/solo/starters", Tag: "solo", Summary: "The starter scenarios shipped with the server", Response: typeOf[narrative.StarterList]()},
		func(c *gin.Context) {
			v, err := n.Starters(c.Request.Context())
			reply(c, http.StatusOK, v, err)
		}, s.identify)
	s.route(apiRoute{Method: "POST", Path: "/api/solo/starters/{slug}/play", Tag: "solo", Summary: "Start a starter scenario: import it as the caller's own scenario and start an adventure from it, in one step", Status: http.StatusCreated, Request: typeOf[narrative.Persona](), Response: page, Errors: codes(apperr.ScenarioInvalid)},
		func(c *gin.Context) {
			var in narrative.Persona
			if !bindJSON(c, &in) {
				return
			}
			v, err := n.StartStarter(c.Request.Context(), userOf(c), c.Param("slug"), in)
			reply(c, http.StatusCreated, v, err)
		}, s.identify)

	s.route(apiRoute{Method: "GET", Path: "/api/adventures", Tag: "solo", Summary: "The caller's adventures", Response: typeOf[narrative.AdventureList]()},
		func(c *gin.Context) {
			v, err := n.ListAdventures(c.Request.Context(), userOf(c))
			reply(c, http.StatusOK, v, err)
		}, s.identify)
	s.route(apiRoute{Method: "GET", Path: "/api/adventures/{id}", Tag: "solo", Summary: "The play screen: the adventure and the newest part of its story", Response: page, Errors: notFound},
		soloID("id", http.StatusOK, n.GetAdventure), s.identify)
	s.route(apiRoute{Method: "GET", Path: "/api/adventures/{id}/story", Tag: "solo", Summary: "Older turns of the current line (?before=depth&limit=n)", Query: []string{"before", "limit"}, Response: typeOf[narrative.StoryPage](), Errors: notFound},
		func(c *gin.Context) {
			id, ok := pathID(c, "id")
			if !ok {
				return
			}
			before, _ := strconv.Atoi(c.Query("before"))
			limit, _ := strconv.Atoi(c.Query("limit"))
			v, err := n.GetStory(c.Request.Context(), userOf(c), id, before, limit)
			reply(c, http.StatusOK, v, err)
		}, s.identify)
	s.route(apiRoute{Method: "PATCH", Path: "/api/adventures/{id}", Tag: "solo", Summary: "Edit the title, author's note or protagonist", Request: typeOf[narrative.AdventureChange](), Response: typeOf[narrative.AdventureView](), Errors: codes(apperr.ScenarioInvalid, apperr.TurnInProgress)},
		soloIDBody("id", http.StatusOK, n.UpdateAdventure), s.identify)
	s.route(apiRoute{Method: "DELETE", Path: "/api/adventures/{id}", Tag: "solo", Summary: "Delete an adventure with its whole story", Response: typeOf[narrative.Deleted](), Errors: notFound},
		soloID("id", http.StatusOK, n.DeleteAdventure), s.identify)

	s.route(apiRoute{Method: "POST", Path: "/api/adventures/{id}/turns", Tag: "solo", Summary: "Play a turn; answers text/event-stream (player, reasoning, chunk, stopped, error, done)", Request: typeOf[narrative.TurnInput](), Stream: true, Response: typeOf[narrative.Event](),
		Errors: codes(apperr.TurnTextInvalid, apperr.TurnInProgress, apperr.InvalidRequest, apperr.DemoBudgetExhausted)},
		func(c *gin.Context) {
			id, ok := pathID(c, "id")
			if !ok {
				return
			}
			var in narrative.TurnInput
			if !bindJSON(c, &in) {
				return
			}
			streamTurn(c, func(ctx context.Context) (*narrative.Turn, error) { return n.StartTurn(ctx, userOf(c), id, in) })
		}, s.identify)
	s.route(apiRoute{Method: "POST", Path: "/api/adventures/{id}/retry", Tag: "solo", Summary: "Write a new take of the newest narration; answers text/event-stream", Request: typeOf[EmptyInput](), Stream: true, Response: typeOf[narrative.Event](),
		Errors: codes(apperr.TurnInProgress, apperr.NothingToRetry, apperr.DemoBudgetExhausted)},
		func(c *gin.Context) {
			id, ok := pathID(c, "id")
			if !ok {
				return
			}
			var in EmptyInput
			if !bindJSON(c, &in) {
				return
			}
			streamTurn(c, func(ctx context.Context) (*narrative.Turn, error) { return n.StartRetry(ctx, userOf(c), id) })
		}, s.identify)
	s.route(apiRoute{Method: "POST", Path: "/api/adventures/{id}/turn/stop", Tag: "solo", Summary: "Stop the narration being streamed; its text so far is kept as a take marked stopped (the stream ends with stopped and done)", Request: typeOf[EmptyInput](), Response: typeOf[narrative.StopResult](), Errors: notFound},
		soloIDBody("id", http.StatusOK, func(ctx context.Context, userID, id int64, _ EmptyInput) (narrative.StopResult, error) {
			return n.StopTurn(ctx, userID, id)
		}), s.identify)
	s.route(apiRoute{Method: "POST", Path: "/api/adventures/{id}/undo", Tag: "solo", Summary: "Remove the newest turn; the state rewinds to the turn before", Request: typeOf[EmptyInput](), Response: page, Errors: append(tree, apperr.NothingToUndo)},
		soloIDBody("id", http.StatusOK, func(ctx context.Context, userID, id int64, _ EmptyInput) (narrative.AdventurePage, error) {
			return n.Undo(ctx, userID, id)
		}), s.identify)
	s.route(apiRoute{Method: "POST", Path: "/api/adventures/{id}/takes", Tag: "solo", Summary: "Stand on another take of a turn (the pager)", Request: typeOf[narrative.TakeInput](), Response: page, Errors: tree},
		soloIDBody("id", http.StatusOK, func(ctx context.Context, userID, id int64, in narrative.TakeInput) (narrative.AdventurePage, error) {
			return n.SelectTake(ctx, userID, id, in.ActionID)
		}), s.identify)
	s.route(apiRoute{Method: "POST", Path: "/api/adventures/{id}/fork", Tag: "solo", Summary: "Start a branch at a turn of the current line", Request: typeOf[narrative.TakeInput](), Response: page, Errors: tree},
		soloIDBody("id", http.StatusOK, func(ctx context.Context, userID, id int64, in narrative.TakeInput) (narrative.AdventurePage, error) {
			return n.Fork(ctx, userID, id, in.ActionID)
		}), s.identify)
	s.route(apiRoute{Method: "GET", Path: "/api/adventures/{id}/branches", Tag: "solo", Summary: "The adventure's branches", Response: typeOf[narrative.BranchList](), Errors: notFound},
		soloID("id", http.StatusOK, n.ListBranches), s.identify)
	s.route(apiRoute{Method: "POST", Path: "/api/adventures/{id}/branches/{branch_id}/switch", Tag: "solo", Summary: "Continue on another branch; its state is restored", Request: typeOf[EmptyInput](), Response: page, Errors: tree},
		func(c *gin.Context) {
			id, branchID, ok := pathIDs(c, "id", "branch_id")
			if !ok {
				return
			}
			var in EmptyInput
			if !bindJSON(c, &in) {
				return
			}
			v, err := n.SwitchBranch(c.Request.Context(), userOf(c), id, branchID)
			reply(c, http.StatusOK, v, err)
		}, s.identify)
	s.route(apiRoute{Method: "PATCH", Path: "/api/adventures/{id}/branches/{branch_id}", Tag: "solo", Summary: "Rename a branch", Request: typeOf[narrative.BranchNameInput](), Response: typeOf[narrative.BranchView](), Errors: codes(apperr.InvalidRequest)},
		func(c *gin.Context) {
			id, branchID, ok := pathIDs(c, "id", "branch_id")
			if !ok {
				return
			}
			var in narrative.BranchNameInput
			if !bindJSON(c, &in) {
				return
			}
			v, err := n.RenameBranch(c.Request.Context(), userOf(c), id, branchID, in.Name)
			reply(c, http.StatusOK, v, err)
		}, s.identify)
	s.route(apiRoute{Method: "PATCH", Path: "/api/actions/{id}", Tag: "solo", Summary: "Edit the text of a turn", Request: typeOf[narrative.TextInput](), Response: typeOf[narrative.ActionView](), Errors: append(tree, apperr.TurnTextInvalid)},
		soloIDBody("id", http.StatusOK, func(ctx context.Context, userID, id int64, in narrative.TextInput) (narrative.ActionView, error) {
			return n.EditAction(ctx, userID, id, in.Text)
		}), s.identify)
	s.route(apiRoute{Method: "DELETE", Path: "/api/actions/{id}", Tag: "solo", Summary: "Delete a turn (with its other takes)", Response: page, Errors: tree},
		soloID("id", http.StatusOK, n.DeleteAction), s.identify)
	s.route(apiRoute{Method: "GET", Path: "/api/actions/{id}/insights", Tag: "solo", Summary: "The context breakdown and exact prompt of a narration", Response: typeOf[narrative.Insights](), Errors: notFound},
		soloID("id", http.StatusOK, n.GetInsights), s.identify)
	s.route(apiRoute{Method: "GET", Path: "/api/adventures/{id}/memories", Tag: "solo", Summary: "The memory bank of the line being read: memories in story order (forgotten ones too), the running summary, which the last prompt used, and the background work's state", Response: typeOf[narrative.MemoryBank](), Errors: notFound},
		soloID("id", http.StatusOK, n.GetMemoryBank), s.identify)
	s.route(apiRoute{Method: "POST", Path: "/api/adventures/{id}/memories", Tag: "solo", Summary: "Write a memory by hand; it hangs off the turn being read", Status: http.StatusCreated, Request: typeOf[narrative.MemoryInput](), Response: typeOf[narrative.MemoryView](), Errors: codes(apperr.MemoryInvalid)},
		soloIDBody("id", http.StatusCreated, n.AddMemory), s.identify)
	s.route(apiRoute{Method: "PATCH", Path: "/api/adventures/{id}/memories/{memory_id}", Tag: "solo", Summary: "Pin, forget, un-forget or rewrite a memory", Request: typeOf[narrative.MemoryChange](), Response: typeOf[narrative.MemoryView](), Errors: codes(apperr.MemoryInvalid)},
		func(c *gin.Context) {
			id, memoryID, ok := pathIDs(c, "id", "memory_id")
			if !ok {
				return
			}
			var in narrative.MemoryChange
			if !bindJSON(c, &in) {
				return
			}
			v, err := n.ChangeMemory(c.Request.Context(), userOf(c), id, memoryID, in)
			reply(c, http.StatusOK, v, err)
		}, s.identify)
	s.route(apiRoute{Method: "GET", Path: "/api/adventures/{id}/console", Tag: "scripting", Summary: "The newest lines of the adventure's script console (log() calls, script errors, messages)", Response: typeOf[narrative.Console](), Errors: notFound},
		soloID("id", http.StatusOK, n.GetConsole), s.identify)
	s.route(apiRoute{Method: "POST", Path: "/api/scripts/test", Tag: "scripting", Summary: "Run scripts once against a sample story, as a turn would, and answer what each hook did with its errors' lines; nothing is stored", Request: typeOf[narrative.ScriptTestInput](), Response: typeOf[narrative.ScriptTestResult](), Errors: []apperr.Code{apperr.ScenarioInvalid}},
		func(c *gin.Context) {
			var in narrative.ScriptTestInput
			if !bindJSONLimit(c, &in, maxScenarioBytes) {
				return
			}
			v, err := n.TestScripts(c.Request.Context(), in)
			reply(c, http.StatusOK, v, err)
		}, s.identify)
	grants := typeOf[narrative.SoloGrantList]()
	minted := typeOf[narrative.MintedSoloGrant]()
	s.route(apiRoute{Method: "POST", Path: "/api/adventures/{id}/grants", Tag: "ai", Summary: "Mint a token with which an AI agent plays this adventure over MCP (and nothing else); the token is shown once", Status: http.StatusCreated,
		Request: typeOf[narrative.SoloGrantInput](), Response: minted, Errors: codes(apperr.InvalidRequest)},
		soloIDBody("id", http.StatusCreated, n.MintAdventureGrant), s.identify)
	s.route(apiRoute{Method: "GET", Path: "/api/adventures/{id}/grants", Tag: "ai", Summary: "The adventure's agent tokens (without their secrets)", Response: grants, Errors: notFound},
		soloID("id", http.StatusOK, n.ListAdventureGrants), s.identify)
	s.route(apiRoute{Method: "POST", Path: "/api/scenarios/{id}/grants", Tag: "ai", Summary: "Mint a token with which an AI agent works on this scenario over MCP (its cards and scripts); the token is shown once", Status: http.StatusCreated,
		Request: typeOf[narrative.SoloGrantInput](), Response: minted, Errors: codes(apperr.InvalidRequest)},
		soloIDBody("id", http.StatusCreated, n.MintScenarioGrant), s.identify)
	s.route(apiRoute{Method: "GET", Path: "/api/scenarios/{id}/grants", Tag: "ai", Summary: "The scenario's agent tokens (without their secrets)", Response: grants, Errors: notFound},
		soloID("id", http.StatusOK, n.ListScenarioGrants), s.identify)
	s.route(apiRoute{Method: "DELETE", Path: "/api/solo-grants/{id}", Tag: "ai", Summary: "Revoke an agent token of one of my adventures or scenarios; its next call fails with ai_token_revoked", Response: typeOf[narrative.SoloGrantView](), Errors: notFound},
		soloID("id", http.StatusOK, n.RevokeSoloGrant), s.identify)
	s.route(apiRoute{Method: "GET", Path: "/api/adventures/{id}/refresh", Tag: "solo", Summary: "What updating from the scenario would change", Response: typeOf[narrative.RefreshDiff](), Errors: notFound},
		soloID("id", http.StatusOK, n.RefreshDiff), s.identify)
	s.route(apiRoute{Method: "POST", Path: "/api/adventures/{id}/refresh", Tag: "solo", Summary: "Update from the scenario (never the opening, title, summary or player-authored cards)", Request: typeOf[EmptyInput](), Response: page, Errors: tree},
		soloIDBody("id", http.StatusOK, func(ctx context.Context, userID, id int64, _ EmptyInput) (narrative.AdventurePage, error) {
			return n.ApplyRefresh(ctx, userID, id)
		}), s.identify)
}
