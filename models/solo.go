package models

import (
	"time"
)

// ProviderSetting is one user's model endpoint for solo play. The API key is
// stored sealed (see auth.SealAPIKey); no response ever carries it.
type ProviderSetting struct {
	UserID          int64   `gorm:"primaryKey;autoIncrement:false"`
	User            *User   `gorm:"foreignKey:UserID;constraint:OnDelete:CASCADE"`
	BaseURL         string  `gorm:"size:500;not null"`
	Model           string  `gorm:"size:200;not null"`
	APIKeySealed    string  `gorm:"type:text;not null;default:''"`
	ContextBudget   int     `gorm:"not null"`
	MaxOutputTokens int     `gorm:"not null"`
	Temperature     float64 `gorm:"not null"`
	TopP            float64 `gorm:"not null"`
	// TokenRatio calibrates the offline tokenizer against the prompt tokens
	// the endpoint reports (reported / estimated, smoothed).
	TokenRatio float64 `gorm:"not null;default:1"`
	// EmbeddingModel, when set, embeds the memory bank through the same
	// endpoint; "" scores memories with the built-in lexical scorer.
	EmbeddingModel string `gorm:"size:200;not null;default:''"`
	// MemoryTopK is how many memories a prompt carries (pinned included);
	// MemoryCapacity how many stay remembered before the least used are
	// forgotten.
	MemoryTopK     int `gorm:"not null;default:5"`
	MemoryCapacity int `gorm:"not null;default:200"`
	// ReasoningEffort is sent to the endpoint as reasoning_effort (low,
	// medium or high) for models that think; "" sends nothing.
	ReasoningEffort string    `gorm:"size:16;not null;default:''"`
	UpdatedAt       time.Time `gorm:"not null"`
}

// Scenario is a template a user writes: the premise, the plot fields, the
// stat schema (JSON) and, in ScenarioCard, its story cards.
type Scenario struct {
	ID             int64     `gorm:"primaryKey"`
	UserID         int64     `gorm:"not null;index"`
	User           *User     `gorm:"foreignKey:UserID;constraint:OnDelete:CASCADE"`
	Title          string    `gorm:"size:120;not null"`
	Premise        string    `gorm:"type:text;not null"`
	PlotEssentials string    `gorm:"type:text;not null"`
	AIInstructions string    `gorm:"type:text;not null"`
	AuthorsNote    string    `gorm:"type:text;not null"`
	Opening        string    `gorm:"type:text;not null"`
	StatSchema     string    `gorm:"type:text;not null"`
	ScriptLibrary  string    `gorm:"type:text;not null;default:''"`
	ScriptInput    string    `gorm:"type:text;not null;default:''"`
	ScriptContext  string    `gorm:"type:text;not null;default:''"`
	ScriptOutput   string    `gorm:"type:text;not null;default:''"`
	CreatedAt      time.Time `gorm:"not null"`
	UpdatedAt      time.Time `gorm:"not null"`
}

// ScenarioCard is a story card of a scenario. Keys is a JSON array of strings.
type ScenarioCard struct {
	ID         int64     `gorm:"primaryKey"`
	ScenarioID int64     `gorm:"not null;index"`
	Scenario   *Scenario `gorm:"foreignKey:ScenarioID;constraint:OnDelete:CASCADE"`
	Position   int       `gorm:"not null"`
	Title      string    `gorm:"size:200;not null"`
	Keys       string    `gorm:"type:text;not null"`
	Entry      string    `gorm:"type:text;not null"`
	Type       string    `gorm:"size:40;not null"`
	CardRules
}

// CardRules are how a story card fires, as lorebooks have them: secondary
// keys (a JSON array of strings) and the logic they pass (and_any, and_all,
// not_any, not_all), a constant card (in without a key) and a priority
// (lore order, lower first; higher wins a short budget). The defaults fire
// on any key, as every card did before they existed.
type CardRules struct {
	SecondaryKeys string `gorm:"type:text;not null;default:'[]'"`
	Logic         string `gorm:"size:16;not null;default:''"`
	Constant      bool   `gorm:"not null;default:false"`
	Priority      int    `gorm:"not null;default:0"`
}

// Adventure is one playthrough. Creating it copies the scenario's plot fields,
// stat schema and cards, so editing the scenario never changes a game in
// progress. The current world state is not stored here: it is the
// world_state_after of the head node, so undo, retry and switching lines are
// one read.
type Adventure struct {
	ID              int64     `gorm:"primaryKey"`
	UserID          int64     `gorm:"not null;index"`
	User            *User     `gorm:"foreignKey:UserID;constraint:OnDelete:CASCADE"`
	ScenarioID      *int64    `gorm:"index"`
	Scenario        *Scenario `gorm:"foreignKey:ScenarioID;constraint:OnDelete:SET NULL"`
	Title           string    `gorm:"size:120;not null"`
	Premise         string    `gorm:"type:text;not null"`
	PlotEssentials  string    `gorm:"type:text;not null"`
	AIInstructions  string    `gorm:"type:text;not null"`
	AuthorsNote     string    `gorm:"type:text;not null"`
	StatSchema      string    `gorm:"type:text;not null"`
	PersonaName     string    `gorm:"size:120;not null"`
	PersonaPronouns string    `gorm:"size:60;not null"`
	PersonaDesc     string    `gorm:"type:text;not null"`
	Summary         string    `gorm:"type:text;not null"`
	HeadBranchID    int64     `gorm:"not null"`
	HeadDepth       int       `gorm:"not null"`
	ScriptLibrary   string    `gorm:"type:text;not null;default:''"`
	ScriptInput     string    `gorm:"type:text;not null;default:''"`
	ScriptContext   string    `gorm:"type:text;not null;default:''"`
	ScriptOutput    string    `gorm:"type:text;not null;default:''"`
	// TurnToken claims the adventure for one generating turn: the holding
	// process's id, a dot, and a nonce. TurnHeartbeatAt (stored in the
	// column turn_started_at, named when claims never moved) is renewed
	// while the turn runs, so a claim whose process died goes stale.
	TurnToken       string     `gorm:"size:40;not null;default:''"`
	TurnHeartbeatAt *time.Time `gorm:"column:turn_started_at"`
	// TurnStop is the claim token a Stop was asked for (RequestTurnStop):
	// the holding process, wherever it runs, sees it at its next heartbeat,
	// or at once through a NOTIFY on PostgreSQL.
	TurnStop  string    `gorm:"size:40;not null;default:''"`
	CreatedAt time.Time `gorm:"not null"`
	UpdatedAt time.Time `gorm:"not null"`
}

// AdventureCard is an adventure's own copy of a story card. SourceCardID
// names the scenario card it was copied from; player-authored cards have none
// and are never touched by "update from scenario".
type AdventureCard struct {
	ID             int64      `gorm:"primaryKey"`
	AdventureID    int64      `gorm:"not null;index"`
	Adventure      *Adventure `gorm:"foreignKey:AdventureID;constraint:OnDelete:CASCADE"`
	SourceCardID   *int64
	PlayerAuthored bool   `gorm:"not null;default:false"`
	Position       int    `gorm:"not null"`
	Title          string `gorm:"size:200;not null"`
	Keys           string `gorm:"type:text;not null"`
	Entry          string `gorm:"type:text;not null"`
	Type           string `gorm:"size:40;not null"`
	Description    string `gorm:"type:text;not null;default:''"`
	CardRules
	// Disabled sets the card aside: it never enters a prompt, and the
	// scripts do not see it.
	Disabled bool `gorm:"not null;default:false"`
	// OriginActionID is the node whose turn created the card (a script's
	// addition); such a card belongs to the lines that node is live on. A
	// card without one (the scenario's, or an older one) is on every line.
	OriginActionID *int64    `gorm:"index"`
	CreatedAt      time.Time `gorm:"not null"`
	UpdatedAt      time.Time `gorm:"not null"`
}

// Branch is one line of an adventure. It stores no story of its own above
// ForkDepth: Lineage is the cached ancestry as a JSON array of
// [branch_id, max_depth] pairs, so reading a line is one query of OR-clauses.
type Branch struct {
	ID             int64      `gorm:"primaryKey"`
	AdventureID    int64      `gorm:"not null;index"`
	Adventure      *Adventure `gorm:"foreignKey:AdventureID;constraint:OnDelete:CASCADE"`
	ParentBranchID *int64     `gorm:"index"`
	Parent         *Branch    `gorm:"foreignKey:ParentBranchID;constraint:OnDelete:CASCADE"`
	ForkDepth      int        `gorm:"not null"`
	Lineage        string     `gorm:"type:text;not null"`
	Name           string     `gorm:"size:120;not null"`
	CreatedAt      time.Time  `gorm:"not null"`
}

// Action kinds.
const (
	ActionOpening   = "opening"
	ActionPlayer    = "player"
	ActionNarration = "narration"
)

// Action is one node of the story tree. Depth is a position along a path;
// takes of one turn share ParentID; at most one take is live per
// (branch, depth). WorldStateAfter and ScriptStateAfter are the state as this
// node leaves it, so a rewind is a read of the node in front.
// PromptSnapshot (compressed JSON, see narrative's snapshots.go) is read
// only by Insights.
type Action struct {
	ID               int64      `gorm:"primaryKey"`
	AdventureID      int64      `gorm:"not null;index"`
	Adventure        *Adventure `gorm:"foreignKey:AdventureID;constraint:OnDelete:CASCADE"`
	BranchID         int64      `gorm:"not null;index:ix_actions_line,priority:1;uniqueIndex:uq_actions_live_coordinate,priority:1,where:live"`
	Branch           *Branch    `gorm:"foreignKey:BranchID;constraint:OnDelete:CASCADE"`
	Depth            int        `gorm:"not null;index:ix_actions_line,priority:2;uniqueIndex:uq_actions_live_coordinate,priority:2,where:live"`
	ParentID         *int64     `gorm:"index"`
	Parent           *Action    `gorm:"foreignKey:ParentID;constraint:OnDelete:SET NULL"`
	Live             bool       `gorm:"not null"`
	Kind             string     `gorm:"size:16;not null;check:ck_actions_kind,kind IN ('opening','player','narration')"`
	Mode             string     `gorm:"size:16;not null;default:''"`
	Text             string     `gorm:"type:text;not null"`
	TokenCount       int        `gorm:"not null;default:0"`
	WorldStateAfter  string     `gorm:"type:text;not null"`
	ScriptStateAfter string     `gorm:"type:text;not null;default:'{}'"`
	Outcomes         string     `gorm:"type:text;not null;default:'[]'"`
	FinishReason     string     `gorm:"size:32;not null;default:''"`
	Truncated        bool       `gorm:"not null;default:false"`
	// Stopped says the player stopped the narration mid-stream: Text is
	// what had arrived by then.
	Stopped        bool   `gorm:"not null;default:false"`
	PromptSnapshot []byte `gorm:""`
	// SnapshotBaseID is the turn whose snapshot PromptSnapshot is a delta
	// against (nil for a keyframe or an old zlib snapshot).
	SnapshotBaseID     *int64 `gorm:"index"`
	PromptTokens       int    `gorm:"not null;default:0"`
	CompletionTokens   int    `gorm:"not null;default:0"`
	CachedPromptTokens int    `gorm:"not null;default:0"`
	// SnapshotExpired says retention dropped PromptSnapshot.
	SnapshotExpired bool      `gorm:"not null;default:false"`
	CreatedAt       time.Time `gorm:"not null"`
}

// ScriptConsoleEntry is one line of an adventure's script console: a log()
// call or a script failure, shown to the player who owns the adventure.
type ScriptConsoleEntry struct {
	ID          int64      `gorm:"primaryKey"`
	AdventureID int64      `gorm:"not null;index"`
	Adventure   *Adventure `gorm:"foreignKey:AdventureID;constraint:OnDelete:CASCADE"`
	ActionID    *int64
	Hook        string    `gorm:"size:16;not null"`
	Level       string    `gorm:"size:16;not null"`
	Text        string    `gorm:"type:text;not null"`
	CreatedAt   time.Time `gorm:"not null"`
}
