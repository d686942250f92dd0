import { Link } from 'react-router';
import { getHealth, type Health } from '../api';
import { ErrorNotice } from '../components/ErrorNotice';
import { listAdventures } from '../solo/api';
import { listRooms, type Authority } from '../table/api';
import './Home.css';
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
    <section className="panel home-about" aria-labelledby="status-title" data-testid="status-panel">
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

// HomePage is where a newcomer starts: two calls to action (a table with
// friends, a solo story), then their tables and stories, and the server's
// facts out of the way at the bottom.
export function HomePage() {
  const { t } = useI18n();
  usePageTitle(null);
  return (
    <div className="home">
      <h1>{t('home.title')}</h1>
      <p className="lead">{t('home.intro')}</p>
      <nav className="home-cta" aria-label={t('home.cta.label')}>
        <Link to="/tables/new" className="home-cta-card home-cta-primary" data-testid="cta-friends">
          <span className="home-cta-title">{t('home.friends.title')}</span>
          <span className="home-cta-body">{t('home.friends.body')}</span>
        </Link>
        <Link to="/solo" className="home-cta-card" data-testid="cta-solo">
          <span className="home-cta-title">{t('home.solo.title')}</span>
          <span className="home-cta-body">{t('home.solo.body')}</span>
        </Link>
      </nav>
      <div className="home-lists">
        <MyTables />
        <MyStories />
      </div>
      <StatusPanel />
    </div>
  );
}

function MyTables() {
  const { t } = useI18n();
  const [rooms, reload] = useApi(listRooms);
  return (
    <section className="panel" aria-labelledby="home-tables-title">
      <h2 id="home-tables-title">{t('home.tables.title')}</h2>
      {rooms.state === 'loading' && <p aria-busy="true">{t('common.loading')}</p>}
      {rooms.state === 'error' && <ErrorNotice code={rooms.code} lead={t('home.tables.failed')} onRetry={reload} />}
      {rooms.state === 'ok' &&
        (rooms.data.rooms.length === 0 ? (
          <p className="hint" data-testid="home-tables-empty">
            {t('home.tables.empty')}
          </p>
        ) : (
          <ul className="home-list" data-testid="home-tables">
            {rooms.data.rooms.map((r) => (
              <li key={r.id}>
                <Link to={`/rooms/${r.id}`}>{r.name}</Link>
                <span className="badge">{t(`authority.${r.my_access.authority as Authority}`)}</span>
              </li>
            ))}
          </ul>
        ))}
      <p className="home-more">
        <Link to="/tables">{t('home.tables.all')}</Link>
      </p>
    </section>
  );
}

function MyStories() {
  const { t } = useI18n();
  const [list, reload] = useApi(listAdventures);
  return (
    <section className="panel" aria-labelledby="home-stories-title">
      <h2 id="home-stories-title">{t('home.stories.title')}</h2>
      {list.state === 'loading' && <p aria-busy="true">{t('common.loading')}</p>}
      {list.state === 'error' && <ErrorNotice code={list.code} lead={t('home.stories.failed')} onRetry={reload} />}
      {list.state === 'ok' &&
        (list.data.adventures.length === 0 ? (
          <p className="hint" data-testid="home-stories-empty">
            {t('home.stories.empty')}
          </p>
        ) : (
          <ul className="home-list" data-testid="home-stories">
            {list.data.adventures.map((a) => (
              <li key={a.id}>
                <Link to={`/solo/adventures/${a.id}`}>{a.title}</Link>
              </li>
            ))}
          </ul>
        ))}
      <p className="home-more">
        <Link to="/solo">{t('home.stories.all')}</Link>
      </p>
    </section>
  );
}
