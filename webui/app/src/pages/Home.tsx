import { getHealth, type Health } from '../api';
import { ErrorNotice } from '../components/ErrorNotice';
import { useI18n } from '../i18n/I18nProvider';
import { usePageTitle } from '../usePageTitle';
import type { MessageKey } from '../i18n/messages';
import { useApi } from '../useApi';

// Product names of the database dialects are not translated.
const DIALECT_NAMES: Record<string, string> = { sqlite: 'SQLite', postgres: 'PostgreSQL', postgresql: 'PostgreSQL' };

function modeKey(mode: string): MessageKey | null {
  if (mode === 'local') return 'status.mode.local';
  if (mode === 'hosted') return 'status.mode.hosted';
  return null;
}

function StatusPanel() {
  const { t } = useI18n();
  const [health, reload] = useApi(getHealth);
  return (
    <section className="panel" aria-labelledby="status-title" data-testid="status-panel">
      <h2 id="status-title">{t('status.title')}</h2>
      {health.state === 'loading' && <p aria-busy="true">{t('common.loading')}</p>}
      {health.state === 'error' && <ErrorNotice code={health.code} lead={t('status.failed')} onRetry={reload} />}
      {health.state === 'ok' && <StatusList health={health.data} />}
    </section>
  );
}

function StatusList({ health }: { health: Health }) {
  const { t } = useI18n();
  const mode = modeKey(health.mode);
  const dialect = health.database?.dialect ?? '';
  return (
    <dl className="facts">
      <dt>{t('status.state')}</dt>
      <dd data-testid="status-state">{health.status === 'ok' ? t('status.ok') : t('status.degraded')}</dd>
      <dt>{t('status.mode')}</dt>
      <dd data-testid="status-mode">{mode ? t(mode) : health.mode}</dd>
      <dt>{t('status.version')}</dt>
      <dd data-testid="status-version">{health.version}</dd>
      <dt>{t('status.database')}</dt>
      <dd data-testid="status-database">{DIALECT_NAMES[dialect] ?? dialect}</dd>
      <dt>{t('status.database.reachable')}</dt>
      <dd data-testid="status-reachable">{health.database?.reachable ? t('common.yes') : t('common.no')}</dd>
      <dt>{t('status.schema')}</dt>
      <dd data-testid="status-schema">{health.schema_version}</dd>
    </dl>
  );
}

export function HomePage() {
  const { t } = useI18n();
  usePageTitle(null);
  return (
    <>
      <h1>{t('home.title')}</h1>
      <p className="lead">{t('home.intro')}</p>
      <StatusPanel />
    </>
  );
}
