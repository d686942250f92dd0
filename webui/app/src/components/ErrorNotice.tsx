import { useI18n } from '../i18n/I18nProvider';

// ErrorNotice shows a failure: an optional lead, the translated text of the
// error code, and an optional detail written by the server for the player
// (used only where the contract says the message is meant to be shown).
export function ErrorNotice({
  code,
  lead,
  detail,
  onRetry,
}: {
  code: string;
  lead?: string;
  detail?: string;
  onRetry?: () => void;
}) {
  const { t, errorText } = useI18n();
  return (
    <div className="notice notice-error" role="alert">
      {lead && <p className="notice-lead">{lead}</p>}
      <p>{errorText(code)}</p>
      {detail && (
        <p className="notice-detail" data-testid="error-detail">
          {detail}
        </p>
      )}
      {onRetry && (
        <button type="button" onClick={onRetry}>
          {t('common.retry')}
        </button>
      )}
    </div>
  );
}
