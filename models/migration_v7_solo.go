package models

import (
	"time"

	"gorm.io/gorm"
)

// Solo adventures as version 7 created them. Frozen: never edit.

type providerSettingV7 struct {
	UserID          int64     `gorm:"primaryKey;autoIncrement:false"`
	User            *userV1   `gorm:"foreignKey:UserID;constraint:OnDelete:CASCADE"`
	BaseURL         string    `gorm:"size:500;not null"`
	Model           string    `gorm:"size:200;not null"`
	APIKeySealed    string    `gorm:"type:text;not null;default:''"`
	ContextBudget   int       `gorm:"not null"`
	MaxOutputTokens int       `gorm:"not null"`
	Temperature     float64   `gorm:"not null"`
	TopP            float64   `gorm:"not null"`
	TokenRatio      float64   `gorm:"not null;default:1"`
	UpdatedAt       time.Time `gorm:"not null"`
}

type scenarioV7 struct {
	ID             int64     `gorm:"primaryKey"`
	UserID         int64     `gorm:"not null;index"`
	User           *userV1   `gorm:"foreignKey:UserID;constraint:OnDelete:CASCADE"`
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

type scenarioCardV7 struct {
	ID         int64       `gorm:"primaryKey"`
	ScenarioID int64       `gorm:"not null;index"`
	Scenario   *scenarioV7 `gorm:"foreignKey:ScenarioID;constraint:OnDelete:CASCADE"`
	Position   int         `gorm:"not null"`
	Title      string      `gorm:"size:200;not null"`
	Keys       string      `gorm:"type:text;not null"`
	Entry      string      `gorm:"type:text;not null"`
	Type       string      `gorm:"size:40;not null"`
}

type adventureV7 struct {
	ID              int64       `gorm:"primaryKey"`
	UserID          int64       `gorm:"not null;index"`
	User            *userV1     `gorm:"foreignKey:UserID;constraint:OnDelete:CASCADE"`
	ScenarioID      *int64      `gorm:"index"`
	Scenario        *scenarioV7 `gorm:"foreignKey:ScenarioID;constraint:OnDelete:SET NULL"`
	Title           string      `gorm:"size:120;not null"`
	Premise         string      `gorm:"type:text;not null"`
	PlotEssentials  string      `gorm:"type:text;not null"`
	AIInstructions  string      `gorm:"type:text;not null"`
	AuthorsNote     string      `gorm:"type:text;not null"`
	StatSchema      string      `gorm:"type:text;not null"`
	PersonaName     string      `gorm:"size:120;not null"`
	PersonaPronouns string      `gorm:"size:60;not null"`
	PersonaDesc     string      `gorm:"type:text;not null"`
	Summary         string      `gorm:"type:text;not null"`
	HeadBranchID    int64       `gorm:"not null"`
	HeadDepth       int         `gorm:"not null"`
	// TurnToken claims the adventure for one generating turn; TurnStartedAt
	// lets a claim left by a crashed process expire.
	ScriptLibrary string     `gorm:"type:text;not null;default:''"`
	ScriptInput   string     `gorm:"type:text;not null;default:''"`
	ScriptContext string     `gorm:"type:text;not null;default:''"`
	ScriptOutput  string     `gorm:"type:text;not null;default:''"`
	TurnToken     string     `gorm:"size:40;not null;default:''"`
	TurnStartedAt *time.Time `gorm:""`
	CreatedAt     time.Time  `gorm:"not null"`
	UpdatedAt     time.Time  `gorm:"not null"`
}

type adventureCardV7 struct {
	ID             int64        `gorm:"primaryKey"`
	AdventureID    int64        `gorm:"not null;index"`
	Adventure      *adventureV7 `gorm:"foreignKey:AdventureID;constraint:OnDelete:CASCADE"`
	SourceCardID   *int64
	PlayerAuthored bool      `gorm:"not null;default:false"`
	Position       int       `gorm:"not null"`
	Title          string    `gorm:"size:200;not null"`
	Keys           string    `gorm:"type:text;not null"`
	Entry          string    `gorm:"type:text;not null"`
	Type           string    `gorm:"size:40;not null"`
	Description    string    `gorm:"type:text;not null;default:''"`
	CreatedAt      time.Time `gorm:"not null"`
	UpdatedAt      time.Time `gorm:"not null"`
}

type branchV7 struct {
	ID             int64        `gorm:"primaryKey"`
	AdventureID    int64        `gorm:"not null;index"`
	Adventure      *adventureV7 `gorm:"foreignKey:AdventureID;constraint:OnDelete:CASCADE"`
	ParentBranchID *int64       `gorm:"index"`
	Parent         *branchV7    `gorm:"foreignKey:ParentBranchID;constraint:OnDelete:CASCADE"`
	ForkDepth      int          `gorm:"not null"`
	Lineage        string       `gorm:"type:text;not null"`
	Name           string       `gorm:"size:120;not null"`
	CreatedAt      time.Time    `gorm:"not null"`
}

type actionV7 struct {
	ID                 int64        `gorm:"primaryKey"`
	AdventureID        int64        `gorm:"not null;index"`
	Adventure          *adventureV7 `gorm:"foreignKey:AdventureID;constraint:OnDelete:CASCADE"`
	BranchID           int64        `gorm:"not null;index:ix_actions_line,priority:1;uniqueIndex:uq_actions_live_coordinate,priority:1,where:live"`
	Branch             *branchV7    `gorm:"foreignKey:BranchID;constraint:OnDelete:CASCADE"`
	Depth              int          `gorm:"not null;index:ix_actions_line,priority:2;uniqueIndex:uq_actions_live_coordinate,priority:2,where:live"`
	ParentID           *int64       `gorm:"index"`
	Parent             *actionV7    `gorm:"foreignKey:ParentID;constraint:OnDelete:SET NULL"`
	Live               bool         `gorm:"not null"`
	Kind               string       `gorm:"size:16;not null;check:ck_actions_kind,kind IN ('opening','player','narration')"`
	Mode               string       `gorm:"size:16;not null;default:''"`
	Text               string       `gorm:"type:text;not null"`
	TokenCount         int          `gorm:"not null;default:0"`
	WorldStateAfter    string       `gorm:"type:text;not null"`
	ScriptStateAfter   string       `gorm:"type:text;not null;default:'{}'"`
	Outcomes           string       `gorm:"type:text;not null;default:'[]'"`
	FinishReason       string       `gorm:"size:32;not null;default:''"`
	Truncated          bool         `gorm:"not null;default:false"`
	PromptSnapshot     []byte       `gorm:""`
	PromptTokens       int          `gorm:"not null;default:0"`
	CompletionTokens   int          `gorm:"not null;default:0"`
	CachedPromptTokens int          `gorm:"not null;default:0"`
	CreatedAt          time.Time    `gorm:"not null"`
}

type scriptConsoleEntryV7 struct {
	ID          int64        `gorm:"primaryKey"`
	AdventureID int64        `gorm:"not null;index"`
	Adventure   *adventureV7 `gorm:"foreignKey:AdventureID;constraint:OnDelete:CASCADE"`
	ActionID    *int64
	Hook        string    `gorm:"size:16;not null"`
	Level       string    `gorm:"size:16;not null"`
	Text        string    `gorm:"type:text;not null"`
	CreatedAt   time.Time `gorm:"not null"`
}

func (scriptConsoleEntryV7) TableName() string { return "script_console_entries" }

func (providerSettingV7) TableName() string { return "provider_settings" }
func (scenarioV7) TableName() string        { return "scenarios" }
func (scenarioCardV7) TableName() string    { return "scenario_cards" }
func (adventureV7) TableName() string       { return "adventures" }
func (adventureCardV7) TableName() string   { return "adventure_cards" }
func (branchV7) TableName() string          { return "branches" }
func (actionV7) TableName() string          { return "actions" }

var migrationV7Solo = Migration{
	Version: 7,
	Name:    "solo",
	Up: func(tx *gorm.DB) error {
		return tx.Migrator().CreateTable(&providerSettingV7{}, &scenarioV7{}, &scenarioCardV7{}, &adventureV7{}, &adventureCardV7{}, &branchV7{}, &actionV7{}, &scriptConsoleEntryV7{})
	},
}
