package table_test

import (
	"errors"
	"testing"

	"github.com/adventure-table/adventure-table/gameplay/table/tabletest"
)

// A deletion is one transaction: a failure after the person's seats were
// released and before their row goes leaves everything as it was, the
// seat still theirs.
func TestDeleteUserIsAtomic(t *testing.T) {
	svc, store := newService(t)
	f := tabletest.New(t, svc)
	// The DM key holder runs the session from the DM seat.
	_, err := svc.AssignSeat(ctx, f.Owner, f.DMSeatID, f.DMKeyAccess)
	tabletest.Must(t, err)
	_, err = svc.StartSession(ctx, f.DMKey, f.LobbyID)
	tabletest.Must(t, err)
	before, err := store.TableCounts(ctx)
	tabletest.Must(t, err)
	boom := errors.New("injected")
	svc.SetFailpoint(func(point string) error {
		if point == "delete_user.released" {
			return boom
		}
		return nil
	})
	if _, err := svc.DeleteUser(ctx, f.DMKey.UserID, nil); !errors.Is(err, boom) {
		t.Fatalf("delete with a failure midway: %v, want the injected failure", err)
	}
	svc.SetFailpoint(nil)
	after, err := store.TableCounts(ctx)
	tabletest.Must(t, err)
	for table, n := range before {
		if after[table] != n {
			t.Errorf("%s: %d rows → %d after a failed deletion", table, n, after[table])
		}
	}
	room, err := svc.GetRoom(ctx, f.Owner, f.RoomID)
	tabletest.Must(t, err)
	for _, seat := range room.Campaigns[0].Seats {
		if seat.ID == f.DMSeatID && (seat.ControllerAccessID == nil || *seat.ControllerAccessID != f.DMKeyAccess) {
			t.Errorf("the DM seat was released by a deletion that failed: %+v", seat)
		}
	}
	// Without the failure it goes through, and only the seat is released.
	if deleted, err := svc.DeleteUser(ctx, f.DMKey.UserID, nil); err != nil || !deleted {
		t.Fatalf("delete: %v, %v", deleted, err)
	}
}
