package models

import (
	"context"
	"time"

	"gorm.io/gorm/clause"
)

// Campaign statuses.
const (
	CampaignActive    = "active"
	CampaignCompleted = "completed"
	CampaignArchived  = "archived"
)

// Seat roles and controller kinds.
const (
	SeatDM     = "dm"
	SeatPlayer = "player"

	ControllerNone  = "none"
	ControllerHuman = "human"
	ControllerAI    = "ai"
)

// Campaign is a story a room plays over several sessions.
type Campaign struct {
	ID     int64  `gorm:"primaryKey"`
	RoomID int64  `gorm:"not null;index"`
	Room   *Room  `gorm:"foreignKey:RoomID;constraint:OnDelete:CASCADE"`
	Name   string `gorm:"size:80;not null"`
	Status string `gorm:"size:16;not null;check:ck_campaigns_status,status IN ('active','completed','archived')"`
	// RecapStyle is how long the recap that opens a session is: brief or detailed.
	RecapStyle string    `gorm:"size:8;not null;default:'brief'"`
	CreatedAt  time.Time `gorm:"not null"`
}

// Recap styles of a campaign.
const (
	RecapBrief    = "brief"
	RecapDetailed = "detailed"
)

// CampaignSeat is a place at a campaign's table: exactly one DM seat and any
// number of player seats. Who controls it is the binding below, guarded by
// ck_campaign_seats_controller_binding; ControllerEpoch changes with every
// real controller change and is the only current-authority generation.
type CampaignSeat struct {
	ID         int64     `gorm:"primaryKey"`
	CampaignID int64     `gorm:"not null;index;uniqueIndex:uq_campaign_seats_one_dm,where:role = 'dm'"`
	Campaign   *Campaign `gorm:"foreignKey:CampaignID;constraint:OnDelete:CASCADE"`
	Role       string    `gorm:"size:16;not null;check:ck_campaign_seats_role,role IN ('dm','player')"`
	Label      string    `gorm:"size:80;not null"`
	// ControllerKind is none, human or ai; the CHECK on it encodes the
	// binding rules (seed §8.2).
	ControllerKind            string             `gorm:"size:16;not null;check:ck_campaign_seats_controller_binding,(controller_kind = 'none' AND controller_access_session_id IS NULL AND ai_controller_grant_id IS NULL) OR (controller_kind = 'human' AND controller_access_session_id IS NOT NULL AND ai_controller_grant_id IS NULL) OR (controller_kind = 'ai' AND controller_access_session_id IS NULL AND ai_controller_grant_id IS NOT NULL)"`
	ControllerAccessSessionID *int64             `gorm:"index"`
	ControllerAccessSession   *RoomAccessSession `gorm:"foreignKey:ControllerAccessSessionID;constraint:OnDelete:CASCADE"`
	AIControllerGrantID       *int64             `gorm:"column:ai_controller_grant_id"`
	ControllerEpoch           int64              `gorm:"not null;default:0;check:ck_campaign_seats_controller_epoch,controller_epoch >= 0"`
	CharacterID               *int64             `gorm:"index"`
	Character                 *Character         `gorm:"foreignKey:CharacterID;constraint:OnDelete:SET NULL"`
	CreatedAt                 time.Time          `gorm:"not null"`
}

// SeatController is a seat's controller binding.
type SeatController struct {
	Kind            string
	AccessSessionID *int64
	AIGrantID       *int64
	// KeepCharacter keeps the seat's character: a handoff to an AI (and
	// back) changes who plays, not what is played.
	KeepCharacter bool
}

// CreateCampaign inserts a campaign and its DM seat.
func (s *Store) CreateCampaign(ctx context.Context, c *Campaign, dmSeat *CampaignSeat) error {
	if err := s.db.WithContext(ctx).Omit(clause.Associations).Create(c).Error; err != nil {
		return translate(err, "campaign")
	}
	dmSeat.CampaignID = c.ID
	return translate(s.db.WithContext(ctx).Omit(clause.Associations).Create(dmSeat).Error, "seat")
}

// FindCampaignByID returns a campaign, or not_found.
func (s *Store) FindCampaignByID(ctx context.Context, id int64) (*Campaign, error) {
	var c Campaign
	return &c, translate(s.db.WithContext(ctx).First(&c, id).Error, "campaign")
}

// FindCampaignsOfRoom returns a room's campaigns, oldest first.
func (s *Store) FindCampaignsOfRoom(ctx context.Context, roomID int64) ([]Campaign, error) {
	var out []Campaign
	return out, translate(s.db.WithContext(ctx).Where("room_id = ?", roomID).Order("id").Find(&out).Error, "campaigns")
}

// CampaignUpdate holds the fields of a campaign to change.
type CampaignUpdate struct {
	Name       *string
	Status     *string
	RecapStyle *string
}

// UpdateCampaign changes the given fields.
func (s *Store) UpdateCampaign(ctx context.Context, id int64, u CampaignUpdate) error {
	m := map[string]any{}
	if u.Name != nil {
		m["name"] = *u.Name
	}
	if u.Status != nil {
		m["status"] = *u.Status
	}
	if u.RecapStyle != nil {
		m["recap_style"] = *u.RecapStyle
	}
	if len(m) == 0 {
		return nil
	}
	return translate(s.db.WithContext(ctx).Model(&Campaign{}).Where("id = ?", id).Updates(m).Error, "campaign")
}

// CreateSeat inserts a seat.
func (s *Store) CreateSeat(ctx context.Context, seat *CampaignSeat) error {
	return translate(s.db.WithContext(ctx).Omit(clause.Associations).Create(seat).Error, "seat")
}

// FindSeatByID returns a seat, or not_found; forUpdate locks it (PostgreSQL).
func (s *Store) FindSeatByID(ctx context.Context, id int64, forUpdate bool) (*CampaignSeat, error) {
	var seat CampaignSeat
	return &seat, translate(lockIf(s.db.WithContext(ctx), forUpdate).First(&seat, id).Error, "seat")
}

// FindSeatsOfCampaigns returns the seats of the given campaigns, DM seat
// first, then in creation order.
func (s *Store) FindSeatsOfCampaigns(ctx context.Context, campaignIDs []int64) ([]CampaignSeat, error) {
	if len(campaignIDs) == 0 {
		return nil, nil
	}
	var out []CampaignSeat
	err := s.db.WithContext(ctx).Where("campaign_id IN ?", campaignIDs).
		Order("campaign_id, CASE WHEN role = 'dm' THEN 0 ELSE 1 END, id").Find(&out).Error
	return out, translate(err, "seats")
}

// FindDMSeat returns a campaign's DM seat; forUpdate locks it.
func (s *Store) FindDMSeat(ctx context.Context, campaignID int64, forUpdate bool) (*CampaignSeat, error) {
	var seat CampaignSeat
	err := lockIf(s.db.WithContext(ctx), forUpdate).Where("campaign_id = ? AND role = ?", campaignID, SeatDM).First(&seat).Error
	return &seat, translate(err, "DM seat")
}

// SetSeatController replaces a seat's controller binding and increments
// its controller epoch in the same statement. It is the only way a
// controller changes, so no path can forget the epoch. The seat's character
// is cleared too (characters belong to their controller) unless the change
// keeps it. Returns the new epoch.
func (s *Store) SetSeatController(ctx context.Context, seatID int64, c SeatController) (int64, error) {
	changes := map[string]any{
		"controller_kind":              c.Kind,
		"controller_access_session_id": c.AccessSessionID,
		"ai_controller_grant_id":       c.AIGrantID,
		"controller_epoch":             clauseExpr("controller_epoch + 1"),
	}
	if !c.KeepCharacter {
		changes["character_id"] = nil
	}
	err := s.db.WithContext(ctx).Model(&CampaignSeat{}).Where("id = ?", seatID).Updates(changes).Error
	if err != nil {
		return 0, translate(err, "seat")
	}
	s.authorityChanged(ctx)
	var epoch int64
	err = s.db.WithContext(ctx).Model(&CampaignSeat{}).Where("id = ?", seatID).Select("controller_epoch").Scan(&epoch).Error
	return epoch, translate(err, "seat")
}

// SetSeatCharacter points a seat at the character its controller plays.
func (s *Store) SetSeatCharacter(ctx context.Context, seatID int64, characterID *int64) error {
	return translate(s.db.WithContext(ctx).Model(&CampaignSeat{}).Where("id = ?", seatID).Update("character_id", characterID).Error, "seat")
}

// FindSeatsControlledBy returns the seats a human access session controls.
func (s *Store) FindSeatsControlledBy(ctx context.Context, accessSessionID int64) ([]CampaignSeat, error) {
	var out []CampaignSeat
	err := s.db.WithContext(ctx).Where("controller_kind = ? AND controller_access_session_id = ?", ControllerHuman, accessSessionID).Find(&out).Error
	return out, translate(err, "seats")
}

// FindSeatsHeldFor returns the seats an AI controls through a grant that
// hands the seat back to this access session (the member's handoffs).
func (s *Store) FindSeatsHeldFor(ctx context.Context, accessSessionID int64) ([]CampaignSeat, error) {
	var out []CampaignSeat
	err := s.db.WithContext(ctx).Where("controller_kind = ? AND ai_controller_grant_id IN (?)", ControllerAI,
		s.db.Model(&AIControllerGrant{}).Select("id").Where("handoff_return_access_session_id = ? AND status = ?", accessSessionID, GrantActive)).
		Find(&out).Error
	return out, translate(err, "seats")
}
