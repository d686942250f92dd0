import { useId, useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { getCapabilities } from '../api';
import { ErrorNotice } from '../components/ErrorNotice';
import { LanguageSelect } from '../components/LanguageSelect';
import { ThemeSelect } from '../components/ThemeSelect';
import { useI18n } from '../i18n/I18nProvider';
import { usePageTitle } from '../usePageTitle';
import { getMe, updateMe } from '../table/api';
import { useAction } from '../useAction';
import { useApi } from '../useApi';

function DisplayName() {
  const { t } = useI18n();
  const [me, reload] = useApi(getMe);
  const id = useId();
  return (
    <section className="panel" aria-labelledby="settings-profile">
      <h2 id="settings-profile">{t('settings.profile')}</h2>
      {me.state === 'loading' && <p aria-busy="true">{t('common.loading')}</p>}
      {me.state === 'error' && <ErrorNotice code={me.code} lead={t('settings.displayName.failed')} onRetry={reload} />}
      {me.state === 'ok' && <DisplayNameForm id={id} initial={me.data.display_name} />}
      <p className="hint" id={`${id}-hint`}>
        {t('settings.displayName.hint')}
      </p>
    </section>
  );
}

function DisplayNameForm({ id, initial }: { id: string; initial: string }) {
  const { t } = useI18n();
  const [name, setName] = useState(initial);
  const [savedName, setSavedName] = useState<string | null>(null);
  const action = useAction();

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const user = await action.run(() => updateMe(name.trim()));
    if (user) {
      setName(user.display_name);
      setSavedName(user.display_name);
    }
  };

  return (
    <>
      <form className="inline-form" onSubmit={submit}>
        <label htmlFor={id}>{t('settings.displayName')}</label>
        <input id={id} value={name} maxLength={200} aria-describedby={`${id}-hint`} onChange={(e) => setName(e.target.value)} />
        <button type="submit" disabled={action.busy}>
          {t('settings.displayName.save')}
        </button>
        <span role="status" className="hint">
          {savedName !== null && savedName === name && t('common.saved')}
        </span>
      </form>
      {action.error !== null && <ErrorNotice code={action.error} />}
    </>
  );
}

export function SettingsPage() {
  const { t } = useI18n();
  usePageTitle('title.settings');
  const [caps, reload] = useApi(getCapabilities);
  const mcpURL = `${window.location.origin}/mcp`;
  return (
    <>
      <h1>{t('settings.title')}</h1>

      <DisplayName />

      <section className="panel" aria-labelledby="settings-lang">
        <h2 id="settings-lang">{t('settings.language')}</h2>
        <LanguageSelect />
      </section>

      <section className="panel" aria-labelledby="settings-theme">
        <h2 id="settings-theme">{t('settings.theme')}</h2>
        <ThemeSelect />
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
            <>
              <p>
                <Link to="/api/docs">{t('settings.api.docs')}</Link> — {t('settings.api.docsHint')}
              </p>
              {/* local mode: the person at this machine runs the server */}
              <p>
                <Link to="/operator">{t('operator.title')}</Link> — {t('settings.api.operatorHint')}
              </p>
            </>
          ) : (
            <p>{t('docs.unavailable')}</p>
          ))}
      </section>
    </>
  );
}
