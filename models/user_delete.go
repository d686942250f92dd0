package models

import (
	"context"

	"gorm.io/gorm"

	"github.com/adventure-table/adventure-table/models/apperr"
)

// DeleteUser deletes the user row; the database removes what the user owns
// through its foreign keys (ON DELETE CASCADE: rooms, characters, solo
// play). It does not release what they hold in other people's rooms:
// gameplay's table.Service.DeleteUser does that first, in the same
// transaction. A user who still holds a seat there (controls it, or handed
// it to an AI that still has it) is refused with conflict rather than take
// the seat, and with it the room owner's sessions. Returns not_found when
// no such user exists.
func (s *Store) DeleteUser(ctx context.Context, id int64) error {
	var held int64
	members := s.db.Table("room_access_sessions a").Select("a.id").
		Joins("JOIN rooms r ON r.id = a.room_id").Where("a.user_id = ? AND r.owner_user_id <> ?", id, id)
	err := s.db.WithContext(ctx).Model(&CampaignSeat{}).
		Where("controller_access_session_id IN (?)", members).
		Or("ai_controller_grant_id IN (?)", s.db.Model(&AIControllerGrant{}).Select("id").
			Where("status = ? AND handoff_return_access_session_id IN (?)", GrantActive, members)).
		Count(&held).Error
	if err != nil {
		return translate(err, "seats")
	}
	if held > 0 {
		return apperr.E(apperr.Conflict, "This person still holds a seat in another person's room; it must be released first.")
	}
	return s.deletedOne(ctx, s.db.WithContext(ctx).Exec("DELETE FROM users WHERE id = ?", id), "user", "The user does not exist.")
}

// deletedOne reports a DELETE that changes who may do what: not_found with
// notFound when it took no row, else the change is announced.
func (s *Store) deletedOne(ctx context.Context, res *gorm.DB, what, notFound string) error {
	if res.Error != nil {
		return translate(res.Error, what)
	}
	if res.RowsAffected == 0 {
		return apperr.E(apperr.NotFound, "%s", notFound)
	}
	s.authorityChanged(ctx)
	return nil
}
