package table

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/adventure-table/adventure-table/gameplay/analytics"
	"github.com/adventure-table/adventure-table/gameplay/oneread"
	"github.com/adventure-table/adventure-table/models"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// SessionInfo is a session's own fields.
type SessionInfo struct {
	ID         int64      `json:"id"`
	CampaignID int64      `json:"campaign_id"`
	RoomID     int64      `json:"room_id"`
	Status     string     `json:"status" jsonschema:"lobby, active, ended or abandoned"`
	DMSeatID   int64      `json:"dm_seat_id"`
	CreatedAt  time.Time  `json:"created_at"`
	StartedAt  *time.Time `json:"started_at"`
	EndedAt    *time.Time `json:"ended_at"`
}

// NamedRef is an id with a name.
type NamedRef struct {
	ID   int64  `json:"id"`
	Name string `json:"name"`
}

// CampaignRef is a campaign's id, name and status.
type CampaignRef struct {
	ID     int64  `json:"id"`
	Name   string `json:"name"`
	Status string `json:"status"`
}

// ParticipantCharacter is the active character summary of a participant.
type ParticipantCharacter struct {
	ID         int64    `json:"id"`
	Name       string   `json:"name"`
	Level      int      `json:"level"`
	HP         HP       `json:"hp"`
	Conditions []string `json:"conditions"`
	// Derived is the sheet's totals as the character page shows them, so
	// every card at the table reads (and rolls) the same numbers.
	Derived *CharacterDerived `json:"derived,omitempty" jsonschema:"the sheet's totals (AC, initiative, passive Perception, speed, saves, skills, attacks), as on the character"`
}

// ParticipantView is a seat taking part in the session.
type ParticipantView struct {
	ID                    int64     `json:"id"`
	SeatID                int64     `json:"seat_id"`
	JoinedAt              time.Time `json:"joined_at"`
	Late                  bool      `json:"late"`
	ControllerKind        string    `json:"controller_kind"`
	ControllerDisplayName *string   `json:"controller_display_name"`
	// ControllerNameCode is the controller's name code (see UserView).
	ControllerNameCode   string                `json:"controller_name_code,omitempty" jsonschema:"user.guest (controller_name_params.number) while controller_display_name is the server-made guest name; user.former once the member deleted their account"`
	ControllerNameParams map[string]string     `json:"controller_name_params,omitempty" jsonschema:"the parameters of controller_name_code: number, the guest's four digits"`
	Character            *ParticipantCharacter `json:"character"`
}

// MeView is the caller's place in the session.
type MeView struct {
	AccessID  int64  `json:"access_id"`
	Authority string `json:"authority"`
	SeatID    *int64 `json:"seat_id"`
	Role      string `json:"role" jsonschema:"dm, player or spectator"`
	// Controller is human or ai.
	Controller string `json:"controller"`
	// TakeBackSeatIDs are the seats the caller handed to an AI and may take back.
	TakeBackSeatIDs []int64 `json:"take_back_seat_ids"`
	// TemporaryInstruction is the handoff guidance for an AI holding a
	// player seat, only while its grant is current.
	TemporaryInstruction string `json:"temporary_instruction,omitempty"`
}

// Allowed says which lifecycle actions the caller may take now, decided by
// the same rules the actions enforce.
type Allowed struct {
	Start    bool `json:"start"`
	LateJoin bool `json:"late_join"`
	End      bool `json:"end"`
	Abandon  bool `json:"abandon"`
}

// SessionResume is what a session page needs on load, in one call.
type SessionResume struct {
	Session      SessionInfo       `json:"session"`
	Room         NamedRef          `json:"room"`
	Campaign     CampaignRef       `json:"campaign"`
	Seats        []SeatView        `json:"seats"`
	Participants []ParticipantView `json:"participants"`
	Me           MeView            `json:"me"`
	Can          Allowed           `json:"can"`
	Stage        StageView         `json:"stage"`
	Recap        RecapView         `json:"recap"`
	// Cursor is where the caller's event feed continues (events/wait?after=).
	Cursor       int64       `json:"cursor"`
	RecentEvents []EventView `json:"recent_events" jsonschema:"the newest events the caller may see, oldest first"`
}

// recentEventWindow is how many of the newest events a resume reads.
const recentEventWindow = 100

// LateJoinInput names the seat to add.
type LateJoinInput struct {
	SeatID int64 `json:"seat_id"`
}

// sessionScope is a session with everything its rules need, read once.
type sessionScope struct {
	session  *models.Session
	campaign *models.Campaign
	room     *models.Room
	seats    []models.CampaignSeat
	actor    Actor
}

// loadSession reads a session (locked when it will be written) with its
// campaign and room, and resolves the caller's actor in it.
func loadSession(ctx context.Context, tx *models.Store, c Caller, sessionID int64, forUpdate bool) (sessionScope, error) {
	return loadScope(ctx, tx, c, sessionID, forUpdate, true)
}

// loadAudience reads only what deciding who sees what needs: the session,
// the caller's access and the seats. Event reads (a thousand waiters
// re-reading at once) use it to stay cheap.
func loadAudience(ctx context.Context, tx *models.Store, c Caller, sessionID int64, forUpdate bool) (sessionScope, error) {
	return loadScope(ctx, tx, c, sessionID, forUpdate, false)
}

// loadScope is loadAudience, and with withPlace the campaign and room too,
// read with the session in one statement.
func loadScope(ctx context.Context, tx *models.Store, c Caller, sessionID int64, forUpdate, withPlace bool) (sessionScope, error) {
	var sc sessionScope
	var err error
	if withPlace {
		sc.session, sc.campaign, sc.room, err = tx.FindSessionWithPlace(ctx, sessionID, forUpdate)
	} else {
		sc.session, err = tx.FindSessionByID(ctx, sessionID, forUpdate)
	}
	if apperr.CodeOf(err) == apperr.NotFound {
		return sessionScope{}, notFound("session")
	}
	if err != nil {
		return sessionScope{}, err
	}
	se := sc.session
	// The campaign's seats are read first: an AI caller's own seat is
	// among them, so resolving it costs no query of its own.
	if sc.seats, err = tx.FindSeatsOfCampaigns(ctx, []int64{se.CampaignID}); err != nil {
		return sessionScope{}, err
	}
	a, err := actorAmong(ctx, tx, c, se.RoomID, "session", sc.seats)
	if err != nil {
		return sessionScope{}, err
	}
	if err := a.requireSessionScope(ctx, se); err != nil {
		return sessionScope{}, err
	}
	a = a.withSeats(se.CampaignID, sc.seats)
	a.SessionID = se.ID
	sc.actor = a
	return sc, nil
}

func (sc sessionScope) dmSeat() models.CampaignSeat {
	for _, s := range sc.seats {
		if s.ID == sc.session.DMSeatID {
			return s
		}
	}
	return models.CampaignSeat{}
}

// isCurrentDM: the actor controls the DM seat now and, once the session has
// started, is also the controller it started with. Holding the DM key or
// owning the room is not enough.
func (sc sessionScope) isCurrentDM() bool {
	if !controls(sc.actor, sc.dmSeat()) {
		return false
	}
	if sc.session.Status == models.SessionLobby {
		return true
	}
	if sc.actor.Kind == ActorAI {
		return sc.session.DMControllerKind == models.ControllerAI && eqID(sc.session.DMControllerAIGrantID, &sc.actor.GrantID)
	}
	return sc.session.DMControllerKind == models.ControllerHuman && eqID(sc.session.DMControllerAccessSessionID, &sc.actor.AccessSessionID)
}

func (sc sessionScope) allowed() Allowed {
	dm := sc.isCurrentDM()
	st := sc.session.Status
	return Allowed{
		Start:    dm && st == models.SessionLobby,
		LateJoin: dm && st == models.SessionActive,
		End:      dm && st == models.SessionActive,
		Abandon:  (dm || sc.actor.isOwner()) && (st == models.SessionLobby || st == models.SessionActive),
	}
}

func requireCurrentDM(sc sessionScope) error {
	if !sc.isCurrentDM() {
		return apperr.E(apperr.NotCurrentDM, "Only the session's current DM can do this.")
	}
	return nil
}

// resume assembles the resume view in a fixed number of queries: the scope
// (session, access, campaign, room, seats) plus members, participants and
// one batch of characters — never one query per participant.
func resume(ctx context.Context, tx *models.Store, sc sessionScope, recent int) (SessionResume, error) {
	rows, err := readSessionRows(ctx, tx, sc, recent)
	if err != nil {
		return SessionResume{}, err
	}
	return resumeFrom(ctx, tx, sc, rows, recent)
}

// sessionRows are the rows of a session its resume, board and running
// fight are built from, before any viewer's projection. Each one changes
// only in a transaction that also appends an event (and so wakes the hub),
// or that changes authority: what sessionSnapshot relies on. The
// characters are not among them (a seat's character may be edited from
// its sheet before it joins); they are read with every resume.
type sessionRows struct {
	participants []models.SessionParticipant
	names        map[int64]string
	stage        *models.SessionStageState
	latest       []models.SessionEvent
	// recent is how many of the newest events latest was read for.
	recent int
	board  boardRows
	// fight is the running encounter (nil: none).
	fight *models.Encounter
}

// readSessionRows reads a session's rows for the scope's seats.
func readSessionRows(ctx context.Context, tx *models.Store, sc sessionScope, recent int) (sessionRows, error) {
	r := sessionRows{recent: recent}
	var err error
	if r.participants, err = tx.FindParticipants(ctx, sc.session.ID); err != nil {
		return sessionRows{}, err
	}
	accessIDs := seatControllerIDs(sc.seats)
	for _, p := range r.participants {
		if p.ControllerAccessSessionIDAtJoin != nil {
			accessIDs = append(accessIDs, *p.ControllerAccessSessionIDAtJoin)
		}
	}
	if r.names, err = memberNames(ctx, tx, accessIDs); err != nil {
		return sessionRows{}, err
	}
	if r.stage, err = tx.FindStage(ctx, sc.session.ID); err != nil {
		return sessionRows{}, err
	}
	if r.latest, err = tx.FindLatestEvents(ctx, sc.session.ID, recent); err != nil {
		return sessionRows{}, err
	}
	return r, nil
}

// resumeFrom builds the resume view, with the newest `recent` events, from
// the session's rows, reading the characters (and, for a human, the AI
// grants) now.
func resumeFrom(ctx context.Context, tx *models.Store, sc sessionScope, rows sessionRows, recent int) (SessionResume, error) {
	participants, names := rows.participants, rows.names
	charIDs := seatCharacterIDs(sc.seats)
	for _, p := range participants {
		if p.CharacterID != nil {
			charIDs = append(charIDs, *p.CharacterID)
		}
	}
	chars, err := charactersByID(ctx, tx, charIDs)
	if err != nil {
		return SessionResume{}, err
	}
	// The AI grants say when each AI seat was last seen and which seats a
	// human may take back; an AI reader (MCP) is shown neither.
	seen := map[int64]*time.Time{}
	takeBack := []int64{}
	if sc.actor.Kind == ActorHuman {
		grants, err := aiGrants(ctx, tx, sc.seats)
		if err != nil {
			return SessionResume{}, err
		}
		for _, seat := range sc.seats {
			if seat.AIControllerGrantID == nil {
				continue
			}
			g := grants[*seat.AIControllerGrantID]
			seen[g.ID] = g.LastSeenAt
			if eqID(g.HandoffReturnAccessSessionID, &sc.actor.AccessSessionID) {
				takeBack = append(takeBack, seat.ID)
			}
		}
	}
	stage := rows.stage
	latest := rows.latest
	if len(latest) > recent {
		latest = latest[len(latest)-recent:]
	}
	se := sc.session
	out := SessionResume{
		Session: SessionInfo{ID: se.ID, CampaignID: se.CampaignID, RoomID: se.RoomID, Status: se.Status, DMSeatID: se.DMSeatID,
			CreatedAt: se.CreatedAt, StartedAt: se.StartedAt, EndedAt: se.EndedAt},
		Room:         NamedRef{ID: sc.room.ID, Name: sc.room.Name},
		Campaign:     CampaignRef{ID: sc.campaign.ID, Name: sc.campaign.Name, Status: sc.campaign.Status},
		Seats:        seatViews(sc.seats, names, chars, seen),
		Participants: []ParticipantView{},
		Me: MeView{AccessID: sc.actor.AccessSessionID, Authority: sc.actor.Authority, Role: sc.actor.Role, Controller: sc.actor.Kind,
			TakeBackSeatIDs: takeBack},
		Can:          sc.allowed(),
		Stage:        stageView(stage),
		Recap:        recapView(sc),
		RecentEvents: sc.viewer().project(latest),
	}
	if len(latest) > 0 {
		out.Cursor = latest[len(latest)-1].Seq
	}
	if sc.actor.SeatID != 0 {
		id := sc.actor.SeatID
		out.Me.SeatID = &id
	}
	out.Me.TemporaryInstruction = sc.actor.TemporaryInstruction
	for _, p := range participants {
		pv := ParticipantView{ID: p.ID, SeatID: p.SeatID, JoinedAt: p.JoinedAt, Late: p.LateJoin, ControllerKind: p.ControllerKindAtJoin}
		if p.ControllerAccessSessionIDAtJoin != nil {
			if n, ok := names[*p.ControllerAccessSessionIDAtJoin]; ok {
				pv.ControllerDisplayName = &n
				pv.ControllerNameCode, pv.ControllerNameParams = GuestNameCode(n)
			} else {
				// The member deleted their account: their lines stay, unnamed.
				n := FormerMemberName
				pv.ControllerDisplayName, pv.ControllerNameCode = &n, codeFormerMember
			}
		}
		if p.CharacterID != nil {
			if c, ok := chars[*p.CharacterID]; ok {
				pv.Character = &ParticipantCharacter{ID: c.ID, Name: c.Name, Level: c.Level,
					HP: HP{Max: c.HPMax, Current: c.HPCurrent, Temp: c.HPTemp}, Conditions: nonNil(c.Conditions)}
				d := characterDerived(&c)
				pv.Character.Derived = &d
			}
		}
		out.Participants = append(out.Participants, pv)
	}
	return out, nil
}

// Resume returns the session page's data. Returns not_found,
// room_access_revoked.
func (s *Service) Resume(ctx context.Context, c Caller, sessionID int64) (SessionResume, error) {
	sc, err := loadSession(ctx, s.store, c, sessionID, false)
	if err != nil {
		return SessionResume{}, err
	}
	return resume(ctx, s.store, sc, recentEventWindow)
}

// TableNow is what an agent reads of the table each turn: the resume, the
// roll board without its results (the checks, pending actions and open
// windows) and the running fight.
type TableNow struct {
	Resume    SessionResume
	Board     RollBoard
	Encounter EncounterNow
	// World is the campaign's world as the caller's seat may see it.
	World World
	// Memories are what the campaign remembers that the caller may see,
	// recalled with the newest events as the query, best match first.
	Memories []CampaignMemoryView
}

// Now is Resume, Board, GetEncounter and the memories recalled for the
// newest events, from one resolution of the caller (MCP's
// get_session_context reads them all on every turn), with the
// resume's recent events read from the newest `recent` (1 to 100) only.
// The session's rows come from the hub's snapshot while nothing happened
// (sessionSnapshot); the scope and the characters are read every time.
func (s *Service) Now(ctx context.Context, c Caller, sessionID int64, recent int) (TableNow, error) {
	recent = min(max(recent, 1), recentEventWindow)
	sc, err := loadSession(ctx, s.store, c, sessionID, false)
	if err != nil {
		return TableNow{}, err
	}
	rows, err := s.tableRows(ctx, sc, recent)
	if err != nil {
		return TableNow{}, err
	}
	var out TableNow
	if out.Resume, err = resumeFrom(ctx, s.store, sc, rows, recent); err != nil {
		return TableNow{}, err
	}
	out.Board = boardFrom(sc, rows.board)
	if out.Encounter, err = encounterFrom(sc, rows.fight); err != nil {
		return TableNow{}, err
	}
	w, err := s.store.FindCampaignWorld(ctx, sc.session.CampaignID)
	if err != nil {
		return TableNow{}, err
	}
	out.World = worldFor(w, sc.actor)
	q := contextQuery(out.Resume.RecentEvents, namesOfViews(out.Resume.Seats))
	if out.Memories, err = s.recallFor(ctx, sc.session.CampaignID, sc.viewer(), q, contextRecall); err != nil {
		return TableNow{}, err
	}
	return out, nil
}

// mutateSession runs fn on a locked session scope and returns the resume
// view read in the same transaction; after the commit it wakes the
// session's event waiters.
func (s *Service) mutateSession(ctx context.Context, c Caller, sessionID int64, fn func(tx *models.Store, sc *sessionScope) error) (SessionResume, error) {
	var out SessionResume
	err := s.store.Tx(ctx, func(tx *models.Store) error {
		sc, err := loadSession(ctx, tx, c, sessionID, true)
		if err != nil {
			return err
		}
		if err := fn(tx, &sc); err != nil {
			return err
		}
		// Re-read what fn changed, but keep the actor authorised before it:
		// ending a session revokes an AI DM's own grant, and the DM still
		// gets the answer to the call it made.
		if sc.session, err = tx.FindSessionByID(ctx, sessionID, false); err != nil {
			return err
		}
		if sc.seats, err = tx.FindSeatsOfCampaigns(ctx, []int64{sc.session.CampaignID}); err != nil {
			return err
		}
		out, err = resume(ctx, tx, sc, recentEventWindow)
		return err
	})
	if err == nil {
		s.notifier.Notify(sessionID)
	}
	return out, err
}

// OpenSession opens a lobby for a campaign. The owner, a DM-key holder or
// the DM seat's controller may do it. Returns session_already_open,
// room_authority_required.
func (s *Service) OpenSession(ctx context.Context, c Caller, campaignID int64) (SessionResume, error) {
	var id int64
	err := s.store.Tx(ctx, func(tx *models.Store) error {
		camp, a, err := campaignActor(ctx, tx, c, campaignID)
		if err != nil {
			return err
		}
		dm, err := tx.FindDMSeat(ctx, campaignID, true)
		if err != nil {
			return err
		}
		if !a.hasRoomAuthority() && !controls(a, *dm) {
			return apperr.E(apperr.RoomAuthorityRequired, "Only the room owner, a DM-key holder or the DM can open a session.")
		}
		id, err = s.openLobby(ctx, tx, camp, dm.ID)
		return err
	})
	if err != nil {
		return SessionResume{}, err
	}
	return s.Resume(ctx, c, id)
}

// openLobby writes a lobby session of the campaign with its runtime row and
// stage. Returns session_already_open.
func (s *Service) openLobby(ctx context.Context, tx *models.Store, camp *models.Campaign, dmSeatID int64) (int64, error) {
	se := &models.Session{RoomID: camp.RoomID, CampaignID: camp.ID, DMSeatID: dmSeatID, Status: models.SessionLobby,
		DMControllerKind: models.ControllerNone, CreatedAt: s.now()}
	if err := tx.CreateSession(ctx, se); err != nil {
		if apperr.CodeOf(err) == apperr.Conflict {
			return 0, apperr.E(apperr.SessionAlreadyOpen, "This campaign already has a session in the lobby or in play.")
		}
		return 0, err
	}
	if err := tx.CreateRuntime(ctx, se.ID, s.now()); err != nil {
		return 0, err
	}
	return se.ID, tx.CreateStage(ctx, se.ID, s.now())
}

// joinParticipant adds a player seat to the session with its controller
// snapshot, and leases its character. Returns character_already_in_session
// naming the character when it is leased elsewhere.
func (s *Service) joinParticipant(ctx context.Context, tx *models.Store, se *models.Session, seat models.CampaignSeat, chars map[int64]models.Character, late bool) error {
	p := &models.SessionParticipant{SessionID: se.ID, SeatID: seat.ID, CharacterID: seat.CharacterID,
		ControllerKindAtJoin: seat.ControllerKind, ControllerAccessSessionIDAtJoin: seat.ControllerAccessSessionID,
		LateJoin: late, JoinedAt: s.now()}
	if seat.ControllerKind == models.ControllerAI {
		p.ControllerAIGrantIDAtJoin = seat.AIControllerGrantID
		p.ControllerGenerationAtJoin = &seat.ControllerEpoch
	}
	if err := tx.CreateParticipant(ctx, p); err != nil {
		if apperr.CodeOf(err) == apperr.Conflict {
			return apperr.E(apperr.ParticipantAlreadyJoined, "That seat already takes part in this session.")
		}
		return err
	}
	err := tx.CreateLease(ctx, &models.ActiveCharacterSessionLease{CharacterID: *seat.CharacterID, SessionID: se.ID, CreatedAt: s.now()})
	if errors.Is(err, models.ErrLeaseTaken) {
		c := chars[*seat.CharacterID]
		return apperr.E(apperr.CharacterAlreadyInSession, "%s is already playing in another active session.", c.Name).
			WithDetail("character_id", c.ID).WithDetail("character_name", c.Name)
	}
	return err
}

// ready reports whether a player seat can join: it has a controller and a character.
func ready(seat models.CampaignSeat) bool {
	return seat.Role == models.SeatPlayer && seat.ControllerKind != models.ControllerNone && seat.CharacterID != nil
}

// StartSession starts a lobby: only the current DM controller, with the
// campaign active and selected as the room's active campaign. Every ready
// player seat joins with a controller snapshot and a character lease, all
// in one transaction. Returns not_current_dm, session_not_lobby,
// campaign_not_active, campaign_not_room_active, character_already_in_session.
func (s *Service) StartSession(ctx context.Context, c Caller, sessionID int64) (SessionResume, error) {
	r, err := s.startSession(ctx, c, sessionID)
	if err == nil {
		s.analytics.Count(analytics.MetricTableSession, "started", 1)
		s.analytics.Reach(c.UserID, analytics.Played)
	}
	return r, err
}

func (s *Service) startSession(ctx context.Context, c Caller, sessionID int64) (SessionResume, error) {
	// An AI DM's pre-session grant may do exactly this.
	ctx = allowPreSession(ctx)
	return s.mutateSession(ctx, c, sessionID, func(tx *models.Store, sc *sessionScope) error {
		if err := requireCurrentDM(*sc); err != nil {
			return err
		}
		if sc.session.Status != models.SessionLobby {
			return apperr.E(apperr.SessionNotLobby, "Only a session in the lobby can start.")
		}
		if sc.campaign.Status != models.CampaignActive {
			return apperr.E(apperr.CampaignNotActive, "The campaign is %s; only an active campaign can start a session.", sc.campaign.Status)
		}
		if sc.room.ActiveCampaignID == nil || *sc.room.ActiveCampaignID != sc.campaign.ID {
			return apperr.E(apperr.CampaignNotRoomActive, "Select this campaign as the room's active campaign first.")
		}
		// Lock the DM seat so its controller cannot change under the snapshot.
		dm, err := tx.FindSeatByID(ctx, sc.session.DMSeatID, true)
		if err != nil {
			return err
		}
		chars, err := charactersByID(ctx, tx, seatCharacterIDs(sc.seats))
		if err != nil {
			return err
		}
		joined := []int64{}
		for _, seat := range sc.seats {
			if ready(seat) {
				if err := s.joinParticipant(ctx, tx, sc.session, seat, chars, false); err != nil {
					return err
				}
				joined = append(joined, seat.ID)
			}
		}
		active, now, kind := models.SessionActive, s.now(), dm.ControllerKind
		upd := models.SessionUpdate{Status: &active, StartedAt: &now, DMControllerKind: &kind, DMControllerAccessSessionID: dm.ControllerAccessSessionID}
		if kind == models.ControllerAI {
			// An AI DM's pre-session grant becomes this session's fixed DM
			// controller; the binding was re-checked by requireCurrentDM.
			upd.DMControllerAIGrantID, upd.DMControllerGeneration = dm.AIControllerGrantID, &dm.ControllerEpoch
			if err := tx.BindGrant(ctx, *dm.AIControllerGrantID, sc.session.ID, now); err != nil {
				return err
			}
		}
		if err := tx.UpdateSession(ctx, sc.session.ID, upd); err != nil {
			return err
		}
		// A recap is drafted by the campaign's memory job, once the earlier
		// sessions' memories are written.
		if want, err := wantRecap(ctx, tx, sc.session); err != nil {
			return err
		} else if want {
			if err := tx.EnqueueCampaignMemoryJobOfSession(ctx, sc.session.ID, now); err != nil {
				return err
			}
			s.memory.due.Store(true)
		}
		_, err = s.appendNext(ctx, tx, sc.session.ID, eventDraft{kind: EventSessionStarted, acting: &dm.ID,
			payload: map[string]any{"participant_seat_ids": joined}})
		return err
	})
}

// LateJoin adds a ready player seat to an active session. Returns
// not_current_dm, session_not_active, seat_not_ready,
// participant_already_joined, character_already_in_session, not_found.
func (s *Service) LateJoin(ctx context.Context, c Caller, sessionID, seatID int64) (SessionResume, error) {
	return s.mutateSession(ctx, c, sessionID, func(tx *models.Store, sc *sessionScope) error {
		if err := requireCurrentDM(*sc); err != nil {
			return err
		}
		if sc.session.Status != models.SessionActive {
			return apperr.E(apperr.SessionNotActive, "The session is not in play.")
		}
		seat, err := tx.FindSeatByID(ctx, seatID, true)
		if err != nil || seat.CampaignID != sc.campaign.ID {
			return notFound("seat")
		}
		return s.lateJoin(ctx, tx, sc.session, seat, sc.session.DMSeatID)
	})
}

// lateJoin adds a ready player seat (locked) to an active session with its
// participant_joined event, acting the seat that let it in (the DM's, or
// its own when a player sits down by invite). Returns seat_not_ready and
// joinParticipant's codes.
func (s *Service) lateJoin(ctx context.Context, tx *models.Store, se *models.Session, seat *models.CampaignSeat, acting int64) error {
	if !ready(*seat) {
		return apperr.E(apperr.SeatNotReady, "The seat needs a player and a character before it can join.")
	}
	chars, err := charactersByID(ctx, tx, []int64{*seat.CharacterID})
	if err != nil {
		return err
	}
	if err := s.joinParticipant(ctx, tx, se, *seat, chars, true); err != nil {
		return err
	}
	_, err = s.appendNext(ctx, tx, se.ID, eventDraft{kind: EventParticipantJoined, acting: &acting, subject: &seat.ID, character: seat.CharacterID,
		payload: map[string]any{"seat_id": seat.ID, "character_id": seat.CharacterID, "late": true}})
	return err
}

// finish ends or abandons a session in one transaction: the status, the end
// time, the committed DCs still sealed revealed, the final boundary event and
// the release of every character lease.
// Characters keep their state and every row stays.
func (s *Service) finish(ctx context.Context, tx *models.Store, sc *sessionScope, status string) error {
	now := s.now()
	if err := tx.UpdateSession(ctx, sc.session.ID, models.SessionUpdate{Status: &status, EndedAt: &now}); err != nil {
		return err
	}
	kind := EventSessionEnded
	if status == models.SessionAbandoned {
		kind = EventSessionAbandoned
	}
	var acting *int64
	if sc.isCurrentDM() {
		acting = &sc.session.DMSeatID
	}
	if err := s.revealAtEnd(ctx, tx, sc.session.ID, sc.session.DMSeatID); err != nil {
		return err
	}
	if _, err := s.appendNext(ctx, tx, sc.session.ID, eventDraft{kind: kind, acting: acting, mode: models.ExecSystem}); err != nil {
		return err
	}
	// No window where the session is over and a token still works.
	reason := RevokedEnded
	if status == models.SessionAbandoned {
		reason = revokedAbandoned
	}
	if err := tx.RevokeSessionGrants(ctx, sc.session.ID, reason, now); err != nil {
		return err
	}
	return tx.DeleteLeasesOfSession(ctx, sc.session.ID)
}

// EndSession ends an active session; only the current DM may. Returns
// not_current_dm, session_not_active.
func (s *Service) EndSession(ctx context.Context, c Caller, sessionID int64) (SessionResume, error) {
	r, err := s.mutateSession(ctx, c, sessionID, func(tx *models.Store, sc *sessionScope) error {
		if err := requireCurrentDM(*sc); err != nil {
			return err
		}
		if sc.session.Status != models.SessionActive {
			return apperr.E(apperr.SessionNotActive, "The session is not in play.")
		}
		return s.finish(ctx, tx, sc, models.SessionEnded)
	})
	if err == nil {
		s.analytics.Count(analytics.MetricTableSession, "ended", 1)
	}
	return r, err
}

// AbandonSession abandons a lobby or active session: the current DM, or the
// room owner as an escape hatch. Returns not_current_dm, session_not_active.
func (s *Service) AbandonSession(ctx context.Context, c Caller, sessionID int64) (SessionResume, error) {
	return s.mutateSession(ctx, c, sessionID, func(tx *models.Store, sc *sessionScope) error {
		if !sc.isCurrentDM() && !sc.actor.isOwner() {
			return apperr.E(apperr.NotCurrentDM, "Only the current DM or the room owner can abandon the session.")
		}
		if sc.session.Status != models.SessionLobby && sc.session.Status != models.SessionActive {
			return apperr.E(apperr.SessionNotActive, "The session is already over.")
		}
		return s.finish(ctx, tx, sc, models.SessionAbandoned)
	})
}

// loadLive reads a session for a gameplay write: locked, in play, with its
// participants. Returns session_not_active and loadSession's codes.
func loadLive(ctx context.Context, tx *models.Store, c Caller, sessionID int64) (sessionScope, []models.SessionParticipant, error) {
	sc, err := loadSession(ctx, tx, c, sessionID, true)
	if err != nil {
		return sessionScope{}, nil, err
	}
	if sc.session.Status != models.SessionActive {
		return sessionScope{}, nil, apperr.E(apperr.SessionNotActive, "The session is not in play.")
	}
	participants, err := tx.FindParticipants(ctx, sessionID)
	if err != nil {
		return sessionScope{}, nil, err
	}
	return sc, participants, nil
}

// SessionSeats returns the seats of a session's campaign with their
// controllers' names and characters: what a reader needs to name the
// speakers of events. Cheaper than Resume (no events, stage or
// participants). Returns the errors of ListEvents.
func (s *Service) SessionSeats(ctx context.Context, c Caller, sessionID int64) ([]SeatView, error) {
	// A caller waiting on the session (MCP's wait_for_event names the
	// speakers of every page) gets the hub's copy while it is trusted.
	generation, now := s.store.AuthorityGeneration(), time.Now()
	if seats, ok := s.notifier.cachedRoster(sessionID, c, generation, now); ok {
		return seats, nil
	}
	// The waiters of a caller miss together (the roster's trust ends for
	// all of them at once, and one wake answers them all): one reads and
	// the others share its answer.
	key := fmt.Sprintf("seats/%d/%d/%d/%d", sessionID, c.UserID, c.GrantID, generation)
	return oneread.Do(&s.notifier.resolving, ctx, key, func(rctx context.Context) ([]SeatView, error) {
		seats, err := s.sessionSeats(rctx, c, sessionID)
		if err == nil {
			s.notifier.cacheRoster(sessionID, seats, generation, now)
		}
		return seats, err
	})
}

func (s *Service) sessionSeats(ctx context.Context, c Caller, sessionID int64) ([]SeatView, error) {
	if err := s.failpoint("seats.read"); err != nil {
		return nil, err
	}
	sc, err := loadAudience(allowEndedRead(ctx), s.store, c, sessionID, false)
	if err != nil {
		return nil, err
	}
	names, err := memberNames(ctx, s.store, seatControllerIDs(sc.seats))
	if err != nil {
		return nil, err
	}
	chars, err := charactersByID(ctx, s.store, seatCharacterIDs(sc.seats))
	if err != nil {
		return nil, err
	}
	return seatViews(sc.seats, names, chars, nil), nil
}

// seatControllerIDs lists the access sessions controlling the seats.
func seatControllerIDs(seats []models.CampaignSeat) []int64 {
	ids := []int64{}
	for _, seat := range seats {
		if seat.ControllerAccessSessionID != nil {
			ids = append(ids, *seat.ControllerAccessSessionID)
		}
	}
	return ids
}

// memberNames maps access sessions to their members' display names, in one
// query.
func memberNames(ctx context.Context, tx *models.Store, accessIDs []int64) (map[int64]string, error) {
	members, err := tx.FindMembersByAccessIDs(ctx, accessIDs)
	if err != nil {
		return nil, err
	}
	names := map[int64]string{}
	for _, m := range members {
		names[m.ID] = m.DisplayName
	}
	return names, nil
}
