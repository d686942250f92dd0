package models

import "context"

// AdventureActions returns every node of an adventure (every branch, every
// take) without the prompts, in creation order: a parent always comes
// before its children. A bundle export reads it.
func (s *Store) AdventureActions(ctx context.Context, adventureID int64) ([]ActionRow, error) {
	var rows []ActionRow
	err := s.db.WithContext(ctx).Model(&Action{}).Select(actionListColumns).
		Where("adventure_id = ?", adventureID).Order("id").Find(&rows).Error
	return rows, translate(err, "story")
}
