import { BookOpen, ScrollText, Settings, UsersRound } from 'lucide-react';
import { lazy, Suspense } from 'react';
import { NavLink, Route, Routes } from 'react-router';
import { AccountProvider, useAccount } from './account/AccountContext';
import { AccountLink } from './account/AccountLink';
import { LanguageSelect } from './components/LanguageSelect';
import { useI18n } from './i18n/I18nProvider';
import { AccountPage } from './pages/Account';
import { HomePage } from './pages/Home';
import { NotFoundPage } from './pages/NotFound';
import { CharacterEditorPage } from './pages/CharacterEditor';
import { CharacterSheetPage } from './pages/CharacterSheet';
import { CharactersPage } from './pages/Characters';
import { JoinPage } from './pages/Join';
import { NewTablePage } from './pages/NewTable';
import { RoomPage } from './pages/Room';
import { CampaignPage } from './pages/Campaign';
import { CampaignJournalPage } from './pages/CampaignJournal';
import { SessionPage } from './pages/Session';
import { NarratorStepsPage } from './pages/NarratorSteps';
import { SettingsPage } from './pages/Settings';
import { SoloPage } from './pages/Solo';
import { AdventurePlayPage } from './solo/PlayPage';
import { ScenarioEditorPage } from './solo/ScenarioEditor';
import { TablesPage } from './pages/Tables';
import { useHeadroom } from './useHeadroom';

// Swagger UI is big: keep it out of the main bundle.
const ApiDocsPage = lazy(() => import('./pages/ApiDocs'));
// The operator's dashboard carries a chart library nobody else needs.
const OperatorPage = lazy(() => import('./pages/Operator'));

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
        <Routes key={generation}>
          <Route path="/" element={<HomePage />} />
          <Route path="/tables" element={<TablesPage />} />
          <Route path="/tables/new" element={<NewTablePage />} />
          <Route path="/join/:code" element={<JoinPage />} />
          <Route path="/rooms/:id" element={<RoomPage />} />
          <Route path="/sessions/:id" element={<SessionPage />} />
          <Route path="/campaigns/:id" element={<CampaignPage />} />
          <Route path="/campaigns/:id/journal" element={<CampaignJournalPage />} />
          <Route path="/seats/:seatId/narrator" element={<NarratorStepsPage />} />
          <Route path="/characters" element={<CharactersPage />} />
          <Route path="/characters/:id" element={<CharacterEditorPage />} />
          <Route path="/characters/:id/sheet" element={<CharacterSheetPage />} />
          <Route path="/solo" element={<SoloPage />} />
          <Route path="/solo/scenarios/:id" element={<ScenarioEditorPage />} />
          <Route path="/solo/adventures/:id" element={<AdventurePlayPage />} />
          <Route path="/settings" element={<SettingsPage />} />
          <Route path="/account" element={<AccountPage />} />
          <Route
            path="/api/docs"
            element={
              <Suspense fallback={<p aria-busy="true">{t('docs.loading')}</p>}>
                <ApiDocsPage />
              </Suspense>
            }
          />
          <Route
            path="/operator"
            element={
              <Suspense fallback={<p aria-busy="true">{t('common.loading')}</p>}>
                <OperatorPage />
              </Suspense>
            }
          />
          <Route path="*" element={<NotFoundPage />} />
        </Routes>
      </main>
    </>
  );
}
