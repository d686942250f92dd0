import { Pencil } from 'lucide-react';
import { useId, useRef, useState, type ChangeEvent } from 'react';
import { ApiError } from '../api';
import { ErrorNotice } from '../components/ErrorNotice';
import { Markdown } from '../components/Markdown';
import { useI18n } from '../i18n/I18nProvider';
import { useAction } from '../useAction';
import { setStage, uploadStageImage, type StageView } from './api';

// StagePanel shows the stage; the current DM may edit its text, show an
// image and remove it. Every change names the revision it was based on; a
// stale one (stage_revision_conflict) reloads the stage and says so.
export function StagePanel({
  sessionId,
  stage,
  canEdit,
  onStage,
  reload,
}: {
  sessionId: number;
  stage: StageView;
  canEdit: boolean;
  onStage: (s: StageView) => void;
  reload: () => Promise<void>;
}) {
  const { t } = useI18n();
  const action = useAction();
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState('');
  const [uploading, setUploading] = useState(false);
  const fileRef = useRef<HTMLInputElement>(null);
  const id = useId();

  const write = async (change: { text: string; image_id: number | null; revision: number }) => {
    let conflict = false;
    const next = await action.run(async () => {
      try {
        return await setStage(sessionId, change);
      } catch (e) {
        conflict = e instanceof ApiError && e.code === 'stage_revision_conflict';
        throw e;
      }
    });
    if (next) onStage(next);
    // Someone else changed the stage: show theirs (the error stays shown) and let the DM try again.
    else if (conflict) await reload();
    return next;
  };

  const save = async () => {
    const next = await write({ text: draft, image_id: stage.image_id, revision: stage.revision });
    if (next) setEditing(false);
  };

  const upload = async (e: ChangeEvent<HTMLInputElement>) => {
    const file = e.target.files?.[0];
    if (!file) return;
    setUploading(true);
    try {
      const img = await action.run(() => uploadStageImage(sessionId, file));
      if (img) await write({ text: stage.text, image_id: img.id, revision: stage.revision });
    } finally {
      setUploading(false);
      if (fileRef.current) fileRef.current.value = '';
    }
  };

  return (
    <section className="stage" aria-labelledby={`${id}-title`} data-revision={stage.revision}>
      <h2 id={`${id}-title`} className="stage-title">{t('table.stage')}</h2>
      {stage.text ? (
        <Markdown className="stage-text" testId="stage-text" text={stage.text} />
      ) : (
        !stage.image_url && (
          <p className="hint" data-testid="stage-empty">
            {t('table.stage.empty')}
          </p>
        )
      )}
      {stage.image_url && (
        <img className="stage-image" data-testid="stage-image" src={stage.image_url} alt={t('table.stage.imageAlt')} />
      )}
      {canEdit && (
        <div className="stage-editor">
          {editing ? (
            <div className="stage-edit">
              <label htmlFor={`${id}-text`}>{t('table.stage.text')}</label>
              <textarea id={`${id}-text`} rows={5} maxLength={4000} value={draft} onChange={(e) => setDraft(e.target.value)} />
              <div className="inline-form">
                <button type="button" disabled={action.busy} onClick={save}>
                  {t('table.stage.save')}
                </button>
                <button type="button" onClick={() => setEditing(false)}>
                  {t('table.stage.cancel')}
                </button>
              </div>
            </div>
          ) : (
            <div className="inline-form">
              <button
                type="button"
                onClick={() => {
                  setDraft(stage.text);
                  setEditing(true);
                  action.clear();
                }}
              >
                <Pencil aria-hidden="true" size={16} />
                {t('table.stage.edit')}
              </button>
              {stage.image_id !== null && (
                <button
                  type="button"
                  disabled={action.busy}
                  onClick={() => write({ text: stage.text, image_id: null, revision: stage.revision })}
                >
                  {t('table.stage.clearImage')}
                </button>
              )}
            </div>
          )}
          <div className="inline-form">
            <label htmlFor={`${id}-file`}>{t('table.stage.upload')}</label>
            <input
              id={`${id}-file`}
              ref={fileRef}
              type="file"
              accept="image/png,image/jpeg,image/webp"
              disabled={uploading || action.busy}
              aria-describedby={`${id}-file-hint`}
              onChange={upload}
            />
            <span className="hint" id={`${id}-file-hint`}>
              {uploading ? t('table.stage.uploading') : t('table.stage.uploadHint')}
            </span>
          </div>
          {action.error !== null && <ErrorNotice code={action.error} />}
        </div>
      )}
    </section>
  );
}
