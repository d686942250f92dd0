import { BookOpen, ScrollText, Settings, UsersRound } from 'lucide-react';
import { Suspense } from 'react';
import { matchPath, NavLink, Route, Routes, useLocation } from 'react-router';
import { AccountProvider, useAccount } from './account/AccountContext';
import { AccountLink } from './account/AccountLink';
import { LanguageSelect } from './components/LanguageSelect';
import { useI18n } from './i18n/I18nProvider';
import { loadParts, type Part } from './i18n/messages';
import { NotFoundPage } from './pages/NotFound';
import { lazyComponent, preloadParts, type LazyComponent } from './lazy';
import { PageFailed, PageLoading } from './routes';
import { useHeadroom } from './useHeadroom';

// A page loads what it shows: each route's page is a script of its own,
// fetched when the route is first visited (main.tsx starts the first
// page's at once, side by side with the app's words), with the part of
// the UI's words its pages use (scripts/i18n-parts.mjs puts each key in
// the part of the pages that use it). What pages share (the table's feed,
// the solo reader's parts) the build puts in scripts of their own.

// page is a route's page: its path, its part of the words, and its module.
function page<M extends Record<string, unknown>>(path: string, part: Part, load: () => Promise<M>, name: keyof M) {
  return [path, lazyComponent(() => Promise.all([load(), loadParts([part])]).then(([m]) => m), name)] as [string, LazyComponent<object>];
}

const PAGES = [
  page('/', 'core', () => import('./pages/Home'), 'HomePage'),
  page('/tables', 'table', () => import('./pages/Tables'), 'TablesPage'),
  page('/tables/new', 'table', () => import('./pages/NewTable'), 'NewTablePage'),
  page('/join/:code', 'table', () => import('./pages/Join'), 'JoinPage'),
  page('/rooms/:id', 'table', () => import('./pages/Room'), 'RoomPage'),
  page('/sessions/:id', 'session', () => import('./pages/Session'), 'SessionPage'),
  page('/campaigns/:id', 'table', () => import('./pages/Campaign'), 'CampaignPage'),
  page('/campaigns/:id/journal', 'table', () => import('./pages/CampaignJournal'), 'CampaignJournalPage'),
  page('/seats/:seatId/narrator', 'table', () => import('./pages/NarratorSteps'), 'NarratorStepsPage'),
  page('/characters', 'table', () => import('./pages/Characters'), 'CharactersPage'),
  page('/characters/:id', 'table', () => import('./pages/CharacterEditor'), 'CharacterEditorPage'),
  page('/characters/:id/sheet', 'table', () => import('./pages/CharacterSheet'), 'CharacterSheetPage'),
  page('/solo', 'solo', () => import('./pages/Solo'), 'SoloPage'),
  page('/solo/scenarios/:id', 'solo', () => import('./solo/ScenarioEditor'), 'ScenarioEditorPage'),
  page('/solo/adventures/:id', 'solo', () => import('./solo/PlayPage'), 'AdventurePlayPage'),
  page('/settings', 'account', () => import('./pages/Settings'), 'SettingsPage'),
  page('/account', 'account', () => import('./pages/Account'), 'AccountPage'),
  // The operator's dashboard carries a chart library nobody else needs.
  page('/operator', 'account', () => import('./pages/Operator'), 'default'),
];
// Swagger UI is big; its page says it is loading at once.
const [, ApiDocsPage] = page('/api/docs', 'core', () => import('./pages/ApiDocs'), 'default');

// preloadPage starts fetching the script of the page at pathname, if it
// has one; a failure shows when the page renders.
export function preloadPage(pathname: string) {
  const match = PAGES.find(([path]) => matchPath(path, pathname));
  match?.[1].preload().catch(() => {});
}

// preloadPages loads every page's script but those of the paths in
// except, and every part's: the unit tests render pages at once, as the
// app does a page it has seen.
export async function preloadPages(except: string[] = []) {
  await Promise.all(PAGES.filter(([path]) => !except.includes(path)).map(([, page]) => page.preload()));
  await preloadParts();
}

export function AppShell() {
  return (
    <AccountProvider>
      <Shell />
    </AccountProvider>
  );
}

function Shell() {
  const { t } = useI18n();
  // The pages remount when this browser's user changes (login, logout), so
  // they load the new user's rooms and adventures.
  const { generation } = useAccount();
  const { pathname } = useLocation();
  // the header gets out of the way while the page scrolls down
  const headroom = useHeadroom();
  return (
    <>
      <header className="app-header" data-testid="app-header" data-hidden={headroom.hidden || undefined} onFocus={headroom.show}>
        <NavLink to="/" end className="brand">
          {t('app.name')}
        </NavLink>
        <nav aria-label={t('nav.label')}>
          <NavLink to="/tables">
            <UsersRound aria-hidden="true" size={16} />
            {t('nav.tables')}
          </NavLink>
          <NavLink to="/characters">
            <ScrollText aria-hidden="true" size={16} />
            {t('nav.characters')}
          </NavLink>
          <NavLink to="/solo">
            <BookOpen aria-hidden="true" size={16} />
            {t('nav.solo')}
          </NavLink>
          <NavLink to="/settings">
            <Settings aria-hidden="true" size={16} />
            {t('nav.settings')}
          </NavLink>
        </nav>
        <AccountLink />
        <LanguageSelect />
      </header>
      <main className="app-main">
        <PageFailed key={generation} at={pathname}>
          <Suspense fallback={<PageLoading />}>
            <Routes>
              {PAGES.map(([path, Page]) => (
                <Route key={path} path={path} element={<Page />} />
              ))}
              <Route
                path="/api/docs"
                element={
                  <Suspense fallback={<p aria-busy="true">{t('docs.loading')}</p>}>
                    <ApiDocsPage />
                  </Suspense>
                }
              />
              <Route path="*" element={<NotFoundPage />} />
            </Routes>
          </Suspense>
        </PageFailed>
      </main>
    </>
  );
}
