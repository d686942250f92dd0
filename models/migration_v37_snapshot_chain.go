package models

import (
	"fmt"

	"gorm.io/gorm"
)

// The column as version 37 added it. Frozen: never edit.

type actionV37 struct {
	SnapshotBaseID *int64 `gorm:"index"`
}

func (actionV37) TableName() string { return "actions" }

// migrationV37SnapshotChain records which snapshot a turn's prompt
// snapshot was compressed against, so a delta's chain is read in one query
// and the turns that lean on a snapshot are found before it goes.
var migrationV37SnapshotChain = Migration{
	Version: 37,
	Name:    "snapshot_chain",
	Up: func(tx *gorm.DB) error {
		if err := tx.Migrator().AddColumn(&actionV37{}, "SnapshotBaseID"); err != nil {
			return fmt.Errorf("add actions.snapshot_base_id: %w", err)
		}
		return tx.Migrator().CreateIndex(&actionV37{}, "SnapshotBaseID")
	},
}
