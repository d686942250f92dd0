package table

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/adventure-table/adventure-table/auth"
	"github.com/adventure-table/adventure-table/gameplay/analytics"
	"github.com/adventure-table/adventure-table/gameplay/oneread"
	"github.com/adventure-table/adventure-table/models"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// PreSessionGrantTTL bounds a pre-session AI DM grant: it must start its
// session within this time or be minted again. Never unlimited.
const PreSessionGrantTTL = 12 * time.Hour

// EventControllerChanged announces a seat's new controller (never with a
// temporary instruction).
const EventControllerChanged = "controller.changed"

// MaxInstructionLength bounds a handoff's temporary instruction.
const MaxInstructionLength = 2000

// GrantView describes a grant without its secret.
type GrantView struct {
	ID                  int64      `json:"id"`
	DisplayPrefix       string     `json:"display_prefix"`
	SeatID              int64      `json:"seat_id"`
	Role                string     `json:"role" jsonschema:"dm or player"`
	SessionID           *int64     `json:"session_id"`
	Status              string     `json:"status"`
	PreSessionExpiresAt *time.Time `json:"pre_session_expires_at"`
	CreatedAt           time.Time  `json:"created_at"`
	LastSeenAt          *time.Time `json:"last_seen_at"`
}

// MintedGrant is a new grant with its token, shown this once and never again.
type MintedGrant struct {
	Token string    `json:"token" jsonschema:"the bearer token; shown once, store it now"`
	Grant GrantView `json:"grant"`
}

// HandoffInput hands a player seat to an AI.
type HandoffInput struct {
	TemporaryInstruction string `json:"temporary_instruction,omitempty" jsonschema:"private guidance for the AI while it holds the seat"`
}

func grantView(g *models.AIControllerGrant) GrantView {
	return GrantView{ID: g.ID, DisplayPrefix: g.DisplayPrefix, SeatID: g.SeatID, Role: g.Role, SessionID: g.SessionID, Status: g.Status,
		PreSessionExpiresAt: g.PreSessionExpiresAt, CreatedAt: g.CreatedAt, LastSeenAt: g.LastSeenAt}
}

// AuthenticateGrant checks a bearer token: it names a grant whose secret
// matches (constant time), which is active and, for a pre-session grant,
// not expired. The grant's row is read once and kept while no authority
// change is committed anywhere (verifiedGrants). Whether the grant still
// controls its seat is checked again by every call (aiActor), from the
// seats read for it, never cached. It also records presence. Returns
// ai_token_invalid, ai_token_revoked, ai_token_expired.
func (s *Service) AuthenticateGrant(ctx context.Context, token string) (Caller, error) {
	publicID, secret, ok := auth.ParseGrantToken(token)
	if !ok {
		return Caller{}, apperr.E(apperr.AITokenInvalid, "This token is not valid for this server.")
	}
	generation := s.store.AuthorityGeneration()
	g, kept := s.grants.get(publicID, generation, time.Now())
	if !kept {
		// The calls of one agent miss together (its row's trust ends for
		// all of them at once, and a wake answers them all): one reads and
		// the others share its row.
		var err error
		g, err = oneread.Do(&s.grants.loading, ctx, fmt.Sprintf("%s/%d", publicID, generation), func(rctx context.Context) (*models.AIControllerGrant, error) {
			if err := s.failpoint("grant.read"); err != nil {
				return nil, err
			}
			g, err := s.store.FindGrantByPublicID(rctx, publicID)
			if err == nil {
				s.grants.put(publicID, g, generation, time.Now().Add(verifiedGrantTTL))
			}
			return g, err
		})
		if apperr.CodeOf(err) == apperr.NotFound {
			return Caller{}, apperr.E(apperr.AITokenInvalid, "This token is not valid for this server.")
		}
		if err != nil {
			return Caller{}, err
		}
	}
	if !auth.GrantSecretMatches(g.SecretHash, secret) {
		return Caller{}, apperr.E(apperr.AITokenInvalid, "This token is not valid for this server.")
	}
	if err := grantUsable(g, s.now()); err != nil {
		if g.Status == models.GrantRevoked {
			// The token is authentic: let it through so that each tool call
			// tells the agent why it no longer works (session_ended, or
			// ai_token_revoked with the reason) instead of a bare 401.
			return AI(g.ID), nil
		}
		return Caller{}, err
	}
	// Presence, written at most every few seconds rather than per call, by
	// the one call that claims it (not by every call of the moment).
	if now := s.now(); s.grants.claimSeen(publicID, g, generation, now) {
		if err := s.store.TouchGrant(ctx, g.ID, now); err != nil {
			return Caller{}, err
		}
	}
	return Caller{GrantID: g.ID, grant: g, grantGeneration: generation}, nil
}

// timeNow is the clock of the authority checks (tests move it forward).
var timeNow = time.Now

// grantUsable: active, and a pre-session grant not past its expiry (checked
// here, at use, not by a cleanup job).
func grantUsable(g *models.AIControllerGrant, now time.Time) error {
	if g.Status != models.GrantActive {
		return revokedError(g)
	}
	if g.SessionID == nil && (g.PreSessionExpiresAt == nil || !now.Before(*g.PreSessionExpiresAt)) {
		return apperr.E(apperr.AITokenExpired, "This pre-session token expired; ask the owner for a new one.")
	}
	return nil
}

// Why a grant was revoked, as stored and as told to the agent in
// details.reason. Wire contract: never renamed.
const (
	RevokedTakenBack  = "taken_back"
	RevokedRotated    = "rotated"
	RevokedReassigned = "reassigned"
	RevokedMember     = "member_revoked"
	// RevokedMemberDeleted: the member who handed the seat over deleted
	// their account (or was swept as an idle guest).
	RevokedMemberDeleted = "member_deleted"
	RevokedEnded         = "session_ended"
	revokedAbandoned     = "session_abandoned"
)

// sessionOver reports whether a grant was revoked because its session
// ended or was abandoned.
func sessionOver(g *models.AIControllerGrant) bool {
	return g.Status == models.GrantRevoked && (g.RevokeReason == RevokedEnded || g.RevokeReason == revokedAbandoned)
}

// revokedError says why a revoked token no longer works: the end of its
// session is session_ended (so an agent can tell "the game is over" from
// "you were removed"), anything else ai_token_revoked with the reason.
func revokedError(g *models.AIControllerGrant) error {
	if sessionOver(g) {
		status := models.SessionEnded
		if g.RevokeReason == revokedAbandoned {
			status = models.SessionAbandoned
		}
		return apperr.E(apperr.SessionEnded, "The session is over (%s); this token has nothing more to do.", status).
			WithDetail("reason", RevokedEnded).WithDetail("status", status)
	}
	reason := g.RevokeReason
	if reason == "operator_regrant" { // written by builds before the reasons were named
		reason = RevokedRotated
	}
	return apperr.E(apperr.AITokenRevoked, "This token was revoked (%s).", reason).WithDetail("reason", reason)
}

type endedReadKey struct{}

// allowEndedRead marks an event read: a grant whose session is over may
// still read the events up to the end, so a wait in flight when the session
// ends returns the end event rather than an error.
func allowEndedRead(ctx context.Context) context.Context {
	return context.WithValue(ctx, endedReadKey{}, true)
}

// aiActor is the one current-authority check of every AI call (seed §8.3):
// the grant is usable, belongs to this room, and its seat is controlled by
// an AI through exactly this grant at exactly the epoch it was minted at.
func aiActor(ctx context.Context, tx *models.Store, c Caller, roomID int64, what string, seats []models.CampaignSeat) (Actor, error) {
	g, err := grantOf(ctx, tx, c)
	if err != nil {
		return Actor{}, err
	}
	ended := false
	if err := grantUsable(g, timeNow().UTC()); err != nil {
		if ok, _ := ctx.Value(endedReadKey{}).(bool); !ok || !sessionOver(g) {
			return Actor{}, err
		}
		ended = true
	}
	if g.RoomID != roomID {
		return Actor{}, notFound(what)
	}
	seat, err := seatAmong(ctx, tx, g.SeatID, seats)
	if err != nil {
		return Actor{}, err
	}
	if seat.ControllerKind != models.ControllerAI || seat.AIControllerGrantID == nil || *seat.AIControllerGrantID != g.ID ||
		seat.ControllerEpoch != g.Generation {
		return Actor{}, apperr.E(apperr.AIGrantNotCurrentController, "This token no longer controls its seat.")
	}
	role := RolePlayer
	if g.Role == models.SeatDM {
		role = RoleDM
	}
	return Actor{Kind: ActorAI, GrantID: g.ID, Generation: g.Generation, GrantSessionID: g.SessionID, RoomID: roomID,
		CampaignID: g.CampaignID, SeatID: g.SeatID, Role: role, SessionOver: ended, TemporaryInstruction: g.TemporaryInstruction}, nil
}

// grantOf is the caller's grant: the row AuthenticateGrant verified when
// no authority change was committed since, else read now.
func grantOf(ctx context.Context, tx *models.Store, c Caller) (*models.AIControllerGrant, error) {
	if c.grant != nil && c.grant.ID == c.GrantID && c.grantGeneration == tx.AuthorityGeneration() {
		return c.grant, nil
	}
	g, err := tx.FindGrantByID(ctx, c.GrantID, false)
	if err != nil {
		return nil, apperr.E(apperr.AITokenInvalid, "This token is not valid for this server.")
	}
	return g, nil
}

// seatAmong is the seat with this id from seats, else read.
func seatAmong(ctx context.Context, tx *models.Store, id int64, seats []models.CampaignSeat) (*models.CampaignSeat, error) {
	for i := range seats {
		if seats[i].ID == id {
			return &seats[i], nil
		}
	}
	return tx.FindSeatByID(ctx, id, false)
}

type preSessionKey struct{}

// allowPreSession marks a call that an unbound pre-session DM grant may
// make (starting its session, reading its readiness).
func allowPreSession(ctx context.Context) context.Context {
	return context.WithValue(ctx, preSessionKey{}, true)
}

// requireSessionScope keeps an AI grant inside its own session: a bound
// grant only in the session it is bound to; an unbound pre-session grant
// only where allowPreSession says, in its campaign's lobby.
func (a Actor) requireSessionScope(ctx context.Context, se *models.Session) error {
	if a.Kind != ActorAI {
		return nil
	}
	if a.GrantSessionID == nil {
		if ok, _ := ctx.Value(preSessionKey{}).(bool); ok && se.CampaignID == a.CampaignID && se.Status == models.SessionLobby {
			return nil
		}
		return apperr.E(apperr.AIGrantPreSessionOnly, "Before its session starts, this token can only read its pre-session context and start the session.")
	}
	if *a.GrantSessionID != se.ID {
		return apperr.E(apperr.AIGrantWrongSession, "This token belongs to another session.")
	}
	return nil
}

// mintGrant creates a grant for a seat whose controller epoch will be
// `generation` once the caller binds the seat to it.
func (s *Service) mintGrant(ctx context.Context, tx *models.Store, seat *models.CampaignSeat, camp *models.Campaign, g models.AIControllerGrant) (MintedGrant, *models.AIControllerGrant, error) {
	publicID, secret, token := auth.NewGrantToken()
	g.PublicID, g.SecretHash, g.DisplayPrefix = publicID, auth.HashGrantSecret(secret), auth.GrantDisplayPrefix(publicID)
	g.RoomID, g.CampaignID, g.SeatID, g.Role = camp.RoomID, camp.ID, seat.ID, seat.Role
	g.Generation, g.Status, g.CreatedAt = seat.ControllerEpoch+1, models.GrantActive, s.now()
	if err := tx.CreateGrant(ctx, &g); err != nil {
		return MintedGrant{}, nil, err
	}
	epoch, err := tx.SetSeatController(ctx, seat.ID, models.SeatController{Kind: models.ControllerAI, AIGrantID: &g.ID, KeepCharacter: true})
	if err != nil {
		return MintedGrant{}, nil, err
	}
	if epoch != g.Generation {
		return MintedGrant{}, nil, apperr.E(apperr.Conflict, "The seat changed meanwhile; try again.")
	}
	return MintedGrant{Token: token, Grant: grantView(&g)}, &g, nil
}

// countAISeat counts a seat handed to an AI once its transaction has
// committed: kind is "agent" (an outside agent's grant) or "narrator" (the
// server's own), role the seat's.
func (s *Service) countAISeat(kind, role string) {
	s.analytics.Count(analytics.MetricAISeat, kind+"_"+role, 1)
}

// announceController appends the controller-changed event of a seat to the
// campaign's open session, if there is one.
func (s *Service) announceController(ctx context.Context, tx *models.Store, campaignID int64, seatID int64, kind string) error {
	open, err := tx.FindOpenSessions(ctx, []int64{campaignID})
	if err != nil || len(open) == 0 {
		return err
	}
	_, err = s.appendNext(ctx, tx, open[0].ID, eventDraft{kind: EventControllerChanged, subject: &seatID, mode: models.ExecSystem,
		payload: map[string]any{"seat_id": seatID, "controller_kind": kind}})
	return err
}

// LetAIControl hands the caller's own player seat to an AI for the active
// session: in one transaction the seat's epoch moves, a grant bound to the
// session is minted (remembering the caller's access session as the only
// one that may take it back, and the optional temporary instruction), the
// seat points at it, and a controller-changed event is written (without
// the instruction). Returns seat_controller_required, session_not_active,
// message_text_invalid.
func (s *Service) LetAIControl(ctx context.Context, c Caller, seatID int64, in HandoffInput) (MintedGrant, error) {
	instruction := strings.TrimSpace(in.TemporaryInstruction)
	if !models.StorableText(instruction) {
		return MintedGrant{}, models.UnstorableText(apperr.MessageTextInvalid, "temporary_instruction")
	}
	if utf8.RuneCountInString(instruction) > MaxInstructionLength {
		return MintedGrant{}, apperr.E(apperr.MessageTextInvalid, "The instruction is at most %d characters.", MaxInstructionLength).WithField("temporary_instruction", "at most 2000 characters")
	}
	var out MintedGrant
	var sessionID int64
	err := s.store.Tx(ctx, func(tx *models.Store) error {
		seat, camp, a, err := seatActor(ctx, tx, c, seatID)
		if err != nil {
			return err
		}
		if a.Kind != ActorHuman || seat.Role != models.SeatPlayer || !controls(a, *seat) {
			return apperr.E(apperr.SeatControllerRequired, "Only the player controlling this seat can hand it to an AI.")
		}
		open, err := tx.FindOpenSessions(ctx, []int64{camp.ID})
		if err != nil {
			return err
		}
		if len(open) == 0 || open[0].Status != models.SessionActive {
			return apperr.E(apperr.SessionNotActive, "A seat is handed to an AI during an active session.")
		}
		sessionID = open[0].ID
		out, _, err = s.mintGrant(ctx, tx, seat, camp, models.AIControllerGrant{SessionID: &sessionID,
			HandoffReturnAccessSessionID: &a.AccessSessionID, TemporaryInstruction: instruction})
		if err != nil {
			return err
		}
		return s.announceController(ctx, tx, camp.ID, seat.ID, models.ControllerAI)
	})
	if err != nil {
		return MintedGrant{}, err
	}
	s.countAISeat("agent", out.Grant.Role)
	s.notifier.Notify(sessionID)
	return out, nil
}

// TakeBackControl returns an AI-held player seat to the human who handed
// it over — only the access session recorded at handoff, not another one
// with the same name. The grant is revoked, the epoch moves, the human is
// bound again, in one transaction. Returns take_back_origin_required,
// seat_not_ai_controlled.
func (s *Service) TakeBackControl(ctx context.Context, c Caller, seatID int64) (RoomView, error) {
	var sessionID int64
	v, err := s.mutateRoom(ctx, func(tx *models.Store) (Actor, error) {
		seat, camp, a, err := seatActor(ctx, tx, c, seatID)
		if err != nil {
			return Actor{}, err
		}
		if seat.ControllerKind != models.ControllerAI || seat.AIControllerGrantID == nil {
			// Permission first: only the seat's own player learns that it
			// is not AI-held; anyone else is refused as for an AI-held seat.
			if a.Kind == ActorHuman && seat.ControllerKind == models.ControllerHuman && eqID(seat.ControllerAccessSessionID, &a.AccessSessionID) {
				return Actor{}, apperr.E(apperr.SeatNotAIControlled, "No AI controls this seat.")
			}
			return Actor{}, apperr.E(apperr.TakeBackOriginRequired, "Only the player who handed this seat to the AI can take it back.")
		}
		g, err := tx.FindGrantByID(ctx, *seat.AIControllerGrantID, true)
		if err != nil {
			return Actor{}, err
		}
		if a.Kind != ActorHuman || g.HandoffReturnAccessSessionID == nil || *g.HandoffReturnAccessSessionID != a.AccessSessionID {
			return Actor{}, apperr.E(apperr.TakeBackOriginRequired, "Only the player who handed this seat to the AI can take it back.")
		}
		if err := tx.RevokeGrant(ctx, g.ID, RevokedTakenBack, s.now()); err != nil {
			return Actor{}, err
		}
		if _, err := tx.SetSeatController(ctx, seat.ID, models.SeatController{Kind: models.ControllerHuman, AccessSessionID: &a.AccessSessionID, KeepCharacter: true}); err != nil {
			return Actor{}, err
		}
		if g.SessionID != nil {
			sessionID = *g.SessionID
		}
		return a, s.announceController(ctx, tx, camp.ID, seat.ID, models.ControllerHuman)
	})
	if err == nil && sessionID != 0 {
		s.notifier.Notify(sessionID)
	}
	return v, err
}

// SetDMSeatAI makes the campaign's DM seat AI-controlled before a session
// starts: the owner gets a pre-session grant with a finite TTL that can
// only read its pre-session context and start the session. Calling it
// again rotates: the old grant is revoked and the epoch moves. Returns
// room_owner_required, ai_grant_already_bound (a session is running with
// an AI DM), session_not_active... (see RevokeSeatAI).
func (s *Service) SetDMSeatAI(ctx context.Context, c Caller, campaignID int64) (MintedGrant, error) {
	var out MintedGrant
	err := s.store.Tx(ctx, func(tx *models.Store) error {
		camp, a, err := campaignActor(ctx, tx, c, campaignID)
		if err != nil {
			return err
		}
		if err := requireOwner(a); err != nil {
			return err
		}
		dm, err := tx.FindDMSeat(ctx, campaignID, true)
		if err != nil {
			return err
		}
		open, err := tx.FindOpenSessions(ctx, []int64{campaignID})
		if err != nil {
			return err
		}
		if len(open) > 0 && open[0].Status == models.SessionActive {
			return apperr.E(apperr.AIGrantAlreadyBound, "The DM seat's controller cannot change while a session is in play.")
		}
		if err := s.revokeSeatGrant(ctx, tx, dm, RevokedRotated); err != nil {
			return err
		}
		expires := s.now().Add(PreSessionGrantTTL)
		out, _, err = s.mintGrant(ctx, tx, dm, camp, models.AIControllerGrant{PreSessionExpiresAt: &expires})
		return err
	})
	if err == nil {
		s.countAISeat("agent", out.Grant.Role)
	}
	return out, err
}

// revokeSeatGrant revokes the grant a seat currently points at, if any.
func (s *Service) revokeSeatGrant(ctx context.Context, tx *models.Store, seat *models.CampaignSeat, reason string) error {
	if seat.ControllerKind == models.ControllerAI && seat.AIControllerGrantID != nil {
		return tx.RevokeGrant(ctx, *seat.AIControllerGrantID, reason, s.now())
	}
	return nil
}

// PreSessionContext is all an unbound AI DM grant may read.
type PreSessionContext struct {
	CampaignID     int64      `json:"campaign_id"`
	CampaignName   string     `json:"campaign_name"`
	DMSeatID       int64      `json:"dm_seat_id"`
	LobbySessionID *int64     `json:"lobby_session_id" jsonschema:"the lobby to start, if the owner opened one"`
	ReadyToStart   bool       `json:"ready_to_start"`
	ExpiresAt      *time.Time `json:"expires_at"`
	World          World      `json:"world"`
}

// GetPreSessionContext returns an AI DM grant's minimal pre-session view.
// Returns the token codes and ai_grant_not_current_controller.
func (s *Service) GetPreSessionContext(ctx context.Context, c Caller) (PreSessionContext, error) {
	g, err := grantOf(ctx, s.store, c)
	if err != nil {
		return PreSessionContext{}, err
	}
	a, err := aiActor(ctx, s.store, c, g.RoomID, "campaign", nil)
	if err != nil {
		return PreSessionContext{}, err
	}
	camp, err := s.store.FindCampaignByID(ctx, a.CampaignID)
	if err != nil {
		return PreSessionContext{}, err
	}
	out := PreSessionContext{CampaignID: camp.ID, CampaignName: camp.Name, DMSeatID: a.SeatID, ExpiresAt: g.PreSessionExpiresAt}
	w, err := s.store.FindCampaignWorld(ctx, camp.ID)
	if err != nil {
		return PreSessionContext{}, err
	}
	out.World = worldFor(w, a)
	open, err := s.store.FindOpenSessions(ctx, []int64{camp.ID})
	if err != nil {
		return PreSessionContext{}, err
	}
	if len(open) > 0 && open[0].Status == models.SessionLobby {
		out.LobbySessionID = &open[0].ID
		room, err := s.store.FindRoomByID(ctx, camp.RoomID)
		if err != nil {
			return PreSessionContext{}, err
		}
		out.ReadyToStart = a.GrantSessionID == nil && camp.Status == models.CampaignActive && eqID(room.ActiveCampaignID, &camp.ID)
	}
	return out, nil
}

// GrantSession returns the session an AI caller's grant is bound to.
// Returns ai_grant_pre_session_only for an unbound DM grant, and the token
// codes.
func (s *Service) GrantSession(ctx context.Context, c Caller) (int64, error) {
	g, err := grantOf(ctx, s.store, c)
	if err != nil {
		return 0, err
	}
	if err := grantUsable(g, s.now()); err != nil && !sessionOver(g) {
		return 0, err
	}
	// A grant whose session is over still names it: reading up to the end
	// is allowed, and every other call says session_ended.
	if g.SessionID == nil {
		return 0, apperr.E(apperr.AIGrantPreSessionOnly, "Before its session starts, this token can only read its pre-session context and start the session.")
	}
	return *g.SessionID, nil
}

// GrantCampaign returns the campaign of an AI caller's grant, bound to a
// session (its journal is the campaign's). Returns GrantSession's codes.
func (s *Service) GrantCampaign(ctx context.Context, c Caller) (int64, error) {
	if _, err := s.GrantSession(ctx, c); err != nil {
		return 0, err
	}
	g, err := grantOf(ctx, s.store, c)
	if err != nil {
		return 0, err
	}
	return g.CampaignID, nil
}

// SeatCharacter returns the full sheet of a participant's character: a
// player sees their own seat's, the current DM any participant's. Returns
// proxy_target_invalid, not_found.
func (s *Service) SeatCharacter(ctx context.Context, c Caller, sessionID, seatID int64) (CharacterView, error) {
	sc, err := loadAudience(ctx, s.store, c, sessionID, false)
	if err != nil {
		return CharacterView{}, err
	}
	if seatID == 0 {
		seatID = sc.actor.SeatID
	}
	participants, err := s.store.FindParticipants(ctx, sessionID)
	if err != nil {
		return CharacterView{}, err
	}
	p, ok := participantsBySeat(participants)[seatID]
	if !ok || p.CharacterID == nil {
		return CharacterView{}, apperr.E(apperr.ProxyTargetInvalid, "That seat has no character in this session.")
	}
	if !sc.isCurrentDM() && !sc.viewer().seats[seatID] {
		return CharacterView{}, notFound("character")
	}
	ch, err := s.store.FindCharacterByID(ctx, *p.CharacterID)
	if err != nil {
		return CharacterView{}, err
	}
	return characterView(*ch), nil
}

// OperatorGrant mints a grant for a seat on behalf of the server's
// operator (the `adventure-table grant` command in local mode, where the
// operator owns the machine and the data). A DM seat gets a pre-session
// grant when no session is in play; a player seat gets a grant bound to
// its campaign's active session. Whatever controlled the seat before is
// replaced, as in an administrative reassignment. Returns
// session_not_active, ai_grant_already_bound, not_found.
func (s *Service) OperatorGrant(ctx context.Context, seatID int64) (MintedGrant, error) {
	var out MintedGrant
	err := s.store.Tx(ctx, func(tx *models.Store) error {
		seat, err := tx.FindSeatByID(ctx, seatID, true)
		if err != nil {
			return err
		}
		camp, err := tx.FindCampaignByID(ctx, seat.CampaignID)
		if err != nil {
			return err
		}
		open, err := tx.FindOpenSessions(ctx, []int64{camp.ID})
		if err != nil {
			return err
		}
		active := len(open) > 0 && open[0].Status == models.SessionActive
		g := models.AIControllerGrant{}
		switch {
		case seat.Role == models.SeatDM && active:
			return apperr.E(apperr.AIGrantAlreadyBound, "The DM seat's controller cannot change while a session is in play.")
		case seat.Role == models.SeatDM:
			expires := s.now().Add(PreSessionGrantTTL)
			g.PreSessionExpiresAt = &expires
		case !active:
			return apperr.E(apperr.SessionNotActive, "A player seat is given to an AI during an active session.")
		default:
			g.SessionID = &open[0].ID
		}
		if err := s.revokeSeatGrant(ctx, tx, seat, RevokedRotated); err != nil {
			return err
		}
		out, _, err = s.mintGrant(ctx, tx, seat, camp, g)
		if err != nil {
			return err
		}
		return s.announceController(ctx, tx, camp.ID, seat.ID, models.ControllerAI)
	})
	if err == nil {
		s.countAISeat("agent", out.Grant.Role)
	}
	return out, err
}
