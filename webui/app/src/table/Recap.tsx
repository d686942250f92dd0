import { useEffect, useId, useState } from 'react';
import { ErrorNotice } from '../components/ErrorNotice';
import { useI18n } from '../i18n/I18nProvider';
import { useAction } from '../useAction';
import { postRecap, skipRecap, type SessionResume } from './api';

// How often the DM's page looks again while the recap is being written
// (no event marks a draft: nobody else may know of it).
const DRAFTING_POLL_MS = 2000;

// RecapPanel is the DM's "Previously on…" before it is posted: while the
// memory job writes it, a note; then the draft in a text box to edit, post
// to the table or skip. Nobody else sees it until it is posted.
export function RecapPanel({
  data,
  onSession,
  reload,
}: {
  data: SessionResume;
  onSession: (r: SessionResume) => void;
  reload: () => Promise<void>;
}) {
  const { t } = useI18n();
  const action = useAction();
  const id = useId();
  const status = data.recap.status;
  const [text, setText] = useState(data.recap.text ?? '');
  const [edited, setEdited] = useState(false);
  // a draft that arrives fills the box, unless the DM already typed in it
  useEffect(() => {
    if (!edited) setText(data.recap.text ?? '');
  }, [data.recap.text, edited]);
  useEffect(() => {
    if (status !== 'drafting') return;
    const timer = setInterval(() => void reload(), DRAFTING_POLL_MS);
    return () => clearInterval(timer);
  }, [status, reload]);

  const post = async () => {
    const r = await action.run(() => postRecap(data.session.id, text));
    if (r) onSession(r);
  };
  const skip = async () => {
    const r = await action.run(() => skipRecap(data.session.id));
    if (r) onSession(r);
  };

  return (
    <section className="recap-panel" aria-labelledby={`${id}-title`} data-testid="recap-panel" data-status={status}>
      <h2 id={`${id}-title`} className="recap-title">
        {t('recap.title')}
      </h2>
      {status === 'drafting' ? (
        <p className="hint" role="status">
          {t('recap.drafting')}
        </p>
      ) : (
        <>
          <p className="hint" id={`${id}-hint`}>
            {t('recap.hint')}
          </p>
          <textarea
            aria-label={t('recap.text')}
            aria-describedby={`${id}-hint`}
            data-testid="recap-text"
            value={text}
            rows={5}
            maxLength={4000}
            onChange={(e) => {
              setText(e.target.value);
              setEdited(true);
            }}
          />
        </>
      )}
      {action.error !== null && <ErrorNotice code={action.error} />}
      <div className="actions">
        {status === 'draft' && (
          <button type="button" className="primary" disabled={action.busy || text.trim() === ''} onClick={() => void post()}>
            {t('recap.post')}
          </button>
        )}
        <button type="button" disabled={action.busy} onClick={() => void skip()}>
          {t('recap.skip')}
        </button>
      </div>
    </section>
  );
}
