package models

import (
	"context"
	"errors"

	"gorm.io/gorm"

	"github.com/adventure-table/adventure-table/models/apperr"
)

// DeleteUser deletes the user row; the database removes what hangs off it
// through its foreign keys (ON DELETE CASCADE). Returns not_found when no
// such user exists, and conflict when a foreign key still refuses the
// delete (a schema whose table-side keys do not cascade yet: the user owns
// rooms, memberships or characters).
func (s *Store) DeleteUser(ctx context.Context, id int64) error {
	res := s.db.WithContext(ctx).Exec("DELETE FROM users WHERE id = ?", id)
	if errors.Is(res.Error, gorm.ErrForeignKeyViolated) {
		return apperr.Wrap(res.Error, apperr.Conflict,
			"This account still owns rooms, memberships or characters that the database will not delete with it; leave or delete them first.")
	}
	if res.Error != nil {
		return translate(res.Error, "user")
	}
	if res.RowsAffected == 0 {
		return apperr.E(apperr.NotFound, "The user does not exist.")
	}
	s.authorityChanged(ctx)
	return nil
}
