package models_test

import (
	"context"
	"testing"
	"time"

	"github.com/adventure-table/adventure-table/models"
	"github.com/adventure-table/adventure-table/models/modelstest"
)

// TestSeatBindingChecks writes invalid controller bindings straight into
// the database: the named CHECK constraints refuse every one.
func TestSeatBindingChecks(t *testing.T) {
	ctx := context.Background()
	s := modelstest.MustOpen(t)
	now := time.Now()
	u := &models.User{DisplayName: "Owner", CreatedAt: now}
	must(t, s.CreateUser(ctx, u))
	room := &models.Room{OwnerUserID: u.ID, Name: "R", InviteCode: "code", CreatedAt: now}
	owner := &models.RoomAccessSession{UserID: u.ID, Authority: "owner", Status: "active", CreatedAt: now}
	must(t, s.CreateRoom(ctx, room, owner))
	camp := &models.Campaign{RoomID: room.ID, Name: "C", Status: "active", CreatedAt: now}
	seat := &models.CampaignSeat{Role: "dm", Label: "DM", ControllerKind: "none", CreatedAt: now}
	must(t, s.CreateCampaign(ctx, camp, seat))

	bad := []struct {
		name, sql string
		args      []any
	}{
		{"HumanWithoutAccessSession", "UPDATE campaign_seats SET controller_kind = 'human' WHERE id = ?", []any{seat.ID}},
		{"HumanWithGrant", "UPDATE campaign_seats SET controller_kind = 'human', controller_access_session_id = ?, ai_controller_grant_id = 7 WHERE id = ?", []any{owner.ID, seat.ID}},
		{"AIWithoutGrant", "UPDATE campaign_seats SET controller_kind = 'ai' WHERE id = ?", []any{seat.ID}},
		{"AIWithAccessSession", "UPDATE campaign_seats SET controller_kind = 'ai', ai_controller_grant_id = 7, controller_access_session_id = ? WHERE id = ?", []any{owner.ID, seat.ID}},
		{"NoneWithAccessSession", "UPDATE campaign_seats SET controller_access_session_id = ? WHERE id = ?", []any{owner.ID, seat.ID}},
		{"NoneWithGrant", "UPDATE campaign_seats SET ai_controller_grant_id = 7 WHERE id = ?", []any{seat.ID}},
		{"UnknownKind", "UPDATE campaign_seats SET controller_kind = 'robot' WHERE id = ?", []any{seat.ID}},
		{"NegativeEpoch", "UPDATE campaign_seats SET controller_epoch = -1 WHERE id = ?", []any{seat.ID}},
		{"SecondDMSeat", "INSERT INTO campaign_seats (campaign_id, role, label, controller_kind, controller_epoch, created_at) VALUES (?, 'dm', 'DM2', 'none', 0, ?)", []any{camp.ID, now}},
		{"SessionHumanSnapshotWithoutAccess", "INSERT INTO sessions (room_id, campaign_id, dm_seat_id, status, dm_controller_kind, created_at) VALUES (?, ?, ?, 'active', 'human', ?)", []any{room.ID, camp.ID, seat.ID, now}},
		{"SessionAISnapshotWithoutGeneration", "INSERT INTO sessions (room_id, campaign_id, dm_seat_id, status, dm_controller_kind, dm_controller_ai_grant_id, created_at) VALUES (?, ?, ?, 'active', 'ai', 3, ?)", []any{room.ID, camp.ID, seat.ID, now}},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			if err := s.InsertRawForTest(ctx, tt.sql, tt.args...); err == nil {
				t.Fatal("the database accepted an invalid binding")
			}
		})
	}
	// The valid bindings pass, so the checks are not simply refusing all.
	must(t, s.InsertRawForTest(ctx, "UPDATE campaign_seats SET controller_kind = 'human', controller_access_session_id = ? WHERE id = ?", owner.ID, seat.ID))
	must(t, s.InsertRawForTest(ctx, "UPDATE campaign_seats SET controller_kind = 'ai', controller_access_session_id = NULL, ai_controller_grant_id = 7 WHERE id = ?", seat.ID))
	must(t, s.InsertRawForTest(ctx, "UPDATE campaign_seats SET controller_kind = 'none', ai_controller_grant_id = NULL WHERE id = ?", seat.ID))
	// SetSeatController cannot write an invalid binding either.
	if _, err := s.SetSeatController(ctx, seat.ID, models.SeatController{Kind: "human"}); err == nil {
		t.Fatal("SetSeatController wrote a human binding without access session")
	}
}

func TestCharacterChecks(t *testing.T) {
	ctx := context.Background()
	s := modelstest.MustOpen(t)
	u := &models.User{DisplayName: "P", CreatedAt: time.Now()}
	must(t, s.CreateUser(ctx, u))
	for name, mutate := range map[string]func(*models.Character){
		"Level21":      func(c *models.Character) { c.Level = 21 },
		"Score31":      func(c *models.Character) { c.Wis = 31 },
		"HPAboveMax":   func(c *models.Character) { c.HPCurrent = c.HPMax + 1 },
		"NegativeTemp": func(c *models.Character) { c.HPTemp = -1 },
	} {
		t.Run(name, func(t *testing.T) {
			c := &models.Character{OwnerUserID: u.ID, Name: "X", Level: 1, Str: 10, Dex: 10, Con: 10, Int: 10, Wis: 10, Cha: 10,
				HPMax: 5, HPCurrent: 5, CreatedAt: time.Now(), UpdatedAt: time.Now()}
			mutate(c)
			if err := s.CreateCharacter(ctx, c); err == nil {
				t.Fatal("the database accepted an invalid character")
			}
		})
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
