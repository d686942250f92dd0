import { format } from '../i18n/messages';
import { useI18n } from '../i18n/I18nProvider';
import { serverText } from '../i18n/serverText';
import type { Notice } from './api';

// ScriptNotices lists the messages the scenario's scripts left for the player
// after a turn (a state.message, or a script failure the turn went on
// without). Each can be dismissed; they never block the game. A notice is a
// code with params, written in the reader's language (the server's English
// text when the code is unknown).
export function ScriptNotices({ notices, onChange }: { notices: Notice[]; onChange: (notices: Notice[]) => void }) {
  const { t } = useI18n();
  if (notices.length === 0) return null;
  return (
    <div className="script-notices" role="status" data-testid="script-notice">
      <p className="notice-lead">{t('solo.notices.title')}</p>
      <ul>
        {notices.map((n, i) => (
          <li key={`${i}-${n.code}-${n.text}`}>
            <span className="notice-text">{serverText(t, n.code, n.params, n.text)}</span>
            <button
              type="button"
              className="tool"
              aria-label={format(t('solo.notices.dismissN'), { n: i + 1 })}
              onClick={() => onChange(notices.filter((_, j) => j !== i))}
            >
              {t('solo.notices.dismiss')}
            </button>
          </li>
        ))}
      </ul>
      {notices.length > 1 && (
        <button type="button" className="tool" onClick={() => onChange([])}>
          {t('solo.notices.dismissAll')}
        </button>
      )}
    </div>
  );
}
