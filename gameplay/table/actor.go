// Package table holds the rules of the multiplayer table: rooms, access,
// campaigns, seats, characters and sessions. Every function takes the
// caller an edge authenticated and resolves the Actor from canonical rows
// inside its own transaction, so the browser routes and (later) the MCP
// tools share one authorization path.
package table

import (
	"context"
	"time"

	"github.com/adventure-table/adventure-table/gameplay/analytics"
	"github.com/adventure-table/adventure-table/models"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// Actor kinds.
const (
	ActorHuman = "human"
	ActorAI    = "ai"
)

// Gameplay roles an actor holds in a campaign.
const (
	RoleDM        = "dm"
	RolePlayer    = "player"
	RoleSpectator = "spectator"
)

// Caller is who an edge authenticated: a browser user, or an AI grant whose
// token the edge checked. It claims nothing about rooms or seats; those are
// resolved from the database on every call.
type Caller struct {
	UserID  int64
	GrantID int64
	// grant is the grant row AuthenticateGrant verified in this request,
	// read at the store's AuthorityGeneration grantGeneration: resolving
	// the actor uses it instead of reading it again until any authority
	// change (binding, revoking, a new controller) is committed.
	grant           *models.AIControllerGrant
	grantGeneration int64
}

// callerKey identifies a caller across requests (without the grant row).
type callerKey struct{ user, grant int64 }

func (c Caller) key() callerKey { return callerKey{c.UserID, c.GrantID} }

// withoutGrantRow is the caller whose grant is read afresh when resolved
// (a long wait resolves again after the row it started with may be stale).
func (c Caller) withoutGrantRow() Caller { return Caller{UserID: c.UserID, GrantID: c.GrantID} }

// Human returns the caller for a browser user.
func Human(userID int64) Caller { return Caller{UserID: userID} }

// AI returns the caller for an authenticated AI grant.
func AI(grantID int64) Caller { return Caller{GrantID: grantID} }

// Actor is the resolved table identity (the seed's TableActorContext).
type Actor struct {
	Kind            string
	UserID          int64
	AccessSessionID int64
	// GrantID and Generation identify an AI actor; GrantSessionID is the
	// session its grant is bound to (nil for a pre-session DM grant).
	GrantID        int64
	Generation     int64
	GrantSessionID *int64
	// Authority is the human room-management right (owner, dm, member).
	Authority  string
	RoomID     int64
	CampaignID int64
	SessionID  int64
	SeatID     int64
	Role       string
	// SessionOver marks an AI actor whose session has ended: it may read
	// the events up to the end and nothing else.
	SessionOver bool
	// TemporaryInstruction is an AI actor's guidance from the seat's
	// owner, read with its grant.
	TemporaryInstruction string
}

func (a Actor) isOwner() bool { return a.Kind == ActorHuman && a.Authority == models.AuthorityOwner }

// hasRoomAuthority is the owner or a DM-key holder: they manage campaigns
// and seats. It grants no gameplay writes.
func (a Actor) hasRoomAuthority() bool {
	return a.Kind == ActorHuman && (a.Authority == models.AuthorityOwner || a.Authority == models.AuthorityDM)
}

// Service is the table application service.
type Service struct {
	store    *models.Store
	now      func() time.Time
	notifier *Notifier
	// fail, when set by a test, injects a failure at a named point inside
	// a transaction, to prove the transaction is all or nothing.
	fail func(point string) error
	// presence throttles the last-seen writes of the long poll.
	presence *presenceThrottle
	// grants keeps verified grant rows between an agent's calls.
	grants verifiedGrants
	// memory is the campaign memory's model and worker (campaign_memory.go).
	memory memoryState
	// analytics counts sessions and what people make, anonymously; nil
	// counts nothing.
	analytics *analytics.Counter
}

// New builds the service.
func New(store *models.Store, now func() time.Time) *Service {
	if now == nil {
		now = func() time.Time { return timeNow() }
	}
	s := &Service{store: store, now: func() time.Time { return now().UTC() }, notifier: newNotifier(store), presence: newPresenceThrottle()}
	s.memory.wake = make(chan struct{}, 1)
	s.memory.processID = randomHex(8)
	s.notifier.afterCommit = s.wakeMemory
	return s
}

// Notifier returns the service's event notifier.
func (s *Service) Notifier() *Notifier { return s.notifier }

// failpoint returns the injected failure for point, if a test set one.
// UseAnalytics sets the counter of the table's sessions and of what people
// make (rooms, characters); call it before serving.
func (s *Service) UseAnalytics(c *analytics.Counter) { s.analytics = c }

func (s *Service) failpoint(point string) error {
	if s.fail == nil {
		return nil
	}
	return s.fail(point)
}

// roomActor resolves the caller's identity in a room. Someone with no access
// session there gets not_found for what (the thing they asked about), the
// same answer as for something that does not exist. Returns
// room_access_revoked for a revoked access session.
func roomActor(ctx context.Context, tx *models.Store, c Caller, roomID int64, what string) (Actor, error) {
	return actorAmong(ctx, tx, c, roomID, what, nil)
}

// actorAmong is roomActor when the seats of a campaign were already read:
// an AI caller's seat is taken from them when it is there.
func actorAmong(ctx context.Context, tx *models.Store, c Caller, roomID int64, what string, seats []models.CampaignSeat) (Actor, error) {
	if c.GrantID != 0 {
		return aiActor(ctx, tx, c, roomID, what, seats)
	}
	if c.UserID == 0 {
		return Actor{}, apperr.E(apperr.Unauthorized, "Sign in first.")
	}
	a, err := tx.FindAccessSession(ctx, roomID, c.UserID, false)
	if apperr.CodeOf(err) == apperr.NotFound {
		return Actor{}, notFound(what)
	}
	if err != nil {
		return Actor{}, err
	}
	if a.Status != models.AccessActive {
		return Actor{}, apperr.E(apperr.RoomAccessRevoked, "Your access to this room was revoked.")
	}
	return Actor{Kind: ActorHuman, UserID: c.UserID, AccessSessionID: a.ID, Authority: a.Authority, RoomID: roomID, Role: RoleSpectator}, nil
}

// withSeats fills the actor's campaign role from the campaign's seats.
func (a Actor) withSeats(campaignID int64, seats []models.CampaignSeat) Actor {
	a.CampaignID, a.Role, a.SeatID = campaignID, RoleSpectator, 0
	for _, s := range seats {
		if s.CampaignID != campaignID || !controls(a, s) {
			continue
		}
		if s.Role == models.SeatDM {
			a.Role, a.SeatID = RoleDM, s.ID
			return a
		}
		if a.Role == RoleSpectator {
			a.Role, a.SeatID = RolePlayer, s.ID
		}
	}
	return a
}

// controls reports whether the actor is the seat's current controller: a
// human by access session, an AI by grant id and the epoch it was minted at.
func controls(a Actor, s models.CampaignSeat) bool {
	switch a.Kind {
	case ActorHuman:
		return s.ControllerKind == models.ControllerHuman && s.ControllerAccessSessionID != nil && *s.ControllerAccessSessionID == a.AccessSessionID
	case ActorAI:
		return s.ControllerKind == models.ControllerAI && s.AIControllerGrantID != nil && *s.AIControllerGrantID == a.GrantID &&
			s.ControllerEpoch == a.Generation
	}
	return false
}

func notFound(what string) error {
	return apperr.E(apperr.NotFound, "The %s does not exist.", what)
}

func requireRoomAuthority(a Actor) error {
	if !a.hasRoomAuthority() {
		return apperr.E(apperr.RoomAuthorityRequired, "Only the room owner or a DM-key holder can do this.")
	}
	return nil
}

func requireOwner(a Actor) error {
	if !a.isOwner() {
		return apperr.E(apperr.RoomOwnerRequired, "Only the room owner can do this.")
	}
	return nil
}
