package gameplay

import (
	"context"

	"github.com/adventure-table/adventure-table/models"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// Health is what the server reports about itself.
type Health struct {
	Status        string         `json:"status" jsonschema:"ok when the database answers"`
	Mode          string         `json:"mode" jsonschema:"local or hosted"`
	Version       string         `json:"version" jsonschema:"build version of the server"`
	SchemaVersion int            `json:"schema_version" jsonschema:"schema version stored in the database"`
	Database      DatabaseHealth `json:"database"`
}

// DatabaseHealth describes the database without naming where it lives.
type DatabaseHealth struct {
	Dialect   string `json:"dialect" jsonschema:"sqlite or postgres"`
	Reachable bool   `json:"reachable"`
}

// Health pings the database and reads its schema version. version is the
// build version, which only the binary knows. Returns database_unavailable
// when the database does not answer or its schema is not the one this build
// writes.
func (s *Services) Health(ctx context.Context, version string) (Health, error) {
	if err := s.store.Ping(ctx); err != nil {
		return Health{}, err
	}
	v, err := s.store.SchemaVersion(ctx)
	if err != nil {
		if apperr.IsCanceled(err) {
			return Health{}, err
		}
		return Health{}, apperr.Wrap(err, apperr.DatabaseUnavailable, "The database schema cannot be read.")
	}
	if v != models.LatestVersion() {
		return Health{}, apperr.E(apperr.DatabaseUnavailable, "The database is at schema version %d; this build needs %d.", v, models.LatestVersion()).
			WithDetail("schema_version", v).WithDetail("want_schema_version", models.LatestVersion())
	}
	return Health{
		Status:        "ok",
		Mode:          s.mode,
		Version:       version,
		SchemaVersion: v,
		Database:      DatabaseHealth{Dialect: string(s.store.Dialect()), Reachable: true},
	}, nil
}

// Capabilities are the features this build offers, so clients can show or
// hide areas without guessing. A flag turns true only when the feature works:
// the edge that serves the routes computes each flag from what it mounted
// (webui's capabilityTags), never from a constant.
type Capabilities struct {
	Table     bool `json:"table" jsonschema:"rooms, campaigns, seats, characters and sessions for humans"`
	AIActor   bool `json:"ai_actor" jsonschema:"AI agents can hold a seat through MCP"`
	Solo      bool `json:"solo" jsonschema:"solo narrated adventures"`
	Scripting bool `json:"scripting" jsonschema:"AI Dungeon compatible scripts"`
	Combat    bool `json:"combat" jsonschema:"combat tracker"`
	Timeline  bool `json:"timeline" jsonschema:"campaign timeline"`
	MCP       bool `json:"mcp" jsonschema:"the MCP endpoint is mounted"`
	APIDocs   bool `json:"api_docs" jsonschema:"interactive API docs at /api/docs"`
	Accounts  bool `json:"accounts" jsonschema:"the web app offers registration and login (hosted mode); the account routes answer in every mode"`
}
