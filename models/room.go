package models

import (
	"context"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// Room authorities: what a room access session may manage. They are
// room-management rights, not gameplay roles: a DM-key holder who does not
// control the DM seat is not the session's DM.
const (
	AuthorityOwner  = "owner"
	AuthorityDM     = "dm"
	AuthorityMember = "member"
)

// Access session statuses.
const (
	AccessActive  = "active"
	AccessRevoked = "revoked"
)

// Room is a group that plays together.
type Room struct {
	ID          int64  `gorm:"primaryKey"`
	OwnerUserID int64  `gorm:"not null;index"`
	Owner       *User  `gorm:"foreignKey:OwnerUserID;constraint:OnDelete:CASCADE"`
	Name        string `gorm:"size:80;not null"`
	// InviteCode joins the room; rotating it invalidates the old one.
	InviteCode     string `gorm:"size:64;not null;uniqueIndex"`
	AllowSelfClaim bool   `gorm:"not null;default:false"`
	// ActiveCampaignID has no foreign key: campaigns point at rooms, and a
	// cycle of foreign keys cannot be created in one step on SQLite. The
	// gameplay layer checks it belongs to the room.
	ActiveCampaignID *int64
	CreatedAt        time.Time `gorm:"not null"`
}

// RoomAccessSession is a user's membership of a room: the human identity
// every table rule checks. One per user and room; revoking is final.
type RoomAccessSession struct {
	ID        int64     `gorm:"primaryKey"`
	RoomID    int64     `gorm:"not null;uniqueIndex:uq_room_access_sessions_room_user,priority:1"`
	Room      *Room     `gorm:"foreignKey:RoomID;constraint:OnDelete:CASCADE"`
	UserID    int64     `gorm:"not null;uniqueIndex:uq_room_access_sessions_room_user,priority:2;index"`
	User      *User     `gorm:"foreignKey:UserID;constraint:OnDelete:CASCADE"`
	Authority string    `gorm:"size:16;not null;check:ck_room_access_sessions_authority,authority IN ('owner','dm','member')"`
	Status    string    `gorm:"size:16;not null;check:ck_room_access_sessions_status,status IN ('active','revoked')"`
	CreatedAt time.Time `gorm:"not null"`
	RevokedAt *time.Time
	// LastSeenAt and LastSeenSessionID are presence: when this access
	// session last read a session's events, and which (schema v11). They
	// are written at most every few seconds, never per request.
	LastSeenAt        *time.Time
	LastSeenSessionID *int64
}

// TouchAccessSession records that an access session read a session's
// events (presence).
func (s *Store) TouchAccessSession(ctx context.Context, id, sessionID int64, at time.Time) error {
	err := s.db.WithContext(ctx).Model(&RoomAccessSession{}).Where("id = ?", id).
		Updates(map[string]any{"last_seen_at": at, "last_seen_session_id": sessionID}).Error
	return translate(err, "room access session")
}

// Member is an access session with its user's display name.
type Member struct {
	RoomAccessSession
	DisplayName string
}

// CreateRoom inserts the room and its owner's access session.
func (s *Store) CreateRoom(ctx context.Context, r *Room, owner *RoomAccessSession) error {
	if err := s.db.WithContext(ctx).Omit(clause.Associations).Create(r).Error; err != nil {
		return translate(err, "room")
	}
	owner.RoomID = r.ID
	return translate(s.db.WithContext(ctx).Omit(clause.Associations).Create(owner).Error, "room access session")
}

// FindRoomByID returns the room, or not_found.
func (s *Store) FindRoomByID(ctx context.Context, id int64) (*Room, error) {
	var r Room
	return &r, translate(s.db.WithContext(ctx).First(&r, id).Error, "room")
}

// FindRoomByInviteCode returns the room with that invite code, or not_found.
func (s *Store) FindRoomByInviteCode(ctx context.Context, code string) (*Room, error) {
	var r Room
	return &r, translate(s.db.WithContext(ctx).Where("invite_code = ?", code).First(&r).Error, "room")
}

// RoomUpdate holds the fields of a room to change; nil leaves a field alone.
type RoomUpdate struct {
	Name             *string
	InviteCode       *string
	AllowSelfClaim   *bool
	ActiveCampaignID **int64
}

// UpdateRoom changes the given fields of a room.
func (s *Store) UpdateRoom(ctx context.Context, id int64, u RoomUpdate) error {
	m := map[string]any{}
	if u.Name != nil {
		m["name"] = *u.Name
	}
	if u.InviteCode != nil {
		m["invite_code"] = *u.InviteCode
	}
	if u.AllowSelfClaim != nil {
		m["allow_self_claim"] = *u.AllowSelfClaim
	}
	if u.ActiveCampaignID != nil {
		m["active_campaign_id"] = *u.ActiveCampaignID
	}
	if len(m) == 0 {
		return nil
	}
	return translate(s.db.WithContext(ctx).Model(&Room{}).Where("id = ?", id).Updates(m).Error, "room")
}

// FindRoomsOfUser returns the rooms where the user has an access session,
// with that access session, newest room first.
func (s *Store) FindRoomsOfUser(ctx context.Context, userID int64) ([]Room, []RoomAccessSession, error) {
	var access []RoomAccessSession
	if err := s.db.WithContext(ctx).Where("user_id = ?", userID).Order("room_id DESC").Find(&access).Error; err != nil {
		return nil, nil, translate(err, "room access sessions")
	}
	ids := make([]int64, len(access))
	for i, a := range access {
		ids[i] = a.RoomID
	}
	var rooms []Room
	if len(ids) > 0 {
		if err := s.db.WithContext(ctx).Where("id IN ?", ids).Order("id DESC").Find(&rooms).Error; err != nil {
			return nil, nil, translate(err, "rooms")
		}
	}
	return rooms, access, nil
}

// FindAccessSession returns the user's access session in a room, or
// not_found. forUpdate locks the row until the transaction ends (PostgreSQL).
func (s *Store) FindAccessSession(ctx context.Context, roomID, userID int64, forUpdate bool) (*RoomAccessSession, error) {
	var a RoomAccessSession
	q := lockIf(s.db.WithContext(ctx), forUpdate)
	return &a, translate(q.Where("room_id = ? AND user_id = ?", roomID, userID).First(&a).Error, "room access session")
}

// FindAccessSessionByID returns an access session, or not_found.
func (s *Store) FindAccessSessionByID(ctx context.Context, id int64) (*RoomAccessSession, error) {
	var a RoomAccessSession
	return &a, translate(s.db.WithContext(ctx).First(&a, id).Error, "room access session")
}

// CreateAccessSession inserts a membership; a second one for the same user
// and room is a conflict.
func (s *Store) CreateAccessSession(ctx context.Context, a *RoomAccessSession) error {
	return translate(s.db.WithContext(ctx).Omit(clause.Associations).Create(a).Error, "room access session")
}

// AccessUpdate holds the fields of an access session to change.
type AccessUpdate struct {
	Authority *string
	Status    *string
	RevokedAt *time.Time
}

// UpdateAccessSession changes the given fields.
func (s *Store) UpdateAccessSession(ctx context.Context, id int64, u AccessUpdate) error {
	m := map[string]any{}
	if u.Authority != nil {
		m["authority"] = *u.Authority
	}
	if u.Status != nil {
		m["status"] = *u.Status
	}
	if u.RevokedAt != nil {
		m["revoked_at"] = *u.RevokedAt
	}
	err := s.db.WithContext(ctx).Model(&RoomAccessSession{}).Where("id = ?", id).Updates(m).Error
	if err == nil {
		s.authorityChanged(ctx)
	}
	return translate(err, "room access session")
}

// FindMembers returns a room's access sessions with display names, oldest first.
func (s *Store) FindMembers(ctx context.Context, roomID int64) ([]Member, error) {
	var out []Member
	err := s.db.WithContext(ctx).Model(&RoomAccessSession{}).
		Select("room_access_sessions.*, users.display_name AS display_name").
		Joins("JOIN users ON users.id = room_access_sessions.user_id").
		Where("room_access_sessions.room_id = ?", roomID).
		Order("room_access_sessions.id").Scan(&out).Error
	return out, translate(err, "members")
}

// FindMembersByAccessIDs returns the members with the given access session ids.
func (s *Store) FindMembersByAccessIDs(ctx context.Context, ids []int64) ([]Member, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	var out []Member
	err := s.db.WithContext(ctx).Model(&RoomAccessSession{}).
		Select("room_access_sessions.*, users.display_name AS display_name").
		Joins("JOIN users ON users.id = room_access_sessions.user_id").
		Where("room_access_sessions.id IN ?", ids).Scan(&out).Error
	return out, translate(err, "members")
}

// lockIf adds FOR UPDATE on PostgreSQL; SQLite's driver drops the clause,
// its BEGIN IMMEDIATE write lock already serialises writers.
func lockIf(db *gorm.DB, forUpdate bool) *gorm.DB {
	if forUpdate {
		return db.Clauses(clause.Locking{Strength: "UPDATE"})
	}
	return db
}
