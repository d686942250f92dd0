package table

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/adventure-table/adventure-table/models"
	"github.com/adventure-table/adventure-table/models/apperr"
)

// StageView is what the stage shows.
type StageView struct {
	Text      string    `json:"text"`
	ImageID   *int64    `json:"image_id"`
	ImageURL  *string   `json:"image_url"`
	Revision  int64     `json:"revision"`
	UpdatedAt time.Time `json:"updated_at"`
}

// StageInput replaces the stage; Revision is the one the writer read.
type StageInput struct {
	Text     string `json:"text" jsonschema:"at most 4000 characters"`
	ImageID  *int64 `json:"image_id" jsonschema:"an uploaded stage image of this room, or null"`
	Revision int64  `json:"revision" jsonschema:"the revision you read; a stale one is refused"`
}

// StageImageView describes an uploaded image.
type StageImageView struct {
	ID       int64  `json:"id"`
	MimeType string `json:"mime_type"`
	ByteSize int64  `json:"byte_size"`
	Width    int    `json:"width"`
	Height   int    `json:"height"`
	URL      string `json:"url"`
}

// StageImage is an image's bytes for serving.
type StageImage struct {
	MimeType string
	SHA256   string
	Content  []byte
}

func stageImageURL(id int64) string { return fmt.Sprintf("/api/stage-images/%d", id) }

func stageView(st *models.SessionStageState) StageView {
	v := StageView{Text: st.Text, ImageID: st.ImageAssetID, Revision: st.Revision, UpdatedAt: st.UpdatedAt}
	if st.ImageAssetID != nil {
		u := stageImageURL(*st.ImageAssetID)
		v.ImageURL = &u
	}
	return v
}

// requireStageWriter: the current DM, in the lobby or in play.
func requireStageWriter(sc sessionScope) error {
	if err := requireCurrentDM(sc); err != nil {
		return err
	}
	if st := sc.session.Status; st != models.SessionLobby && st != models.SessionActive {
		return apperr.E(apperr.SessionNotActive, "The session is over.")
	}
	return nil
}

// SetStage replaces the stage text and image if nobody changed it since
// the revision the caller read; the update and its event commit together.
// Returns not_current_dm, session_not_active, stage_revision_conflict
// (details.current_revision), invalid_request, not_found.
func (s *Service) SetStage(ctx context.Context, c Caller, sessionID int64, in StageInput) (StageView, error) {
	if !models.StorableText(in.Text) {
		return StageView{}, models.UnstorableText(apperr.InvalidRequest, "text")
	}
	if utf8.RuneCountInString(in.Text) > MaxMessageLength {
		return StageView{}, apperr.E(apperr.InvalidRequest, "Stage text is at most %d characters.", MaxMessageLength).WithField("text", "at most 4000 characters")
	}
	var out StageView
	err := s.store.Tx(ctx, func(tx *models.Store) error {
		sc, err := loadSession(ctx, tx, c, sessionID, true)
		if err != nil {
			return err
		}
		if err := requireStageWriter(sc); err != nil {
			return err
		}
		if in.ImageID != nil {
			img, err := tx.FindStageAssetMeta(ctx, *in.ImageID)
			if err != nil || img.RoomID != sc.session.RoomID {
				return notFound("stage image")
			}
		}
		ok, err := tx.UpdateStage(ctx, sessionID, in.Revision, in.Text, in.ImageID, sc.session.DMSeatID, s.now())
		if err != nil {
			return err
		}
		st, err := tx.FindStage(ctx, sessionID)
		if err != nil {
			return err
		}
		if !ok {
			return apperr.E(apperr.StageRevisionConflict, "The stage changed since you read it; reload and try again.").WithDetail("current_revision", st.Revision)
		}
		out = stageView(st)
		dm := sc.session.DMSeatID
		_, err = s.appendNext(ctx, tx, sessionID, eventDraft{kind: EventStageUpdated, acting: &dm,
			payload: map[string]any{"revision": out.Revision, "text": out.Text, "image_id": out.ImageID, "image_url": out.ImageURL}})
		return err
	})
	if err != nil {
		return StageView{}, err
	}
	s.notifier.Notify(sessionID)
	return out, nil
}

// UploadStageImage stores an image for the session's room after checking
// its content within the decode budget (see inspectImage; it waits for a
// decode slot while ctx lives). Only the current DM may. Returns
// not_current_dm, session_not_active, stage_image_invalid,
// stage_image_too_large.
func (s *Service) UploadStageImage(ctx context.Context, c Caller, sessionID int64, data []byte) (StageImageView, error) {
	// Only the DM gets to spend a decode slot, and the decode runs outside
	// the transaction: waiting for a slot must not hold a connection (or
	// SQLite's write lock). The transaction checks the DM again.
	sc, err := loadSession(ctx, s.store, c, sessionID, false)
	if err != nil {
		return StageImageView{}, err
	}
	if err := requireStageWriter(sc); err != nil {
		return StageImageView{}, err
	}
	mime, w, h, err := inspectImage(ctx, data)
	if err != nil {
		return StageImageView{}, err
	}
	var out StageImageView
	err = s.store.Tx(ctx, func(tx *models.Store) error {
		sc, err := loadSession(ctx, tx, c, sessionID, false)
		if err != nil {
			return err
		}
		if err := requireStageWriter(sc); err != nil {
			return err
		}
		sum := sha256.Sum256(data)
		a := &models.RoomStageAsset{RoomID: sc.session.RoomID, MimeType: mime, ByteSize: int64(len(data)), Width: w, Height: h,
			SHA256: hex.EncodeToString(sum[:]), Content: data, CreatedAt: s.now()}
		if sc.actor.Kind == ActorHuman {
			// An AI DM has no access session; its upload is the DM seat's.
			a.CreatedByAccessSession = &sc.actor.AccessSessionID
		}
		if err := tx.CreateStageAsset(ctx, a); err != nil {
			return err
		}
		out = StageImageView{ID: a.ID, MimeType: mime, ByteSize: a.ByteSize, Width: w, Height: h, URL: stageImageURL(a.ID)}
		return nil
	})
	return out, err
}

// GetStageImage returns an image to a member of its room; anyone else gets
// not_found. Returns room_access_revoked.
func (s *Service) GetStageImage(ctx context.Context, c Caller, imageID int64) (StageImage, error) {
	meta, err := s.store.FindStageAssetMeta(ctx, imageID)
	if apperr.CodeOf(err) == apperr.NotFound {
		return StageImage{}, notFound("stage image")
	}
	if err != nil {
		return StageImage{}, err
	}
	if _, err := roomActor(ctx, s.store, c, meta.RoomID, "stage image"); err != nil {
		return StageImage{}, err
	}
	a, err := s.store.FindStageAsset(ctx, imageID)
	if err != nil {
		return StageImage{}, err
	}
	return StageImage{MimeType: a.MimeType, SHA256: a.SHA256, Content: a.Content}, nil
}
