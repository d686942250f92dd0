import { Play, Trash2 } from 'lucide-react';
import { Suspense, useEffect, useState } from 'react';
import { Link, useLocation, useNavigate } from 'react-router';
import type { Schemas } from '../api';
import { MODEL_SETTINGS_ID } from '../components/ErrorNotice';
import { format } from '../i18n/messages';
import { ErrorNotice } from '../components/ErrorNotice';
import { useI18n } from '../i18n/I18nProvider';
import { usePageTitle } from '../usePageTitle';
import {
  deleteAdventure,
  listAdventures,
  listScenarios,
  listStarters,
  startStarter,
  type AdventureSummary,
  type ScenarioSummary,
  type Starter,
} from '../solo/api';
import '../solo/Starters.css';
import { ExportBundleButton, ImportBundleButton } from '../solo/BundleButtons';
import { ProviderSettingsPanel } from '../solo/ProviderSettings';
import { lazyPart } from '../lazy';
import { useAction } from '../useAction';
import { useApi, type Loadable } from '../useApi';

// The dialogs load when first opened.
const ImportDialog = lazyPart(() => import('../solo/ImportDialog'), 'ImportDialog');
const PlayDialog = lazyPart(() => import('../solo/PlayDialog'), 'PlayDialog');

// SoloPage is the solo area: the player's adventures, their scenarios and
// the language-model settings that narrate them.
export function SoloPage() {
  const { t } = useI18n();
  usePageTitle('title.solo');
  const [adventures, reload] = useApi(listAdventures);
  // a newcomer (no adventure yet) meets the starter stories first
  const newcomer = adventures.state === 'ok' && adventures.data.adventures.length === 0;
  const { hash } = useLocation();
  // a link from a "model not reachable" error lands on the model settings
  useEffect(() => {
    if (hash !== `#${MODEL_SETTINGS_ID}`) return;
    const el = document.getElementById(MODEL_SETTINGS_ID);
    el?.scrollIntoView?.({ block: 'start' });
    el?.focus({ preventScroll: true });
  }, [hash]);
  return (
    <>
      <h1>{t('solo.title')}</h1>
      <p className="lead">{t('solo.intro')}</p>
      {newcomer && <Starters lead />}
      <Adventures list={adventures} reload={reload} />
      <Scenarios />
      {!newcomer && <Starters />}
      <ProviderSettingsPanel />
    </>
  );
}

// Starters lists the stories shipped with the server; Start imports one as
// the player's own scenario, starts an adventure from it and opens it (one
// tap, as a published story starts on AI Dungeon). lead: shown first, to a
// newcomer.
function Starters({ lead = false }: { lead?: boolean }) {
  const { t } = useI18n();
  const navigate = useNavigate();
  const [list, reload] = useApi(listStarters);
  const action = useAction();
  const [starting, setStarting] = useState<string | null>(null);
  const start = async (s: Starter) => {
    setStarting(s.slug);
    const page = await action.run(() => startStarter(s.slug));
    setStarting(null);
    if (page) void navigate(`/solo/adventures/${page.adventure.id}`);
  };
  return (
    <section className={`panel starters${lead ? ' is-lead' : ''}`} aria-labelledby="solo-starters-title" data-testid="starters">
      <h2 id="solo-starters-title">{t('starters.title')}</h2>
      <p className="hint">{lead ? t('starters.empty') : t('starters.intro')}</p>
      {list.state === 'loading' && <p aria-busy="true">{t('common.loading')}</p>}
      {list.state === 'error' && <ErrorNotice code={list.code} lead={t('starters.failed')} onRetry={reload} />}
      {list.state === 'ok' && (
        <ul className="starter-list">
          {list.data.starters.map((s) => (
            <li key={s.slug} className="starter" data-testid="starter">
              <h3>{s.title}</h3>
              <p className="starter-premise">{s.premise}</p>
              <p className="starter-meta hint">
                {format(t('starters.cards'), { n: s.cards })}
                {s.has_scripts && (
                  <span className="tag" title={t('starters.scriptedHint')}>
                    {t('starters.scripted')}
                  </span>
                )}
              </p>
              <button
                type="button"
                className="starter-start"
                aria-label={format(t('starters.startLabel'), { title: s.title })}
                disabled={action.busy}
                aria-busy={starting === s.slug}
                onClick={() => void start(s)}
              >
                <Play aria-hidden="true" size={18} />
                {t('starters.start')}
              </button>
            </li>
          ))}
        </ul>
      )}
      {action.error !== null && <ErrorNotice code={action.error} lead={t('starters.failedStart')} />}
    </section>
  );
}

function Adventures({ list, reload }: { list: Loadable<Schemas['AdventureList']>; reload: () => void }) {
  const { t } = useI18n();
  return (
    <section className="panel" aria-labelledby="solo-adventures-title">
      <h2 id="solo-adventures-title">{t('solo.adventures.title')}</h2>
      {list.state === 'loading' && <p aria-busy="true">{t('common.loading')}</p>}
      {list.state === 'error' && <ErrorNotice code={list.code} lead={t('solo.adventures.failed')} onRetry={reload} />}
      {list.state === 'ok' &&
        (list.data.adventures.length === 0 ? (
          <p className="hint" data-testid="adventures-empty">
            {t('solo.adventures.empty')}
          </p>
        ) : (
          <ul className="item-list" data-testid="adventure-list">
            {list.data.adventures.map((a) => (
              <AdventureItem key={a.id} a={a} onDeleted={reload} />
            ))}
          </ul>
        ))}
      <p>
        <ImportBundleButton kind="adventure" onImported={reload} />
      </p>
    </section>
  );
}

function AdventureItem({ a, onDeleted }: { a: AdventureSummary; onDeleted: () => void }) {
  const { t } = useI18n();
  const [confirm, setConfirm] = useState(false);
  const action = useAction();
  const remove = async () => {
    const r = await action.run(() => deleteAdventure(a.id));
    if (r) onDeleted();
  };
  return (
    <li data-testid="adventure">
      <Link to={`/solo/adventures/${a.id}`}>{a.title}</Link>
      <time className="hint" dateTime={a.updated_at}>
        {new Date(a.updated_at).toLocaleString()}
      </time>
      {confirm ? (
        <>
          <button type="button" onClick={remove} disabled={action.busy}>
            {t('solo.adventures.deleteYes')}
          </button>
          <button type="button" onClick={() => setConfirm(false)}>
            {t('common.cancel')}
          </button>
        </>
      ) : (
        <>
          <ExportBundleButton kind="adventure" id={a.id} title={a.title} />
          <button type="button" onClick={() => setConfirm(true)} aria-label={`${t('solo.adventures.delete')}: ${a.title}`}>
            <Trash2 aria-hidden="true" size={16} />
            {t('solo.adventures.delete')}
          </button>
        </>
      )}
      {action.error !== null && <ErrorNotice code={action.error} />}
    </li>
  );
}

function Scenarios() {
  const { t } = useI18n();
  const [list, reload] = useApi(listScenarios);
  const [playing, setPlaying] = useState<ScenarioSummary | null>(null);
  const [importing, setImporting] = useState(false);
  return (
    <section className="panel" aria-labelledby="solo-scenarios-title">
      <h2 id="solo-scenarios-title">{t('solo.scenarios.title')}</h2>
      <p className="hint">{t('solo.scenarios.intro')}</p>
      {list.state === 'loading' && <p aria-busy="true">{t('common.loading')}</p>}
      {list.state === 'error' && <ErrorNotice code={list.code} lead={t('solo.scenarios.failed')} onRetry={reload} />}
      {list.state === 'ok' &&
        (list.data.scenarios.length === 0 ? (
          <div className="empty-state" data-testid="scenarios-empty">
            <p className="empty-title">{t('solo.scenarios.empty')}</p>
            <p>{t('solo.scenarios.explain')}</p>
          </div>
        ) : (
          <ul className="item-list" data-testid="scenario-list">
            {list.data.scenarios.map((s) => (
              <li key={s.id} data-testid="scenario">
                <Link to={`/solo/scenarios/${s.id}`}>{s.title}</Link>
                {s.premise && <span className="hint scenario-premise">{s.premise}</span>}
                <button type="button" onClick={() => setPlaying(s)} aria-label={`${t('solo.play.button')}: ${s.title}`}>
                  {t('solo.play.button')}
                </button>
                <ExportBundleButton kind="scenario" id={s.id} title={s.title} />
              </li>
            ))}
          </ul>
        ))}
      <p>
        <Link className="button-link" to="/solo/scenarios/new">
          {t('solo.scenarios.new')}
        </Link>{' '}
        <button type="button" onClick={() => setImporting(true)} data-testid="import-open">
          {t('solo.import.button')}
        </button>{' '}
        <ImportBundleButton kind="scenario" onImported={reload} />
      </p>
      <Suspense fallback={null}>
        {importing && <ImportDialog onClose={() => setImporting(false)} />}
        {playing && <PlayDialog scenarioId={playing.id} title={playing.title} onClose={() => setPlaying(null)} />}
      </Suspense>
    </section>
  );
}
