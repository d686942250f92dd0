import { format } from '../i18n/messages';
import { useI18n } from '../i18n/I18nProvider';

// ScriptNotices lists the messages the scenario's scripts left for the player
// after a turn (a state.message, or a script failure the turn went on
// without). Each can be dismissed; they never block the game.
export function ScriptNotices({ notices, onChange }: { notices: string[]; onChange: (notices: string[]) => void }) {
  const { t } = useI18n();
  if (notices.length === 0) return null;
  return (
    <div className="script-notices" role="status" data-testid="script-notice">
      <p className="notice-lead">{t('solo.notices.title')}</p>
      <ul>
        {notices.map((n, i) => (
          <li key={`${i}-${n}`}>
            <span className="notice-text">{n}</span>
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
