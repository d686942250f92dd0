package narrator

import (
	"testing"

	"github.com/adventure-table/adventure-table/gameplay/table"
)

// TestReadable: what of a narration being written the table may read. A
// DM's words that name a DC are never shown (not even the part before it:
// the draft comes down), a fenced action block is cut off, and a companion
// (who never learns a DC) is shown as written.
func TestReadable(t *testing.T) {
	dm := table.NarratorSeat{}
	dm.Role = table.RoleDM
	player := table.NarratorSeat{}
	player.Role = table.RolePlayer
	for _, c := range []struct {
		seat table.NarratorSeat
		text string
		want string
		ok   bool
	}{
		{dm, "The door creaks ", "The door creaks", true},
		{dm, "The lock is DC 15 to pick.", "", false},
		{dm, "The lock is dc15", "", false},
		{dm, "The guard nods.\n```action\n{\"tool\":\"fight\"", "The guard nods.", true},
		{player, "I try the lock.", "I try the lock.", true},
	} {
		got, ok := readable(c.seat, c.text)
		if got != c.want || ok != c.ok {
			t.Errorf("readable(%s, %q) = %q, %v; want %q, %v", c.seat.Role, c.text, got, ok, c.want, c.ok)
		}
	}
}
