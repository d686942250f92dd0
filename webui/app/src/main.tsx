import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter } from 'react-router';
import { AppShell } from './App';
import { I18nProvider } from './i18n/I18nProvider';
import './design.css';
import './styles.css';
import { applyTheme, storedTheme } from './theme';

// The chosen theme is on the page before its first paint.
applyTheme(storedTheme());

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <I18nProvider>
      <BrowserRouter>
        <AppShell />
      </BrowserRouter>
    </I18nProvider>
  </StrictMode>,
);
