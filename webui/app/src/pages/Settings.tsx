import { Link } from 'react-router';
import { getCapabilities } from '../api';
import { ErrorNotice } from '../components/ErrorNotice';
import { LanguageSelect } from '../components/LanguageSelect';
import { useI18n } from '../i18n/I18nProvider';
import { useApi } from '../useApi';

export function SettingsPage() {
  const { t } = useI18n();
  const [caps, reload] = useApi(getCapabilities);
  const mcpURL = `${window.location.origin}/mcp`;
  return (
    <>
      <h1>{t('settings.title')}</h1>

      <section className="panel" aria-labelledby="settings-lang">
        <h2 id="settings-lang">{t('settings.language')}</h2>
        <LanguageSelect />
      </section>

      <section className="panel" aria-labelledby="settings-mcp">
        <h2 id="settings-mcp">{t('settings.mcp.title')}</h2>
        <dl className="facts">
          <dt>{t('settings.mcp.url')}</dt>
          <dd>
            <code data-testid="mcp-url">{mcpURL}</code>
          </dd>
        </dl>
        <p>{t('settings.mcp.how')}</p>
      </section>

      <section className="panel" aria-labelledby="settings-api">
        <h2 id="settings-api">{t('settings.api.title')}</h2>
        {caps.state === 'loading' && <p aria-busy="true">{t('caps.loading')}</p>}
        {caps.state === 'error' && <ErrorNotice code={caps.code} onRetry={reload} />}
        {caps.state === 'ok' &&
          (caps.data.api_docs === true ? (
            <p>
              <Link to="/api/docs">{t('settings.api.docs')}</Link> — {t('settings.api.docsHint')}
            </p>
          ) : (
            <p>{t('docs.unavailable')}</p>
          ))}
      </section>
    </>
  );
}
