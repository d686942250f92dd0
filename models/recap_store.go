package models

import "context"

// HasEarlierSession reports whether a campaign played a session before
// sessionID (ended or abandoned): only then is there something to recap.
func (s *Store) HasEarlierSession(ctx context.Context, campaignID, sessionID int64) (bool, error) {
	var n int64
	err := s.db.WithContext(ctx).Model(&Session{}).
		Where("campaign_id = ? AND id < ? AND status IN ?", campaignID, sessionID, []string{SessionEnded, SessionAbandoned}).
		Limit(1).Count(&n).Error
	return n > 0, translate(err, "sessions")
}

// SessionsWithRecap returns a campaign's sessions whose recap is in status.
func (s *Store) SessionsWithRecap(ctx context.Context, campaignID int64, status string) ([]Session, error) {
	var out []Session
	err := s.db.WithContext(ctx).Where("campaign_id = ? AND recap_status = ?", campaignID, status).Order("id").Find(&out).Error
	return out, translate(err, "sessions")
}

// SetRecapIf writes a session's recap only while it is still in status
// from (a DM who skipped meanwhile wins over a draft that arrives late),
// and reports whether it did.
func (s *Store) SetRecapIf(ctx context.Context, sessionID int64, from, to, text string) (bool, error) {
	res := s.db.WithContext(ctx).Model(&Session{}).Where("id = ? AND recap_status = ?", sessionID, from).
		Updates(map[string]any{"recap_status": to, "recap_text": text})
	return res.RowsAffected == 1, translate(res.Error, "session")
}

// RecapMemories returns what the table remembers of a campaign's sessions
// before sessionID: the table's memories only (a recap is posted to
// everyone), oldest first, at most limit, from the newest sessions back.
func (s *Store) RecapMemories(ctx context.Context, campaignID, sessionID int64, sessions, limit int) ([]CampaignMemory, error) {
	var ids []int64
	err := s.db.WithContext(ctx).Model(&Session{}).Where("campaign_id = ? AND id < ?", campaignID, sessionID).
		Order("id DESC").Limit(sessions).Pluck("id", &ids).Error
	if err != nil || len(ids) == 0 {
		return nil, translate(err, "sessions")
	}
	var out []CampaignMemory
	err = s.db.WithContext(ctx).Omit("embedding").
		Where("campaign_id = ? AND audience = ? AND session_id IN ?", campaignID, AudienceTable, ids).
		Order("session_id DESC, to_seq DESC").Limit(limit).Find(&out).Error
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out, translate(err, "campaign memories")
}
