package models

import (
	"context"
	"time"

	"gorm.io/gorm/clause"
)

// CampaignWorld is a campaign's world as its DM prepared it (one row per
// campaign, absent until first written): the premise the whole table may
// read, the plot essentials only the DM reads, and the NPCs (a JSON list
// of {name, description, stat_block}, DM only). It is its own table so
// that the campaign row every session read loads stays small.
type CampaignWorld struct {
	CampaignID     int64     `gorm:"primaryKey;autoIncrement:false"`
	Campaign       *Campaign `gorm:"foreignKey:CampaignID;constraint:OnDelete:CASCADE"`
	Premise        string    `gorm:"type:text;not null;default:''"`
	PlotEssentials string    `gorm:"type:text;not null;default:''"`
	NPCs           string    `gorm:"column:npcs;type:text;not null;default:'[]'"`
	UpdatedAt      time.Time `gorm:"not null"`
}

// FindCampaignWorld returns a campaign's world; a campaign without one
// gets an empty world (never not_found).
func (s *Store) FindCampaignWorld(ctx context.Context, campaignID int64) (*CampaignWorld, error) {
	var out []CampaignWorld
	if err := s.db.WithContext(ctx).Where("campaign_id = ?", campaignID).Limit(1).Find(&out).Error; err != nil {
		return nil, translate(err, "campaign world")
	}
	if len(out) == 0 {
		return &CampaignWorld{CampaignID: campaignID, NPCs: "[]"}, nil
	}
	return &out[0], nil
}

// SaveCampaignWorld writes a campaign's whole world.
func (s *Store) SaveCampaignWorld(ctx context.Context, w *CampaignWorld) error {
	err := s.db.WithContext(ctx).Omit(clause.Associations).Clauses(clause.OnConflict{
		Columns:   []clause.Column{{Name: "campaign_id"}},
		DoUpdates: clause.AssignmentColumns([]string{"premise", "plot_essentials", "npcs", "updated_at"}),
	}).Create(w).Error
	return translate(err, "campaign world")
}
