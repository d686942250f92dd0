import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter } from 'react-router';
import { AppShell, preloadPage } from './App';
import { I18nProvider } from './i18n/I18nProvider';
import { loadLanguage, storedLanguage } from './i18n/messages';

// The app's styles stay one sheet, loaded before the first paint, though
// the pages' scripts load apart: the pages' own files come first, then the
// design's, in the order they have always cascaded (a page's rule and a
// global one of the same weight: the global one wins). They are a small
// part of the page, and nothing shows unstyled while a page's script arrives.
import './pages/Home.css';
import './table/InputBar.css';
import './pages/CharacterSheet.css';
import './pages/FirstRun.css';
import './components/Markdown.css';
import './solo/Starters.css';
import './solo/Reader.css';
import './design.css';
import './styles.css';
import { applyTheme, storedTheme } from './theme';

// The chosen theme is on the page before its first paint.
applyTheme(storedTheme());

// A page's script that will not load is most often one a new build has
// replaced (the names are hashed, and the old ones are gone): load the
// app again, for the new names. Once a minute at most, so a script that is
// really missing (or a network that is down) shows its error instead.
const RELOADED_KEY = 'at.chunkReloadAt';
window.addEventListener('vite:preloadError', (event) => {
  try {
    const last = Number(sessionStorage.getItem(RELOADED_KEY)) || 0;
    if (Date.now() - last < 60_000) return;
    sessionStorage.setItem(RELOADED_KEY, String(Date.now()));
  } catch {
    return; // no storage: no way to know this is not a loop
  }
  event.preventDefault();
  window.location.reload();
});

// The page's script and the reader's words are fetched side by side; the
// app draws once the words are here (the header, then the page as soon as
// its script is).
preloadPage(window.location.pathname);
const render = () =>
  createRoot(document.getElementById('root')!).render(
    <StrictMode>
      <I18nProvider>
        <BrowserRouter>
          <AppShell />
        </BrowserRouter>
      </I18nProvider>
    </StrictMode>,
  );
// A dictionary that failed to load is tried again by the provider.
loadLanguage(storedLanguage()).then(render, render);
