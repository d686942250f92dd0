import { useI18n } from '../i18n/I18nProvider';

export function ErrorNotice({ code, lead, onRetry }: { code: string; lead?: string; onRetry?: () => void }) {
  const { t, errorText } = useI18n();
  return (
    <div className="notice notice-error" role="alert">
      {lead && <p className="notice-lead">{lead}</p>}
      <p>{errorText(code)}</p>
      {onRetry && (
        <button type="button" onClick={onRetry}>
          {t('common.retry')}
        </button>
      )}
    </div>
  );
}
