package narrative

import (
	"encoding/json"
	"time"

	"github.com/adventure-table/adventure-table/gameplay/narrative/prompt"
	"github.com/adventure-table/adventure-table/models"
)

// CardInput is a story card as a person writes it.
type CardInput struct {
	Title string   `json:"title" jsonschema:"1 to 200 characters"`
	Keys  []string `json:"keys" jsonschema:"trigger words, matched case-insensitively on word boundaries, or /pattern/flags regular expressions (RE2, at most 200 bytes and 5 per card)"`
	Entry string   `json:"entry" jsonschema:"up to 4000 characters"`
	Type  string   `json:"type" jsonschema:"free text such as character, location, item, lore"`
	// The card's rules, as lorebooks have them. Absent: fires on any key,
	// priority 0 (how every card fired before they existed).
	SecondaryKeys []string `json:"secondary_keys,omitempty" jsonschema:"up to 20 words checked with logic once a key has named the card"`
	Logic         string   `json:"logic,omitempty" jsonschema:"what the secondary keys must do: and_any (the default, also empty), and_all, not_any or not_all"`
	Constant      bool     `json:"constant,omitempty" jsonschema:"in every prompt without a key (still within the card budget, ahead of named cards)"`
	Priority      int      `json:"priority,omitempty" jsonschema:"-1000000 to 1000000: the lore lists lower first, higher nearer the end; a short budget keeps higher ones"`
}

// Card is a stored story card.
type Card struct {
	ID int64 `json:"id"`
	CardInput
}

// Scripts are a scenario's four AI Dungeon script slots.
type Scripts struct {
	Library string `json:"library" jsonschema:"prepended to every hook, same scope"`
	Input   string `json:"input" jsonschema:"onInput: may rewrite or stop the player's text"`
	Context string `json:"context" jsonschema:"onModelContext: may rewrite the whole prompt"`
	Output  string `json:"output" jsonschema:"onOutput: may rewrite the model's reply"`
}

// ScenarioInput is a scenario as a person writes it.
type ScenarioInput struct {
	Title          string      `json:"title" jsonschema:"1 to 120 characters"`
	Premise        string      `json:"premise"`
	PlotEssentials string      `json:"plot_essentials"`
	AIInstructions string      `json:"ai_instructions"`
	AuthorsNote    string      `json:"authors_note"`
	Opening        string      `json:"opening"`
	StatSchema     Schema      `json:"stat_schema"`
	Cards          []CardInput `json:"cards"`
	Scripts        Scripts     `json:"scripts"`
}

// ScenarioView is a stored scenario.
type ScenarioView struct {
	ID             int64     `json:"id"`
	Title          string    `json:"title"`
	Premise        string    `json:"premise"`
	PlotEssentials string    `json:"plot_essentials"`
	AIInstructions string    `json:"ai_instructions"`
	AuthorsNote    string    `json:"authors_note"`
	Opening        string    `json:"opening"`
	StatSchema     Schema    `json:"stat_schema"`
	Cards          []Card    `json:"cards"`
	Scripts        Scripts   `json:"scripts"`
	CreatedAt      time.Time `json:"created_at"`
	UpdatedAt      time.Time `json:"updated_at"`
}

// ScenarioSummary is a row of the scenario list.
type ScenarioSummary struct {
	ID        int64     `json:"id"`
	Title     string    `json:"title"`
	Premise   string    `json:"premise"`
	UpdatedAt time.Time `json:"updated_at"`
}

// ScenarioList is the caller's scenarios.
type ScenarioList struct {
	Scenarios []ScenarioSummary `json:"scenarios"`
}

// Persona is the protagonist of an adventure.
type Persona struct {
	PersonaName     string `json:"persona_name" jsonschema:"up to 120 characters"`
	PersonaPronouns string `json:"persona_pronouns" jsonschema:"up to 60 characters"`
	PersonaDesc     string `json:"persona_desc" jsonschema:"up to 2000 characters"`
}

// TakeInfo places a node among the takes of its turn (all children of its
// parent): Index is 1-based, IDs are in creation order.
type TakeInfo struct {
	Index int     `json:"index"`
	Count int     `json:"count"`
	IDs   []int64 `json:"ids"`
}

// ActionView is one node of the story as the play screen shows it.
type ActionView struct {
	ID           int64     `json:"id"`
	Kind         string    `json:"kind" jsonschema:"opening, player or narration"`
	Mode         string    `json:"mode" jsonschema:"do, say, story or continue; empty for other nodes"`
	Text         string    `json:"text"`
	Depth        int       `json:"depth"`
	BranchID     int64     `json:"branch_id"`
	Takes        TakeInfo  `json:"takes"`
	Outcomes     []Outcome `json:"outcomes"`
	Truncated    bool      `json:"truncated"`
	FinishReason string    `json:"finish_reason"`
	Stopped      bool      `json:"stopped" jsonschema:"the player stopped this narration mid-stream; the text is what had arrived"`
	HasPrompt    bool      `json:"has_prompt"`
	CreatedAt    time.Time `json:"created_at"`
}

// AdventureView is an adventure and its current state (the head node's).
type AdventureView struct {
	ID         int64  `json:"id"`
	ScenarioID *int64 `json:"scenario_id"`
	Title      string `json:"title"`
	Persona
	AuthorsNote    string    `json:"authors_note"`
	StatSchema     Schema    `json:"stat_schema"`
	WorldState     State     `json:"world_state"`
	StateLine      string    `json:"state_line"`
	HeadBranchID   int64     `json:"head_branch_id"`
	HeadDepth      int       `json:"head_depth"`
	TurnInProgress bool      `json:"turn_in_progress"`
	CreatedAt      time.Time `json:"created_at"`
	UpdatedAt      time.Time `json:"updated_at"`
}

// AdventurePage is what the play screen loads: the adventure and the newest
// window of its head line, oldest first.
type AdventurePage struct {
	Adventure AdventureView `json:"adventure"`
	Story     []ActionView  `json:"story"`
	HasMore   bool          `json:"has_more"`
}

// StoryPage is an older part of the head line.
type StoryPage struct {
	Story   []ActionView `json:"story"`
	HasMore bool         `json:"has_more"`
}

// AdventureSummary is a row of the adventure list.
type AdventureSummary struct {
	ID         int64     `json:"id"`
	Title      string    `json:"title"`
	ScenarioID *int64    `json:"scenario_id"`
	UpdatedAt  time.Time `json:"updated_at"`
}

// AdventureList is the caller's adventures.
type AdventureList struct {
	Adventures []AdventureSummary `json:"adventures"`
}

// AdventureChange edits an adventure; nil fields stay.
type AdventureChange struct {
	Title           *string `json:"title,omitempty"`
	AuthorsNote     *string `json:"authors_note,omitempty"`
	PersonaName     *string `json:"persona_name,omitempty"`
	PersonaPronouns *string `json:"persona_pronouns,omitempty"`
	PersonaDesc     *string `json:"persona_desc,omitempty"`
}

// BranchView is one line of an adventure.
type BranchView struct {
	ID   int64  `json:"id"`
	Name string `json:"name" jsonschema:"the stored name; English for a name the server gave (see name_code)"`
	// NameCode is set while the branch keeps the name the server gave it,
	// so the web app writes it in the reader's language; a renamed branch
	// has none and shows its literal name.
	NameCode       string         `json:"name_code,omitempty" jsonschema:"branch.main (the first branch) or branch.numbered (params.n); absent once renamed"`
	NameParams     map[string]int `json:"name_params,omitempty" jsonschema:"the parameters of name_code: n, the branch's number"`
	ParentBranchID *int64         `json:"parent_branch_id"`
	ForkDepth      int            `json:"fork_depth"`
	TipDepth       int            `json:"tip_depth"`
	IsHead         bool           `json:"is_head"`
	CreatedAt      time.Time      `json:"created_at"`
}

// BranchList is an adventure's branches, oldest first.
type BranchList struct {
	Branches []BranchView `json:"branches"`
}

// StopResult answers a stop.
type StopResult struct {
	// Stopped is true when a running narration was told to stop; false
	// when none was running (it had finished, or was already stopped).
	Stopped bool `json:"stopped"`
}

// Deleted answers a delete.
type Deleted struct {
	Deleted bool `json:"deleted"`
}

// InsightSection is one section of a built prompt and its cost.
type InsightSection struct {
	Name   string `json:"name"`
	Tokens int    `json:"tokens"`
	Fixed  bool   `json:"fixed"`
}

// InsightCard is one triggered story card.
type InsightCard struct {
	ID       int64  `json:"id"`
	Title    string `json:"title"`
	Trigger  string `json:"trigger" jsonschema:"the key that named it; empty for a constant card"`
	Constant bool   `json:"constant,omitempty" jsonschema:"in without a key"`
	Tokens   int    `json:"tokens"`
	Included bool   `json:"included"`
}

// InsightMessage is one message of the exact prompt.
type InsightMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Usage is the provider's token accounting for one reply.
type Usage struct {
	PromptTokens       int `json:"prompt_tokens"`
	CompletionTokens   int `json:"completion_tokens"`
	CachedPromptTokens int `json:"cached_prompt_tokens"`
}

// Insights is the context breakdown and exact prompt of one narration.
type Insights struct {
	ActionID     int64            `json:"action_id"`
	Budget       int              `json:"budget"`
	TotalTokens  int              `json:"total_tokens"`
	Sections     []InsightSection `json:"sections"`
	Cards        []InsightCard    `json:"cards"`
	HistoryTurns int              `json:"history_turns"`
	Messages     []InsightMessage `json:"messages"`
	// Memories are the memories the prompt carried, each with the scorer
	// that chose it and its score.
	Memories []InsightMemory `json:"memories"`
	Usage    Usage           `json:"usage"`
	// Expired says retention dropped this turn's prompt snapshot: only the
	// usage is left.
	Expired bool `json:"expired"`
}

// InsightMemory is one memory a prompt carried.
type InsightMemory struct {
	ID   int64  `json:"id"`
	Text string `json:"text"`
	// Scorer is what chose it: "pinned", "bm25" (the built-in lexical
	// scorer) or "embedding" (cosine against the embedding model's vectors).
	Scorer string  `json:"scorer" jsonschema:"pinned, bm25 or embedding"`
	Score  float64 `json:"score"`
}

// FieldChange is one plot field that differs from the scenario.
type FieldChange struct {
	Field string `json:"field"`
	Old   string `json:"old"`
	New   string `json:"new"`
}

// CardChange is a card the scenario changed.
type CardChange struct {
	Old Card `json:"old"`
	New Card `json:"new"`
}

// RefreshDiff is what "update from scenario" would change.
type RefreshDiff struct {
	Fields            []FieldChange `json:"fields"`
	CardsAdded        []Card        `json:"cards_added"`
	CardsUpdated      []CardChange  `json:"cards_updated"`
	CardsRemoved      []Card        `json:"cards_removed"`
	StatePathsAdded   []string      `json:"state_paths_added"`
	StatePathsRemoved []string      `json:"state_paths_removed"`
}

// ProviderSettingsView is a user's model endpoint; the API key is write-only.
type ProviderSettingsView struct {
	BaseURL         string  `json:"base_url"`
	Model           string  `json:"model"`
	APIKeySet       bool    `json:"api_key_set"`
	ContextBudget   int     `json:"context_budget"`
	MaxOutputTokens int     `json:"max_output_tokens"`
	Temperature     float64 `json:"temperature"`
	TopP            float64 `json:"top_p"`
	// TokenRatio is what the endpoint's reported prompt tokens measured
	// against the offline tokenizer's estimate (smoothed); budgets are
	// divided by it. Read-only.
	TokenRatio     float64 `json:"token_ratio"`
	EmbeddingModel string  `json:"embedding_model"`
	MemoryTopK     int     `json:"memory_top_k"`
	MemoryCapacity int     `json:"memory_capacity"`
	// ReasoningEffort is sent as reasoning_effort to models that think;
	// "" sends none.
	ReasoningEffort string `json:"reasoning_effort" jsonschema:"empty (not sent), low, medium or high"`
	// Demo says whether the server's demo narrator is offered and whether
	// it serves this user (no key of their own, the default base URL).
	Demo *DemoView `json:"demo,omitempty"`
}

// ProviderSettingsInput changes a user's model endpoint. APIKey nil keeps the
// stored key, "" clears it, anything else replaces it.
type ProviderSettingsInput struct {
	BaseURL         string  `json:"base_url"`
	Model           string  `json:"model"`
	APIKey          *string `json:"api_key,omitempty"`
	ContextBudget   int     `json:"context_budget" jsonschema:"512 to 200000 tokens"`
	MaxOutputTokens int     `json:"max_output_tokens" jsonschema:"32 to 16000 tokens"`
	Temperature     float64 `json:"temperature" jsonschema:"0 to 2"`
	TopP            float64 `json:"top_p" jsonschema:"0 to 1"`
	// The memory bank: the embedding model ("" scores memories with the
	// built-in lexical scorer), how many memories a prompt carries and how
	// many stay remembered; 0 means the default.
	EmbeddingModel string `json:"embedding_model,omitempty" jsonschema:"up to 200 characters; empty for the built-in lexical scorer"`
	MemoryTopK     int    `json:"memory_top_k,omitempty" jsonschema:"1 to 20; 0 for the default 5"`
	MemoryCapacity int    `json:"memory_capacity,omitempty" jsonschema:"10 to 10000; 0 for the default 200"`
	// ReasoningEffort asks a model that thinks for an effort; absent or ""
	// sends none.
	ReasoningEffort string `json:"reasoning_effort,omitempty" jsonschema:"empty (not sent), low, medium or high"`
}

// TurnInput is the player's move.
type TurnInput struct {
	Mode string `json:"mode" jsonschema:"do, say, story or continue"`
	Text string `json:"text" jsonschema:"up to 4000 characters; empty only for continue"`
}

// TakeInput names the take to stand on.
type TakeInput struct {
	ActionID int64 `json:"action_id"`
}

// TextInput replaces a node's text.
type TextInput struct {
	Text string `json:"text"`
}

// ConsoleEntry is one line of an adventure's script console.
type ConsoleEntry struct {
	ID       int64  `json:"id"`
	ActionID *int64 `json:"action_id"`
	Hook     string `json:"hook"`
	Level    string `json:"level" jsonschema:"log, error or message"`
	Text     string `json:"text"`
	// Code and Params are set on a script failure the server wrote (code
	// script.error, as a turn's notice), for the web app to translate.
	Code      string            `json:"code,omitempty" jsonschema:"script.error on a script failure the server wrote; absent on a script's own lines"`
	Params    map[string]string `json:"params,omitempty" jsonschema:"the parameters of code: hook, kind, error; line (in the hook's script) and library_line (in the Library) when known"`
	CreatedAt time.Time         `json:"created_at"`
}

// Console is the newest part of an adventure's script console, oldest first.
type Console struct {
	Entries []ConsoleEntry `json:"entries"`
}

// BranchNameInput renames a branch.
type BranchNameInput struct {
	Name string `json:"name" jsonschema:"1 to 120 characters"`
}

func cardKeys(raw string) []string {
	var keys []string
	_ = json.Unmarshal([]byte(raw), &keys)
	if keys == nil {
		keys = []string{}
	}
	return keys
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only plain data is marshalled here
	}
	return string(b)
}

func scenarioCardView(c models.ScenarioCard) Card {
	return Card{ID: c.ID, CardInput: cardInput(c.Title, c.Keys, c.Entry, c.Type, c.CardRules)}
}

func adventureCardView(c models.AdventureCard) Card {
	return Card{ID: c.ID, CardInput: cardInput(c.Title, c.Keys, c.Entry, c.Type, c.CardRules)}
}

func cardInput(title, keys, entry, typ string, r models.CardRules) CardInput {
	in := CardInput{Title: title, Keys: cardKeys(keys), Entry: entry, Type: typ, Logic: r.Logic, Constant: r.Constant, Priority: r.Priority}
	if sec := cardKeys(r.SecondaryKeys); len(sec) > 0 {
		in.SecondaryKeys = sec
	}
	return in
}

// rules stores a card's rules: no secondary keys as [].
func (c CardInput) rules() models.CardRules {
	sec := c.SecondaryKeys
	if sec == nil {
		sec = []string{}
	}
	return models.CardRules{SecondaryKeys: mustJSON(sec), Logic: c.Logic, Constant: c.Constant, Priority: c.Priority}
}

// promptCard is an adventure card as the prompt builder matches it.
func promptCard(c models.AdventureCard) prompt.Card {
	return prompt.Card{ID: c.ID, Title: c.Title, Keys: cardKeys(c.Keys), SecondaryKeys: cardKeys(c.SecondaryKeys), Logic: c.Logic,
		Constant: c.Constant, Priority: c.Priority, Entry: c.Entry, Type: c.Type}
}

func promptCards(rows []models.AdventureCard) []prompt.Card {
	cards := make([]prompt.Card, len(rows))
	for i, c := range rows {
		cards[i] = promptCard(c)
	}
	return cards
}

func parseSchema(raw string) Schema {
	var s Schema
	_ = json.Unmarshal([]byte(raw), &s)
	if s == nil {
		s = Schema{}
	}
	return s
}

func parseState(raw string) State {
	var s State
	_ = json.Unmarshal([]byte(raw), &s)
	if s == nil {
		s = State{}
	}
	return s
}

func parseOutcomes(raw string) []Outcome {
	var o []Outcome
	_ = json.Unmarshal([]byte(raw), &o)
	if o == nil {
		o = []Outcome{}
	}
	return o
}
