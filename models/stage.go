package models

import (
	"context"
	"time"

	"gorm.io/gorm/clause"
)

// RoomStageAsset is an image shown on a session's stage, stored in the
// database so a backup holds everything and deleting a room removes it.
type RoomStageAsset struct {
	ID                     int64              `gorm:"primaryKey"`
	RoomID                 int64              `gorm:"not null;index"`
	Room                   *Room              `gorm:"foreignKey:RoomID;constraint:OnDelete:CASCADE"`
	MimeType               string             `gorm:"size:32;not null;check:ck_room_stage_assets_mime,mime_type IN ('image/png','image/jpeg','image/webp')"`
	ByteSize               int64              `gorm:"not null"`
	Width                  int                `gorm:"not null"`
	Height                 int                `gorm:"not null"`
	SHA256                 string             `gorm:"column:sha256;size:64;not null"`
	Content                []byte             `gorm:"not null"`
	CreatedByAccessSession *int64             `gorm:"column:created_by_access_session_id"`
	CreatedBy              *RoomAccessSession `gorm:"foreignKey:CreatedByAccessSession;constraint:OnDelete:SET NULL"`
	CreatedAt              time.Time          `gorm:"not null"`
}

// SessionStageState is what the stage shows now. Revision guards against a
// stale write: an update names the revision it read.
type SessionStageState struct {
	SessionID       int64           `gorm:"primaryKey;autoIncrement:false"`
	Session         *Session        `gorm:"foreignKey:SessionID;constraint:OnDelete:CASCADE"`
	Text            string          `gorm:"type:text;not null"`
	ImageAssetID    *int64          `gorm:"index"`
	ImageAsset      *RoomStageAsset `gorm:"foreignKey:ImageAssetID;constraint:OnDelete:CASCADE"`
	Revision        int64           `gorm:"not null;default:0"`
	UpdatedBySeatID *int64
	UpdatedAt       time.Time `gorm:"not null"`
}

// CreateStage creates a session's empty stage.
func (s *Store) CreateStage(ctx context.Context, sessionID int64, now time.Time) error {
	return translate(s.db.WithContext(ctx).Omit(clause.Associations).Create(&SessionStageState{SessionID: sessionID, UpdatedAt: now}).Error, "stage")
}

// FindStage returns a session's stage.
func (s *Store) FindStage(ctx context.Context, sessionID int64) (*SessionStageState, error) {
	var st SessionStageState
	return &st, translate(s.db.WithContext(ctx).First(&st, "session_id = ?", sessionID).Error, "stage")
}

// UpdateStage writes the stage if its revision is still readRevision and
// reports whether it did; the new revision is readRevision+1.
func (s *Store) UpdateStage(ctx context.Context, sessionID, readRevision int64, text string, imageAssetID *int64, bySeat int64, now time.Time) (bool, error) {
	res := s.db.WithContext(ctx).Model(&SessionStageState{}).Where("session_id = ? AND revision = ?", sessionID, readRevision).Updates(map[string]any{
		"text": text, "image_asset_id": imageAssetID, "revision": clauseExpr("revision + 1"), "updated_by_seat_id": bySeat, "updated_at": now,
	})
	return res.RowsAffected == 1, translate(res.Error, "stage")
}

// CreateStageAsset stores an image.
func (s *Store) CreateStageAsset(ctx context.Context, a *RoomStageAsset) error {
	return translate(s.db.WithContext(ctx).Omit(clause.Associations).Create(a).Error, "stage image")
}

// FindStageAsset returns an image with its bytes.
func (s *Store) FindStageAsset(ctx context.Context, id int64) (*RoomStageAsset, error) {
	var a RoomStageAsset
	return &a, translate(s.db.WithContext(ctx).First(&a, id).Error, "stage image")
}

// FindStageAssetMeta returns an image without its bytes.
func (s *Store) FindStageAssetMeta(ctx context.Context, id int64) (*RoomStageAsset, error) {
	var a RoomStageAsset
	err := s.db.WithContext(ctx).Omit("content").First(&a, id).Error
	return &a, translate(err, "stage image")
}

// TableName keeps the seed's name for the stage table.
func (SessionStageState) TableName() string { return "session_stage_state" }
