package models

import (
	"context"
	"strings"
)

// AdventureActions returns every node of an adventure (every branch, every
// take) without the prompts, in creation order: a parent always comes
// before its children. A bundle export reads it.
func (s *Store) AdventureActions(ctx context.Context, adventureID int64) ([]ActionRow, error) {
	var rows []ActionRow
	err := s.db.WithContext(ctx).Model(&Action{}).Select(actionListColumns).
		Where("adventure_id = ?", adventureID).Order("id").Find(&rows).Error
	return rows, translate(err, "story")
}

// bundleBatch is how many rows one statement of a bundle import writes.
const bundleBatch = 500

// CreateActions inserts nodes in batches, in order, and sets their ids.
func (s *Store) CreateActions(ctx context.Context, rows []Action) error {
	if len(rows) == 0 {
		return nil
	}
	return translate(s.db.WithContext(ctx).CreateInBatches(&rows, bundleBatch).Error, "turn")
}

// SetActionParents sets the parent of each node in parents (node id →
// parent id), a batch of nodes per statement.
func (s *Store) SetActionParents(ctx context.Context, parents map[int64]int64) error {
	ids := make([]int64, 0, len(parents))
	for id := range parents {
		ids = append(ids, id)
	}
	for start := 0; start < len(ids); start += bundleBatch {
		chunk := ids[start:min(start+bundleBatch, len(ids))]
		var sb strings.Builder
		args := make([]any, 0, 2*len(chunk)+1)
		sb.WriteString("CASE id")
		for _, id := range chunk {
			sb.WriteString(" WHEN ? THEN CAST(? AS BIGINT)")
			args = append(args, id, parents[id])
		}
		sb.WriteString(" END")
		err := s.db.WithContext(ctx).Exec("UPDATE actions SET parent_id = "+sb.String()+" WHERE id IN ?", append(args, chunk)...).Error
		if err != nil {
			return translate(err, "turn")
		}
	}
	return nil
}
