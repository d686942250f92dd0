import { Settings } from 'lucide-react';
import { Link } from 'react-router';
import { useI18n } from '../i18n/I18nProvider';

// MODEL_SETTINGS_ID is the id of the solo model settings on /solo: the
// target of the link every "model not reachable" error carries.
export const MODEL_SETTINGS_ID = 'model-settings';
export const MODEL_SETTINGS_PATH = `/solo#${MODEL_SETTINGS_ID}`;

// MODEL_SETTINGS_CODES are the errors the player fixes in the model
// settings (the endpoint is unreachable, slow to connect, refuses the key,
// does not know the model, or the free narration is spent): each shows a
// link to them.
export const MODEL_SETTINGS_CODES: ReadonlySet<string> = new Set([
  'provider_unavailable',
  'provider_auth_failed',
  'provider_rejected',
  'provider_reasoning_only',
  'provider_connect_timeout',
  'provider_headers_timeout',
  'provider_settings_invalid',
  'demo_budget_exhausted',
]);

// ErrorNotice shows a failure: an optional lead, the translated text of the
// error code, and an optional detail written by the server for the player
// (used only where the contract says the message is meant to be shown).
// An error fixed in the model settings links to them, unless the notice is
// already inside them (inSettings).
export function ErrorNotice({
  code,
  lead,
  detail,
  onRetry,
  inSettings = false,
}: {
  code: string;
  lead?: string;
  detail?: string;
  onRetry?: () => void;
  inSettings?: boolean;
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
      {!inSettings && MODEL_SETTINGS_CODES.has(code) && (
        <p>
          <Link to={MODEL_SETTINGS_PATH} className="button-link" data-testid="model-settings-link">
            <Settings aria-hidden="true" size={16} /> {t('modelSettings.link')}
          </Link>
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
